"""``Tensor``, a symbolic handle to one output of an ``Operation`` (TF's
``framework/tensor.py``). Operators and ``__getitem__`` are registered onto it
from above (``ref.graph_ops.math_ops``, ``ref.graph_ops.array_ops``).
"""
from __future__ import annotations

from ref.types import dtypes
from ref.types.shapes import TensorShape, as_shape
from ref.framework.stack import get_default_session


class Tensor:
    """A symbolic handle to one output of an ``Operation``."""

    # ``assign`` is set only on a slice of a variable (``v[1:3].assign(x)``), as TF does.
    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "assign", "__weakref__")
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtypes.as_dtype(dtype)
        self._shape = as_shape(shape)

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape (TF: merge; incompatible shapes raise ValueError)."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self):
        return self.graph._consumers_of(self)

    def eval(self, feed_dict=None, session=None):
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        return session.run(self, feed_dict)

    def _as_graph_element(self):
        return self

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        """TF's ``Tensor("name:0", shape=(?, 3), dtype=float32)`` (no shape when the rank is
        unknown); the shape as ``str(TensorShape)`` writes it (``None`` for an unknown
        dimension under TF 2 shapes)."""
        shape = "" if self._shape.ndims is None else f", shape={self._shape}"
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'

    __hash__ = object.__hash__  # identity, as __eq__; C-level, since every feed and plan lookup hashes tensors

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def _eager_value(self):
        """The value now, in a graph that runs its ops at once (the scratch graph an
        ``EagerPyFunc``'s function runs in: ``ref.session.eager_call`` sets its
        ``_eager_evaluate``, as TF's eager tensors have values); else None."""
        evaluate = getattr(self.graph, "_eager_evaluate", None)
        return evaluate(self) if evaluate is not None else None

    def __bool__(self):
        value = self._eager_value()
        if value is not None:
            return bool(value)
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
                        "instead of `if t:` to test if a tensor is defined, and use TensorFlow ops such "
                        "as tf.cond to execute subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        shape = self._shape
        if shape.ndims is None or shape.ndims == 0 or shape.as_list()[0] is None:
            raise TypeError("Tensor objects are only iterable when the first dimension is known "
                            f"(got shape {shape}).")
        return iter([self[i] for i in range(shape.as_list()[0])])

    def __len__(self):
        raise TypeError(f"len is not well defined for symbolic Tensors. ({self.name}) "
                        "Please call `x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None, copy=None):
        value = self._eager_value()
        if value is not None:
            return value.astype(dtype) if dtype is not None else value
        raise TypeError(f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array.")


# Operators (``+``, ``*``, ``<``, ``@``, ...) and ``__getitem__`` are registered onto
# Tensor from above, by ref.graph_ops.math_ops and ref.graph_ops.array_ops, as
# TF's math_ops registers them onto framework/ops.py's Tensor.
