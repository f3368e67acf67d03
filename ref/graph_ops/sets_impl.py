"""``tf.sets``: set operations along the last dimension of dense or sparse tensors.

The sets of a rank-R tensor are its slices along the last dimension (for a
SparseTensor, the stored values of each index of the first R-1 dimensions).
Results are SparseTensors whose sets are sorted (TF's sets_impl.py).
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.op_def_library import apply_op
from ref.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor

__all__ = ["set_size", "set_intersection", "set_difference", "set_union", "size", "intersection", "difference",
           "union"]

_VALID_DTYPES = frozenset([dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16,
                           dtypes.string])


def set_size(a, validate_indices=True):
    """The number of unique elements along the last dimension of SparseTensor
    ``a`` (int32, shape ``a.dense_shape[:-1]``). TypeError for a dense ``a``."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: "
                        f"`{sorted(d.name for d in _VALID_DTYPES)}`.")
    return apply_op("SetSize", set_indices=a.indices, set_values=a.values, set_shape=a.dense_shape,
                    validate_indices=validate_indices)


def _convert(a, b):
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{sorted(d.name for d in _VALID_DTYPES)}`.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True  # the kernels take (dense, sparse) only
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices=True):
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your "
                             "inputs.")
        ind, val, shape = apply_op("SparseToSparseSetOperation", set1_indices=a.indices, set1_values=a.values,
                                   set1_shape=a.dense_shape, set2_indices=b.indices, set2_values=b.values,
                                   set2_shape=b.dense_shape, set_operation=set_operation,
                                   validate_indices=validate_indices)
    elif isinstance(b, SparseTensor):
        ind, val, shape = apply_op("DenseToSparseSetOperation", set1=a, set2_indices=b.indices,
                                   set2_values=b.values, set2_shape=b.dense_shape, set_operation=set_operation,
                                   validate_indices=validate_indices)
    else:
        ind, val, shape = apply_op("DenseToDenseSetOperation", set1=a, set2=b, set_operation=set_operation,
                                   validate_indices=validate_indices)
    return SparseTensor(ind, val, shape)


def set_intersection(a, b, validate_indices=True):
    """The intersection of the last-dimension sets of ``a`` and ``b`` (dense or
    sparse; a sparse ``a`` with a dense ``b`` is flipped, as TF does)."""
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """``a - b`` (``aminusb``) or ``b - a`` of the last-dimension sets."""
    a, b, flipped = _convert(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a, b, validate_indices=True):
    """The union of the last-dimension sets of ``a`` and ``b``."""
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "union", validate_indices)


size, intersection, difference, union = set_size, set_intersection, set_difference, set_union
