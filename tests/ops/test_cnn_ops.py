"""Convolution, pooling, batch-norm, LRN and top-k kernels (ref/ops/conv.py,
pooling.py, normalization.py, top_k.py): float64 loop oracles of the
documented formulas, and ``tf.raw_ops`` on tables of shapes, paddings,
strides, dilations and formats within the ULP budgets below.

Budgets (float32, measured against tensorflow-cpu 2.21 with oneDNN off, as tests/conftest.py sets it, on inputs
in [0.5, 1.5), so that sums do not cancel): TF sums the products of a window
in Eigen's blocked order, ref in BLAS's. Outputs that are
differences of nearly equal sums (the training-mode batch-norm input/scale
gradients, LRNGrad) are compared with a tolerance relative to the size of
their terms instead.
"""
import numpy as np
import pytest

import ref.ops
from ref.ops import registry
from ref.types import errors
from ref.golden.ulp import ulp_distance

ref.ops.load_all()

BUDGETS = {
    # measured: 0, 2, 0, 0, 2, 5 / 0, 2, 0, 0, 2 / 0 / 2 / 0 (Intel AVX-512). TF's Eigen
    # contraction picks its blocking, and so its summation order, from the CPU's vector
    # width and caches: on an AMD Zen 4 (EPYC) Conv2D's 5x5 VALID case is 3 ULP from
    # ref, every time; the inputs are positive (no cancellation), so 4 bounds both.
    "Conv2D": 4, "Conv2DBackpropInput": 4, "Conv2DBackpropFilter": 4, "DepthwiseConv2dNative": 2,
    "DepthwiseConv2dNativeBackpropInput": 4, "DepthwiseConv2dNativeBackpropFilter": 8,
    "MaxPool": 0, "MaxPoolGrad": 4, "MaxPoolGradGrad": 0, "AvgPool": 2, "AvgPoolGrad": 4,
    "FusedBatchNormV3": 2, "LRN": 4, "TopKV2": 0,
}


def _u(rng, shape):
    return rng.uniform(0.5, 1.5, shape).astype(np.float32)


def _fmt_list(fmt, hw, outer=1):
    return [outer, outer, *hw] if fmt == "NCHW" else [outer, *hw, outer]


def _to(fmt, x):
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2)) if fmt == "NCHW" else x


# -- float64 oracle: the documented sum, one output element at a time ---------

def _pads(n, k, s, d, padding, explicit=(0, 0)):
    ke = (k - 1) * d + 1
    if padding == "VALID":
        return (n - ke) // s + 1, 0
    if padding == "SAME":
        out = -(-n // s)
        return out, max((out - 1) * s + ke - n, 0) // 2
    return (n + explicit[0] + explicit[1] - ke) // s + 1, explicit[0]


def conv_oracle(x, f, strides, dilations, padding, explicit=((0, 0), (0, 0)), depthwise=False):
    """NHWC float64 loops of output[b,i,j,o] = sum x[b, s*i + d*di - p, ...] * f[di, dj, q, o]."""
    n, h, w, c = x.shape
    kh, kw, fc, o = f.shape
    oh, pt = _pads(h, kh, strides[0], dilations[0], padding, explicit[0])
    ow, pl = _pads(w, kw, strides[1], dilations[1], padding, explicit[1])
    out = np.zeros((n, oh, ow, c * o if depthwise else o))
    for i in range(oh):
        for j in range(ow):
            for di in range(kh):
                for dj in range(kw):
                    r, s = strides[0] * i + dilations[0] * di - pt, strides[1] * j + dilations[1] * dj - pl
                    if 0 <= r < h and 0 <= s < w:
                        if depthwise:
                            out[:, i, j, :] += (x[:, r, s, :, None] * f[di, dj]).reshape(n, -1)
                        else:
                            out[:, i, j, :] += x[:, r, s, :] @ f[di, dj]
    return out


CONV_GEOMETRIES = [
    # (input hw, filter hw, strides, dilations, padding, explicit)
    ((7, 6), (3, 2), (1, 1), (1, 1), "SAME", None),
    ((7, 6), (3, 2), (2, 2), (1, 1), "SAME", None),
    ((7, 6), (3, 3), (1, 2), (1, 1), "VALID", None),
    ((7, 6), (3, 2), (2, 3), (1, 1), "VALID", None),
    ((7, 6), (2, 2), (1, 1), (2, 2), "SAME", None),
    ((8, 8), (3, 3), (1, 1), (2, 1), "VALID", None),
    ((7, 6), (3, 2), (1, 1), (1, 1), "EXPLICIT", ((1, 2), (0, 1))),
    ((5, 5), (5, 5), (1, 1), (1, 1), "VALID", None),
    ((3, 3), (1, 1), (3, 3), (1, 1), "SAME", None),
]


def _conv_kw(fmt, strides, dilations, padding, explicit):
    ep = []
    if padding == "EXPLICIT":
        (a, b), (c, d) = explicit
        ep = [0, 0, 0, 0, a, b, c, d] if fmt == "NCHW" else [0, 0, a, b, c, d, 0, 0]
    return dict(strides=_fmt_list(fmt, strides), dilations=_fmt_list(fmt, dilations), padding=padding,
                explicit_paddings=ep, data_format=fmt)


@pytest.mark.parametrize("geom", CONV_GEOMETRIES, ids=str)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_conv2d_vs_oracle(geom, fmt):
    hw, khw, strides, dil, padding, explicit = geom
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, *hw, 3))
    f = rng.standard_normal((*khw, 3, 4))
    kw = _conv_kw(fmt, strides, dil, padding, explicit)
    want = conv_oracle(x, f, strides, dil, padding, explicit or ((0, 0), (0, 0)))
    got = registry.call("Conv2D", input=_to(fmt, x), filter=f, **kw)
    np.testing.assert_allclose(got, _to(fmt, want), rtol=1e-12, atol=1e-12)
    if strides[0] != strides[1]:
        return  # TF's depthwise ops (and ref's) take equal strides only
    fd = rng.standard_normal((*khw, 3, 2))
    want_dw = conv_oracle(x, fd, strides, dil, padding, explicit or ((0, 0), (0, 0)), depthwise=True)
    got_dw = registry.call("DepthwiseConv2dNative", input=_to(fmt, x), filter=fd, **kw)
    np.testing.assert_allclose(got_dw, _to(fmt, want_dw), rtol=1e-12, atol=1e-12)
    # backprops: <dy, conv(x, f)> = <backprop_input(dy), x> = <backprop_filter(dy), f> (adjointness)
    dy = rng.standard_normal(want.shape)
    dx = registry.call("Conv2DBackpropInput", input_sizes=np.int32(_to(fmt, x).shape), filter=f,
                       out_backprop=_to(fmt, dy), **kw)
    df = registry.call("Conv2DBackpropFilter", input=_to(fmt, x), filter_sizes=np.int32(f.shape),
                       out_backprop=_to(fmt, dy), **kw)
    dot = np.sum(dy * want)
    np.testing.assert_allclose(np.sum(_to(fmt, x) * dx), dot, rtol=1e-10)
    np.testing.assert_allclose(np.sum(f * df), dot, rtol=1e-10)
    dy = rng.standard_normal(want_dw.shape)
    dx = registry.call("DepthwiseConv2dNativeBackpropInput", input_sizes=np.int32(_to(fmt, x).shape), filter=fd,
                       out_backprop=_to(fmt, dy), **kw)
    df = registry.call("DepthwiseConv2dNativeBackpropFilter", input=_to(fmt, x), filter_sizes=np.int32(fd.shape),
                       out_backprop=_to(fmt, dy), **kw)
    dot = np.sum(dy * want_dw)
    np.testing.assert_allclose(np.sum(_to(fmt, x) * dx), dot, rtol=1e-10)
    np.testing.assert_allclose(np.sum(fd * df), dot, rtol=1e-10)


