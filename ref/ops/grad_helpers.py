"""Ops TF's gradient functions build: ``ConcatOffset`` (where each input of a
concatenation starts along its axis; the ConcatV2 gradient slices with it)."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape


def _concat_offset_shape(ins, attrs):
    return [(s.dtype, s.shape) for s in ins["shape"]]


@register_op("ConcatOffset", inputs=("concat_dim", "shape"), outputs=("*offset",), list_inputs={"shape": "N"},
             type_attrs={"shape_type": "shape"}, allowed={"shape_type": (dtypes.int32, dtypes.int64)},
             shape=_concat_offset_shape)
def concat_offset(concat_dim, shape):
    """offset[i] is zero except along ``concat_dim``, where it is the sum of the
    earlier shapes' sizes there (the shapes must agree on every other dim)."""
    dim = int(np.asarray(concat_dim))
    shapes = [np.asarray(s) for s in shape]
    first = shapes[0]
    if first.ndim != 1:
        raise invalid_argument(f"input 1 should be a vector, got shape {list(first.shape)}")
    rank = first.size
    if not 0 <= dim < rank:
        raise invalid_argument(f"Concat dim is out of range: {dim} vs. {rank}")
    out, at = [], 0
    for i, s in enumerate(shapes):
        if s.size != rank:
            raise invalid_argument(f"input {i + 1} should contain {rank} elements, but got {s.size}")
        bad = [j for j in range(rank) if j != dim and s[j] != first[j]]
        if bad:
            j = bad[0]
            raise invalid_argument(f"input[{i}, {j}] mismatch: {s[j]} vs. {first[j]}")
        off = np.zeros(rank, s.dtype)
        off[dim] = at
        at += int(s[dim])
        out.append(off)
    return out
