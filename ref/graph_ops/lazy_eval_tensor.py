"""The regularization loss ``get_variable(regularizer=...)`` puts in
``GraphKeys.REGULARIZATION_LOSSES``, as TF 2.x's TF1 ``variable_scope``
builds it: not a tensor but a thunk. Its attributes (``name``, ``op``,
``dtype``, ``shape``, ...) are those of a first evaluation (the "master"
tensor, built when the variable is made, in ``<var>/Regularizer/``); every
conversion to a tensor (``add_n`` of the collection,
``tf.losses.get_regularization_loss()``, ``loss + reg``) evaluates the
thunk again, so each use gets its own copy of the regularizer's ops (named
``<var>/Regularizer/L2Loss_1``, ``..._2``, ...). A ``Session`` fetches the
master tensor."""
from ref.framework.op_def_library import register_tensor_conversion_function

__all__ = []


class LazyEvalTensor:
    """A tensor-like thunk: reads go to the master tensor, uses to a new one."""

    def __init__(self, thunk):
        self._thunk = thunk
        self._master_tensor = thunk()

    def _as_tensor(self, dtype=None, name=None, as_ref=False):
        del name
        if as_ref:
            raise ValueError("A regularization loss cannot be used as a reference")
        if dtype is not None and dtype != self.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype!r} for a regularization loss of dtype "
                             f"{self.dtype!r}")
        return self._thunk()

    def _as_graph_element(self):
        return self._master_tensor

    def get_shape(self):
        return self._master_tensor.get_shape()

    def __str__(self):
        return str(self._master_tensor)

    def __repr__(self):
        return f"<LazyEvalTensor of {self._master_tensor!r}>"


def _master_property(name):
    return property(lambda self: getattr(self._master_tensor, name))


for _name in ("device", "dtype", "graph", "name", "op", "shape", "value_index"):
    setattr(LazyEvalTensor, _name, _master_property(_name))


def _op_method(name):
    def method(self, *args, **kwargs):
        return getattr(self._as_tensor(), name)(*args, **kwargs)
    method.__name__ = name
    return method


for _name in ("__abs__", "__add__", "__and__", "__bool__", "__eq__", "__floordiv__", "__ge__", "__getitem__",
              "__gt__", "__invert__", "__iter__", "__le__", "__len__", "__lt__", "__matmul__", "__mod__", "__mul__",
              "__ne__", "__neg__", "__or__", "__pow__", "__radd__", "__rand__", "__rfloordiv__", "__rmatmul__",
              "__rmod__", "__rmul__", "__ror__", "__rpow__", "__rsub__", "__rtruediv__", "__rxor__", "__sub__",
              "__truediv__", "__xor__", "eval"):
    setattr(LazyEvalTensor, _name, _op_method(_name))
LazyEvalTensor.__hash__ = object.__hash__

register_tensor_conversion_function(LazyEvalTensor, lambda value, dtype=None, name=None, as_ref=False:
                                    value._as_tensor(dtype, name, as_ref))
