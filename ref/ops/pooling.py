"""Pooling: MaxPool, AvgPool (and the V2 forms taking ksize/strides as
tensors), MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad (TF's
``maxpooling_op.cc``, ``avgpooling_op.cc``).

Windows follow the convolution geometry of :mod:`ref.ops.conv` with a
``ksize`` window. Padding is never part of a window's value: MaxPool pads with
-inf (the dtype's lowest for integers), AvgPool divides each window's sum by
the number of input elements it covers. MaxPoolGrad routes each output
gradient to its window's first maximum in row-major order (TF's
``SpatialMaxPoolWithArgMaxHelper`` keeps the first strict maximum); overlapping
windows add up.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops import _jit, gemm
from ref.ops._jit import njit
from ref.ops.conv import Geometry, check_attrs, from_nhwc, to_nhwc, _nchw, _hw, _s
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_MAX_T = dtypes.REALS
_AVG_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _check(ksize, strides, padding, explicit_paddings, data_format, op, name=None):
    if len(ksize) != 4:
        raise ValueError(f"Sliding window ksize field must specify 4 dimensions for '{name or op}'")
    c = 1 if _nchw(data_format) else 3
    if ksize[0] != 1 or ksize[c] != 1:
        raise ValueError(f"Pooling is not yet supported on the batch nor depth dimensions for '{name or op}'")
    check_attrs(list(strides), None, padding, list(explicit_paddings or []), data_format, op, name or op)


def _run_check(ksize, strides, padding, explicit_paddings, data_format, op):
    """The kernels' checks. A window size below 1 passes graph construction (TF's shape
    functions take it) and fails here, in TF's kernels' words."""
    try:
        _check(list(ksize), list(strides), padding, explicit_paddings, data_format, op)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    bad = [int(k) for k in ksize if int(k) < 1]
    if bad and op.startswith("AvgPool"):
        raise invalid_argument(f"ksize must be a positive int32 value, got:{bad[0]}")
    if bad:
        raise invalid_argument("Sliding window ksize must be positive. The specified or inferred ksize is: "
                               + ",".join(str(int(k)) for k in ksize))


def _geometry(shape_nhwc, ksize, strides, padding, explicit_paddings, data_format):
    kh, kw = _hw(ksize, data_format)
    return Geometry(shape_nhwc[1], shape_nhwc[2], kh, kw, strides, None, padding, explicit_paddings, data_format)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _compute(x):
    return x.astype(np.float32) if x.dtype in (np.float16, dtypes.bfloat16.np) else x


def _pool_shape(input_name, ins, attrs, ksize=None, strides=None):
    fmt = attrs.get("data_format", "NHWC")
    ksize = attrs["ksize"] if ksize is None else ksize
    strides = attrs["strides"] if strides is None else strides
    s = ins[input_name].shape
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {s.ndims} for '{attrs.get('_op_name')}' "
                         f"with input shapes: {s}.")
    if ksize is None or strides is None:
        return TensorShape([s[0] if s.ndims else None, None, None, None]) if s.ndims else unknown_shape(4)
    _check(ksize, strides, attrs["padding"], (attrs.get("explicit_paddings") or []), fmt, "pooling",
           attrs.get("_op_name"))
    dims = s.as_list() if s.ndims is not None else [None] * 4
    n, h, w, c = (dims[0], dims[2], dims[3], dims[1]) if _nchw(fmt) else dims
    g = _geometry([n, h, w, c], ksize, strides, attrs["padding"], (attrs.get("explicit_paddings") or []), fmt)
    if g.oh is not None and g.oh < 0 or g.ow is not None and g.ow < 0:
        raise ValueError(f"Negative dimension size: computed output size would be negative for '{attrs.get('_op_name')}': input {s}, "
                         f"ksize {list(ksize)}")
    oh, ow = g.oh, g.ow
    if attrs["padding"] == "VALID":  # TF's shape function reads a window size of -1 as an unknown dimension
        kh, kw = _hw(ksize, fmt)
        oh, ow = (None if kh == -1 else oh), (None if kw == -1 else ow)
    return TensorShape([n, c, oh, ow] if _nchw(fmt) else [n, oh, ow, c])


def _max_windows(x, g):
    """(windows [N, OH, OW, KH*KW, C] of the -inf-padded input)."""
    xp = g.pad(x, _lowest(x.dtype))
    w = g.windows(xp)
    return w.reshape(w.shape[0], g.oh, g.ow, g.kh * g.kw, w.shape[-1])


_LOOP_T = (np.float32, np.float64, np.int32, np.int64)
"""dtypes whose max pooling runs the compiled loops below (others: NumPy on the windows)."""


PARALLEL_POOL_BYTES = 1 << 20
"""Bytes of result from which max pooling and its gradient split their images
among ``ref``'s matrix threads (waking a helper costs ~30 us)."""