def _tf_supports(op, fmt, geom):
    """tf.raw_ops on CPU: the backprops take no dilations (the depthwise ones
    ignore them), and NHWC only with EXPLICIT padding; depthwise ops need equal
    strides and (outside some oneDNN paths) no dilations."""
    _, _, strides, dil, padding, _ = geom
    if fmt == "NCHW":  # TF's Eigen CPU kernels are NHWC only (NCHW needs oneDNN, off in the tests)
        return False
    if op in ("Conv2DBackpropInput", "Conv2DBackpropFilter"):
        return dil == (1, 1) and not (padding == "EXPLICIT" and fmt == "NCHW")
    if op.startswith("DepthwiseConv2dNativeBackprop"):
        return fmt == "NHWC" and dil == (1, 1) and strides[0] == strides[1] and padding != "EXPLICIT"
    if op == "DepthwiseConv2dNative":
        return strides[0] == strides[1] and dil == (1, 1) and not (fmt == "NCHW" and padding == "EXPLICIT")
    return True


def _distance(tf, op, kwargs):
    ours = registry.call(op, **kwargs)
    theirs = getattr(tf.raw_ops, op)(**kwargs)
    ours = list(ours) if isinstance(ours, tuple) else [ours]
    theirs = [np.asarray(t) for t in (theirs if isinstance(theirs, (list, tuple)) else [theirs])]
    worst = 0
    for a, e in zip(ours, theirs):
        assert a.dtype == e.dtype and a.shape == e.shape, (op, a.dtype, e.dtype, a.shape, e.shape)
        if a.dtype.kind == "f" and a.size:
            worst = max(worst, int(ulp_distance(a, e).max()))
        else:
            np.testing.assert_array_equal(a, e)
    return worst


@pytest.mark.parametrize("geom", CONV_GEOMETRIES, ids=str)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_conv_vs_tf_raw_ops(geom, fmt):
    tf = pytest.importorskip("tensorflow")
    hw, khw, strides, dil, padding, explicit = geom
    rng = np.random.default_rng(2)
    x, f, fd = _to(fmt, _u(rng, (2, *hw, 3))), _u(rng, (*khw, 3, 4)), _u(rng, (*khw, 3, 2))
    kw = _conv_kw(fmt, strides, dil, padding, explicit)
    y = registry.call("Conv2D", input=x, filter=f, **kw)
    ydw = registry.call("DepthwiseConv2dNative", input=x, filter=fd, **kw) if strides[0] == strides[1] else y
    dy, dydw = _u(rng, y.shape), _u(rng, ydw.shape)
    rows = [
        ("Conv2D", dict(input=x, filter=f)),
        ("Conv2DBackpropInput", dict(input_sizes=np.int32(x.shape), filter=f, out_backprop=dy)),
        ("Conv2DBackpropFilter", dict(input=x, filter_sizes=np.int32(f.shape), out_backprop=dy)),
        ("DepthwiseConv2dNative", dict(input=x, filter=fd)),
        ("DepthwiseConv2dNativeBackpropInput", dict(input_sizes=np.int32(x.shape), filter=fd, out_backprop=dydw)),
        ("DepthwiseConv2dNativeBackpropFilter", dict(input=x, filter_sizes=np.int32(fd.shape), out_backprop=dydw)),
    ]
    for op, args in rows:
        if _tf_supports(op, fmt, geom):
            assert _distance(tf, op, {**args, **kw}) <= BUDGETS[op], op


