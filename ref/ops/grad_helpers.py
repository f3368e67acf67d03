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
    cd = np.asarray(concat_dim)
    if cd.ndim != 0:
        raise invalid_argument(f"Concat dim tensor should be a scalar integer, but got shape {list(cd.shape)}")
    shapes = [np.asarray(s) for s in shape]
    for i, s in enumerate(shapes):
        if s.ndim != 1:
            raise invalid_argument(f"input {i + 1} should be a vector, but got shape {list(s.shape)}")
    first = shapes[0]
    rank = first.size
    dim = int(cd)
    axis = dim + rank if dim < 0 else dim  # TF: a negative concat_dim counts from the end
    if not 0 <= axis < rank:
        raise invalid_argument(f"Concat dim is out of range: {dim} vs. {rank}")
    out, at = [], 0
    for i, s in enumerate(shapes):
        if s.size != rank:
            raise invalid_argument(f"input {i} should contain {rank} elements, but got {s.size}")
        if any(j != axis and s[j] != first[j] for j in range(rank)):
            raise invalid_argument(f"All dimensions except {axis} must match. Input {i} has shape "
                                   f"[{' '.join(str(v) for v in s[:10].tolist())}] and doesn't match input 0 with shape "
                                   f"[{' '.join(str(v) for v in first[:10].tolist())}].")
        off = np.zeros(rank, s.dtype)
        off[axis] = at
        at += int(s[axis])
        out.append(off)
    return out
