"""``tf.concat`` of RaggedTensors along the rows (``axis=0``; TF's
``ragged_concat_ops.concat``): the flat values are concatenated, and each
ragged level's row splits too, every input's splits after the first shifted by
the number of items the inputs before it hold at that level. Dense inputs join
as ``RaggedTensor.from_tensor`` of the others' ragged rank."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.graph_ops import array_ops
from ref.graph_ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor, match_row_splits_dtypes

__all__ = ["concat"]


def concat(values, axis, name=None):
    """The rows of every element of ``values`` in order (``axis`` 0 only)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "RaggedConcat", values):
        values = [convert_to_tensor_or_ragged_tensor(v, name=f"values[{i}]") for i, v in enumerate(values)]
        if axis != 0:
            raise NotImplementedError("ref's ragged concat joins rows (axis=0) only")
        if not any(isinstance(v, RaggedTensor) for v in values):
            return array_ops.concat(values, axis)
        if len(values) == 1:
            return values[0]
        match_row_splits_dtypes(*values)
        rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
        splits_dtype = next(v.row_splits.dtype for v in values if isinstance(v, RaggedTensor))
        values = [v if isinstance(v, RaggedTensor) else
                  RaggedTensor.from_tensor(v, ragged_rank=rank, row_splits_dtype=splits_dtype) for v in values]
        if any(v.ragged_rank != rank for v in values):
            raise ValueError("ref's ragged concat needs inputs of one ragged rank")
        levels = []
        for level in range(rank):
            parts, offset = [], None
            for v in values:
                s = v.nested_row_splits[level]
                parts.append(s if offset is None else s[1:] + offset)
                offset = parts[-1][-1]
            levels.append(array_ops.concat(parts, 0))
        flat = array_ops.concat([v.flat_values for v in values], 0)
        return RaggedTensor.from_nested_row_splits(flat, levels, validate=False)
