"""3-D convolution and pooling over NDHWC volumes (TF's conv_ops_3d and
pooling_ops_3d CPU kernels): Conv3D, Conv3DBackpropInputV2,
Conv3DBackpropFilterV2, MaxPool3D, MaxPool3DGrad, MaxPool3DGradGrad, AvgPool3D,
AvgPool3DGrad.

Each kernel walks the filter (or pooling window) offsets ``(kd, kh, kw)`` and
works on the strided view of the padded input those offsets select: the
convolution adds ``view @ filter[kd, kh, kw]`` per offset (float32 sums in a
different order from Eigen's contraction: a few ULP), the pooling takes the
maximum or the sum. SAME padding puts the extra row after, as TF does; an
average counts only the elements inside the input. TF's CPU kernels take
NDHWC only, as these do.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape, unknown_shape

_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_CONV_ATTRS = {"strides": REQUIRED, "padding": REQUIRED, "data_format": "NDHWC", "dilations": [1, 1, 1, 1, 1]}
_POOL_ATTRS = {"ksize": REQUIRED, "strides": REQUIRED, "padding": REQUIRED, "data_format": "NDHWC"}


def _check(strides, padding, data_format, op, ksize=None, dilations=None):
    if data_format != "NDHWC":
        raise invalid_argument(f"{op}: only the NDHWC data_format is supported on CPU, got {data_format}")
    for what, v in (("strides", strides), ("ksize", ksize), ("dilations", dilations)):
        if v is None:
            continue
        if len(v) != 5:
            raise invalid_argument(f"Sliding window {what} field must specify 5 dimensions")
        if v[0] != 1 or v[4] != 1:
            raise invalid_argument(f"Sliding window {what} must be 1 in the batch and depth dimensions")
        if any(int(s) < 1 for s in v):
            raise invalid_argument(f"{op}: {what} must be positive, got {list(v)}")
    if padding not in ("SAME", "VALID"):
        raise invalid_argument(f"{op}: padding must be SAME or VALID, got {padding}")


def _out_pad(n, k, s, d, padding):
    """(output size, padding before, padding after) of one spatial dimension."""
    ek = (k - 1) * d + 1
    if padding == "VALID":
        return (n - ek + s) // s if n >= ek else 0, 0, 0
    out = -(-n // s)
    total = max((out - 1) * s + ek - n, 0)
    return out, total // 2, total - total // 2


def _geometry(in_shape, k3, s3, d3, padding):
    return [_out_pad(int(n), int(k), int(s), int(d), padding) for n, k, s, d in zip(in_shape, k3, s3, d3)]


def _views(shape, geo, k3, s3, d3):
    """For each window offset (kd, kh, kw): the slices of the padded volume it reads."""
    for kd in range(k3[0]):
        for kh in range(k3[1]):
            for kw in range(k3[2]):
                sl = tuple(slice(o * d, o * d + s * (g[0] - 1) + 1, s)
                           for o, d, s, g in zip((kd, kh, kw), d3, s3, geo))
                yield (kd, kh, kw), (slice(None),) + sl + (slice(None),)


def _pad(x, geo, value=0):
    return np.pad(x, [(0, 0)] + [(g[1], g[2]) for g in geo] + [(0, 0)], constant_values=value)


def _acc(dtype):
    return np.float32 if dtype in (np.float16, dtypes.bfloat16.as_numpy_dtype) else dtype


def _shape_5(ins, name):
    s = ins[name].shape
    return None if s.ndims is None else s.as_list()


def _spatial_out(dims, k3, s3, d3, padding):
    return [None if n is None else _out_pad(n, k, s, d, padding)[0] for n, k, s, d in zip(dims, k3, s3, d3)]


def _conv3d_shape(ins, attrs):
    x, f = _shape_5(ins, "input"), _shape_5(ins, "filter")
    if x is not None and len(x) != 5 or f is not None and len(f) != 5:
        raise ValueError(f"Shape must be rank 5 for '{attrs['_op_name']}' with input shapes: {x}, {f}.")
    if x is None or f is None:
        return [(ins["input"].dtype, unknown_shape(5))]
    if x[4] is not None and f[3] is not None and x[4] % f[3]:
        raise ValueError(f"Depth of input ({x[4]}) is not a multiple of filter depth ({f[3]}) for "
                         f"'{attrs['_op_name']}'")
    sp = _spatial_out(x[1:4], [None if k is None else k for k in f[:3]], attrs["strides"][1:4],
                      attrs.get("dilations", [1] * 5)[1:4], attrs["padding"]) if None not in f[:3] else [None] * 3
    return [(ins["input"].dtype, TensorShape([x[0]] + sp + [f[4]]))]


@register_op("Conv3D", inputs=("input", "filter"), attrs=dict(_CONV_ATTRS), type_attrs={"T": ("input", "filter")},
             allowed={"T": _T}, shape=_conv3d_shape)
def conv3d(input, filter, strides, padding, data_format="NDHWC", dilations=(1, 1, 1, 1, 1)):
    """Sum over the window of ``input`` times ``filter`` [kd, kh, kw, in, out]."""
    _check(strides, padding, data_format, "Conv3D", dilations=dilations)
    x, f = np.asarray(input), np.asarray(filter)
    if x.ndim != 5 or f.ndim != 5:
        raise invalid_argument("input and filter must be 5-dimensional")
    if x.shape[4] != f.shape[3]:
        raise invalid_argument(f"Input depth must be evenly divisible by filter depth: {x.shape[4]} vs {f.shape[3]}")
    k3, s3, d3 = f.shape[:3], strides[1:4], dilations[1:4]
    geo = _geometry(x.shape[1:4], k3, s3, d3, padding)
    acc = _acc(x.dtype)
    xp = _pad(x.astype(acc), geo)
    out = np.zeros([x.shape[0]] + [g[0] for g in geo] + [f.shape[4]], acc)
    if out.size and x.shape[4]:
        for (kd, kh, kw), sl in _views(xp.shape, geo, k3, s3, d3):
            out += xp[sl] @ f[kd, kh, kw].astype(acc)
    return out.astype(x.dtype)


def _sizes_shape(name, like):
    def rule(ins, attrs):
        v = ins[name].value
        return [(ins[like].dtype, unknown_shape(5) if v is None else TensorShape([int(d) for d in v]))]
    return rule


@register_op("Conv3DBackpropInputV2", inputs=("input_sizes", "filter", "out_backprop"), attrs=dict(_CONV_ATTRS),
             type_attrs={"T": ("filter", "out_backprop"), "Tshape": "input_sizes"},
             allowed={"T": _T, "Tshape": (dtypes.int32, dtypes.int64)}, shape=_sizes_shape("input_sizes", "filter"))
def conv3d_backprop_input_v2(input_sizes, filter, out_backprop, strides, padding, data_format="NDHWC",
                             dilations=(1, 1, 1, 1, 1)):
    """The gradient of Conv3D with respect to its input: each window's
    ``out_backprop @ filter.T`` added back where the window read."""
    _check(strides, padding, data_format, "Conv3DBackpropInputV2", dilations=dilations)
    shape = [int(d) for d in np.asarray(input_sizes)]
    f, dy = np.asarray(filter), np.asarray(out_backprop)
    k3, s3, d3 = f.shape[:3], strides[1:4], dilations[1:4]
    geo = _geometry(shape[1:4], k3, s3, d3, padding)
    if list(dy.shape) != [shape[0]] + [g[0] for g in geo] + [f.shape[4]]:
        raise invalid_argument(f"Conv3DBackpropInputV2: out_backprop shape {list(dy.shape)} does not match "
                               f"the input sizes {shape} and filter {list(f.shape)}")
    acc = _acc(dy.dtype)
    dxp = np.zeros([shape[0]] + [n + g[1] + g[2] for n, g in zip(shape[1:4], geo)] + [shape[4]], acc)
    for (kd, kh, kw), sl in _views(dxp.shape, geo, k3, s3, d3):
        dxp[sl] += dy.astype(acc) @ f[kd, kh, kw].astype(acc).T
    d, h, w = shape[1:4]
    return dxp[:, geo[0][1]:geo[0][1] + d, geo[1][1]:geo[1][1] + h, geo[2][1]:geo[2][1] + w].astype(dy.dtype)


@register_op("Conv3DBackpropFilterV2", inputs=("input", "filter_sizes", "out_backprop"), attrs=dict(_CONV_ATTRS),
             type_attrs={"T": ("input", "out_backprop")}, allowed={"T": _T}, input_types={"filter_sizes": "int32"},
             shape=_sizes_shape("filter_sizes", "input"))
def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides, padding, data_format="NDHWC",
                              dilations=(1, 1, 1, 1, 1)):
    """The gradient of Conv3D with respect to its filter: per offset, the
    window's input rows transposed times ``out_backprop``."""
    _check(strides, padding, data_format, "Conv3DBackpropFilterV2", dilations=dilations)
    x, dy = np.asarray(input), np.asarray(out_backprop)
    fs = [int(d) for d in np.asarray(filter_sizes)]
    k3, s3, d3 = fs[:3], strides[1:4], dilations[1:4]
    geo = _geometry(x.shape[1:4], k3, s3, d3, padding)
    acc = _acc(x.dtype)
    xp = _pad(x.astype(acc), geo)
    g2 = dy.astype(acc).reshape(-1, fs[4])
    df = np.zeros(fs, acc)
    for (kd, kh, kw), sl in _views(xp.shape, geo, k3, s3, d3):
        df[kd, kh, kw] = xp[sl].reshape(-1, fs[3]).T @ g2
    return df.astype(x.dtype)


