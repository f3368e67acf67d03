"""GPU kernels of a convnet's ops, in numba.cuda (issue 30): Conv2D and its two
backprops, MaxPool/AvgPool and their gradients, Softmax. Device arrays in,
device arrays out; registered in :data:`ref.ops.gpu.GPU_OPS` (``ref.session.devices``
imports this module).

NHWC only (TF's GPU kernels take NCHW too, through cuDNN). The window geometry
(output size, padding, strides, dilations) is the CPU kernels' own
(:class:`ref.ops.conv.Geometry`), computed on the host from the shapes, and the
attribute checks are the CPU kernels' (same errors).

Order of operations, kernel by kernel (tests/ops/test_gpu_nn.py states the budgets):

* ``Conv2D``, ``Conv2DBackpropInput``, ``Conv2DBackpropFilter``: one thread per output
  element, a direct sum over its window's taps, left to right in row-major tap order
  (the CPU kernels add in im2col + blocked-matmul order: a budget in units of
  eps * sum|terms|, Higham's bound for two orders of an n-term sum);
* ``MaxPool``, ``MaxPoolGrad``: the CPU loop's comparisons (NaN wins, the first
  maximum in row-major window order) and, for the gradient, its additions in
  row-major window order: the same bits;
* ``AvgPool``, ``AvgPoolGrad``: the window sum in tap order divided by the count of
  input elements under the window; the gradient adds ``dy / count`` tap by tap: the
  same bits;
* ``Softmax``: one thread per row, ``exp(x - max)`` summed left to right, times
  ``1 / sum`` (the CPU kernel's reduction order is NumPy's: a budget in ULP).
"""
from __future__ import annotations

import math

import numpy as np

from ref.ops import conv, gpu, pooling, registry
from ref.ops._cuda import simulating

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool", "max_pool_grad",
           "avg_pool", "avg_pool_grad", "softmax"]

_KERNELS: dict = {}


def _kernel(build, *key):
    """``build(*key)``'s ``@cuda.jit`` kernel, compiled once per key."""
    k = (build, key, simulating())
    fn = _KERNELS.get(k)
    if fn is None:
        # the kernels name ``cuda`` as a global of this module (the simulator swaps it inside a kernel)
        globals()["cuda"] = gpu._cuda()
        fn = _KERNELS.setdefault(k, build(*key))
    return fn


def _launch(n):
    return gpu._launch(n)


def _nhwc(data_format, op):
    if conv._s(data_format) != "NHWC":
        raise registry.invalid_argument(f"{op}: the GPU kernels take data_format NHWC only, got "
                                        f"{conv._s(data_format)}")


# -- convolution -------------------------------------------------------------------------------------

def _build_conv(T):
    def k(x, f, out, sh, sw, dh, dw, ph, pw):
        n, oh, ow, co = out.shape
        h, w, ci = x.shape[1], x.shape[2], x.shape[3]
        kh, kw = f.shape[0], f.shape[1]
        for t in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            o = t % co
            r = t // co
            j = r % ow
            r = r // ow
            i = r % oh
            b = r // oh
            acc = T(0)
            for a in range(kh):
                y = i * sh + a * dh - ph
                if y >= 0 and y < h:
                    for e in range(kw):
                        xx = j * sw + e * dw - pw
                        if xx >= 0 and xx < w:
                            for q in range(ci):
                                acc += x[b, y, xx, q] * f[a, e, q, o]
            out[b, i, j, o] = acc
    return cuda.jit(k)


def _build_conv_input_grad(T):
    def k(f, dy, dx, sh, sw, dh, dw, ph, pw):
        n, h, w, ci = dx.shape
        oh, ow, co = dy.shape[1], dy.shape[2], dy.shape[3]
        kh, kw = f.shape[0], f.shape[1]
        for t in range(cuda.grid(1), dx.size, cuda.gridsize(1)):
            q = t % ci
            r = t // ci
            xx = r % w
            r = r // w
            y = r % h
            b = r // h
            acc = T(0)
            for a in range(kh):
                ry = y + ph - a * dh
                if ry >= 0 and ry % sh == 0 and ry // sh < oh:
                    i = ry // sh
                    for e in range(kw):
                        rx = xx + pw - e * dw
                        if rx >= 0 and rx % sw == 0 and rx // sw < ow:
                            j = rx // sw
                            for o in range(co):
                                acc += dy[b, i, j, o] * f[a, e, q, o]
            dx[b, y, xx, q] = acc
    return cuda.jit(k)


