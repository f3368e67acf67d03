"""``tf.ragged.constant`` and ``tf.compat.v1.ragged.constant_value``: a
RaggedTensor (or RaggedTensorValue) from nested Python lists.

As TF's ``ops/ragged/ragged_factory_ops.py``: the list's scalars must all sit at
one depth K. ``inner_shape`` (uniform dimensions of the flat values) defaults
to () -- or, when ``ragged_rank`` is given, to the shape the innermost
K - 1 - ragged_rank levels all share; ``ragged_rank`` defaults to
``max(1, K - 1 - len(inner_shape))`` (``max(1, depth - 1)`` for a list of empty
lists). Each ragged level is concatenated and records its row splits;
the flat values become one constant of shape ``[n] + inner_shape``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant as _dense_constant
from ref.graph_ops import array_ops
from ref.graph_ops.ragged_tensor import RaggedTensor, RaggedTensorValue, is_ragged

__all__ = ["constant", "constant_value", "placeholder"]


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """The RaggedTensor of ``pylist`` (a plain Tensor when ragged_rank is 0)."""
    def ragged(values, splits):
        row_splits = _dense_constant(splits, dtype=row_splits_dtype)
        return RaggedTensor.from_row_splits(values, row_splits, validate=False)

    with name_scope(name, "RaggedConstant"):
        return _constant_value(ragged, lambda v, d, shape, name="Const": _dense_constant(v, d, shape, name=name),
                               pylist, dtype, ragged_rank, inner_shape)


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None, row_splits_dtype="int64"):
    """The RaggedTensorValue of ``pylist`` (NumPy arrays; a plain array when ragged_rank is 0)."""
    splits_np = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    if dtype is not None and isinstance(dtype, dtypes.DType):
        dtype = dtype.as_numpy_dtype

    def inner(values, d, shape, name=None):
        return np.reshape(np.array(values, dtype=d), shape)

    return _constant_value(lambda v, s: RaggedTensorValue(v, np.asarray(s, splits_np)), inner, pylist, dtype,
                           ragged_rank, inner_shape)


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor fed through placeholders: ``flat_values`` of ``[None] + value_shape``
    and one int64 row-splits placeholder per ragged dimension."""
    if ragged_rank == 0:
        return array_ops.placeholder(dtype, value_shape, name)
    with name_scope(name, "RaggedPlaceholder", []):
        flat_shape = [None] + list(value_shape or [])
        result = array_ops.placeholder(dtype, flat_shape, "flat_values")
        for i in reversed(range(ragged_rank)):
            splits = array_ops.placeholder(dtypes.int64, [None], f"row_splits_{i}")
            result = RaggedTensor.from_row_splits(result, splits, validate=False)
        return result


def _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape):
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not isinstance(pylist, (list, tuple)) and not (isinstance(pylist, np.ndarray) and pylist.ndim > 0):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
        if inner_shape is not None and inner_shape:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with dim(inner_shape)={len(inner_shape)}")
        return inner_factory(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _scalar_and_max_depth(pylist)
    if scalar_depth is not None and max_depth > scalar_depth:
        raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than scalar value nesting")
    if ragged_rank is not None and max_depth < ragged_rank:
        raise ValueError(f"Invalid pylist={pylist}, max depth smaller than ragged_rank={ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        expected_depth = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected_depth != scalar_depth) or \
                (scalar_depth is None and expected_depth < max_depth):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} and "
                             f"dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or (ragged_rank is None and (
            (max_depth < 2) or (inner_shape is not None and max_depth - len(inner_shape) < 2))):
        return inner_factory(pylist, dtype, inner_shape)
    if inner_shape is None:
        if ragged_rank is None:
            inner_shape = ()
        else:
            inner_shape = _default_inner_shape(pylist, ragged_rank)
    if ragged_rank is None:
        if scalar_depth is None:
            ragged_rank = max(1, max_depth - 1)
        else:
            ragged_rank = max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits, values = [], pylist
    for dim in range(ragged_rank):
        nested_splits.append([0])
        concatenated = []
        for row in values:
            if not isinstance(row, (list, tuple, np.ndarray)):
                raise ValueError(f"pylist has scalar values depth {dim + 1}, but ragged_rank={ragged_rank} "
                                 f"requires scalar value depth greater than {ragged_rank}")
            concatenated.extend(row)
            nested_splits[-1].append(len(concatenated))
        values = concatenated
    result = inner_factory(values, dtype, (len(values),) + tuple(inner_shape), name="values")
    for splits in reversed(nested_splits):
        result = ragged_factory(result, splits)
    return result


def _scalar_and_max_depth(pylist):
    """(depth of the scalars or None when there are none, deepest nesting of lists)."""
    if isinstance(pylist, (list, tuple, np.ndarray)):
        scalar_depth, max_depth = None, 1
        for child in pylist:
            child_scalar, child_max = _scalar_and_max_depth(child)
            if child_scalar is not None:
                if scalar_depth is not None and scalar_depth != child_scalar + 1:
                    raise ValueError("all scalar values must have the same nesting depth")
                scalar_depth = child_scalar + 1
            max_depth = max(max_depth, child_max + 1)
        return scalar_depth, max_depth
    return 0, 0


def _is_nested(item):
    return isinstance(item, (list, tuple)) or np.ndim(item) != 0


def _default_inner_shape(pylist, ragged_rank):
    """The uniform shape of the flat values' items: flatten ``ragged_rank``
    levels, take the shape along the first item, and check that every item has
    it (ValueError "inner values have inconsistent shape" otherwise)."""
    flat = pylist
    for dim in range(ragged_rank):
        if not all(_is_nested(v) for v in flat):
            raise ValueError(f"pylist has scalar values depth {dim + 1}, but ragged_rank={ragged_rank} "
                             f"requires scalar value depth greater than {ragged_rank}")
        flat = [x for v in flat for x in v]

    def first_shape(item):
        if not _is_nested(item):
            return ()
        return (len(item),) + first_shape(item[0]) if len(item) else (0,)

    def check(item, shape):
        if _is_nested(item) != bool(shape) or (shape and shape[0] != len(item)):
            raise ValueError("inner values have inconsistent shape")
        for child in (item if shape else ()):
            check(child, shape[1:])

    shape = first_shape(flat)
    check(flat, shape)
    return shape[1:]