def conv_grads_oracle(x, f, dy, strides, dilations, padding, explicit=((0, 0), (0, 0))):
    """NHWC float64 loops of Conv2D's input and filter gradients: each output
    gradient spread over the taps of its window."""
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    oh, pt = _pads(h, kh, strides[0], dilations[0], padding, explicit[0])
    ow, pl = _pads(w, kw, strides[1], dilations[1], padding, explicit[1])
    dx, df = np.zeros(x.shape), np.zeros(f.shape)
    for i in range(oh):
        for j in range(ow):
            for di in range(kh):
                for dj in range(kw):
                    r, s = strides[0] * i + dilations[0] * di - pt, strides[1] * j + dilations[1] * dj - pl
                    if 0 <= r < h and 0 <= s < w:
                        dx[:, r, s, :] += dy[:, i, j, :] @ f[di, dj].T
                        df[di, dj] += x[:, r, s, :].T @ dy[:, i, j, :]
    return dx, df


# The kernels' code paths: patch blocks of one image or several (PATCH_BYTES),
# the stride-1 input gradient as a correlation (out depth <= in depth) or by
# col2im (few or many channels, column dilation), explicit padding larger than
# the filter (out_backprop rows cropped).
CONV_PATH_CASES = [
    # (input NHWC, filter HWIO, strides, dilations, padding, explicit)
    ((5, 7, 6, 4), (3, 2, 4, 2), (1, 1), (1, 1), "SAME", None),
    ((5, 7, 6, 4), (3, 3, 4, 4), (1, 1), (2, 1), "VALID", None),
    ((5, 7, 6, 4), (2, 3, 4, 4), (1, 1), (1, 2), "SAME", None),
    ((5, 7, 6, 3), (2, 2, 3, 3), (1, 1), (1, 1), "EXPLICIT", ((4, 0), (1, 3))),
    ((5, 7, 6, 3), (3, 3, 3, 5), (1, 1), (1, 1), "SAME", None),
    ((5, 7, 6, 3), (3, 3, 3, 5), (2, 2), (1, 1), "SAME", None),
    ((5, 8, 8, 6), (3, 3, 6, 2), (2, 1), (1, 1), "VALID", None),
    ((5, 4, 4, 6), (1, 1, 6, 2), (1, 1), (1, 1), "SAME", None),
    ((5, 7, 6, 6), (1, 1, 6, 2), (2, 2), (1, 1), "VALID", None),
    ((3, 6, 6, 8), (3, 3, 8, 12), (2, 2), (1, 1), "SAME", None),
    ((3, 6, 7, 2), (2, 3, 2, 4), (1, 2), (1, 2), "SAME", None),
]


@pytest.mark.parametrize("case", CONV_PATH_CASES, ids=str)
@pytest.mark.parametrize("patch_bytes", [1, 600, 1 << 23], ids=["image", "blocks", "batch"])
def test_conv2d_paths_vs_oracle(case, patch_bytes, monkeypatch):
    monkeypatch.setattr(ref.ops.conv, "PATCH_BYTES", patch_bytes)
    xs, fs, strides, dil, padding, explicit = case
    rng = np.random.default_rng(7)
    x, f = rng.standard_normal(xs), rng.standard_normal(fs)
    explicit = explicit or ((0, 0), (0, 0))
    kw = _conv_kw("NHWC", strides, dil, padding, explicit)
    want = conv_oracle(x, f, strides, dil, padding, explicit)
    np.testing.assert_allclose(registry.call("Conv2D", input=x, filter=f, **kw), want, rtol=1e-12, atol=1e-12)
    dy = rng.standard_normal(want.shape)
    want_dx, want_df = conv_grads_oracle(x, f, dy, strides, dil, padding, explicit)
    dx = registry.call("Conv2DBackpropInput", input_sizes=np.int32(xs), filter=f, out_backprop=dy, **kw)
    df = registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.int32(fs), out_backprop=dy, **kw)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(df, want_df, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", [c for c in CONV_PATH_CASES if c[3] == (1, 1)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_paths_vs_tf_raw_ops(case, dtype, monkeypatch):
    tf = pytest.importorskip("tensorflow")
    monkeypatch.setattr(ref.ops.conv, "PATCH_BYTES", 600)
    xs, fs, strides, dil, padding, explicit = case
    rng = np.random.default_rng(8)
    x, f = _u(rng, xs).astype(dtype), _u(rng, fs).astype(dtype)
    kw = _conv_kw("NHWC", strides, dil, padding, explicit)
    dy = _u(rng, registry.call("Conv2D", input=x, filter=f, **kw).shape).astype(dtype)
    # positive terms, summed in another order: at most (terms - 1) roundings of the dtype apart
    eps, (n, oh, ow, o) = np.finfo(dtype).eps, dy.shape
    for op, args, terms in [
            ("Conv2D", dict(input=x, filter=f), fs[0] * fs[1] * fs[2]),
            ("Conv2DBackpropInput", dict(input_sizes=np.int32(xs), filter=f, out_backprop=dy), fs[0] * fs[1] * o),
            ("Conv2DBackpropFilter", dict(input=x, filter_sizes=np.int32(fs), out_backprop=dy), n * oh * ow)]:
        ours = registry.call(op, **args, **kw)
        theirs = getattr(tf.raw_ops, op)(**args, **kw).numpy()
        assert ours.dtype == theirs.dtype == dtype and ours.shape == theirs.shape, op
        np.testing.assert_allclose(ours, theirs, rtol=terms * eps, atol=0, err_msg=op)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32])