def _pool_shape(ins, attrs):
    x = _shape_5(ins, "input")
    if x is None:
        return [(ins["input"].dtype, unknown_shape(5))]
    if len(x) != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {len(x)} for '{attrs['_op_name']}'")
    sp = _spatial_out(x[1:4], attrs["ksize"][1:4], attrs["strides"][1:4], [1, 1, 1], attrs["padding"])
    return [(ins["input"].dtype, TensorShape([x[0]] + sp + [x[4]]))]


def _pool_setup(x, ksize, strides, padding, data_format, op):
    _check(strides, padding, data_format, op, ksize=ksize)
    if x.ndim != 5:
        raise invalid_argument(f"{op}: input must be 5-dimensional")
    k3, s3 = [int(k) for k in ksize[1:4]], [int(s) for s in strides[1:4]]
    return k3, s3, _geometry(x.shape[1:4], k3, s3, (1, 1, 1), padding)


@register_op("MaxPool3D", inputs=("input",), attrs=dict(_POOL_ATTRS), type_attrs={"T": "input"},
             allowed={"T": _T}, shape=_pool_shape)
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC"):
    """The maximum over each ``ksize`` window (padding never wins)."""
    x = np.asarray(input)
    k3, s3, geo = _pool_setup(x, ksize, strides, padding, data_format, "MaxPool3D")
    xp = _pad(x, geo, -np.inf)
    out = np.full([x.shape[0]] + [g[0] for g in geo] + [x.shape[4]], -np.inf, x.dtype)
    for _, sl in _views(xp.shape, geo, k3, s3, (1, 1, 1)):
        np.maximum(out, xp[sl], out=out)
    return out


