"""Grayscale morphological dilation (TF's dilation_ops CPU kernels):
Dilation2D, Dilation2DBackpropInput, Dilation2DBackpropFilter.

``out[b, y, x, c] = max over (dy, dx) of images[b, y * sy + dy * ry - top,
x * sx + dx * rx - left, c] + filter[dy, dx, c]``, taps outside the image
skipped. The backprops send each output's gradient to the tap that won: the
first strictly greater one in (dy, dx) order, as TF's loop does.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape, unknown_shape

_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.int16,
      dtypes.int8, dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)
_ATTRS = {"strides": REQUIRED, "rates": REQUIRED, "padding": REQUIRED}


def _geometry(n, k, s, r, padding):
    ke = (k - 1) * r + 1
    if padding == "VALID":
        return max((n - ke + s) // s, 0), 0
    out = -(-n // s)
    return out, max((out - 1) * s + ke - n, 0) // 2


def _check_attrs(strides, rates, padding, op):
    for what, v in (("strides", strides), ("rates", rates)):
        if len(v) != 4 or int(v[0]) != 1 or int(v[3]) != 1:
            raise ValueError(f"{op}: {what} must be [1, r, c, 1], got {list(v)}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{op}: padding must be SAME or VALID, got {padding}")


def _shape(ins, attrs):
    op = attrs.get("_op_name", "Dilation2D")
    _check_attrs(attrs["strides"], attrs["rates"], attrs["padding"], op)
    x = ins["input"].shape
    f = ins["filter"].shape
    if x.ndims is None or f.ndims is None:
        return [(ins["input"].dtype, unknown_shape(4))]
    x, f = x.as_list(), f.as_list()
    if len(x) != 4 or len(f) != 3:
        raise ValueError(f"'{op}': input must be rank 4 and filter rank 3, got {x} and {f}")
    if x[3] is not None and f[2] is not None and x[3] != f[2]:
        raise ValueError(f"Dimensions must be equal, but are {x[3]} and {f[2]} for '{op}'")
    s, r = attrs["strides"], attrs["rates"]
    sp = [None if x[a] is None or f[a - 1] is None else
          _geometry(x[a], f[a - 1], int(s[a]), int(r[a]), attrs["padding"])[0] for a in (1, 2)]
    return [(ins["input"].dtype, TensorShape([x[0]] + sp + [x[3]]))]


def _winners(x, f, strides, rates, padding):
    """(output, argmax row, argmax col, argmax filter row, filter col) of each output."""
    if x.ndim != 4 or f.ndim != 3 or x.shape[3] != f.shape[2]:
        raise invalid_argument(f"Dilation2D: input {list(x.shape)} and filter {list(f.shape)} do not match")
    kh, kw = f.shape[:2]
    oh, top = _geometry(x.shape[1], kh, int(strides[1]), int(rates[1]), padding)
    ow, left = _geometry(x.shape[2], kw, int(strides[2]), int(rates[2]), padding)
    n, hh, ww, ch = x.shape
    # below every value (TF starts from lowest(); some tap of each window is inside the image)
    lowest = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else -np.inf
    best = np.full((n, oh, ow, ch), lowest, x.dtype)
    arg = [np.full(best.shape, -1, np.int64) for _ in range(4)]
    rows = np.arange(oh) * int(strides[1]) - top
    cols = np.arange(ow) * int(strides[2]) - left
    for dy in range(kh):
        r = rows + dy * int(rates[1])
        for dx in range(kw):
            c = cols + dx * int(rates[2])
            ok = ((r >= 0) & (r < hh))[:, None] & ((c >= 0) & (c < ww))[None, :]
            val = x[:, np.clip(r, 0, hh - 1)[:, None], np.clip(c, 0, ww - 1)[None, :]] + f[dy, dx]
            win = (val > best) & ok[None, :, :, None]
            best = np.where(win, val, best)
            for a, v in zip(arg, (r[:, None, None], c[None, :, None], dy, dx)):
                np.copyto(a, np.broadcast_to(v, (oh, ow, ch)), where=win)
    return best, arg


@register_op("Dilation2D", inputs=("input", "filter"), attrs=dict(_ATTRS), type_attrs={"T": ("input", "filter")},
             allowed={"T": _T}, shape=_shape)
def dilation2d(input, filter, strides, rates, padding):
    """The maximum over the window of ``input + filter`` per channel."""
    return _winners(np.asarray(input), np.asarray(filter), strides, rates, padding)[0]


def _backprop(input, filter, out_backprop, strides, rates, padding, to_input):
    x, f, dy = np.asarray(input), np.asarray(filter), np.asarray(out_backprop)
    best, (ar, ac, af, ag) = _winners(x, f, strides, rates, padding)
    if dy.shape != best.shape:
        raise invalid_argument(f"Dilation2D backprop: out_backprop shape {list(dy.shape)} is not the output "
                               f"shape {list(best.shape)}")
    n, oh, ow, ch = best.shape
    b = np.broadcast_to(np.arange(n)[:, None, None, None], best.shape)
    c = np.broadcast_to(np.arange(ch), best.shape)
    keep = ar >= 0
    if to_input:
        out = np.zeros(x.shape, dy.dtype)
        np.add.at(out, (b[keep], ar[keep], ac[keep], c[keep]), dy[keep])
    else:
        out = np.zeros(f.shape, dy.dtype)
        np.add.at(out, (af[keep], ag[keep], c[keep]), dy[keep])
    return out


@register_op("Dilation2DBackpropInput", inputs=("input", "filter", "out_backprop"), outputs=("in_backprop",),
             attrs=dict(_ATTRS),
             type_attrs={"T": ("input", "filter", "out_backprop")}, allowed={"T": _T},
             shape=lambda ins, attrs: [(ins["input"].dtype, ins["input"].shape)])
def dilation2d_backprop_input(input, filter, out_backprop, strides, rates, padding):
    """Each output's gradient added to the input pixel that won its maximum."""
    return _backprop(input, filter, out_backprop, strides, rates, padding, True)


@register_op("Dilation2DBackpropFilter", inputs=("input", "filter", "out_backprop"), outputs=("filter_backprop",),
             attrs=dict(_ATTRS),
             type_attrs={"T": ("input", "filter", "out_backprop")}, allowed={"T": _T},
             shape=lambda ins, attrs: [(ins["filter"].dtype, ins["filter"].shape)])
def dilation2d_backprop_filter(input, filter, out_backprop, strides, rates, padding):
    """Each output's gradient added to the filter tap that won its maximum."""
    return _backprop(input, filter, out_backprop, strides, rates, padding, False)