def test_conv2d_dtypes_vs_tf(dtype):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (1, 5, 5, 2)).astype(dtype)
    f = rng.integers(0, 3, (3, 3, 2, 3)).astype(dtype)
    kw = dict(strides=[1, 1, 1, 1], padding="SAME")
    got = registry.call("Conv2D", input=x, filter=f, **kw)
    want = tf.raw_ops.Conv2D(input=x, filter=f, **kw).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # small integers: every sum is exact


POOL_GEOMETRIES = [
    # (ksize hw, strides hw, padding)
    ((2, 2), (2, 2), "SAME"), ((2, 2), (2, 2), "VALID"), ((3, 3), (1, 1), "SAME"), ((3, 3), (1, 1), "VALID"),
    ((3, 2), (2, 1), "SAME"), ((3, 3), (2, 2), "SAME"), ((1, 1), (1, 1), "VALID"), ((7, 6), (1, 1), "VALID"),
]


def pool_oracle(x, k, s, padding, kind):
    """NHWC max/mean over each window's input elements (padding excluded)."""
    n, h, w, c = x.shape
    oh, pt = _pads(h, k[0], s[0], 1, padding)
    ow, pl = _pads(w, k[1], s[1], 1, padding)
    out = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = s[0] * i - pt, s[1] * j - pl
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1], :]
            out[:, i, j, :] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


@pytest.mark.parametrize("geom", POOL_GEOMETRIES, ids=str)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_pool_vs_oracle(geom, fmt):
    k, s, padding = geom
    x = np.random.default_rng(4).standard_normal((2, 7, 6, 3))
    kw = dict(ksize=_fmt_list(fmt, k), strides=_fmt_list(fmt, s), padding=padding, data_format=fmt)
    got = registry.call("MaxPool", input=_to(fmt, x), **kw)
    np.testing.assert_array_equal(got, _to(fmt, pool_oracle(x, k, s, padding, "max")))
    got = registry.call("AvgPool", value=_to(fmt, x), **kw)
    np.testing.assert_allclose(got, _to(fmt, pool_oracle(x, k, s, padding, "avg")), rtol=1e-13)
    # AvgPoolGrad is AvgPool's adjoint
    dy = np.random.default_rng(5).standard_normal(got.shape)
    dx = registry.call("AvgPoolGrad", orig_input_shape=np.int32(_to(fmt, x).shape), grad=dy, **kw)
    np.testing.assert_allclose(np.sum(dx * _to(fmt, x)), np.sum(dy * got), rtol=1e-12)


