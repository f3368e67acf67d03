"""TF's ``cond_v2.cond_v2`` and ``cond_v2.indexed_case`` in a TF1 graph
(ref.graph_ops.control_flow_ops.cond_v2, switch_case_ops.indexed_case): a
functional ``If`` whatever the control-flow mode, values and gradients as
TF's (an index out of range takes the last branch). TensorFlow's own
``cond_v2`` module on the same v1 graph is the oracle (TF's indexed_case is
one ``Case`` op, ref's a chain of ``If`` s: values and gradients compared)."""
import pytest

import ref
from ref.graph_ops import switch_case_ops as _under_test  # noqa: F401
from ref.graph_ops.control_flow_ops import cond_v2
from tests.graph_ops._graphdef import tf1_behaviour

ROWS = [  # (kind, selector value)
    ("cond", True), ("cond", False),
    ("case", 0), ("case", 1), ("case", 2), ("case", 7), ("case", -1),
]


def _run(lib, cond_v2_fn, case_fn, kind, sel):
    with lib.Graph().as_default() as g:
        a, b = lib.constant(2.0), lib.constant(5.0)
        fns = [lambda: a * 17.0, lambda: b + 23.0, lambda: a * b]
        if kind == "cond":
            z = cond_v2_fn(lib.constant(sel), fns[0], fns[1])
        else:
            z = case_fn(lib.constant(sel), fns)
        grads = lib.gradients(z, [a, b])
        types = sorted({op.type for op in g.get_operations()} & {"If", "StatelessIf", "Switch", "Merge"})
        with lib.Session() as sess:
            return ("If" in types or "StatelessIf" in types or kind == "case", "Switch" in types,
                    sess.run(z), [None if x is None else float(sess.run(x)) for x in grads])


@pytest.mark.parametrize("kind,sel", ROWS)
def test_cond_v2_and_indexed_case_as_tf(kind, sel):
    pytest.importorskip("tensorflow")
    import tensorflow as tf
    from tensorflow.python.ops import cond_v2 as tf_cond_v2
    with tf1_behaviour():
        want = _run(tf.compat.v1, tf_cond_v2.cond_v2, tf_cond_v2.indexed_case, kind, sel)
    got = _run(ref, cond_v2, _under_test.indexed_case, kind, sel)
    assert got == want
