"""A Variable's operators wrap the Tensor ones (ref.graph_ops.variables): the
same ``__name__``, ``__qualname__``, ``__module__`` and ``__doc__``, as TF's
``Variable._OverloadOperator`` (functools.wraps). TensorFlow's classes are the
oracle for which operators keep which attributes."""
import pytest

import ref
from ref.graph_ops import variables as _under_test  # noqa: F401

OPERATORS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
             "__floordiv__", "__mod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__and__", "__or__",
             "__xor__", "__lt__", "__le__", "__gt__", "__ge__", "__abs__", "__invert__"]  # (TF documents __neg__ anew)


def _same(variable_cls, tensor_cls, op):
    return [getattr(getattr(variable_cls, op), a, None) == getattr(getattr(tensor_cls, op), a, None)
            for a in ("__module__", "__name__", "__qualname__", "__doc__")]


@pytest.mark.parametrize("op", OPERATORS)
def test_variable_operator_wraps_tensor_operator_as_tf(op):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import variables as tf_variables
    assert _same(_under_test.Variable, ref.Tensor, op) == _same(tf_variables.Variable, tf.Tensor, op)