def max_pool_grad_oracle(x, dy, k, s, padding):
    """NHWC loops: each output gradient added at its window's first maximum in
    row-major window order, padding (the dtype's lowest) included in the order."""
    n, h, w, c = x.shape
    oh, pt = _pads(h, k[0], s[0], 1, padding)
    ow, pl = _pads(w, k[1], s[1], 1, padding)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = np.full((n, h + 2 * k[0], w + 2 * k[1], c), low, x.dtype)
    xp[:, k[0]:k[0] + h, k[1]:k[1] + w] = x
    dxp = np.zeros(xp.shape, dy.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = s[0] * i - pt + k[0], s[1] * j - pl + k[1]
            win = xp[:, r0:r0 + k[0], c0:c0 + k[1], :].reshape(n, -1, c)
            tap = np.argmax(win, axis=1)  # first maximum; the first NaN if any
            for b in range(n):
                for q in range(c):
                    dxp[b, r0 + tap[b, q] // k[1], c0 + tap[b, q] % k[1], q] += dy[b, i, j, q]
    return dxp[:, k[0]:k[0] + h, k[1]:k[1] + w]


@pytest.mark.parametrize("geom", POOL_GEOMETRIES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16, np.uint8])
def test_max_pool_nan_inf_ties_vs_oracle(geom, dtype):
    k, s, padding = geom
    rng = np.random.default_rng(9)
    x = rng.integers(0, 4, (2, 7, 6, 3)).astype(dtype)  # many ties
    if np.dtype(dtype).kind == "f":
        x[0, 1, 2, 0] = x[1, 4, 4, 2] = np.nan
        x[0, 3:5, 3:5, 1] = -np.inf
        x[1, 0, 0, 1] = np.inf
    kw = dict(ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding)
    got = registry.call("MaxPool", input=x, **kw)
    np.testing.assert_array_equal(got, pool_oracle(x, k, s, padding, "max"))
    dy = rng.integers(1, 5, got.shape).astype(dtype)
    dx = registry.call("MaxPoolGrad", orig_input=x, orig_output=got, grad=dy, **kw)
    assert dx.dtype == dtype
    np.testing.assert_array_equal(dx, max_pool_grad_oracle(x, dy, k, s, padding))


@pytest.mark.parametrize("geom", POOL_GEOMETRIES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_grad_float_sums_in_window_order(geom, dtype):
    # overlapping windows add several float gradients into one input: the one-pass
    # kernel (max and scatter per window) adds them in the oracle's window order, bit for bit
    k, s, padding = geom
    rng = np.random.default_rng(11)
    x = rng.integers(0, 3, (3, 9, 8, 17)).astype(dtype)  # ties: the first maximum takes them
    kw = dict(ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding)
    y = registry.call("MaxPool", input=x, **kw)
    dy = (rng.standard_normal(y.shape) * np.exp(rng.uniform(-20, 20, y.shape))).astype(dtype)
    dx = registry.call("MaxPoolGrad", orig_input=x, orig_output=y, grad=dy, **kw)
    assert dx.tobytes() == max_pool_grad_oracle(x, dy, k, s, padding).tobytes()


@pytest.mark.parametrize("geom", POOL_GEOMETRIES, ids=str)
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_pool_vs_tf_raw_ops(geom, ties, fmt="NHWC"):  # TF's Eigen CPU pooling is NHWC only
    tf = pytest.importorskip("tensorflow")
    k, s, padding = geom
    rng = np.random.default_rng(6)
    x = _u(rng, (2, 7, 6, 3))
    if ties:  # many equal maxima: the gradient goes to the first in row-major order
        x = np.round(x * 2).astype(np.float32)
    x = _to(fmt, x)
    kw = dict(ksize=_fmt_list(fmt, k), strides=_fmt_list(fmt, s), padding=padding, data_format=fmt)
    y = registry.call("MaxPool", input=x, **kw)
    assert _distance(tf, "MaxPool", dict(input=x, **kw)) <= BUDGETS["MaxPool"]
    avg = registry.call("AvgPool", value=x, **kw)
    assert _distance(tf, "AvgPool", dict(value=x, **kw)) <= BUDGETS["AvgPool"]
    dy = _u(rng, y.shape)
    assert _distance(tf, "AvgPoolGrad", dict(orig_input_shape=np.int32(x.shape), grad=_u(rng, avg.shape),
                                             **kw)) <= BUDGETS["AvgPoolGrad"]
    assert _distance(tf, "MaxPoolGrad", dict(orig_input=x, orig_output=y, grad=dy, **kw)) <= BUDGETS["MaxPoolGrad"]
    assert _distance(tf, "MaxPoolGradGrad", dict(orig_input=x, orig_output=y, grad=_u(rng, x.shape), **kw)) \
        <= BUDGETS["MaxPoolGradGrad"]


@pytest.mark.parametrize("geom", POOL_GEOMETRIES, ids=str)
@pytest.mark.parametrize("include_batch", [False, True])
def test_max_pool_with_argmax_vs_tf(geom, include_batch):
    tf = pytest.importorskip("tensorflow")
    k, s, padding = geom
    rng = np.random.default_rng(12)
    x = np.round(_u(rng, (2, 7, 6, 3)) * 2).astype(np.float32)  # ties: the first maximum's index
    kw = dict(ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding, include_batch_in_index=include_batch)
    out, argmax = registry.call("MaxPoolWithArgmax", input=x, **kw)
    assert _distance(tf, "MaxPoolWithArgmax", dict(input=x, **kw)) == 0
    assert _distance(tf, "MaxPoolGradWithArgmax", dict(input=x, grad=_u(rng, out.shape), argmax=argmax, **kw)) \
        <= BUDGETS["MaxPoolGrad"]
    gx = _u(rng, x.shape)  # TF has no CPU kernel for MaxPoolGradGradWithArgmax: its definition instead
    flat = argmax if include_batch else argmax + (np.arange(2) * x[0].size)[:, None, None, None]
    np.testing.assert_array_equal(
        registry.call("MaxPoolGradGradWithArgmax", input=x, grad=gx, argmax=argmax, **kw), gx.reshape(-1)[flat])


def test_max_pool_explicit_padding_and_int():
    tf = pytest.importorskip("tensorflow")
    x = np.arange(2 * 5 * 4 * 3, dtype=np.int32).reshape(2, 5, 4, 3) % 7 - 3
    kw = dict(ksize=[1, 2, 3, 1], strides=[1, 2, 1, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 2, 0, 0, 0])
    np.testing.assert_array_equal(registry.call("MaxPool", input=x, **kw), tf.raw_ops.MaxPool(input=x, **kw).numpy())


# -- batch norm, LRN, top_k -----------------------------------------------------

FBN_ROWS = [(fmt, training, factor) for fmt in ("NHWC", "NCHW") for training in (True, False)
            for factor in (1.0, 0.3)]


@pytest.mark.parametrize("fmt,training,factor", FBN_ROWS)
def test_fused_batch_norm_vs_tf(fmt, training, factor):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(7)
    x = _u(rng, (2, 3, 4, 5))
    depth = 5 if fmt == "NHWC" else 3
    scale, offset = _u(rng, depth), rng.uniform(3, 4, depth).astype(np.float32)  # y stays away from 0
    mean, var = _u(rng, depth), _u(rng, depth)
    kw = dict(epsilon=0.001, data_format=fmt, is_training=training)
    args = dict(x=x, scale=scale, offset=offset, mean=mean, variance=var, exponential_avg_factor=factor, **kw)
    out = registry.call("FusedBatchNormV3", **args)
    want = [np.asarray(t) for t in tf.raw_ops.FusedBatchNormV3(**args)]
    compared = 6 if training else 3  # inference: TF leaves reserve_space_1/2 uninitialised
    for a, e in zip(out[:compared], want[:compared]):
        assert a.dtype == e.dtype and a.shape == e.shape
        assert ulp_distance(a, e).max() <= BUDGETS["FusedBatchNormV3"]
    dy = rng.standard_normal(x.shape).astype(np.float32)
    gargs = dict(y_backprop=dy, x=x, scale=scale, reserve_space_1=out[3], reserve_space_2=out[4],
                 reserve_space_3=out[5], **kw)
    ours = registry.call("FusedBatchNormGradV3", **gargs)
    if fmt == "NCHW" and not training:  # TF's CPU kernel: NHWC only here (its gradient rule transposes)
        nhwc = dict(gargs, y_backprop=dy.transpose(0, 2, 3, 1), x=x.transpose(0, 2, 3, 1), data_format="NHWC")
        theirs = [np.asarray(t) for t in tf.raw_ops.FusedBatchNormGradV3(**nhwc)]
        theirs[0] = theirs[0].transpose(0, 3, 1, 2)
    else:
        theirs = [np.asarray(t) for t in tf.raw_ops.FusedBatchNormGradV3(**gargs)]
    for a, e in zip(ours, theirs):
        assert a.dtype == e.dtype and a.shape == e.shape
    # sums of products with cancelling signs: tolerance relative to the terms' size
    for a, e in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5 * np.abs(e).max())


def test_fused_batch_norm_vs_formula():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 2, 2, 4))
    scale, offset = rng.uniform(0.5, 2, 4), rng.standard_normal(4)
    y, bm, bv, r1, r2, r3 = registry.call("FusedBatchNormV3", x=x.astype(np.float32), scale=scale.astype(np.float32),
                                          offset=offset.astype(np.float32), mean=np.float32([]),
                                          variance=np.float32([]), epsilon=0.01)
    m, v = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
    np.testing.assert_allclose(y, (x - m) / np.sqrt(v + 0.01) * scale + offset, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bm, m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bv, v * 12 / 11, rtol=1e-5)  # Bessel-corrected running variance
    np.testing.assert_allclose(r2, v, rtol=1e-5)
    assert r3.shape == ()


