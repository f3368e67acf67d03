"""Scans and sequences (TF's scan_ops and sequence_ops kernels): Cumsum,
Cumprod (``exclusive``, ``reverse``) and Range.
"""
from __future__ import annotations

import builtins as _builtins
import math

import numpy as np

from ref.types import dtypes
from ref.ops.math import _F, _INDEX, _NUM
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape


# ---------------------------------------------------------------------------
# Scans and sequences
# ---------------------------------------------------------------------------

def _scan(ufunc, x, axis, exclusive, reverse):
    x = np.asarray(x)
    axis = np.asarray(axis)
    if axis.ndim:
        raise invalid_argument(f"ScanOp: axis must be a scalar, not [{','.join(str(d) for d in axis.shape)}]")
    a = int(axis)
    if not -x.ndim <= a < x.ndim:  # TF reports the axis after adding the rank to a negative one
        raise invalid_argument(f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but got "
                               f"{a + x.ndim if a < 0 else a}")
    if reverse:
        x = np.flip(x, a)
    out = ufunc.accumulate(x, axis=a, dtype=x.dtype)
    if exclusive and x.shape[a]:
        identity = np.full_like(np.take(x, [0], axis=a), ufunc.identity)
        out = np.concatenate([identity, np.delete(out, -1, axis=a)], axis=a)
    return np.flip(out, a) if reverse else out


def _scan_op(name):
    return register_op(name, inputs=("x", "axis"), outputs=("out",), attrs={"exclusive": False, "reverse": False},
                       type_attrs={"T": "x", "Tidx": "axis"}, allowed={"T": _NUM, "Tidx": _INDEX},
                       shape=lambda ins, attrs: [(ins["x"].dtype, ins["x"].shape)])


@_scan_op("Cumsum")
def cumsum(x, axis, exclusive=False, reverse=False):
    """out[i] = x[0] + ... + x[i] along ``axis`` (sequential order); ``exclusive``
    leaves out x[i], ``reverse`` scans from the end."""
    return _scan(np.add, x, axis, exclusive, reverse)


@_scan_op("Cumprod")
def cumprod(x, axis, exclusive=False, reverse=False):
    """out[i] = x[0] * ... * x[i] along ``axis``; ``exclusive`` and ``reverse`` as Cumsum."""
    return _scan(np.multiply, x, axis, exclusive, reverse)


def _range_size(start, limit, delta):
    if delta == 0:
        raise ValueError(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if isinstance(start, (int, np.integer)) and isinstance(delta, (int, np.integer)):
        return (_builtins.abs(limit - start) + _builtins.abs(delta) - 1) // _builtins.abs(delta)
    return int(math.ceil(_builtins.abs((limit - start) / delta)))


def _range_shape(ins, attrs):
    vals = [ins[n].value for n in ("start", "limit", "delta")]
    dtype = ins["start"].dtype
    if _builtins.any(v is None for v in vals):
        return [(dtype, TensorShape([None]))]
    start, limit, delta = (np.asarray(v).reshape(()).item() for v in vals)
    return [(dtype, TensorShape([_range_size(start, limit, delta)]))]


@register_op("Range", inputs=("start", "limit", "delta"), type_attrs={"Tidx": ("start", "limit", "delta")},
             allowed={"Tidx": _F + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)},
             shape=_range_shape)
def range(start, limit, delta):  # noqa: A001 - TF's name
    """output[i] = start + i * delta for i < ceil((limit - start) / delta)."""
    dt = np.asarray(start).dtype
    s, l, d = (np.asarray(v).reshape(()).item() for v in (start, limit, delta))
    try:
        n = _range_size(s, l, d)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    return (np.asarray(s, dt) + np.arange(n, dtype=dt) * np.asarray(d, dt)).astype(dt)