def _build_conv_filter_grad(T):
    def k(x, dy, df, sh, sw, dh, dw, ph, pw):
        kh, kw, ci, co = df.shape
        n, h, w = x.shape[0], x.shape[1], x.shape[2]
        oh, ow = dy.shape[1], dy.shape[2]
        for t in range(cuda.grid(1), df.size, cuda.gridsize(1)):
            o = t % co
            r = t // co
            q = r % ci
            r = r // ci
            e = r % kw
            a = r // kw
            acc = T(0)
            for b in range(n):
                for i in range(oh):
                    y = i * sh + a * dh - ph
                    if y >= 0 and y < h:
                        for j in range(ow):
                            xx = j * sw + e * dw - pw
                            if xx >= 0 and xx < w:
                                acc += x[b, y, xx, q] * dy[b, i, j, o]
            df[a, e, q, o] = acc
    return cuda.jit(k)


def _conv_geometry(op, x_shape, f_shape, strides, padding, explicit_paddings, data_format, dilations):
    conv._prepare(strides, dilations, padding, explicit_paddings, data_format, op)
    _nhwc(data_format, op)
    if len(x_shape) != 4 or len(f_shape) != 4:
        raise registry.invalid_argument(f"{op}: input and filter must be 4-dimensional: {list(x_shape)}, "
                                        f"{list(f_shape)}")
    if x_shape[3] != f_shape[2]:
        raise registry.invalid_argument(f"{op}: input depth must equal filter depth on the GPU: {x_shape[3]} vs "
                                        f"{f_shape[2]}")
    return conv._geometry(tuple(x_shape), tuple(f_shape), strides, dilations, padding, explicit_paddings,
                          data_format, op)


def _geo_args(g):
    return g.sh, g.sw, g.dh, g.dw, g.ph0, g.pw0


def conv2d(input, filter, strides, padding, use_cudnn_on_gpu=True, explicit_paddings=(),  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1)):
    g = _conv_geometry("Conv2D", input.shape, filter.shape, strides, padding, explicit_paddings, data_format,
                       dilations)
    out = gpu._empty((input.shape[0], g.oh, g.ow, filter.shape[3]), input.dtype)
    if out.size:
        _kernel(_build_conv, input.dtype.type)[_launch(out.size)](input, filter, out, *_geo_args(g))
    return out


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                          explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    shape = conv._sizes(input_sizes, "Conv2DBackpropInput: input_sizes")
    g = _conv_geometry("Conv2DBackpropInput", shape, filter.shape, strides, padding, explicit_paddings,
                       data_format, dilations)
    want = (shape[0], g.oh, g.ow, filter.shape[3])
    if tuple(out_backprop.shape) != want:
        raise registry.invalid_argument(f"Conv2DBackpropInput: input_sizes {shape}, filter {list(filter.shape)} and "
                                        f"out_backprop {list(out_backprop.shape)} do not match (expected "
                                        f"out_backprop {list(want)} in NHWC)")
    dx = gpu._empty(shape, filter.dtype)
    if dx.size:
        _kernel(_build_conv_input_grad, filter.dtype.type)[_launch(dx.size)](filter, out_backprop, dx, *_geo_args(g))
    return dx


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                           explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    fs = conv._sizes(filter_sizes, "Conv2DBackpropFilter: filter_sizes")
    g = _conv_geometry("Conv2DBackpropFilter", input.shape, fs, strides, padding, explicit_paddings, data_format,
                       dilations)
    if tuple(out_backprop.shape) != (input.shape[0], g.oh, g.ow, fs[3]):
        raise registry.invalid_argument(f"Conv2DBackpropFilter: input {list(input.shape)}, filter_sizes {fs} and "
                                        f"out_backprop {list(out_backprop.shape)} do not match")
    df = gpu._empty(fs, input.dtype)
    if df.size:
        _kernel(_build_conv_filter_grad, input.dtype.type)[_launch(df.size)](input, out_backprop, df, *_geo_args(g))
    return df


# -- pooling -----------------------------------------------------------------------------------------

def _build_max_pool(T):
    """The CPU ``_max_taps_loop`` per output: the first tap (padding is the lowest
    value) then the others in row-major order, ``v > m`` or a NaN wins."""
    def k(x, out, kh, kw, sh, sw, ph, pw, lowest):
        n, oh, ow, c = out.shape
        h, w = x.shape[1], x.shape[2]
        for t in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            q = t % c
            r = t // c
            j = r % ow
            r = r // ow
            i = r % oh
            b = r // oh
            m = lowest
            for a in range(kh):
                y = i * sh + a - ph
                for e in range(kw):
                    xx = j * sw + e - pw
                    v = lowest
                    if y >= 0 and y < h and xx >= 0 and xx < w:
                        v = x[b, y, xx, q]
                    if (a == 0 and e == 0) or v > m or (v != v and m == m):
                        m = v
            out[b, i, j, q] = m
    return cuda.jit(k)


