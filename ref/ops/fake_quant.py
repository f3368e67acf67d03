"""Fake quantization (TF's ``fake_quant_ops``): float32 values rounded onto
the grid of ``2**num_bits`` levels spanning a nudged ``[min, max]``, as
quantization-aware training simulates an 8-bit (or 2..16-bit) inference.

The nudge (TF's ``Nudge``, all in float32), with ``qmin = narrow_range ? 1 : 0``
and ``qmax = 2**num_bits - 1``::

    scale = (max - min) / (qmax - qmin);   inv_scale = (qmax - qmin) / (max - min)
    zero  = qmin - min / scale, clamped to [qmin, qmax], else std::round(zero)
    nudged_min = (qmin - zero) * scale;    nudged_max = (qmax - zero) * scale

then, element by element, ``c = clamp(x, nudged_min, nudged_max)`` and::

    out = floor((c - nudged_min) * inv_scale - quant_zero + 0.5) * scale,
    quant_zero = floor(-nudged_min * inv_scale + 0.5)

(``FakeQuantWithMinMaxVars`` divides by ``scale`` where the others multiply by
``inv_scale``, as TF's functors do). ``min == max == 0`` gives zeros. The
gradients pass ``grad`` where ``nudged_min <= x <= nudged_max``; the ``Vars``
forms also return ``sum(grad)`` below and above the range for ``min``/``max``.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape

_F32 = np.float32
_ARGS = {"min": -6.0, "max": 6.0, "num_bits": 8, "narrow_range": False}
_VARS = {"num_bits": 8, "narrow_range": False}


def _float_like_inputs(ins, attrs):
    return [(dtypes.float32, ins["inputs"].shape)]


def _levels(num_bits, narrow_range):
    if not 2 <= int(num_bits) <= 16:
        raise invalid_argument("num_bits must be between 2 and 16, inclusive")
    return (1 if narrow_range else 0), (1 << int(num_bits)) - 1


def _std_round(v: float) -> float:
    """C's round: halves away from zero."""
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def nudge(min_, max_, quant_min, quant_max):
    """(nudged_min, nudged_max, scale, inv_scale) as float32 scalars, TF's ``Nudge``."""
    mn, mx = _F32(min_), _F32(max_)
    qmin, qmax = _F32(quant_min), _F32(quant_max)
    with np.errstate(all="ignore"):
        scale = _F32((mx - mn) / (qmax - qmin))
        inv_scale = _F32((qmax - qmin) / (mx - mn))
        zero_from_min = _F32(qmin - mn / scale)
    if zero_from_min < qmin:
        zero = _F32(quant_min)
    elif zero_from_min > qmax:
        zero = _F32(quant_max)
    elif np.isnan(zero_from_min):
        zero = _F32(0)
    else:
        zero = _F32(int(_std_round(float(zero_from_min))) & 0xFFFF)  # TF keeps it in a uint16
    return _F32((qmin - zero) * scale), _F32((qmax - zero) * scale), scale, inv_scale


def _quantize(x, min_, max_, quant_min, quant_max, divide=False):
    x = np.asarray(x, _F32)
    if _F32(min_) == 0 and _F32(max_) == 0:
        return np.zeros_like(x)
    nmin, nmax, scale, inv_scale = nudge(min_, max_, quant_min, quant_max)
    with np.errstate(all="ignore"):  # a zero-width range (min == max != 0) gives NaNs, as TF's
        quant_zero = np.floor(_F32(_F32(-nmin) * inv_scale + _F32(0.5)))
        shifted = np.maximum(np.minimum(x, nmax), nmin) - nmin
        scaled = shifted / scale if divide else shifted * inv_scale
        return (np.floor(scaled - quant_zero + _F32(0.5)) * scale).astype(_F32, copy=False)


def _inside(x, min_, max_, quant_min, quant_max):
    nmin, nmax, _, _ = nudge(min_, max_, quant_min, quant_max)
    return (x >= nmin) & (x <= nmax), x < nmin, x > nmax


def _check_args(min, max):  # noqa: A002 - TF's attr names
    if not min < max:
        raise invalid_argument(f"min has to be smaller than max, was: {min} >= {max}")


@register_op("FakeQuantWithMinMaxArgs", inputs=("inputs",), outputs=("outputs",), attrs=dict(_ARGS),
             input_types={"inputs": dtypes.float32}, shape=_float_like_inputs)
def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False):  # noqa: A002
    """``inputs`` fake-quantized onto the grid of the nudged [min, max] (attrs)."""
    _check_args(min, max)
    qmin, qmax = _levels(num_bits, narrow_range)
    return _quantize(inputs, min, max, qmin, qmax)


@register_op("FakeQuantWithMinMaxArgsGradient", inputs=("gradients", "inputs"), outputs=("backprops",),
             attrs=dict(_ARGS), input_types={"gradients": dtypes.float32, "inputs": dtypes.float32},
             shape=_float_like_inputs)
def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                                          narrow_range=False):
    """``gradients`` where the input lies in the nudged range, 0 elsewhere."""
    _check_args(min, max)
    qmin, qmax = _levels(num_bits, narrow_range)
    g, x = np.asarray(gradients, _F32), np.asarray(inputs, _F32)
    if g.shape != x.shape:
        raise invalid_argument("gradient and input must be the same size")
    inside, _, _ = _inside(x, min, max, qmin, qmax)
    return g * inside.astype(_F32)


