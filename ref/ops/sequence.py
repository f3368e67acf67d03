"""Scans and sequences (TF's scan_ops and sequence_ops kernels): Cumsum,
Cumprod, CumulativeLogsumexp (``exclusive``, ``reverse``) and Range.
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

def _scan_axis(x, axis):
    """The scan axis in [0, rank), or TF's InvalidArgumentError."""
    axis = np.asarray(axis)
    if axis.ndim:
        raise invalid_argument(f"ScanOp: axis must be a scalar, not [{','.join(str(d) for d in axis.shape)}]")
    a = int(axis)
    if not -x.ndim <= a < x.ndim:  # TF reports the axis after adding the rank to a negative one
        raise invalid_argument(f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but got "
                               f"{a + x.ndim if a < 0 else a}")
    return a % x.ndim


def _scan(ufunc, x, axis, exclusive, reverse):
    x = np.asarray(x)
    a = _scan_axis(x, axis)
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


def _logsumexp_pair(acc, t):
    """TF's LogSumExp reducer: max(a, b) + log1p(exp(min(a, b) - max(a, b))),
    or max(a, b) itself when that is below the dtype's lowest (-inf)."""
    ma, mi = np.maximum(acc, t), np.minimum(acc, t)
    with np.errstate(invalid="ignore", over="ignore"):
        out = ma + np.log1p(np.exp(mi - ma))
    return np.where(ma < np.finfo(ma.dtype).min, ma, out).astype(ma.dtype, copy=False)


@register_op("CumulativeLogsumexp", inputs=("x", "axis"), outputs=("out",), attrs={"exclusive": False, "reverse": False},
             type_attrs={"T": "x", "Tidx": "axis"}, allowed={"T": _F, "Tidx": _INDEX},
             shape=lambda ins, attrs: [(ins["x"].dtype, ins["x"].shape)])
def cumulative_logsumexp(x, axis, exclusive=False, reverse=False):
    """out[i] = log(exp(x[0]) + ... + exp(x[i])) along ``axis``, accumulated in
    order from -inf with TF's pairwise LogSumExp; ``exclusive`` and ``reverse``
    as Cumsum (an exclusive scan starts at -inf)."""
    x = np.asarray(x)
    a = _scan_axis(x, axis)
    v = np.moveaxis(np.flip(x, a) if reverse else x, a, 0)
    out = np.empty_like(v)
    acc = np.full(v.shape[1:], -np.inf, v.dtype)
    for i in _builtins.range(v.shape[0]):
        if exclusive:
            out[i] = acc
            acc = _logsumexp_pair(acc, v[i])
        else:
            acc = _logsumexp_pair(acc, v[i])
            out[i] = acc
    out = np.moveaxis(out, 0, a)
    return np.flip(out, a) if reverse else out


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