class _PoolImages:
    """Images ``lo:hi`` of a pooling result ``out`` (all zeros to start with when
    ``zeroed``), ``fill(lo, hi, dst)`` computing them into ``dst``: each image is a
    function of its own image alone, so they are split among ``ref``'s matrix threads
    (``gemm.run_blocks``) with the bits of one call."""

    def __init__(self, out, fill, zeroed=False):
        self.out, self.fill, self.zeroed = out, fill, zeroed

    def run(self):
        n = self.out.shape[0]
        threads = gemm.workers()
        if threads > 1 and n > 1 and self.out.nbytes >= PARALLEL_POOL_BYTES:
            parts = min(threads, n)
            gemm.run_blocks(self, [n * i // parts for i in range(parts + 1)])
        else:
            self.fill(0, n, self.out)

    def into_result(self, lo, hi):
        self.fill(lo, hi, self.out[lo:hi])

    def scratch(self, lo, hi):
        dst = (np.zeros if self.zeroed else np.empty)((hi - lo,) + self.out.shape[1:], self.out.dtype)
        self.fill(lo, hi, dst)
        return dst

    def store(self, lo, hi, scratch):
        self.out[lo:hi] = scratch


@njit(nogil=True)
def _max_taps_loop(xp, kh, kw, sh, sw, out, tap, taps):
    """out[b, i, j, q] = max over the window (NaN wins, as np.max) and, if taps,
    tap[b, i, j, q] = a * kw + e of its first maximum in row-major window order
    (as np.argmax)."""
    n, oh, ow, c = out.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                m = out[b, i, j]
                r0, c0 = sh * i, sw * j
                for q in range(c):
                    m[q] = xp[b, r0, c0, q]
                if taps:
                    t = tap[b, i, j]
                    for q in range(c):
                        t[q] = 0
                for a in range(kh):
                    for e in range(kw):
                        if a == 0 and e == 0:
                            continue
                        src = xp[b, r0 + a, c0 + e]
                        if taps:
                            k = a * kw + e
                            for q in range(c):
                                v = src[q]
                                if v > m[q] or (v != v and m[q] == m[q]):
                                    m[q] = v
                                    t[q] = k
                        else:
                            for q in range(c):
                                v = src[q]
                                if v > m[q] or (v != v and m[q] == m[q]):
                                    m[q] = v


@njit
def _scatter_taps_loop(tap, dy, kw, sh, sw, dxp):
    """dxp[b, sh * i + tap // kw, sw * j + tap % kw, q] += dy[b, i, j, q], windows in row-major order."""
    n, oh, ow, c = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for q in range(c):
                    k = tap[b, i, j, q]
                    dxp[b, sh * i + k // kw, sw * j + k % kw, q] += dy[b, i, j, q]


@njit(nogil=True)
def _max_grad_loop(xp, dy, kh, kw, sh, sw, dxp, m, t):
    """:func:`_max_taps_loop`'s taps and :func:`_scatter_taps_loop` in one pass: per
    window, ``m``/``t`` (scratch rows of C) take the first maximum (NaN wins) and its
    tap, then dxp at that tap += dy -- the same additions in the same order (windows
    in row-major order), without the [N, OH, OW, C] tap array."""
    n, oh, ow, c = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                r0, c0 = sh * i, sw * j
                first = xp[b, r0, c0]
                for q in range(c):
                    m[q] = first[q]
                    t[q] = 0
                for a in range(kh):
                    for e in range(kw):
                        if a == 0 and e == 0:
                            continue
                        src = xp[b, r0 + a, c0 + e]
                        k = a * kw + e
                        for q in range(c):
                            v = src[q]
                            if v > m[q] or (v != v and m[q] == m[q]):
                                m[q] = v
                                t[q] = k
                g = dy[b, i, j]
                for a in range(kh):  # tap by tap: a select per element, no division
                    for e in range(kw):
                        d = dxp[b, r0 + a, c0 + e]
                        k = a * kw + e
                        for q in range(c):
                            d[q] = d[q] + g[q] if t[q] == k else d[q]


@njit
def _window_sum_loop(xp, kh, kw, sh, sw, out):
    """out[b, i, j, q] += xp[b, sh * i + a, sw * j + e, q], taps (a, e) in row-major order."""
    n, oh, ow, c = out.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                acc = out[b, i, j]
                for a in range(kh):
                    for e in range(kw):
                        src = xp[b, sh * i + a, sw * j + e]
                        for q in range(c):
                            acc[q] += src[q]


@njit
def _spread_loop(share, kh, kw, sh, sw, dxp):
    """dxp[b, sh * i + a, sw * j + e, q] += share[b, i, j, q], one tap (a, e) at a time."""
    n, oh, ow, c = share.shape
    for a in range(kh):
        for e in range(kw):
            for b in range(n):
                for i in range(oh):
                    dst = dxp[b, sh * i + a]
                    for j in range(ow):
                        d = dst[sw * j + e]
                        src = share[b, i, j]
                        for q in range(c):
                            d[q] += src[q]


def _max_taps_numpy(x, g):
    """(max, tap) of each window as :func:`_max_taps_loop` finds them: the tap is NumPy's
    ``argmax`` (the first maximum in row-major window order; the first NaN, if any), the
    maximum the value at that tap (so -0 or +0, and which NaN, as the loop keeps them)."""
    w = _max_windows(x, g)
    tap = np.argmax(w, axis=3)
    return np.take_along_axis(w, tap[:, :, :, None], axis=3)[:, :, :, 0], tap


def _scatter_taps_numpy(tap, dy, g, dxp):
    """:func:`_scatter_taps_loop` in NumPy: one strided ``+=`` per tap, the taps last to
    first, which gives each element of ``dxp`` its windows' terms in row-major window
    order, as the loop adds them (where the tap is not a window's maximum, ``+0``
    is added: ``dxp`` starts at +0 and adding +0 changes no sum that is not -0, which
    a sum starting at +0 never is)."""
    zero = np.zeros((), dy.dtype)
    for a in range(g.kh - 1, -1, -1):
        for e in range(g.kw - 1, -1, -1):
            dxp[g.window_slice(a, e)] += np.where(tap == a * g.kw + e, dy, zero)
    return dxp


def _sample_max_taps():
    """A float32 :func:`_max_taps_loop` (as :func:`_max_and_taps` calls it): its background
    build, while :func:`_max_taps_numpy` serves (``_jit.compiles_in_background``)."""
    out = np.empty((1, 2, 2, 3), np.float32)
    _max_taps_loop(np.ones((1, 4, 4, 3), np.float32), 2, 2, 2, 2, out, np.empty(out.shape, np.int64), True)


def _sample_max_grad():
    """A float32 :func:`_max_grad_loop`: its background build."""
    _max_grad_loop(np.ones((1, 4, 4, 3), np.float32), np.ones((1, 2, 2, 3), np.float32), 2, 2, 2, 2,
                   np.zeros((1, 4, 4, 3), np.float32), np.empty(3, np.float32), np.empty(3, np.int64))


_jit.compiles_in_background(_max_taps_loop, _sample_max_taps, any_size=True)
_jit.compiles_in_background(_max_grad_loop, _sample_max_grad, any_size=True)


def _max_and_taps(x, g, taps=True):
    """(max [N, OH, OW, C], tap of the first maximum [N, OH, OW, C] or None) of each window."""
    if x.dtype.type not in _LOOP_T:
        w = _max_windows(x, g)
        return np.max(w, axis=3), (np.argmax(w, axis=3) if taps else None)
    if x.dtype == np.float32 and x.size and _jit.numpy_tier(_max_taps_loop, x.size):
        out, tap = _jit.run_numpy_form(_max_taps_loop, _max_taps_numpy, x, g)
        return out, (tap if taps else None)
    xp = np.ascontiguousarray(g.pad(x, _lowest(x.dtype)))
    shape = (x.shape[0], g.oh, g.ow, x.shape[3])
    out = np.empty(shape, x.dtype)
    tap = np.empty(shape if taps else (1, 1, 1, 1), np.int64)
    if out.size and not taps:
        _PoolImages(out, lambda lo, hi, dst: _max_taps_loop(xp[lo:hi], g.kh, g.kw, g.sh, g.sw, dst, tap, False)).run()
    elif out.size:
        _max_taps_loop(xp, g.kh, g.kw, g.sh, g.sw, out, tap, taps)
    return out, (tap if taps else None)


def _max_pool(input, ksize, strides, padding, explicit_paddings, data_format, op):
    _run_check(ksize, strides, padding, explicit_paddings, data_format, op)
    x0 = np.asarray(input)
    if x0.ndim != 4:
        raise invalid_argument(f"{op}: input must be 4-dimensional, got {list(x0.shape)}")
    x = to_nhwc(x0, data_format)
    g = _geometry(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    if g.oh < 0 or g.ow < 0:
        raise invalid_argument(f"{op}: computed output size would be non-positive for input {list(x0.shape)} "
                               f"and ksize {list(ksize)}")
    return from_nhwc(_max_and_taps(x, g, taps=False)[0], data_format)


_MAX_ATTRS = {"ksize": REQUIRED, "strides": REQUIRED, "padding": REQUIRED, "explicit_paddings": [],
              "data_format": "NHWC"}


@register_op("MaxPool", inputs=("input",), attrs=dict(_MAX_ATTRS), type_attrs={"T": "input"},
             allowed={"T": _MAX_T}, shape=lambda ins, attrs: [(ins["input"].dtype, _pool_shape("input", ins, attrs))])
def max_pool(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    """output[b, i, j, c] = max over the window at (s_h * i - p_t, s_w * j - p_l) of
    size ksize of input[b, :, :, c] (padding never wins)."""
    return _max_pool(input, ksize, strides, padding, explicit_paddings, data_format, "MaxPool")


def _v2_shape(input_name):
    def rule(ins, attrs):
        k, s = ins["ksize"].value, ins["strides"].value
        k = None if k is None else [int(v) for v in np.asarray(k).reshape(-1)]
        s = None if s is None else [int(v) for v in np.asarray(s).reshape(-1)]
        return [(ins[input_name].dtype, _pool_shape(input_name, ins, attrs, k, s))]
    return rule


@register_op("MaxPoolV2", inputs=("input", "ksize", "strides"),
             attrs={"padding": REQUIRED, "data_format": "NHWC"}, type_attrs={"T": "input"},
             allowed={"T": _MAX_T}, shape=_v2_shape("input"))
def max_pool_v2(input, ksize, strides, padding, data_format="NHWC"):
    """MaxPool with ``ksize`` and ``strides`` given as 1-D int32 tensors."""
    return _max_pool(input, [int(v) for v in np.asarray(ksize)], [int(v) for v in np.asarray(strides)], padding,
                     [], data_format, "MaxPoolV2")


def _argmax_taps(x, g):
    """For each output, the tap (kh * KW + kw) of its window's first maximum."""
    return _max_and_taps(x, g)[1]


def _max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings, data_format, op):
    _run_check(ksize, strides, padding, explicit_paddings, data_format, op)
    x0 = np.asarray(orig_input)
    x, dy = to_nhwc(x0, data_format), to_nhwc(np.asarray(grad), data_format)
    g = _geometry(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    if dy.shape != (x.shape[0], g.oh, g.ow, x.shape[3]):
        raise invalid_argument(f"{op}: expected grad of shape {[x.shape[0], g.oh, g.ow, x.shape[3]]} (NHWC), "
                               f"got {list(np.shape(grad))}")
    n, h, w, c = x.shape
    dxp = np.zeros((n, g.ph0 + h + max(g.ph1, 0), g.pw0 + w + max(g.pw1, 0), c), dy.dtype)
    if dy.dtype == np.float32 and x.dtype == dy.dtype and dy.size and _jit.numpy_tier(_max_grad_loop, dy.size):
        _jit.run_numpy_form(_max_grad_loop, lambda: _scatter_taps_numpy(_max_taps_numpy(x, g)[1], dy, g, dxp))
    elif dy.dtype.type in _LOOP_T and x.dtype == dy.dtype:
        if dy.size:
            xp, dyc = np.ascontiguousarray(g.pad(x, _lowest(x.dtype))), np.ascontiguousarray(dy)

            def fill(lo, hi, dst):  # m, t: the window's running maximum and tap, per call
                _max_grad_loop(xp[lo:hi], dyc[lo:hi], g.kh, g.kw, g.sh, g.sw, dst, np.empty(c, x.dtype),
                               np.empty(c, np.int64))

            _PoolImages(dxp, fill, zeroed=True).run()
    elif dy.dtype.type in _LOOP_T:
        if dy.size:
            _scatter_taps_loop(_argmax_taps(x, g), np.ascontiguousarray(dy), g.kw, g.sh, g.sw, dxp)
    else:
        tap = _argmax_taps(x, g)
        zero = np.zeros((), dy.dtype)
        for i in range(g.kh):
            for j in range(g.kw):
                dxp[g.window_slice(i, j)] += np.where(tap == i * g.kw + j, dy, zero)
    return from_nhwc(g.unpad(dxp).astype(x0.dtype, copy=False), data_format)


_GRAD_ATTRS = {"ksize": REQUIRED, "strides": REQUIRED, "padding": REQUIRED, "explicit_paddings": [],
               "data_format": "NHWC"}


def _same_as(name):
    return lambda ins, attrs: [(ins[name].dtype, ins[name].shape)]


@register_op("MaxPoolGrad", inputs=("orig_input", "orig_output", "grad"), attrs=dict(_GRAD_ATTRS),
             type_attrs={"T": ("orig_input", "orig_output", "grad")}, allowed={"T": _MAX_T},
             shape=_same_as("orig_input"))
def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings=(),
                  data_format="NHWC"):
    """output[b, h, w, c] = sum of grad[b, i, j, c] over the windows (i, j) whose
    first maximum is input[b, h, w, c]."""
    return _max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings, data_format,
                          "MaxPoolGrad")


@register_op("MaxPoolGradV2", inputs=("orig_input", "orig_output", "grad", "ksize", "strides"),
             attrs={"padding": REQUIRED, "data_format": "NHWC"},
             type_attrs={"T": ("orig_input", "orig_output", "grad")}, allowed={"T": _MAX_T},
             shape=_same_as("orig_input"))
def max_pool_grad_v2(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC"):
    """MaxPoolGrad with ``ksize`` and ``strides`` as tensors."""
    return _max_pool_grad(orig_input, orig_output, grad, [int(v) for v in np.asarray(ksize)],
                          [int(v) for v in np.asarray(strides)], padding, [], data_format, "MaxPoolGradV2")


@register_op("MaxPoolGradGrad", inputs=("orig_input", "orig_output", "grad"), attrs=dict(_GRAD_ATTRS),
             type_attrs={"T": ("orig_input", "orig_output", "grad")}, allowed={"T": _MAX_T},
             shape=_same_as("orig_output"))
def max_pool_grad_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings=(),
                       data_format="NHWC"):
    """output[b, i, j, c] = grad (input-shaped) at window (i, j)'s first maximum."""
    return _max_pool_grad_grad(orig_input, grad, ksize, strides, padding, explicit_paddings, data_format,
                               "MaxPoolGradGrad")


@register_op("MaxPoolGradGradV2", inputs=("orig_input", "orig_output", "grad", "ksize", "strides"),
             attrs={"padding": REQUIRED, "data_format": "NHWC"},
             type_attrs={"T": ("orig_input", "orig_output", "grad")}, allowed={"T": _MAX_T},
             shape=_same_as("orig_output"))
def max_pool_grad_grad_v2(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC"):
    """MaxPoolGradGrad with ``ksize`` and ``strides`` as tensors."""
    return _max_pool_grad_grad(orig_input, grad, [int(v) for v in np.asarray(ksize)],
                               [int(v) for v in np.asarray(strides)], padding, [], data_format, "MaxPoolGradGradV2")


def _max_pool_grad_grad(orig_input, grad, ksize, strides, padding, explicit_paddings, data_format, op):
    _run_check(ksize, strides, padding, explicit_paddings, data_format, op)
    x0 = np.asarray(orig_input)
    x, gx = to_nhwc(x0, data_format), to_nhwc(np.asarray(grad), data_format)
    g = _geometry(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    if gx.shape != x.shape:
        raise invalid_argument(f"{op}: grad must have the shape of orig_input {list(x0.shape)}, "
                               f"got {list(np.shape(grad))}")
    tap = _argmax_taps(x, g)
    gw = _max_windows(gx, g)
    out = np.take_along_axis(gw, tap[:, :, :, None, :], axis=3)[:, :, :, 0, :]
    return from_nhwc(np.ascontiguousarray(out), data_format)


def _avg_counts(g, n_c_dtype):
    """Number of input elements under each window, [1, OH, OW, 1]."""
    ones = np.ones((1, g.h, g.w, 1), n_c_dtype)
    w = g.windows(g.pad(ones))
    return w.sum(axis=(3, 4))


_AVG_ATTRS = {"ksize": REQUIRED, "strides": REQUIRED, "padding": REQUIRED, "data_format": "NHWC"}


def _avg_check(padding, op):
    if _s(padding) not in ("SAME", "VALID"):
        raise invalid_argument(f"{op}: padding must be SAME or VALID, got {_s(padding)}")


@register_op("AvgPool", inputs=("value",), attrs=dict(_AVG_ATTRS), type_attrs={"T": "value"},
             allowed={"T": _AVG_T}, shape=lambda ins, attrs: [(ins["value"].dtype, _pool_shape("value", ins, attrs))])
def avg_pool(value, ksize, strides, padding, data_format="NHWC"):
    """output[b, i, j, c] = (sum of input[b, :, :, c] under window (i, j)) /
    (number of input elements under it): padding is not counted."""
    _avg_check(padding, "AvgPool")
    _run_check(ksize, strides, padding, [], data_format, "AvgPool")
    x0 = np.asarray(value)
    if x0.ndim != 4:
        raise invalid_argument(f"AvgPool: input must be 4-dimensional, got {list(x0.shape)}")
    x = _compute(to_nhwc(x0, data_format))
    g = _geometry(x.shape, ksize, strides, padding, [], data_format)
    if g.oh < 0 or g.ow < 0:
        raise invalid_argument(f"AvgPool: computed output size would be non-positive for input "
                               f"{list(x0.shape)} and ksize {list(ksize)}")
    if x.dtype.type in _LOOP_T and x.size:
        s = np.zeros((x.shape[0], g.oh, g.ow, x.shape[3]), x.dtype)
        _window_sum_loop(np.ascontiguousarray(g.pad(x)), g.kh, g.kw, g.sh, g.sw, s)
    else:
        s = g.windows(g.pad(x)).sum(axis=(3, 4), dtype=x.dtype)
    out = s / _avg_counts(g, x.dtype)
    return from_nhwc(out.astype(x0.dtype, copy=False), data_format)


@register_op("AvgPoolGrad", inputs=("orig_input_shape", "grad"), attrs=dict(_AVG_ATTRS),
             type_attrs={"T": "grad"}, allowed={"T": _AVG_T},
             shape=lambda ins, attrs: [(ins["grad"].dtype, TensorShape(
                 [int(d) for d in np.asarray(ins["orig_input_shape"].value).reshape(-1)])
                 if ins["orig_input_shape"].value is not None else unknown_shape(4))])
def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC"):
    """output[b, h, w, c] = sum over the windows (i, j) covering (h, w) of
    grad[b, i, j, c] / (number of input elements under window (i, j))."""
    _avg_check(padding, "AvgPoolGrad")
    _run_check(ksize, strides, padding, [], data_format, "AvgPoolGrad")
    shape = [int(d) for d in np.asarray(orig_input_shape).reshape(-1)]
    if len(shape) != 4:
        raise invalid_argument(f"AvgPoolGrad: orig_input_shape must be a 4-vector, got {shape}")
    n, h, w, c = (shape[0], shape[2], shape[3], shape[1]) if _nchw(data_format) else shape
    dy0 = np.asarray(grad)
    dy = _compute(to_nhwc(dy0, data_format))
    g = _geometry([n, h, w, c], ksize, strides, padding, [], data_format)
    if dy.shape != (n, g.oh, g.ow, c):
        raise invalid_argument(f"AvgPoolGrad: expected grad of shape {[n, g.oh, g.ow, c]} (NHWC), got "
                               f"{list(dy0.shape)}")
    share = dy / _avg_counts(g, dy.dtype)
    dxp = np.zeros((n, g.ph0 + h + max(g.ph1, 0), g.pw0 + w + max(g.pw1, 0), c), dy.dtype)
    if dy.dtype.type in _LOOP_T and dy.size:
        _spread_loop(np.ascontiguousarray(share), g.kh, g.kw, g.sh, g.sw, dxp)
    else:
        for i in range(g.kh):
            for j in range(g.kw):
                dxp[g.window_slice(i, j)] += share
    return from_nhwc(g.unpad(dxp).astype(dy0.dtype, copy=False), data_format)


# ---------------------------------------------------------------------------
# MaxPoolWithArgmax and its gradients
# ---------------------------------------------------------------------------

def _flat_argmax(x, g, include_batch_in_index):
    """Flat input index of each window's first maximum:
    ((b * H + y) * W + x) * C + c, without the batch term unless asked."""
    n, h, w, c = x.shape
    tap = _argmax_taps(x, g)
    ki, kj = tap // g.kw, tap % g.kw
    rows = (np.arange(g.oh) * g.sh - g.ph0)[None, :, None, None] + ki
    cols = (np.arange(g.ow) * g.sw - g.pw0)[None, None, :, None] + kj
    idx = (rows * w + cols) * c + np.arange(c)[None, None, None, :]
    if include_batch_in_index:
        idx = idx + (np.arange(n) * (h * w * c))[:, None, None, None]
    return idx.astype(np.int64)


def _argmax_shape(ins, attrs):
    s = _pool_shape("input", ins, {**attrs, "data_format": "NHWC"})
    return [(ins["input"].dtype, s), (attrs.get("Targmax", dtypes.int64), s)]


@register_op("MaxPoolWithArgmax", inputs=("input",), outputs=("output", "argmax"),
             attrs={"ksize": REQUIRED, "strides": REQUIRED, "Targmax": dtypes.int64, "padding": REQUIRED,
                    "include_batch_in_index": False},
             type_attrs={"T": "input"}, allowed={"T": _MAX_T, "Targmax": (dtypes.int32, dtypes.int64)},
             shape=_argmax_shape)
def max_pool_with_argmax(input, ksize, strides, padding, Targmax=dtypes.int64, include_batch_in_index=False):
    """MaxPool (NHWC) and the flat index of each maximum:
    argmax = ((b * height + y) * width + x) * channels + c, b included only
    with ``include_batch_in_index``."""
    x = np.asarray(input)
    out = _max_pool(x, ksize, strides, padding, [], "NHWC", "MaxPoolWithArgmax")
    g = _geometry(x.shape, ksize, strides, padding, [], "NHWC")
    return out, _flat_argmax(x, g, include_batch_in_index).astype(dtypes.as_dtype(Targmax).np)


def _batch_offsets(shape, include_batch_in_index, per_batch):
    if include_batch_in_index:
        return 0
    return (np.arange(shape[0]) * per_batch).reshape((-1,) + (1,) * (len(shape) - 1))


_ARGMAX_GRAD_ATTRS = {"ksize": REQUIRED, "strides": REQUIRED, "padding": REQUIRED, "include_batch_in_index": False}


@register_op("MaxPoolGradWithArgmax", inputs=("input", "grad", "argmax"), attrs=dict(_ARGMAX_GRAD_ATTRS),
             type_attrs={"T": ("input", "grad"), "Targmax": "argmax"},
             allowed={"T": _MAX_T, "Targmax": (dtypes.int32, dtypes.int64)}, shape=_same_as("input"))
def max_pool_grad_with_argmax(input, grad, argmax, ksize, strides, padding, include_batch_in_index=False):
    """output (input-shaped) = the sum of grad over the outputs whose argmax
    points at each input element."""
    x, dy, am = np.asarray(input), np.asarray(grad), np.asarray(argmax).astype(np.int64)
    if dy.shape != am.shape:
        raise invalid_argument(f"MaxPoolGradWithArgmax: grad {list(dy.shape)} and argmax {list(am.shape)} differ")
    per = int(np.prod(x.shape[1:], dtype=np.int64))
    flat = am + _batch_offsets(am.shape, include_batch_in_index, per)
    if flat.size and (flat.min() < 0 or flat.max() >= x.size):
        raise invalid_argument("MaxPoolGradWithArgmax: argmax index out of range")
    out = np.zeros(x.size, dy.dtype)
    np.add.at(out, flat.reshape(-1), dy.reshape(-1))
    return out.reshape(x.shape)


@register_op("MaxPoolGradGradWithArgmax", inputs=("input", "grad", "argmax"), attrs=dict(_ARGMAX_GRAD_ATTRS),
             type_attrs={"T": ("input", "grad"), "Targmax": "argmax"},
             allowed={"T": _MAX_T, "Targmax": (dtypes.int32, dtypes.int64)},
             shape=lambda ins, attrs: [(ins["grad"].dtype, ins["argmax"].shape)])
def max_pool_grad_grad_with_argmax(input, grad, argmax, ksize, strides, padding, include_batch_in_index=False):
    """output[b, i, j, c] = grad (input-shaped) at argmax[b, i, j, c]."""
    x, gx, am = np.asarray(input), np.asarray(grad), np.asarray(argmax).astype(np.int64)
    per = int(np.prod(x.shape[1:], dtype=np.int64))
    flat = am + _batch_offsets(am.shape, include_batch_in_index, per)
    if flat.size and (flat.min() < 0 or flat.max() >= gx.size):
        raise invalid_argument("MaxPoolGradGradWithArgmax: argmax index out of range")
    return gx.reshape(-1)[flat]
