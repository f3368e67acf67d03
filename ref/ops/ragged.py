"""Ragged kernels: ``RaggedTensorToTensor``, ``RaggedTensorToSparse``,
``RaggedFillEmptyRows`` (and its gradient kernel).

A ragged tensor of ragged rank K is its flat ``values`` (``[N] + inner``) and K
row partitions, outermost first. A ``ROW_SPLITS`` partition of a level with R
rows is an [R + 1] vector: row r holds the next level's items
``splits[r]:splits[r + 1]``. ``FIRST_DIM_SIZE`` (a scalar, the number of
outermost rows) followed by ``VALUE_ROWIDS`` partitions (item i belongs to row
``rowids[i]``, non-decreasing) is the other encoding TF's kernel accepts.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_INDEX = (dtypes.int32, dtypes.int64)


def _types(attrs):
    return [t.decode() if isinstance(t, bytes) else str(t) for t in attrs["row_partition_types"]]


def _to_tensor_rule(ins, attrs):
    ragged_rank = len([t for t in _types(attrs) if t != "FIRST_DIM_SIZE"])
    values = ins["values"].shape
    rank = None if values.ndims is None else values.ndims + ragged_rank
    shape = ins["shape"]
    if shape.value is not None and np.ndim(shape.value) == 1:
        dims = [None if d < 0 else int(d) for d in np.asarray(shape.value).reshape(-1)]
        if rank is not None and len(dims) != rank:
            raise ValueError(f"The shape {dims} has rank {len(dims)} but the ragged tensor has rank {rank}")
        inner = values.as_list()[1:] if values.ndims is not None else []
        for i, (d, v) in enumerate(zip(dims[ragged_rank + 1:], inner)):
            if d is not None and v is not None and d != v:
                raise ValueError(f"rt_input.shape and shape={dims} are incompatible: "
                                 f"rt_input.shape[{ragged_rank + 1 + i}] = {v} but shape[{ragged_rank + 1 + i}] = {d}")
        return [(ins["values"].dtype, TensorShape(dims))]
    if rank is None:
        return [(ins["values"].dtype, unknown_shape())]
    inner = values.as_list()[1:]
    return [(ins["values"].dtype, TensorShape([None] * ragged_rank + [None] + inner))]


def _shape_str(dims):
    return "[" + ",".join(str(d) for d in dims) + "]"


def _splits_of(types, partitions):
    """The partitions as ROW_SPLITS vectors, outermost first."""
    if types and types[0] == "FIRST_DIM_SIZE":
        nrows = int(np.asarray(partitions[0]))
        splits = []
        for t, rowids in zip(types[1:], partitions[1:]):
            if t != "VALUE_ROWIDS":
                raise invalid_argument(f"Cannot handle partition type {t} after FIRST_DIM_SIZE")
            rowids = np.asarray(rowids, dtype=np.int64).reshape(-1)
            if rowids.size and (np.any(np.diff(rowids) < 0) or rowids[0] < 0 or rowids[-1] >= nrows):
                raise invalid_argument("Invalid value_rowids: must be sorted and in [0, nrows)")
            splits.append(np.searchsorted(rowids, np.arange(nrows + 1), side="left").astype(np.int64))
            nrows = rowids.size
        return splits
    out = []
    for t, p in zip(types, partitions):
        if t != "ROW_SPLITS":
            raise invalid_argument(f"Invalid first partition input. Tensor conversion requires a "
                                   f"FIRST_DIM_SIZE or ROW_SPLITS, got {t}")
        out.append(np.asarray(p, dtype=np.int64).reshape(-1))
    return out


@register_op("RaggedTensorToTensor", inputs=("shape", "values", "default_value", "row_partition_tensors"),
             outputs=("result",), list_inputs={"row_partition_tensors": "num_row_partition_tensors"},
             type_attrs={"T": ("values", "default_value"), "Tindex": "row_partition_tensors", "Tshape": "shape"},
             allowed={"Tindex": _INDEX, "Tshape": _INDEX},
             attrs={"row_partition_types": REQUIRED}, shape=_to_tensor_rule)
def ragged_tensor_to_tensor(shape, values, default_value, row_partition_tensors, row_partition_types,
                            num_row_partition_tensors=None):
    """The dense tensor of a ragged one: item ``[i0, i1, ..., j...]`` of row
    ``i0``'s ``i1``-th row ...; positions no row reaches hold ``default_value``
    (broadcast to the inner shape); ``shape`` (-1 or a scalar: as needed) cuts
    or pads every dimension."""
    types = [t.decode() if isinstance(t, bytes) else str(t) for t in row_partition_types]
    splits = _splits_of(types, list(row_partition_tensors))
    values = np.asarray(values)
    for k, s in enumerate(splits):
        if s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0):
            raise invalid_argument(f"Invalid row_splits at level {k}: must start at 0 and be non-decreasing")
        size = values.shape[0] if k == len(splits) - 1 else splits[k + 1].size - 1
        if s[-1] != size:
            raise invalid_argument(f"Invalid row_splits at level {k}: the last split {s[-1]} is not the "
                                   f"number of items {size}")
    # Each value's coordinates: innermost first, then the rows holding it outward.
    n = values.shape[0]
    coords = [np.zeros(n, np.int64) for _ in range(len(splits) + 1)]
    item = np.arange(n, dtype=np.int64)
    for k in range(len(splits) - 1, -1, -1):
        row = np.searchsorted(splits[k], item, side="right") - 1
        coords[k + 1] = item - splits[k][row]
        item = row
    coords[0] = item
    natural = [splits[0].size - 1] + [int(np.max(np.diff(s), initial=0)) for s in splits] + list(values.shape[1:])
    rank = len(natural)
    shape = np.asarray(shape).reshape(-1)
    if shape.size == 0 or (np.ndim(shape) == 1 and shape.size == 1 and rank != 1 and shape[0] == -1):
        out_shape = natural
    else:
        if shape.size != rank:
            raise invalid_argument(f"shape has rank {shape.size} but the ragged tensor has rank {rank}")
        out_shape = [natural[i] if d < 0 else int(d) for i, d in enumerate(shape)]
        for i in range(len(splits) + 1, rank):
            if out_shape[i] != natural[i]:
                raise invalid_argument(f"rt_input.shape and shape={_shape_str(out_shape)} are incompatible: "
                                       f"rt_input.shape[{i}] = {natural[i]} but shape[{i}] = {out_shape[i]}")
    default = np.asarray(default_value, dtype=values.dtype)
    inner_out = out_shape[len(splits) + 1:]
    try:
        np.broadcast_shapes(default.shape, tuple(inner_out))
    except ValueError:
        raise invalid_argument(f"default_value.shape={list(default.shape)} and rt_input.flat_values.shape="
                               f"{list(values.shape)} are incompatible")
    out = np.empty(out_shape, dtype=values.dtype)
    out[...] = default
    keep = np.ones(n, bool)
    for k, c in enumerate(coords):
        keep &= c < out_shape[k]
    inner_in = values.shape[1:]
    cut = tuple(slice(0, min(a, b)) for a, b in zip(inner_in, inner_out))
    sel = tuple(c[keep] for c in coords)
    out[sel + cut] = values[keep][(slice(None),) + cut]
    return out


def _checked_splits(nested_splits, nvals):
    """The splits as int64 vectors, each checked as TF's kernels do: starting at 0,
    non-decreasing, ending at the next level's length."""
    out = [np.asarray(s, dtype=np.int64).reshape(-1) for s in nested_splits]
    for k, s in enumerate(out):
        if s.size == 0:
            raise invalid_argument("ragged splits may not be empty.")
        if s[0] != 0:
            raise invalid_argument(f"First value of ragged splits must be 0; got {s[0]}")
        if np.any(np.diff(s) < 0):
            raise invalid_argument("Ragged splits should be non decreasing, but we got "
                                   f"{s[int(np.nonzero(np.diff(s) < 0)[0][0])]} followed by "
                                   f"{s[int(np.nonzero(np.diff(s) < 0)[0][0]) + 1]}")
        size = nvals if k == len(out) - 1 else out[k + 1].size - 1
        if s[-1] != size:
            raise invalid_argument(f"Final value of ragged splits must match the length the corresponding "
                                   f"ragged values: got {s[-1]} instead of {size}")
    return out