@register_op("MaxPool3DGrad", inputs=("orig_input", "orig_output", "grad"), attrs=dict(_POOL_ATTRS),
             type_attrs={"T": "grad", "TInput": ("orig_input", "orig_output")},
             allowed={"T": _T, "TInput": _T}, shape=lambda ins, attrs: [(ins["grad"].dtype, ins["orig_input"].shape)])
def max_pool3d_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NDHWC"):
    """Each window's gradient added to every input element equal to the
    window's maximum (TF's CPU MaxPool3DGrad: ties all receive it)."""
    x, y, dy = np.asarray(orig_input), np.asarray(orig_output), np.asarray(grad)
    k3, s3, geo = _pool_setup(x, ksize, strides, padding, data_format, "MaxPool3DGrad")
    xp = _pad(x, geo, -np.inf)
    dxp = np.zeros(xp.shape, dy.dtype)
    for _, sl in _views(xp.shape, geo, k3, s3, (1, 1, 1)):
        dxp[sl] += np.where(xp[sl] == y, dy, 0).astype(dy.dtype)
    d, h, w = x.shape[1:4]
    return dxp[:, geo[0][1]:geo[0][1] + d, geo[1][1]:geo[1][1] + h, geo[2][1]:geo[2][1] + w]


@register_op("MaxPool3DGradGrad", inputs=("orig_input", "orig_output", "grad"), attrs=dict(_POOL_ATTRS),
             type_attrs={"T": ("orig_input", "orig_output", "grad")}, allowed={"T": _T},
             shape=lambda ins, attrs: [(ins["grad"].dtype, ins["orig_output"].shape)])
