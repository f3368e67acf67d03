"""Reductions of a SparseTensor over some of its axes: SparseReduceSum,
SparseReduceMax and their ``...Sparse`` forms, which return a SparseTensor (TF's
``sparse_reduce_op.cc``).

The entries are grouped by their coordinates outside ``reduction_axes``: the sum
counts missing entries as 0, the max takes the stored entries only (a dense
position no entry projects onto holds the dtype's lowest value); the ``...Sparse``
forms have one entry per position some entry projects onto. ``keep_dims`` keeps
the reduced axes with size 1. The sparse triple conventions are those of
:mod:`ref.ops.sparse`.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.ops.sparse import _check_triple, _const_vector, _shape_str
from ref.types.shapes import TensorShape, unknown_shape


def _reduce_axes(axes, rank):
    axes = [int(a) for a in np.asarray(axes).reshape(-1)]
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise invalid_argument(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        out.append(a % rank)
    return sorted(set(out))


def _sparse_reduce(indices, values, shape, axes, keep_dims):
    idx, vals, shape = np.asarray(indices), np.asarray(values), np.asarray(shape)
    _check_triple(idx, vals, shape)
    rank = shape.shape[0]
    if int(np.prod([int(d) for d in shape], dtype=object)) >= 2**63:
        raise invalid_argument(f"Encountered overflow when multiplying shape dimensions {_shape_str(shape)}")
    axes = _reduce_axes(axes, rank)
    kept = [d for d in range(rank) if d not in axes]
    out_shape = [1 if d in axes else int(shape[d]) for d in range(rank)] if keep_dims else \
        [int(shape[d]) for d in kept]
    return idx, vals, shape, axes, kept, out_shape


def _sparse_reduce_shape(ins, attrs):
    dims = _const_vector(ins["input_shape"])
    axes = _const_vector(ins["reduction_axes"])
    if dims is None or axes is None:
        return [(ins["input_values"].dtype, unknown_shape())]
    rank = len(dims)
    axes = {a % rank for a in axes if -rank <= a < rank}
    if attrs.get("keep_dims"):
        shape = [1 if d in axes else dims[d] for d in range(rank)]
    else:
        shape = [dims[d] for d in range(rank) if d not in axes]
    return [(ins["input_values"].dtype, TensorShape(shape))]


@register_op("SparseReduceSum", inputs=("input_indices", "input_values", "input_shape", "reduction_axes"),
             outputs=("output",), attrs={"keep_dims": False}, type_attrs={"T": "input_values"},
             allowed={"T": dtypes.NUMBERS}, shape=_sparse_reduce_shape)
def sparse_reduce_sum(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
    """The dense sum of the sparse tensor over ``reduction_axes`` (missing
    entries count as 0): ``output[j] = sum of values[i] with indices[i]``
    projecting onto ``j``; kept axes of size 1 with ``keep_dims``."""
    idx, vals, shape, axes, kept, out_shape = _sparse_reduce(input_indices, input_values, input_shape,
                                                             reduction_axes, keep_dims)
    out = np.zeros([int(shape[d]) for d in kept] or [1], dtype=vals.dtype)
    if idx.shape[0]:
        where = tuple(idx[:, kept].T.astype(np.int64)) if kept else np.zeros(idx.shape[0], np.int64)
        np.add.at(out, where, vals)
    return out.reshape(out_shape)


@register_op("SparseReduceSumSparse", inputs=("input_indices", "input_values", "input_shape", "reduction_axes"),
             outputs=("output_indices", "output_values", "output_shape"), attrs={"keep_dims": False},
             type_attrs={"T": "input_values"}, allowed={"T": dtypes.NUMBERS},
             shape=lambda ins, attrs: [(dtypes.int64, unknown_shape()), (ins["input_values"].dtype, unknown_shape()),
                                       (dtypes.int64, unknown_shape())])
def sparse_reduce_sum_sparse(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
    """SparseReduceSum with a sparse result: one entry per distinct projected
    index present in the input, in canonical order."""
    return _reduce_to_sparse(input_indices, input_values, input_shape, reduction_axes, keep_dims, np.add)


def _reduce_to_sparse(input_indices, input_values, input_shape, reduction_axes, keep_dims, ufunc):
    idx, vals, shape, axes, kept, out_shape = _sparse_reduce(input_indices, input_values, input_shape,
                                                             reduction_axes, keep_dims)
    cols = list(range(len(shape))) if keep_dims else kept
    proj = idx.astype(np.int64).copy()
    if keep_dims:
        proj[:, axes] = 0
    proj = proj[:, cols]
    if proj.shape[0] == 0:
        return np.zeros((0, len(cols)), np.int64), vals[:0], np.array(out_shape, np.int64)
    uniq, inverse = np.unique(proj, axis=0, return_inverse=True)
    out = np.full(uniq.shape[0], 0 if ufunc is np.add else _lowest(vals.dtype), dtype=vals.dtype)
    ufunc.at(out, inverse.reshape(-1), vals)
    return uniq.astype(np.int64), out, np.array(out_shape, np.int64)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


@register_op("SparseReduceMax", inputs=("input_indices", "input_values", "input_shape", "reduction_axes"),
             outputs=("output",), attrs={"keep_dims": False}, type_attrs={"T": "input_values"},
             allowed={"T": dtypes.REALS}, shape=_sparse_reduce_shape)
def sparse_reduce_max(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
    """The dense maximum over ``reduction_axes`` of the stored entries only:
    a cell that no entry projects onto is 0 (TF's semantics, not the dense
    max with the implicit zeros)."""
    idx, vals, shape, axes, kept, out_shape = _sparse_reduce(input_indices, input_values, input_shape,
                                                             reduction_axes, keep_dims)
    out = np.full([int(shape[d]) for d in kept] or [1], _lowest(vals.dtype), dtype=vals.dtype)
    hit = np.zeros(out.shape, bool)
    if idx.shape[0]:
        where = tuple(idx[:, kept].T.astype(np.int64)) if kept else np.zeros(idx.shape[0], np.int64)
        np.maximum.at(out, where, vals)
        hit[where] = True
    out[~hit] = 0
    return out.reshape(out_shape)


@register_op("SparseReduceMaxSparse", inputs=("input_indices", "input_values", "input_shape", "reduction_axes"),
             outputs=("output_indices", "output_values", "output_shape"), attrs={"keep_dims": False},
             type_attrs={"T": "input_values"}, allowed={"T": dtypes.REALS},
             shape=lambda ins, attrs: [(dtypes.int64, unknown_shape()), (ins["input_values"].dtype, unknown_shape()),
                                       (dtypes.int64, unknown_shape())])
def sparse_reduce_max_sparse(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
    """SparseReduceMax with a sparse result: one entry per projected index present."""
    return _reduce_to_sparse(input_indices, input_values, input_shape, reduction_axes, keep_dims, np.maximum)
