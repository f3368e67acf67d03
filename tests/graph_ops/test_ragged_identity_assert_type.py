"""``tf.identity`` and ``tf.debugging.assert_type`` of a RaggedTensor
(ref.graph_ops.ragged_tensor registers both): an Identity per component (the
flat values, then the row splits) giving a RaggedTensor of the same values;
assert_type checks the flat values' dtype (TF's TypeError wording). TensorFlow
on the same v1 graph is the oracle: op types in creation order, values, errors."""
import pytest

import ref
from ref.graph_ops import ragged_tensor as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour

ROWS = [  # (ragged value, dtype, dtype asserted)
    ([[1.0, 2.0], [3.0]], "float32", "float32"),
    ([[1, 2], [], [3]], "int32", "float32"),
    ([[[1, 2], [3]], [[4]]], "int64", "int64"),
    ([[b"a"], [b"b", b"c"]], "string", "string"),
]


def _run(lib, value, dtype, asserted):
    with lib.Graph().as_default() as g:
        x = lib.ragged.constant(value, dtype=getattr(lib, dtype))
        n = len(g.get_operations())
        try:
            check = lib.debugging.assert_type(x, getattr(lib, asserted))
        except TypeError as e:
            return "TypeError", str(e).split("; got")[0].split(" must be")[1]
        with lib.control_dependencies([check]):
            y = lib.identity(x)
        added = [op.type for op in g.get_operations()[n:]]
        with lib.Session() as sess:
            return type(y).__name__, added, sess.run(y).to_list()


@pytest.mark.parametrize("value,dtype,asserted", ROWS)
def test_ragged_identity_and_assert_type_as_tf(value, dtype, asserted):
    tf = pytest.importorskip("tensorflow")
    with tf1_behaviour():
        want = _run(tf.compat.v1, value, dtype, asserted)
    assert _run(ref, value, dtype, asserted) == want