def max_pool3d_grad_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NDHWC"):
    """For each window: ``grad`` (shaped as the input) at the window's first
    element equal to its maximum, in plane, row, column order (TF's CPU
    MaxPool3DGradGrad)."""
    x, y, g = np.asarray(orig_input), np.asarray(orig_output), np.asarray(grad)
    k3, s3, geo = _pool_setup(x, ksize, strides, padding, data_format, "MaxPool3DGradGrad")
    xp, gp = _pad(x, geo, -np.inf), _pad(g, geo)
    out = np.zeros(y.shape, g.dtype)
    found = np.zeros(y.shape, bool)
    for _, sl in _views(xp.shape, geo, k3, s3, (1, 1, 1)):
        hit = ~found & (xp[sl] == y)
        out[hit] = gp[sl][hit]
        found |= hit
    return out


def _counts(shape, k3, s3, geo):
    """How many input elements each window covers (padding excluded)."""
    ones = _pad(np.ones([1] + list(shape[1:4]) + [1], np.int64), geo)
    cnt = np.zeros([1] + [g[0] for g in geo] + [1], np.int64)
    for _, sl in _views(ones.shape, geo, k3, s3, (1, 1, 1)):
        cnt += ones[sl]
    return cnt


@register_op("AvgPool3D", inputs=("input",), attrs=dict(_POOL_ATTRS), type_attrs={"T": "input"},
             allowed={"T": _T}, shape=_pool_shape)
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC"):
    """The mean over each ``ksize`` window of the elements inside the input."""
    x = np.asarray(input)
    k3, s3, geo = _pool_setup(x, ksize, strides, padding, data_format, "AvgPool3D")
    acc = _acc(x.dtype)
    xp = _pad(x.astype(acc), geo)
    out = np.zeros([x.shape[0]] + [g[0] for g in geo] + [x.shape[4]], acc)
    for _, sl in _views(xp.shape, geo, k3, s3, (1, 1, 1)):
        out += xp[sl]
    return (out / _counts(x.shape, k3, s3, geo).astype(acc)).astype(x.dtype)


@register_op("AvgPool3DGrad", inputs=("orig_input_shape", "grad"), attrs=dict(_POOL_ATTRS),
             type_attrs={"T": "grad"}, allowed={"T": _T}, input_types={"orig_input_shape": "int32"},
             shape=_sizes_shape("orig_input_shape", "grad"))
def avg_pool3d_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NDHWC"):
    """Each window's gradient divided by its element count, spread over the window."""
    shape = [int(d) for d in np.asarray(orig_input_shape)]
    dy = np.asarray(grad)
    _check(strides, padding, data_format, "AvgPool3DGrad", ksize=ksize)
    k3, s3 = [int(k) for k in ksize[1:4]], [int(s) for s in strides[1:4]]
    geo = _geometry(shape[1:4], k3, s3, (1, 1, 1), padding)
    acc = _acc(dy.dtype)
    share = dy.astype(acc) / _counts(shape, k3, s3, geo).astype(acc)
    dxp = np.zeros([shape[0]] + [n + g[1] + g[2] for n, g in zip(shape[1:4], geo)] + [shape[4]], acc)
    for _, sl in _views(dxp.shape, geo, k3, s3, (1, 1, 1)):
        dxp[sl] += share
    d, h, w = shape[1:4]
    return dxp[:, geo[0][1]:geo[0][1] + d, geo[1][1]:geo[1][1] + h, geo[2][1]:geo[2][1] + w].astype(dy.dtype)
