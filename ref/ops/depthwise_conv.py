"""Depthwise convolutions: DepthwiseConv2dNative and its input/filter backprops
(TF's ``depthwise_conv_op.cc``, ``depthwise_conv_grad_op.cc``).

Each input channel ``q`` is correlated with its own ``M`` filters
(``filter [KH, KW, C, M]``, output depth ``C * M``), with the window geometry of
``conv`` (``SAME``/``VALID``/``EXPLICIT`` padding, strides, dilations, NHWC or
NCHW). The sums run in NHWC over the filter taps; float16/bfloat16 compute in
float32 and round once.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.conv import (_check_run, _compute, _conv_shape, _geometry, _nchw, _prepare, _sizes, _sizes_shape,
                          from_nhwc, to_nhwc)
from ref.ops.registry import REQUIRED, invalid_argument, register_op

_DW_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_DW_ATTRS = {"strides": REQUIRED, "padding": REQUIRED, "explicit_paddings": [], "data_format": "NHWC",
             "dilations": [1, 1, 1, 1]}


@register_op("DepthwiseConv2dNative", inputs=("input", "filter"), attrs=dict(_DW_ATTRS),
             type_attrs={"T": ("input", "filter")}, allowed={"T": _DW_T}, shape=_conv_shape(True))
def depthwise_conv2d_native(input, filter, strides, padding, explicit_paddings=(), data_format="NHWC",
                            dilations=(1, 1, 1, 1)):
    """output[b, i, j, q * M + m] = sum_{di, dj} input[b, s_h * i + d_h * di - p_t, s_w * j + d_w * dj - p_l, q]
    * filter[di, dj, q, m] (filter [KH, KW, C, M]: M outputs per input channel)."""
    _prepare(strides, dilations, padding, explicit_paddings, data_format, "DepthwiseConv2dNative")
    x0, f0 = np.asarray(input), np.asarray(filter)
    _check_run(x0, f0, "DepthwiseConv2dNative")
    x, f = to_nhwc(_compute(x0), data_format), _compute(f0)
    if x.shape[3] != f.shape[2]:
        raise invalid_argument(f"input and filter must have the same depth: {x.shape[3]} vs {f.shape[2]}")
    g = _geometry(x.shape, f.shape, strides, dilations, padding, explicit_paddings, data_format,
                  "DepthwiseConv2dNative")
    win = g.windows(g.pad(x))
    n, c, m = x.shape[0], x.shape[3], f.shape[3]
    out = np.zeros((n, g.oh, g.ow, c, m), x.dtype)
    for i in range(g.kh):
        for j in range(g.kw):
            out += win[:, :, :, i, j, :, None] * f[i, j]
    return from_nhwc(out.reshape(n, g.oh, g.ow, c * m).astype(x0.dtype, copy=False), data_format)


@register_op("DepthwiseConv2dNativeBackpropInput", inputs=("input_sizes", "filter", "out_backprop"),
             attrs=dict(_DW_ATTRS), type_attrs={"T": ("filter", "out_backprop")}, allowed={"T": _DW_T},
             shape=_sizes_shape("input_sizes", "filter"))
def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                           explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    """d loss / d input of DepthwiseConv2dNative: dx[b, ih, iw, q] = sum over the
    windows reaching (ih, iw) and m of out_backprop[b, i, j, q * M + m] * filter[di, dj, q, m]."""
    _prepare(strides, dilations, padding, explicit_paddings, data_format, "DepthwiseConv2dNativeBackpropInput")
    f0, dy0 = np.asarray(filter), np.asarray(out_backprop)
    sizes = _sizes(input_sizes, "DepthwiseConv2dNativeBackpropInput: input_sizes")
    shape = [sizes[0], sizes[2], sizes[3], sizes[1]] if _nchw(data_format) else sizes
    f, dy = _compute(f0), to_nhwc(_compute(dy0), data_format)
    _check_run(dy, f, "DepthwiseConv2dNativeBackpropInput")
    g = _geometry(shape, f.shape, strides, dilations, padding, explicit_paddings, data_format,
                  "DepthwiseConv2dNativeBackpropInput")
    n, h, w, c = shape
    m = f.shape[3]
    if c != f.shape[2] or dy.shape != (n, g.oh, g.ow, c * m):
        raise invalid_argument(f"DepthwiseConv2dNativeBackpropInput: input_sizes {sizes}, filter "
                               f"{list(f0.shape)} and out_backprop {list(dy0.shape)} do not match")
    dy5 = dy.reshape(n, g.oh, g.ow, c, m)
    dxp = np.zeros((n, g.ph0 + h + max(g.ph1, 0), g.pw0 + w + max(g.pw1, 0), c), dy.dtype)
    for i in range(g.kh):
        for j in range(g.kw):
            dxp[g.window_slice(i, j)] += np.einsum("nhwcm,cm->nhwc", dy5, f[i, j])
    return from_nhwc(g.unpad(dxp).astype(f0.dtype, copy=False), data_format)


@register_op("DepthwiseConv2dNativeBackpropFilter", inputs=("input", "filter_sizes", "out_backprop"),
             attrs=dict(_DW_ATTRS), type_attrs={"T": ("input", "out_backprop")}, allowed={"T": _DW_T},
             shape=_sizes_shape("filter_sizes", "input"))
def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                            explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    """d loss / d filter of DepthwiseConv2dNative: df[di, dj, q, m] = sum_{b, i, j}
    input[b, s_h * i + d_h * di - p_t, s_w * j + d_w * dj - p_l, q] * out_backprop[b, i, j, q * M + m]."""
    _prepare(strides, dilations, padding, explicit_paddings, data_format, "DepthwiseConv2dNativeBackpropFilter")
    x0, dy0 = np.asarray(input), np.asarray(out_backprop)
    fs = _sizes(filter_sizes, "DepthwiseConv2dNativeBackpropFilter: filter_sizes")
    x, dy = to_nhwc(_compute(x0), data_format), to_nhwc(_compute(dy0), data_format)
    _check_run(x, dy, "DepthwiseConv2dNativeBackpropFilter")
    g = _geometry(x.shape, fs, strides, dilations, padding, explicit_paddings, data_format,
                  "DepthwiseConv2dNativeBackpropFilter")
    n, c = x.shape[0], x.shape[3]
    m = fs[3]
    if c != fs[2] or dy.shape != (n, g.oh, g.ow, c * m):
        raise invalid_argument(f"DepthwiseConv2dNativeBackpropFilter: input {list(x0.shape)}, filter_sizes "
                               f"{fs} and out_backprop {list(dy0.shape)} do not match")
    win = g.windows(g.pad(x))
    dy5 = dy.reshape(n, g.oh, g.ow, c, m)
    df = np.empty(fs, x.dtype)
    for i in range(g.kh):
        for j in range(g.kw):
            df[i, j] = np.einsum("nhwc,nhwcm->cm", win[:, :, :, i, j, :], dy5)
    return df.astype(x0.dtype, copy=False)