def _build_max_pool_grad(T):
    """One thread per input element: the windows covering it in row-major order; a
    window whose first maximum (as above) is this element adds its gradient."""
    def k(x, dy, dx, kh, kw, sh, sw, ph, pw, lowest):
        n, h, w, c = x.shape
        oh, ow = dy.shape[1], dy.shape[2]
        for t in range(cuda.grid(1), dx.size, cuda.gridsize(1)):
            q = t % c
            r = t // c
            px = r % w
            r = r // w
            py = r % h
            b = r // h
            acc = T(0)
            for i in range(oh):
                if i * sh - ph <= py and py < i * sh - ph + kh:
                    for j in range(ow):
                        if j * sw - pw <= px and px < j * sw - pw + kw:
                            m = lowest
                            ta = 0
                            te = 0
                            for a in range(kh):
                                y = i * sh + a - ph
                                for e in range(kw):
                                    xx = j * sw + e - pw
                                    v = lowest
                                    if y >= 0 and y < h and xx >= 0 and xx < w:
                                        v = x[b, y, xx, q]
                                    if (a == 0 and e == 0) or v > m or (v != v and m == m):
                                        m = v
                                        ta = a
                                        te = e
                            if i * sh + ta - ph == py and j * sw + te - pw == px:
                                acc += dy[b, i, j, q]
            dx[b, py, px, q] = acc
    return cuda.jit(k)


def _build_avg_pool(T):
    def k(x, out, kh, kw, sh, sw, ph, pw):
        n, oh, ow, c = out.shape
        h, w = x.shape[1], x.shape[2]
        for t in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            q = t % c
            r = t // c
            j = r % ow
            r = r // ow
            i = r % oh
            b = r // oh
            acc = T(0)
            count = 0
            for a in range(kh):
                y = i * sh + a - ph
                if y >= 0 and y < h:
                    for e in range(kw):
                        xx = j * sw + e - pw
                        if xx >= 0 and xx < w:
                            acc += x[b, y, xx, q]
                            count += 1
            out[b, i, j, q] = acc / T(count)
    return cuda.jit(k)


def _build_avg_pool_grad(T):
    """dx[b, y, x, q] = the sum, tap by tap in row-major order, of dy / count over
    the windows whose tap lands on (y, x) (the CPU ``_spread_loop``'s order)."""
    def k(dy, dx, kh, kw, sh, sw, ph, pw):
        n, h, w, c = dx.shape
        oh, ow = dy.shape[1], dy.shape[2]
        for t in range(cuda.grid(1), dx.size, cuda.gridsize(1)):
            q = t % c
            r = t // c
            px = r % w
            r = r // w
            py = r % h
            b = r // h
            acc = T(0)
            for a in range(kh):
                ry = py + ph - a
                if ry >= 0 and ry % sh == 0 and ry // sh < oh:
                    i = ry // sh
                    for e in range(kw):
                        rx = px + pw - e
                        if rx >= 0 and rx % sw == 0 and rx // sw < ow:
                            j = rx // sw
                            count = 0
                            for a2 in range(kh):
                                y = i * sh + a2 - ph
                                if y >= 0 and y < h:
                                    for e2 in range(kw):
                                        xx = j * sw + e2 - pw
                                        if xx >= 0 and xx < w:
                                            count += 1
                            acc += dy[b, i, j, q] / T(count)
            dx[b, py, px, q] = acc
    return cuda.jit(k)


def _pool_geometry(op, shape, ksize, strides, padding, explicit_paddings, data_format):
    pooling._run_check(ksize, strides, padding, explicit_paddings, data_format, op)
    _nhwc(data_format, op)
    if len(shape) != 4:
        raise registry.invalid_argument(f"{op}: input must be 4-dimensional, got {list(shape)}")
    g = pooling._geometry(tuple(shape), ksize, strides, padding, explicit_paddings, data_format)
    if g.oh < 0 or g.ow < 0:
        raise registry.invalid_argument(f"{op}: computed output size would be non-positive for input {list(shape)} "
                                        f"and ksize {list(ksize)}")
    return g


