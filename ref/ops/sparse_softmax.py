"""``SparseSoftmax`` and the element-wise maximum and minimum of two
SparseTensors (``SparseSparseMaximum``/``Minimum``), as TF's
``sparse_softmax_op.cc`` and ``sparse_sparse_binary_op_shared.cc``.

* ``SparseSoftmax``: the entries are grouped by all their coordinates but the
  last (consecutive runs of a canonically ordered tensor); each group gets
  ``exp(v - max(v)) / sum(exp(v - max(v)))``. Missing entries take no part: they
  are not zeros but absent.
* ``SparseSparseMaximum(a, b)``: the union of both index sets (each in canonical
  order), ``max(a_i, b_i)`` where both hold an entry and ``max(v, 0)`` where only
  one does (a missing entry is an implicit zero); ``Minimum`` likewise.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.ops.sparse import _check_triple, _shape_str
from ref.types.shapes import TensorShape

_REAL = dtypes.REALS


@register_op("SparseSoftmax", inputs=("sp_indices", "sp_values", "sp_shape"), outputs=("output",),
             type_attrs={"T": "sp_values"}, allowed={"T": (dtypes.float16, dtypes.float32, dtypes.float64)},
             shape=lambda ins, attrs: [(ins["sp_values"].dtype, TensorShape([ins["sp_values"].shape.as_list()[0]
                                                                           if ins["sp_values"].shape.ndims else None]))])
def sparse_softmax(sp_indices, sp_values, sp_shape):
    """Softmax over each row's present entries (the last dimension)."""
    idx, vals, shape = np.asarray(sp_indices), np.asarray(sp_values), np.asarray(sp_shape)
    _check_triple(idx, vals, shape)
    if shape.shape[0] < 2:
        raise invalid_argument(f"Input should have rank >= 2, but received shape: {_shape_str(shape)}")
    out = np.empty_like(vals)
    n = vals.shape[0]
    start = 0
    while start < n:
        end = start + 1
        while end < n and np.array_equal(idx[end, :-1], idx[start, :-1]):
            end += 1
        group = vals[start:end]
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(group - group.max())
            out[start:end] = e / e.sum(dtype=vals.dtype)
        start = end
    return out


def _union(a_indices, a_values, a_shape, b_indices, b_values, b_shape, fn):
    ai, av, ash = np.asarray(a_indices), np.asarray(a_values), np.asarray(a_shape)
    bi, bv, bsh = np.asarray(b_indices), np.asarray(b_values), np.asarray(b_shape)
    _check_triple(ai, av, ash, "a")
    _check_triple(bi, bv, bsh, "b")
    if not np.array_equal(ash, bsh):
        raise invalid_argument(f"Operands' shapes do not match: got {_shape_str(ash)} and {_shape_str(bsh)}")
    zero = np.zeros((), av.dtype)
    out_idx, out_val = [], []
    i = j = 0
    while i < ai.shape[0] and j < bi.shape[0]:
        ka, kb = tuple(ai[i]), tuple(bi[j])
        if ka == kb:
            out_idx.append(ai[i])
            out_val.append(fn(av[i], bv[j]))
            i += 1
            j += 1
        elif ka < kb:
            out_idx.append(ai[i])
            out_val.append(fn(av[i], zero))
            i += 1
        else:
            out_idx.append(bi[j])
            out_val.append(fn(zero, bv[j]))
            j += 1
    for k in range(i, ai.shape[0]):
        out_idx.append(ai[k])
        out_val.append(fn(av[k], zero))
    for k in range(j, bi.shape[0]):
        out_idx.append(bi[k])
        out_val.append(fn(zero, bv[k]))
    rank = ash.shape[0]
    indices = np.array(out_idx, dtype=np.int64).reshape(len(out_idx), rank)
    return indices, np.array(out_val, dtype=av.dtype).reshape(len(out_val))


def _sparse_binary(name):
    return register_op(name, inputs=("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape"),
                       outputs=("output_indices", "output_values"), type_attrs={"T": ("a_values", "b_values")},
                       allowed={"T": _REAL},
                       shape=lambda ins, attrs: [(dtypes.int64, TensorShape([None, None])),
                                                 (ins["a_values"].dtype, TensorShape([None]))])


@_sparse_binary("SparseSparseMaximum")
def sparse_sparse_maximum(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    """The union of the entries, max(a, b) with a missing entry taken as 0."""
    return _union(a_indices, a_values, a_shape, b_indices, b_values, b_shape, np.maximum)


@_sparse_binary("SparseSparseMinimum")
def sparse_sparse_minimum(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    """The union of the entries, min(a, b) with a missing entry taken as 0."""
    return _union(a_indices, a_values, a_shape, b_indices, b_values, b_shape, np.minimum)
