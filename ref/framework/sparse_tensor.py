"""``SparseTensor``: a sparse tensor as three dense tensors, and its value type.

TF's ``framework/sparse_tensor.py``: a ``SparseTensor`` of rank R holding N
entries is ``indices`` (int64 ``[N, R]``), ``values`` (``[N]``, any dtype) and
``dense_shape`` (int64 ``[R]``); the dense tensor it stands for is
``dense[indices[i]] = values[i]``, zero elsewhere. ``Session.run`` fetches it
as a :class:`SparseTensorValue` and accepts one (or an ``(indices, values,
dense_shape)`` tuple) as its feed.
"""
from __future__ import annotations

import collections

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.stack import get_default_session
from ref.framework.tensor_util import constant_value_as_shape
from ref.types.shapes import TensorShape, as_shape

__all__ = ["SparseTensor", "SparseTensorValue", "is_sparse", "convert_to_tensor_or_sparse_tensor"]


class SparseTensorValue(collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])):
    """The value of a ``SparseTensor``: NumPy ``indices``, ``values``, ``dense_shape``."""

    __slots__ = ()

    def __repr__(self):
        return f"SparseTensorValue(indices={self.indices!r}, values={self.values!r}, dense_shape={self.dense_shape!r})"


class SparseTensor:
    """Represents a sparse tensor (``tf.SparseTensor``).

    ``SparseTensor(indices, values, dense_shape)``: ``indices`` becomes an int64
    ``[N, ndims]`` tensor, ``values`` a ``[N]`` tensor, ``dense_shape`` an int64
    ``[ndims]`` tensor. The static shape (``shape``/``get_shape()``) is what is
    known of ``dense_shape``'s value at graph construction, refined by
    ``set_shape``. Ops expect ``indices`` in canonical row-major order; use
    ``tf.sparse.reorder`` for one built out of order.
    """

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if not is_sparse(sparse_tensor_value):
            raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} is neither a SparseTensor nor "
                            "SparseTensorValue.")
        return SparseTensor(indices=sparse_tensor_value.indices, values=sparse_tensor_value.values,
                            dense_shape=sparse_tensor_value.dense_shape)

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes.int64)
            dense_shape_default = constant_value_as_shape(dense_shape)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dense_shape_default = dense_shape_default
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape.dims[0].assert_is_compatible_with(values_shape.dims[0])
        indices_shape.dims[1].assert_is_compatible_with(dense_shape_shape.dims[0])

    indices = property(lambda self: self._indices, doc="The int64 ``[N, ndims]`` indices of the stored entries.")
    values = property(lambda self: self._values, doc="The ``[N]`` values of the stored entries.")
    dense_shape = property(lambda self: self._dense_shape, doc="The int64 ``[ndims]`` shape of the dense tensor.")
    op = property(lambda self: self._values.op, doc="The Operation that produces ``values``.")
    dtype = property(lambda self: self._values.dtype, doc="The DType of the elements.")
    graph = property(lambda self: self._indices.graph, doc="The Graph holding the three tensors.")

    @property
    def shape(self) -> TensorShape:
        """The static shape of the dense tensor."""
        return self._dense_shape_default

    def get_shape(self) -> TensorShape:
        return self._dense_shape_default

    def set_shape(self, shape):
        """Refines the static shape (merge; ValueError when incompatible)."""
        self._dense_shape_default = self._dense_shape_default.merge_with(as_shape(shape))

    def with_values(self, new_values):
        """The same indices and dense_shape with ``new_values``."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def consumers(self):
        return sorted({op for t in (self._indices, self._values, self._dense_shape) for op in t.consumers()},
                      key=lambda op: op._id)

    def _is_eager(self) -> bool:
        """TF's: whether the components are eager tensors -- never in ref, which builds graphs only."""
        return False

    def _numpy(self):
        """TF's dense value of an eager SparseTensor: a graph's has none (TF's ValueError)."""
        raise ValueError("SparseTensor.numpy() is only supported in eager mode.")

    def eval(self, feed_dict=None, session=None):
        """The value in ``session`` (or the default session): a SparseTensorValue."""
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        if session.graph is not self.graph:
            raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different "
                             "from the session's graph.")
        return session.run(self, feed_dict)

    def __repr__(self):
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"

    def __bool__(self):
        raise TypeError("Using a `tf.SparseTensor` as a Python `bool` is not allowed.")


def is_sparse(x) -> bool:
    """True for a SparseTensor or SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor for a SparseTensor(Value), else ``convert_to_tensor(value)``."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype: requested = {dtype}, actual = {value.dtype}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def as_sparse(value, what="sp_input") -> SparseTensor:
    """``value`` as a SparseTensor (a SparseTensorValue is converted); TypeError otherwise."""
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if not isinstance(value, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(value).__name__} for {what}.")
    return value

