"""EditDistance (TF's edit_distance kernel): the Levenshtein distance between
the sequences of two sparse tensors, one per index of their leading dimensions."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, errors
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _ints


def _check_ranks(hs, ts, error, truth_first=False):
    """TF's check: each sparse tensor of rank >= 2 (its shape vector's length); the shape function
    checks the hypothesis first, the kernel the truth first."""
    checks = [(hs, "Input Hypothesis SparseTensors must have rank at least 2, but hypothesis_shape rank is: "),
              (ts, "Input SparseTensors must have rank at least 2, but truth_shape rank is: ")]
    for shape, message in checks[::-1] if truth_first else checks:
        if shape is not None and len(shape) < 2:
            raise error(f"{message}{len(shape)}")


def _edit_distance_shape(ins, attrs):
    hs, ts = _ints(ins["hypothesis_shape"].value), _ints(ins["truth_shape"].value)
    _check_ranks(hs, ts, lambda m: ValueError(f"{m} for '{attrs['_op_name']}' (op: 'EditDistance')"))
    if hs is not None and ts is not None:
        if len(hs) != len(ts):
            raise ValueError(f"Inconsistent ranks in hypothesis and truth: {len(hs)} vs {len(ts)} for "
                             f"'{attrs['_op_name']}'")
        return [(dtypes.float32, TensorShape([max(a, b) for a, b in zip(hs[:-1], ts[:-1])]))]
    # TF: without both shapes' values the output's shape is unknown, its rank too
    return [(dtypes.float32, unknown_shape())]


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (0 if x == y else 1))
        prev = cur
    return prev[-1]


def _groups(indices, values, shape, what):
    idx, vals = np.asarray(indices), np.asarray(values)
    if idx.ndim != 2 or idx.shape[1] != len(shape) or vals.shape != (idx.shape[0],):
        raise invalid_argument(f"{what}_indices, {what}_values and {what}_shape do not match: "
                               f"indices {idx.shape}, values {vals.shape}, shape {tuple(shape)}")
    out = {}
    for row, v in zip(idx.tolist(), vals.tolist()):
        out.setdefault(tuple(row[:-1]), []).append(v)
    return out


@register_op("EditDistance", inputs=("hypothesis_indices", "hypothesis_values", "hypothesis_shape",
                                     "truth_indices", "truth_values", "truth_shape"), outputs=("output",),
             attrs={"normalize": REQUIRED}, type_attrs={"T": ("hypothesis_values", "truth_values")},
             shape=_edit_distance_shape)
def edit_distance(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                  truth_shape, normalize):
    """``output[i..]``: the Levenshtein distance between the hypothesis and
    truth sequences at leading index ``i..`` (values in index order), divided
    by the truth's length when ``normalize`` (inf for an empty truth against a
    non-empty hypothesis); 0 where both are empty."""
    hs, ts = np.asarray(hypothesis_shape).tolist(), np.asarray(truth_shape).tolist()
    _check_ranks(hs, ts, invalid_argument, truth_first=True)
    if len(hs) != len(ts):
        raise invalid_argument(f"hypothesis_shape and truth_shape must have the same rank, got {len(hs)} and "
                               f"{len(ts)}")
    hyp = _groups(hypothesis_indices, hypothesis_values, hs, "hypothesis")
    truth = _groups(truth_indices, truth_values, ts, "truth")
    out_shape = [max(a, b) for a, b in zip(hs[:-1], ts[:-1])]
    for d in out_shape:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    out = np.zeros(out_shape, np.float32)
    strides = [int(np.prod(out_shape[i + 1:], dtype=np.int64)) for i in range(len(out_shape))]
    for loc in list(hyp) + [k for k in truth if k not in hyp]:
        # TF writes at the group's inner product with the output's strides, checked against the buffer
        flat = sum(int(i) * s for i, s in zip(loc, strides))
        if not 0 <= flat < out.size:
            raise errors.InternalError(None, None, f"Got an inner product {flat} which would require writing to "
                                                   f"outside of the buffer for the output tensor (max elements "
                                                   f"{out.size})")
        h, t = hyp.get(loc, []), truth.get(loc, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else np.inf
        out.reshape(-1)[flat] = d
    return out