LRN_ROWS = [(5, 1.0, 1.0, 0.5), (2, 2.0, 1e-4, 0.75), (0, 1.0, 0.5, 1.0), (1, 0.5, 2.0, 0.25)]


@pytest.mark.parametrize("r,bias,alpha,beta", LRN_ROWS)
def test_lrn_vs_formula_and_tf(r, bias, alpha, beta):
    rng = np.random.default_rng(9)
    x = _u(rng, (2, 3, 2, 9))
    kw = dict(depth_radius=r, bias=bias, alpha=alpha, beta=beta)
    got = registry.call("LRN", input=x, **kw)
    x64 = x.astype(np.float64)
    sq = np.stack([np.sum(x64[..., max(d - r, 0):d + r + 1] ** 2, -1) for d in range(9)], -1)
    norm = np.float32(bias) + np.float32(alpha) * sq
    np.testing.assert_allclose(got, x64 / norm ** np.float64(np.float32(beta)), rtol=2e-7)
    dy = _u(rng, x.shape)
    g = registry.call("LRNGrad", input_grads=dy, input_image=x, output_image=got, **kw)
    # LRNGrad is the Jacobian-transpose product of LRN: check by central differences in float64
    eps, num = 1e-6, np.zeros_like(x64)
    lrn64 = lambda v: v / (np.float32(bias) + np.float32(alpha) * np.stack(  # noqa: E731
        [np.sum(v[..., max(d - r, 0):d + r + 1] ** 2, -1) for d in range(9)], -1)) ** np.float64(np.float32(beta))
    for idx in np.ndindex(*x.shape[:3]):
        for d in range(9):
            e = np.zeros_like(x64)
            e[idx + (d,)] = eps
            num[idx + (d,)] = np.sum(dy * (lrn64(x64 + e) - lrn64(x64 - e))) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-5)
    tf = pytest.importorskip("tensorflow")
    assert _distance(tf, "LRN", dict(input=x, **kw)) <= BUDGETS["LRN"]
    want = tf.raw_ops.LRNGrad(input_grads=dy, input_image=x, output_image=got, **kw).numpy()
    np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