def _pool_args(g):
    return g.kh, g.kw, g.sh, g.sw, g.ph0, g.pw0


def _lowest(dtype):
    return dtype.type(pooling._lowest(dtype))


def max_pool(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):  # noqa: A002
    g = _pool_geometry("MaxPool", input.shape, ksize, strides, padding, explicit_paddings, data_format)
    out = gpu._empty((input.shape[0], g.oh, g.ow, input.shape[3]), input.dtype)
    if out.size:
        _kernel(_build_max_pool, input.dtype.type)[_launch(out.size)](input, out, *_pool_args(g),
                                                                     _lowest(input.dtype))
    return out


def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    g = _pool_geometry("MaxPoolGrad", orig_input.shape, ksize, strides, padding, explicit_paddings, data_format)
    want = (orig_input.shape[0], g.oh, g.ow, orig_input.shape[3])
    if tuple(grad.shape) != want:
        raise registry.invalid_argument(f"MaxPoolGrad: expected grad of shape {list(want)} (NHWC), got "
                                        f"{list(grad.shape)}")
    dx = gpu._empty(orig_input.shape, grad.dtype)
    if dx.size:
        _kernel(_build_max_pool_grad, grad.dtype.type)[_launch(dx.size)](orig_input, grad, dx, *_pool_args(g),
                                                                        _lowest(orig_input.dtype))
    return dx


def _avg_padding(padding, op):
    if conv._s(padding) not in ("SAME", "VALID"):
        raise registry.invalid_argument(f"{op}: padding must be SAME or VALID, got {conv._s(padding)}")


def avg_pool(value, ksize, strides, padding, data_format="NHWC"):
    _avg_padding(padding, "AvgPool")
    g = _pool_geometry("AvgPool", value.shape, ksize, strides, padding, [], data_format)
    out = gpu._empty((value.shape[0], g.oh, g.ow, value.shape[3]), value.dtype)
    if out.size:
        _kernel(_build_avg_pool, value.dtype.type)[_launch(out.size)](value, out, *_pool_args(g))
    return out


def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC"):
    _avg_padding(padding, "AvgPoolGrad")
    shape = [int(d) for d in np.asarray(orig_input_shape).reshape(-1)]
    g = _pool_geometry("AvgPoolGrad", shape, ksize, strides, padding, [], data_format)
    want = (shape[0], g.oh, g.ow, shape[3])
    if tuple(grad.shape) != want:
        raise registry.invalid_argument(f"AvgPoolGrad: expected grad of shape {list(want)} (NHWC), got "
                                        f"{list(grad.shape)}")
    dx = gpu._empty(shape, grad.dtype)
    if dx.size:
        _kernel(_build_avg_pool_grad, grad.dtype.type)[_launch(dx.size)](grad, dx, *_pool_args(g))
    return dx


# -- softmax -----------------------------------------------------------------------------------------

def _build_softmax(T):
    def k(x, out):
        rows, cols = x.shape
        for i in range(cuda.grid(1), rows, cuda.gridsize(1)):
            m = x[i, 0]
            for j in range(1, cols):
                if x[i, j] > m:
                    m = x[i, j]
            s = T(0)
            for j in range(cols):
                e = T(math.exp(x[i, j] - m))
                out[i, j] = e
                s += e
            inv = T(1) / s
            for j in range(cols):
                out[i, j] = out[i, j] * inv
    return cuda.jit(k)


def softmax(logits):
    if logits.ndim < 1:
        raise registry.invalid_argument(f"logits must have >= 1 dimension, got {list(logits.shape)}")
    out = gpu._empty(logits.shape, logits.dtype)
    cols = logits.shape[logits.ndim - 1]
    if out.size:
        rows = out.size // cols
        _kernel(_build_softmax, logits.dtype.type)[_launch(rows)](logits.reshape(rows, cols), out.reshape(rows, cols))
    return out


_CONV_HOST = ("input_sizes", "filter_sizes")
gpu._register("Conv2D", conv2d)
gpu._register("Conv2DBackpropInput", conv2d_backprop_input, host=("input_sizes",))
gpu._register("Conv2DBackpropFilter", conv2d_backprop_filter, host=("filter_sizes",))
gpu._register("MaxPool", max_pool)
gpu._register("MaxPoolGrad", max_pool_grad)
gpu._register("AvgPool", avg_pool)
gpu._register("AvgPoolGrad", avg_pool_grad, host=("orig_input_shape",))
gpu._register("Softmax", softmax)