def _scalar(v, what):
    v = np.asarray(v, _F32)
    if v.ndim != 0:
        raise invalid_argument(f"`{what}` must be rank 0 but is rank {v.ndim}")
    return v[()]


@register_op("FakeQuantWithMinMaxVars", inputs=("inputs", "min", "max"), outputs=("outputs",), attrs=dict(_VARS),
             input_types={"inputs": dtypes.float32, "min": dtypes.float32, "max": dtypes.float32},
             shape=_float_like_inputs)
def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002
    """``inputs`` fake-quantized onto the grid of the nudged [min, max] (scalar tensors)."""
    qmin, qmax = _levels(num_bits, narrow_range)
    return _quantize(inputs, _scalar(min, "min"), _scalar(max, "max"), qmin, qmax, divide=True)


def _vars_grad_shape(ins, attrs):
    return [(dtypes.float32, ins["inputs"].shape), (dtypes.float32, TensorShape([])),
            (dtypes.float32, TensorShape([]))]


def _pass_and_spill(g, x, mn, mx, qmin, qmax, axis=None):
    if _F32(mn) == 0 and _F32(mx) == 0:
        zero = np.zeros((), _F32) if axis is None else np.zeros(g.shape[-1:], _F32)
        return g.copy(), zero, zero
    inside, below, above = _inside(x, mn, mx, qmin, qmax)
    return (g * inside.astype(_F32), np.sum(g * below.astype(_F32), axis=axis, dtype=_F32),
            np.sum(g * above.astype(_F32), axis=axis, dtype=_F32))


@register_op("FakeQuantWithMinMaxVarsGradient", inputs=("gradients", "inputs", "min", "max"),
             outputs=("backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"), attrs=dict(_VARS),
             input_types={"gradients": dtypes.float32, "inputs": dtypes.float32, "min": dtypes.float32,
                          "max": dtypes.float32}, shape=_vars_grad_shape)
def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                          narrow_range=False):
    """(grad inside the nudged range, sum of grad below it, sum of grad above it)."""
    qmin, qmax = _levels(num_bits, narrow_range)
    g, x = np.asarray(gradients, _F32), np.asarray(inputs, _F32)
    if g.shape != x.shape:
        raise invalid_argument("gradient and input must be the same size")
    gi, gmin, gmax = _pass_and_spill(g, x, _scalar(min, "min"), _scalar(max, "max"), qmin, qmax)
    return gi, np.asarray(gmin, _F32), np.asarray(gmax, _F32)


def _channels(x, mn, mx):
    x, mn, mx = np.asarray(x, _F32), np.asarray(mn, _F32), np.asarray(mx, _F32)
    if x.ndim < 1 or mn.ndim != 1 or mx.ndim != 1 or not x.shape[-1] == mn.shape[0] == mx.shape[0]:
        raise invalid_argument(f"min and max must be vectors as long as the last dimension of inputs: "
                               f"inputs {list(x.shape)}, min {list(mn.shape)}, max {list(mx.shape)}")
    return x, mn, mx


def _per_channel_shape(ins, attrs, grads=False):
    s = ins["inputs"].shape
    d = s.as_list()[-1:] if s.ndims else [None]
    out = [(dtypes.float32, s)]
    return out + [(dtypes.float32, TensorShape(d))] * 2 if grads else out


@register_op("FakeQuantWithMinMaxVarsPerChannel", inputs=("inputs", "min", "max"), outputs=("outputs",),
             attrs=dict(_VARS), input_types={"inputs": dtypes.float32, "min": dtypes.float32, "max": dtypes.float32},
             shape=_per_channel_shape)
def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002
    """Each channel (last dimension) fake-quantized with its own [min[c], max[c]]."""
    qmin, qmax = _levels(num_bits, narrow_range)
    x, mn, mx = _channels(inputs, min, max)
    out = np.empty_like(x)
    for c in range(mn.shape[0]):
        out[..., c] = _quantize(x[..., c], mn[c], mx[c], qmin, qmax)
    return out


@register_op("FakeQuantWithMinMaxVarsPerChannelGradient", inputs=("gradients", "inputs", "min", "max"),
             outputs=("backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"), attrs=dict(_VARS),
             input_types={"gradients": dtypes.float32, "inputs": dtypes.float32, "min": dtypes.float32,
                          "max": dtypes.float32}, shape=lambda ins, attrs: _per_channel_shape(ins, attrs, True))
def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False):
    """Per channel: grad inside its nudged range, and the sums of grad below and above it."""
    qmin, qmax = _levels(num_bits, narrow_range)
    x, mn, mx = _channels(inputs, min, max)
    g = np.asarray(gradients, _F32)
    if g.shape != x.shape:
        raise invalid_argument("gradient and input must be the same size")
    gi, gmin, gmax = np.empty_like(g), np.empty(mn.shape, _F32), np.empty(mn.shape, _F32)
    for c in range(mn.shape[0]):
        gi[..., c], gmin[c], gmax[c] = _pass_and_spill(g[..., c], x[..., c], mn[c], mx[c], qmin, qmax)
    return gi, gmin, gmax
