"""Fake quantization kernels: ``QuantizeAndDequantizeV2/V3/V4`` (TF's
``core/kernels/quantize_and_dequantize_op.h``) and ``QuantizeAndDequantizeV4Grad``.

The input is quantized to ``num_bits`` integers and back, in its own dtype::

    qmin, qmax = (-2**(b-1) (+1 if narrow_range), 2**(b-1) - 1) if signed_input else (0, 2**b - 1)
    min, max   = (input_min, input_max) if range_given else (min(input), max(input))
    scale      = min(qmin / min if qmin * min > 0 else FLT_MAX,
                     qmax / max if qmax * max > 0 else FLT_MAX)
    the side giving the scale keeps its end; the other end becomes q / scale
    output     = round(clamp(input, min, max) * scale) / scale   (no clamp without range_given)

``round`` is half to even (``round_mode="HALF_TO_EVEN"``) or ``floor(x + 0.5)``
(``"HALF_UP"``); ``1 / scale`` is TF's ``inverse_scale`` (``min / qmin`` or
``max / qmax``). With ``axis`` >= 0 each slice along ``axis`` has its own range.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import invalid_argument, register_op
from ref.types import dtypes

_FLOATS = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)


def _qdq_shape(ins, attrs):
    x = ins["input"]
    return [(x.dtype, x.shape)]


def _one_scale(x, lo, hi, signed_input, num_bits, range_given, round_mode, narrow_range):
    t = x.dtype.type
    qmin = (-(1 << (num_bits - 1)) + (1 if narrow_range else 0)) if signed_input else 0
    qmax = (1 << (num_bits - 1)) - 1 if signed_input else (1 << num_bits) - 1
    lo, hi = t(lo), t(hi)
    big = t(np.finfo(x.dtype).max)
    from_min = t(t(qmin) / lo) if t(qmin) * lo > 0 else big
    from_max = t(t(qmax) / hi) if t(qmax) * hi > 0 else big
    if from_min < from_max:
        scale, inverse = from_min, t(lo / t(qmin))
        hi = t(t(qmax) * inverse)
    else:
        scale, inverse = from_max, t(hi / t(qmax))
        lo = t(t(qmin) * inverse)
    if range_given:
        x = np.where(x > hi, hi, x)  # a NaN end clamps nothing, as Eigen's min/max
        x = np.where(x < lo, lo, x)
    y = x * scale
    y = np.rint(y) if round_mode == "HALF_TO_EVEN" else np.floor(y + t(0.5))
    return (y * inverse).astype(x.dtype, copy=False)


def _qdq(input, input_min, input_max, signed_input, num_bits, range_given, round_mode, narrow_range, axis,
         scalar_range=True):
    x = np.asarray(input)
    if axis < -1:
        raise invalid_argument(f"Axis must be at least -1. Found {axis}")
    if axis != -1 and axis >= x.ndim:
        raise invalid_argument(f"Shape must be at least rank {axis + 1} but is rank {x.ndim}")
    depth = 1 if axis == -1 else x.shape[axis]
    lo, hi = np.asarray(input_min, x.dtype), np.asarray(input_max, x.dtype)
    if range_given:
        if scalar_range:  # V2/V4 want scalars even with an axis (so a range per slice is refused), as TF
            if lo.ndim != 0:
                raise invalid_argument("input_min must be a scalar.")
            if hi.ndim != 0:
                raise invalid_argument("input_max must be a scalar.")
        if axis == -1:
            if not lo <= hi:
                raise invalid_argument(f"Invalid range: input_min {lo.item():g} > input_max {hi.item():g}")
        else:
            for what, v in (("input_min", lo), ("input_max", hi)):
                if v.ndim != 1:
                    raise invalid_argument(f"Shape must be rank 1 for {what}_tensor when the axis is specified")
                if v.shape[0] != depth:
                    raise invalid_argument(f"{what}_tensor has incorrect size, was {v.shape[0]} expected {depth} "
                                           f"to match dim {axis} of the input {list(v.shape)}")
    if x.size == 0:
        return x.copy()
    if axis == -1:
        if not range_given:
            lo, hi = x.min(), x.max()
        return _one_scale(x, lo, hi, signed_input, num_bits, range_given, round_mode, narrow_range)
    out = np.empty_like(x)
    for i in range(depth):
        chip = np.take(x, i, axis=axis)
        c_lo, c_hi = (lo[i], hi[i]) if range_given else (chip.min(), chip.max())
        idx = (slice(None),) * axis + (i,)
        out[idx] = _one_scale(chip, c_lo, c_hi, signed_input, num_bits, range_given, round_mode, narrow_range)
    return out


def _check_bits(num_bits, signed_input, name="num_bits"):
    if not 0 < num_bits < (62 if signed_input else 63):
        raise invalid_argument(f"num_bits is out of range: {num_bits} with {name} {int(bool(signed_input))}")


def _check_round_mode(round_mode):
    if round_mode not in ("HALF_UP", "HALF_TO_EVEN"):
        raise invalid_argument(f"Round mode string must be 'HALF_UP' or 'HALF_TO_EVEN', is '{round_mode}'")


_V2_ATTRS = {"signed_input": True, "num_bits": 8, "range_given": False, "round_mode": "HALF_TO_EVEN",
             "narrow_range": False, "axis": -1}


@register_op("QuantizeAndDequantizeV2", inputs=("input", "input_min", "input_max"), attrs=_V2_ATTRS,
             type_attrs={"T": ("input", "input_min", "input_max")}, allowed={"T": _FLOATS}, shape=_qdq_shape)
def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True, num_bits=8,  # noqa: A002
                               range_given=False, round_mode="HALF_TO_EVEN", narrow_range=False, axis=-1):
    """output = round(clamp(input) * scale) / scale (formula in the module docstring)."""
    _check_bits(num_bits, signed_input, "signed_input_")
    _check_round_mode(round_mode)
    return _qdq(input, input_min, input_max, signed_input, num_bits, range_given, round_mode, narrow_range, axis)


@register_op("QuantizeAndDequantizeV4", inputs=("input", "input_min", "input_max"), attrs=_V2_ATTRS,
             type_attrs={"T": ("input", "input_min", "input_max")}, allowed={"T": _FLOATS}, shape=_qdq_shape)
def quantize_and_dequantize_v4(input, input_min, input_max, signed_input=True, num_bits=8,  # noqa: A002
                               range_given=False, round_mode="HALF_TO_EVEN", narrow_range=False, axis=-1):
    """QuantizeAndDequantizeV2 (V4 differs only in its gradient)."""
    _check_bits(num_bits, signed_input, "signed_input_")
    _check_round_mode(round_mode)
    return _qdq(input, input_min, input_max, signed_input, num_bits, range_given, round_mode, narrow_range, axis)


@register_op("QuantizeAndDequantizeV3", inputs=("input", "input_min", "input_max", "num_bits"),
             attrs={"signed_input": True, "range_given": True, "narrow_range": False, "axis": -1},
             type_attrs={"T": ("input", "input_min", "input_max")}, allowed={"T": _FLOATS}, shape=_qdq_shape)
def quantize_and_dequantize_v3(input, input_min, input_max, num_bits, signed_input=True, range_given=True,  # noqa: A002
                               narrow_range=False, axis=-1):
    """QuantizeAndDequantizeV2 with ``num_bits`` an int32 scalar input, rounding half to even."""
    x = np.asarray(input)
    if not -x.ndim <= axis < x.ndim:
        raise invalid_argument(f"Axis requested is larger than input dimensions. Axis: {axis} "
                               f"Input Dimensions: {x.ndim}")
    nb = np.asarray(num_bits)
    if nb.ndim != 0:
        raise invalid_argument(f"Invalid shape. The `num_bits` tensor should be a scalar. Got dimensions: {nb.ndim}")
    _check_bits(int(nb), signed_input, "`signed_input_`")
    return _qdq(x, input_min, input_max, signed_input, int(nb), range_given, "HALF_TO_EVEN", narrow_range, axis,
                scalar_range=False)


def _v4_grad_shape(ins, attrs):
    x, lo = ins["input"], ins["input_min"]
    return [(x.dtype, x.shape), (x.dtype, lo.shape), (x.dtype, lo.shape)]


@register_op("QuantizeAndDequantizeV4Grad", inputs=("gradients", "input", "input_min", "input_max"),
             outputs=("input_backprop", "input_min_backprop", "input_max_backprop"), attrs={"axis": -1},
             type_attrs={"T": ("gradients", "input", "input_min", "input_max")}, allowed={"T": _FLOATS},
             shape=_v4_grad_shape)
def quantize_and_dequantize_v4_grad(gradients, input, input_min, input_max, axis=-1):  # noqa: A002
    """input_backprop = gradients where input_min <= input <= input_max, else 0
    (per slice along ``axis``); the range gets zero gradients."""
    g, x = np.asarray(gradients), np.asarray(input)
    lo, hi = np.asarray(input_min, x.dtype), np.asarray(input_max, x.dtype)
    if g.shape != x.shape:
        raise invalid_argument("gradient and input must be the same size")
    if axis < -1 or axis >= max(x.ndim, 1) and axis != -1:
        raise invalid_argument(f"Axis should be -1 or 0 or a positive value less than {x.ndim}but given axis "
                               f"value was {axis}")
    if axis == -1:
        if lo.ndim != 0 or hi.ndim != 0:
            raise invalid_argument("input_min must be a scalar if axis is unspecified")
        mask = (x >= lo) & (x <= hi)
    else:
        depth = x.shape[axis]
        if lo.ndim != 1 or hi.ndim != 1 or lo.shape[0] != depth or hi.shape[0] != depth:
            raise invalid_argument(f"min has incorrect size, expected {depth} was {lo.shape[0] if lo.ndim else 0}")
        shape = [1] * x.ndim
        shape[axis] = depth
        mask = (x >= lo.reshape(shape)) & (x <= hi.reshape(shape))
    zero = np.zeros(lo.shape, x.dtype)
    return np.where(mask, g, np.zeros((), g.dtype)).astype(x.dtype, copy=False), zero, zero.copy()
