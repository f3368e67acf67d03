"""``tf.ragged.row_splits_to_segment_ids`` and ``segment_ids_to_row_splits``
(TF's ragged/segment_id_ops.py), as TF builds them: the row of each value is
``range(nrows)`` repeated by the row lengths (``repeat_with_axis``); the splits
of sorted segment ids are ``[0] + cumsum(bincount(ids))``."""
from __future__ import annotations

from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.counting_ops import bincount
from ref.graph_ops.repeat_ops import repeat_with_axis
from ref.types import dtypes
from ref.types.shapes import TensorShape, dimension_value

__all__ = ["row_splits_to_segment_ids", "segment_ids_to_row_splits"]


def _int32_tensor(value, name):
    """TF's convert_to_int_tensor(..., dtype=int32): integer or TypeError, then a Cast node."""
    t = convert_to_tensor(value, name=name, dtype_hint=dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: {name}) must be of type integer. Received `tensor` = {t} "
                        f"of dtype: {t.dtype}")
    return apply_op("Cast", x=t, DstT=dtypes.int32, name="Cast")


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The segment id (row) of each value of a ragged tensor with ``splits``:
    ``i`` repeated ``splits[i + 1] - splits[i]`` times."""
    with name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = convert_to_tensor(splits, name="splits", dtype_hint=dtypes.int64)
        if splits.dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("splits must have dtype int32 or int64")
        splits.shape.assert_has_rank(1)
        if dimension_value(splits.shape[0]) == 0:
            raise ValueError("Invalid row_splits: []")
        out_type = splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        row_lengths = splits[1:] - splits[:-1]
        nrows = array_ops.shape(splits, out_type=out_type)[-1] - 1
        indices = math_ops.range(nrows)
        return repeat_with_axis(indices, repeats=row_lengths, axis=0)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of sorted ``segment_ids``: ``[0] + cumsum(counts)``, with
    ``num_segments`` rows (default ``max(segment_ids) + 1``)."""
    if out_type is None:
        if isinstance(segment_ids, Tensor):
            out_type = segment_ids.dtype
        elif isinstance(num_segments, Tensor):
            out_type = num_segments.dtype
        else:
            out_type = dtypes.int64
    else:
        out_type = dtypes.as_dtype(out_type)
    with name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        segment_ids = _int32_tensor(segment_ids, "segment_ids")
        segment_ids.shape.assert_has_rank(1)
        if num_segments is not None:
            num_segments = _int32_tensor(num_segments, "num_segments")
            num_segments.shape.assert_has_rank(0)
        row_lengths = bincount(segment_ids, minlength=num_segments, maxlength=num_segments, dtype=out_type)
        splits = array_ops.concat([[0], math_ops.cumsum(row_lengths)], axis=0)
        if num_segments is not None:
            known = constant_value(num_segments)
            if known is not None:
                splits.set_shape(TensorShape([int(known) + 1]))
        return splits