TOPK_ROWS = [
    ("float-ties", np.float32([[1, 3, 3, 2, 3, 0], [5, 5, 5, 5, 5, 5]]), 4),
    ("int", np.int32([[7, -2, 7, 0], [-9, 4, 4, 1]]), 2),
    ("all", np.float64([[0.5, -1, 2]]), 3),
    ("k0", np.float32([[1, 2]]), 0),
    ("rank3", np.arange(24, dtype=np.float32).reshape(2, 3, 4)[..., ::-1].copy(), 2),
    ("neg-zero", np.float32([[-0.0, 0.0, -1.0]]), 2),
]


@pytest.mark.parametrize("rid,x,k", TOPK_ROWS, ids=[r[0] for r in TOPK_ROWS])
def test_top_k(rid, x, k):
    values, indices = registry.call("TopKV2", input=x, k=np.int32(k))
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, -1))
    tf = pytest.importorskip("tensorflow")
    assert _distance(tf, "TopKV2", dict(input=x, k=np.int32(k))) == 0


RUNTIME_ERRORS = [
    ("conv-depth", "Conv2D", dict(input=np.zeros((1, 3, 3, 2), np.float32), filter=np.zeros((1, 1, 3, 1), np.float32),
                                  strides=[1, 1, 1, 1], padding="VALID"), "evenly divisible"),
    ("conv-rank", "Conv2D", dict(input=np.zeros((3, 3, 2), np.float32), filter=np.zeros((1, 1, 2, 1), np.float32),
                                 strides=[1, 1, 1, 1], padding="VALID"), "4-dimensional"),
    ("conv-batch-stride", "Conv2D", dict(input=np.zeros((1, 3, 3, 2), np.float32),
                                         filter=np.zeros((1, 1, 2, 1), np.float32), strides=[2, 1, 1, 1],
                                         padding="VALID"), "batch and depth"),
    ("backprop-mismatch", "Conv2DBackpropInput", dict(input_sizes=np.int32([1, 4, 4, 2]),
                                                      filter=np.zeros((2, 2, 2, 1), np.float32),
                                                      out_backprop=np.zeros((1, 4, 4, 1), np.float32),
                                                      strides=[1, 1, 1, 1], padding="VALID"), "do not match"),
    ("pool-depth", "MaxPool", dict(input=np.zeros((1, 3, 3, 2), np.float32), ksize=[1, 1, 1, 2],
                                   strides=[1, 1, 1, 1], padding="VALID"), "depth"),
    ("topk-k", "TopKV2", dict(input=np.zeros((2, 3), np.float32), k=np.int32(4)), "at least k"),
    ("fbn-scale", "FusedBatchNormV3", dict(x=np.zeros((1, 2, 2, 3), np.float32), scale=np.ones(2, np.float32),
                                           offset=np.ones(3, np.float32), mean=np.float32([]),
                                           variance=np.float32([])), "scale"),
]