def _to_sparse_rule(ins, attrs):
    splits = ins["rt_nested_splits"]
    values = ins["rt_dense_values"].shape
    rank = None if values.ndims is None else values.ndims + len(splits)
    return [(dtypes.int64, TensorShape([None, rank])), (ins["rt_dense_values"].dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


@register_op("RaggedTensorToSparse", inputs=("rt_nested_splits", "rt_dense_values"),
             outputs=("sparse_indices", "sparse_values", "sparse_dense_shape"),
             list_inputs={"rt_nested_splits": "RAGGED_RANK"},
             type_attrs={"T": "rt_dense_values", "Tsplits": "rt_nested_splits"}, allowed={"Tsplits": _INDEX},
             shape=_to_sparse_rule)
def ragged_tensor_to_sparse(rt_nested_splits, rt_dense_values, RAGGED_RANK=None):  # noqa: N803 -- TF's attr
    """The SparseTensor of a ragged one: one entry per scalar of the flat values,
    in row-major order; index ``[i0, i1, ..., iK, j...]`` (row, position in each
    ragged level, then the inner position); dense shape = [nrows, the longest
    row of each level, inner shape...]."""
    values = np.asarray(rt_dense_values)
    if values.ndim < 1:
        raise invalid_argument("rt_dense_values must have rank at least 1")
    splits = _checked_splits(rt_nested_splits, values.shape[0])
    n = values.shape[0]
    coords = [None] * (len(splits) + 1)
    item = np.arange(n, dtype=np.int64)
    for k in range(len(splits) - 1, -1, -1):
        row = np.searchsorted(splits[k], item, side="right") - 1
        coords[k + 1] = item - splits[k][row]
        item = row
    coords[0] = item
    inner = values.shape[1:]
    m = int(np.prod(inner, dtype=np.int64))
    outer = np.stack(coords, axis=1) if n else np.zeros((0, len(coords)), np.int64)
    inner_idx = np.stack(np.unravel_index(np.arange(m), inner), axis=1).astype(np.int64) if inner else \
        np.zeros((1, 0), np.int64)
    indices = np.concatenate([np.repeat(outer, m, axis=0), np.tile(inner_idx, (n, 1))], axis=1)
    dense_shape = [splits[0].size - 1] + [int(np.max(np.diff(s), initial=0)) for s in splits] + list(inner)
    return indices, values.reshape(-1), np.asarray(dense_shape, np.int64)


@register_op("RaggedFillEmptyRows", inputs=("value_rowids", "values", "nrows", "default_value"),
             outputs=("output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"),
             type_attrs={"T": ("values", "default_value")},
             shape=lambda ins, attrs: [(dtypes.int64, TensorShape([None])),
                                       (ins["values"].dtype, TensorShape([None])),
                                       (dtypes.bool, TensorShape([None])),
                                       (dtypes.int64, ins["value_rowids"].shape)])
def ragged_fill_empty_rows(value_rowids, values, nrows, default_value):
    """Every row with no value gets one, ``default_value``; the values stay in
    row order. ``empty_row_indicator[r]`` says row r was empty,
    ``reverse_index_map[i]`` is where input value i went (TF's
    ``RaggedFillEmptyRows``, the row-ids form of ``SparseFillEmptyRows``)."""
    rowids, vals = np.asarray(value_rowids, dtype=np.int64), np.asarray(values)
    default, rows = np.asarray(default_value), int(np.asarray(nrows))
    if rowids.ndim != 1:
        raise invalid_argument(f"value_rowids must be a vector, saw: {_shape_str(rowids.shape)}")
    if vals.ndim != 1:
        raise invalid_argument(f"values must be a vector, saw: {_shape_str(vals.shape)}")
    if default.ndim != 0:
        raise invalid_argument(f"default_value must be a scalar, saw: {_shape_str(default.shape)}")
    if rowids.shape[0] != vals.shape[0]:
        raise invalid_argument(f"The length of `values` ({vals.shape[0]}) must match the first dimension of "
                               f"`value_rowids` ({rowids.shape[0]}).")
    n = rowids.shape[0]
    if n and rows <= 0:
        raise invalid_argument(f"Received RaggedTensor with nrows = 0 but value_rowids.shape[0] = {n}")
    if n and (rowids.min() < 0 or rowids.max() >= rows):
        i = int(np.nonzero((rowids < 0) | (rowids >= rows))[0][0])
        raise invalid_argument(f"value_rowids({i}) is invalid: {rowids[i]} >= {rows}")
    counts = np.bincount(rowids, minlength=rows) if n else np.zeros(max(rows, 0), np.int64)
    empty = counts == 0
    per_row = np.maximum(counts, 1)
    start = _exclusive_cumsum(per_row) if rows else np.zeros(0, np.int64)
    total = int(per_row.sum())
    out_rows = np.repeat(np.arange(rows, dtype=np.int64), per_row)
    out_vals = np.empty(total, dtype=vals.dtype)
    out_vals[start[empty]] = default
    # value i goes to its row's start, after the values of its row before it
    order = np.argsort(rowids, kind="stable")
    sorted_rows = rowids[order]
    reverse = np.empty(n, np.int64)
    reverse[order] = start[sorted_rows] + np.arange(n, dtype=np.int64) - _exclusive_cumsum(counts)[sorted_rows]
    out_vals[reverse] = vals
    return out_rows, out_vals, empty, reverse


def _exclusive_cumsum(counts):
    """Where each row's values begin when no row is padded."""
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


@register_op("RaggedFillEmptyRowsGrad", inputs=("reverse_index_map", "grad_values"),
             outputs=("d_values", "d_default_value"), type_attrs={"T": "grad_values"},
             shape=lambda ins, attrs: [(ins["grad_values"].dtype, ins["reverse_index_map"].shape),
                                       (ins["grad_values"].dtype, TensorShape([]))])
def ragged_fill_empty_rows_grad(reverse_index_map, grad_values):
    """``d_values[i] = grad_values[reverse_index_map[i]]``; ``d_default_value``
    sums the gradients of the values that were added."""
    rmap, g = np.asarray(reverse_index_map, dtype=np.int64), np.asarray(grad_values)
    if rmap.ndim != 1 or g.ndim != 1:
        raise invalid_argument(f"reverse_index_map and grad_values must be vectors, saw: "
                               f"{_shape_str(rmap.shape)} and {_shape_str(g.shape)}")
    if rmap.size and (rmap.min() < 0 or rmap.max() >= g.shape[0]):
        bad = int(np.nonzero((rmap < 0) | (rmap >= g.shape[0]))[0][0])
        raise invalid_argument(f"Elements in reverse index must be in [0, {g.shape[0]}) but got {int(rmap[bad])}")
    visited = np.zeros(g.shape[0], bool)
    visited[rmap] = True
    return g[rmap], np.asarray(g[~visited].sum(dtype=g.dtype), dtype=g.dtype)
