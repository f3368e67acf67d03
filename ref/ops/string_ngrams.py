"""``StringNGrams`` and ``UnsortedSegmentJoin`` (TF's string_ngrams_op and
unsorted_segment_join_op).

* ``StringNGrams``: for each row ``data[splits[i]:splits[i + 1]]`` of ``n``
  tokens and each width ``w`` of ``ngram_widths``, padded by
  ``p = min(pad_width if pad_width >= 0 else w - 1, w - 1)`` copies of
  ``left_pad`` / ``right_pad`` on each side, the ``n + 2p - w + 1`` windows of
  ``w`` items joined by ``separator``. With ``preserve_short_sequences`` a
  non-empty row too short for every width gives one n-gram of the whole row
  (padded by ``pad_width``).
* ``UnsortedSegmentJoin``: ``output[s] = separator.join(inputs[j] for j with
  segment_ids[j] == s)``, in order of ``j``; "" for an empty segment.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_INT = (dtypes.int32, dtypes.int64)


def _pad(pad_width, width):
    return min(pad_width if pad_width >= 0 else width - 1, width - 1)


def _count(length, width, pad_width):
    return max(0, length + 2 * _pad(pad_width, width) - width + 1)


def _windows(tokens, num, width, pad, sep, left, right):
    out = []
    for k in range(num):
        lp = max(0, pad - k)
        rp = max(0, pad - (num - (k + 1)))
        start = 0 if lp > 0 else k - pad
        items = [left] * lp + list(tokens[start:start + width - lp - rp]) + [right] * rp
        out.append(sep.join(items))
    return out


@register_op("StringNGrams", inputs=("data", "data_splits"), outputs=("ngrams", "ngrams_splits"),
             attrs={"separator": REQUIRED, "ngram_widths": REQUIRED, "left_pad": REQUIRED, "right_pad": REQUIRED,
                    "pad_width": REQUIRED, "preserve_short_sequences": REQUIRED},
             type_attrs={"Tsplits": "data_splits"}, allowed={"Tsplits": _INT}, input_types={"data": dtypes.string},
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([None])),
                                       (ins["data_splits"].dtype, ins["data_splits"].shape)])
def string_n_grams(data, data_splits, separator, ngram_widths, left_pad, right_pad, pad_width,
                   preserve_short_sequences):
    """The n-grams of each row of ``data`` and their row splits."""
    enc = lambda v: v if isinstance(v, bytes) else str(v).encode("utf-8")  # noqa: E731
    sep, left, right = enc(separator), enc(left_pad), enc(right_pad)
    widths = list(ngram_widths)
    if any(w <= 0 for w in widths):
        raise invalid_argument("ngram_widths must contain positive values")
    tokens = [enc(v) for v in np.asarray(data, object).reshape(-1)]
    splits = np.asarray(data_splits)
    if splits.size:
        if splits[0] != 0:
            raise invalid_argument(f"First split value must be 0, got {splits[0]}")
        for i in range(1, splits.size):
            if not splits[i - 1] <= splits[i] <= len(tokens):
                raise invalid_argument(f"Invalid split value {splits[i]}, must be in [{splits[i - 1]}, {len(tokens)}]")
        if splits[-1] != len(tokens):
            raise invalid_argument(f"Last split value must be data size. Expected {len(tokens)}, got {splits[-1]}")
    out_splits = np.zeros(splits.shape, splits.dtype)
    if not tokens or not splits.size:
        return np.empty(np.shape(data), object), out_splits
    out = []
    for i in range(splits.size - 1):
        row = tokens[splits[i]:splits[i + 1]]
        before = len(out)
        for w in widths:
            out += _windows(row, _count(len(row), w, pad_width), w, _pad(pad_width, w), sep, left, right)
        if preserve_short_sequences and len(out) == before and row:
            if pad_width < 0:
                raise invalid_argument("Pad width should be >= 0 when preserve_short_sequences is True and "
                                       f"ngram_widths are not provided, got {pad_width}")
            out += _windows(row, 1, len(row) + 2 * pad_width, pad_width, sep, left, right)
        out_splits[i + 1] = len(out)
    return np.array(out + [None], object)[:-1], out_splits


def _segment_join_shape(ins, attrs):
    x, ids, n = ins["inputs"].shape, ins["segment_ids"].shape, ins["num_segments"]
    if x.ndims is None or ids.ndims is None:
        return [(dtypes.string, unknown_shape())]
    first = None if n.value is None else int(np.asarray(n.value))
    return [(dtypes.string, TensorShape([first] + x.as_list()[ids.ndims:]))]


@register_op("UnsortedSegmentJoin", inputs=("inputs", "segment_ids", "num_segments"), attrs={"separator": ""},
             type_attrs={"Tindices": "segment_ids", "Tnumsegments": "num_segments"},
             allowed={"Tindices": _INT, "Tnumsegments": _INT}, input_types={"inputs": dtypes.string},
             shape=_segment_join_shape)
def unsorted_segment_join(inputs, segment_ids, num_segments, separator=""):
    """``output[s]``: the strings of segment ``s`` joined by ``separator``."""
    x, ids, n = np.asarray(inputs, object), np.asarray(segment_ids), np.asarray(num_segments)
    if n.ndim != 0:
        raise invalid_argument("Number of segments must be a scalar")
    n = int(n)
    if n < 0:
        raise invalid_argument(f"Number of segments must be non-negative but got {n}")
    if ids.ndim == 0:
        raise invalid_argument("Segment_id cannot have rank 0")
    if ids.ndim > x.ndim or x.shape[:ids.ndim] != ids.shape:
        raise invalid_argument(f"Segment dimension is {list(ids.shape)} while input dimension is {list(x.shape)}")
    sep = separator if isinstance(separator, bytes) else str(separator).encode("utf-8")
    inner = x.shape[ids.ndim:]
    flat_x, flat_ids = x.reshape((-1,) + inner), ids.reshape(-1)
    if np.any(flat_ids < 0) or np.any(flat_ids >= n):
        raise invalid_argument("segment_ids are not allowed to exceed num_segments or to have negative values.")
    parts = [[[] for _ in range(int(np.prod(inner, dtype=np.int64)))] for _ in range(n)]
    for j, s in enumerate(flat_ids):
        for k, v in enumerate(np.asarray(flat_x[j], object).reshape(-1)):
            parts[s][k].append(v if isinstance(v, bytes) else str(v).encode("utf-8"))
    out = np.empty((n, int(np.prod(inner, dtype=np.int64))), object)
    for s in range(n):
        for k, p in enumerate(parts[s]):
            out[s, k] = sep.join(p)
    return out.reshape((n,) + inner)