@pytest.mark.parametrize("rid,op,kwargs,match", RUNTIME_ERRORS, ids=[r[0] for r in RUNTIME_ERRORS])
def test_runtime_errors(rid, op, kwargs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        registry.call(op, **kwargs)


@pytest.mark.parametrize("xs, fs, strides, dil, padding", [
    ((8, 16, 16, 32), (3, 3, 32, 64), (1, 1), (1, 1), "SAME"),
    ((7, 31, 27, 16), (5, 5, 16, 48), (2, 1), (1, 1), "VALID"),
    ((8, 16, 16, 32), (3, 3, 32, 48), (1, 1), (2, 2), "SAME"),
])
@pytest.mark.parametrize("patch_bytes", [1, 1 << 24], ids=["image", "batch"])
def test_conv2d_images_split_among_threads_give_the_same_bits(xs, fs, strides, dil, padding, patch_bytes,
                                                              monkeypatch):
    """Conv2D's images are split among ref's matrix threads (each product its own
    chains): the bits are those of one thread, and near a float64 oracle."""
    from ref.ops import gemm

    n, h, w, c = xs
    assert n * h * w * fs[0] * fs[1] * c * fs[3] // (strides[0] * strides[1]) > 2 * gemm.MIN_BLOCK_WORK  # split
    monkeypatch.setattr(ref.ops.conv, "PATCH_BYTES", patch_bytes)
    rng = np.random.default_rng(3)
    x, f = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(fs).astype(np.float32)
    kw = _conv_kw("NHWC", strides, dil, padding, ((0, 0), (0, 0)))
    got = registry.call("Conv2D", input=x, filter=f, **kw)
    with gemm.limit_threads(1):
        alone = registry.call("Conv2D", input=x, filter=f, **kw)
    assert got.tobytes() == alone.tobytes()
    want = conv_oracle(x.astype(np.float64), f.astype(np.float64), strides, dil, padding, ((0, 0), (0, 0)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, fs, strides, padding", [
    ((8, 31, 31, 32), (3, 3, 32, 64), (2, 2), "VALID"),
    ((6, 32, 30, 16), (5, 5, 16, 48), (2, 3), "SAME"),
])
def test_strided_input_gradient_split_among_threads_gives_the_same_bits(xs, fs, strides, padding):
    """The strided input gradient's images are split among ref's matrix threads:
    the bits are those of one thread, and near a float64 oracle."""
    from ref.ops import gemm

    rng = np.random.default_rng(4)
    x, f = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(fs).astype(np.float32)
    kw = _conv_kw("NHWC", strides, (1, 1), padding, ((0, 0), (0, 0)))
    y_shape = registry.call("Conv2D", input=x, filter=f, **kw).shape
    assert np.prod(y_shape[:3]) * fs[0] * fs[1] * fs[2] * fs[3] >= 2 * gemm.MIN_BLOCK_WORK  # it is split
    dy = rng.standard_normal(y_shape).astype(np.float32)
    got = registry.call("Conv2DBackpropInput", input_sizes=np.int32(xs), filter=f, out_backprop=dy, **kw)
    with gemm.limit_threads(1):
        alone = registry.call("Conv2DBackpropInput", input_sizes=np.int32(xs), filter=f, out_backprop=dy, **kw)
    assert got.tobytes() == alone.tobytes()
    want, _ = conv_grads_oracle(x.astype(np.float64), f.astype(np.float64), dy.astype(np.float64), strides,
                                (1, 1), padding, ((0, 0), (0, 0)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, fs, strides, dil, padding", [
    ((8, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME"),  # LeNet's second layer, smaller batch
    ((5, 28, 28, 1), (5, 5, 1, 32), (1, 1), (1, 1), "SAME"),
    ((7, 17, 15, 3), (3, 3, 3, 32), (2, 1), (1, 2), "VALID"),
])
@pytest.mark.parametrize("copy_bytes", [1, 1 << 40], ids=["threads", "caller"])
def test_filter_gradient_patches_copied_on_threads_give_the_same_bits(xs, fs, strides, dil, padding, copy_bytes,
                                                                      monkeypatch):
    """Conv2DBackpropFilter's im2col copies are split among ref's matrix threads
    (``_PatchCopy``): the gradient has one thread's bits, and each split's patches
    (the caller's in place, a helper's through scratch) are NumPy's window copy."""
    from ref.ops import gemm

    monkeypatch.setattr(ref.ops.conv, "PARALLEL_COPY_BYTES", copy_bytes)
    rng = np.random.default_rng(6)
    x, f = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(fs).astype(np.float32)
    kw = _conv_kw("NHWC", strides, dil, padding, ((0, 0), (0, 0)))
    dy = rng.standard_normal(registry.call("Conv2D", input=x, filter=f, **kw).shape).astype(np.float32)
    got = registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.int32(fs), out_backprop=dy, **kw)
    with gemm.limit_threads(1):
        alone = registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.int32(fs), out_backprop=dy, **kw)
    assert got.tobytes() == alone.tobytes()
    oh, ow = dy.shape[1:3]
    g = ref.ops.conv.Geometry(xs[1], xs[2], fs[0], fs[1], [1, *strides, 1], [1, *dil, 1], padding, [], "NHWC")
    window, pad = (fs[0], fs[1], oh, ow, strides[0], strides[1], dil[0], dil[1]), (g.ph0, g.pw0)
    want = np.empty((xs[0], oh, ow, fs[0], fs[1], xs[3]), np.float32)
    ref.ops.conv._copy_windows(x, want, window, pad)
    copy = ref.ops.conv._PatchCopy(x, np.empty_like(want), window, pad)
    copy.run()
    assert copy.dst.tobytes() == want.tobytes()
    lo, hi = 1, xs[0] - 1
    assert copy.scratch(lo, hi).tobytes() == want[lo:hi].tobytes()


@pytest.mark.parametrize("geom", [((2, 2), (2, 2), "VALID"), ((3, 3), (1, 1), "SAME"), ((3, 2), (2, 1), "SAME")],
                         ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_max_pool_images_split_among_threads_give_the_same_bits(geom, dtype, monkeypatch):
    """MaxPool and MaxPoolGrad split their images among ref's matrix threads
    (``_PoolImages``): one thread's bits, the loop oracle's values, and a helper's
    scratch images (zeros to start with for the gradient) are the caller's."""
    from ref.ops import gemm, pooling

    monkeypatch.setattr(pooling, "PARALLEL_POOL_BYTES", 1)
    k, s, padding = geom
    rng = np.random.default_rng(12)
    x = rng.integers(0, 5, (5, 11, 10, 6)).astype(dtype)
    kw = dict(ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding)
    y = registry.call("MaxPool", input=x, **kw)
    dy = (rng.standard_normal(y.shape) * 100).astype(dtype)
    dx = registry.call("MaxPoolGrad", orig_input=x, orig_output=y, grad=dy, **kw)
    with gemm.limit_threads(1):
        assert registry.call("MaxPool", input=x, **kw).tobytes() == y.tobytes()
        assert registry.call("MaxPoolGrad", orig_input=x, orig_output=y, grad=dy, **kw).tobytes() == dx.tobytes()
    np.testing.assert_array_equal(y, pool_oracle(x, k, s, padding, "max"))
    assert dx.tobytes() == max_pool_grad_oracle(x, dy, k, s, padding).tobytes()
    out = np.full((5, 3), 7, np.int64)
    split = pooling._PoolImages(out, lambda lo, hi, dst: dst.__iadd__(np.arange(lo, hi)[:, None]), zeroed=True)
    assert split.scratch(1, 4).tolist() == [[1] * 3, [2] * 3, [3] * 3]  # zeros, then filled
