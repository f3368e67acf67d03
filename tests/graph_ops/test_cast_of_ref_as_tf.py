"""tf.cast of a reference tensor (a ``float32_ref`` from a TF1 ``VariableV2``) against
TensorFlow: TF builds a Cast to the value dtype (the ref dtype differs from the base
one), while a tensor or Variable already of the dtype comes back as it is."""
import pytest

import ref
from ref.graph_ops import math_ops as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1


def _variable_ref(t):
    if t is ref:
        from ref.framework.op_def_library import apply_op
        return apply_op("VariableV2", shape=[1], dtype=t.float32, container="", shared_name="")
    from tensorflow.python.ops import gen_state_ops
    return gen_state_ops.variable(shape=[1], dtype=t.float32)


CASES = {
    "ref_tensor": lambda t: _variable_ref(t),
    "value_tensor": lambda t: t.constant([1.0]),
    "variable": lambda t: t.Variable([1.0], use_resource=False),
    "resource_variable": lambda t: t.Variable([1.0], use_resource=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cast_of_references_matches_tf(name):
    def built(t):
        with t.Graph().as_default():
            x = CASES[name](t)
            y = t.cast(x, t.float32)
            return x.dtype.name, y.dtype.name, y.op.type
    assert built(ref) == built(tf1)
