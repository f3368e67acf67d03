"""Ragged kernels: ``RaggedTensorToTensor``.

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
