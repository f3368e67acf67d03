"""Direct convolutions (``ref.ops.conv_kernel``: the windows read in place in a padded
image, no patch matrix) have the bits of the patch matrix's products: Conv2D, the
stride-1 input gradient, Conv2D + BiasAdd + Relu and Conv2DBackpropFilter against
the chunked patch copies (``patch_products.DIRECT`` off) and against the whole
patch matrix multiplied block by block on ``ref``'s kernel (the formulation before
both), on one and two threads, with NaN, infinities, signed zeros, an infinite
filter value (no padding row is skipped then) and flush-to-zero arithmetic."""
import numpy as np
import pytest

from ref.ops import conv, conv_kernel, fpenv, fused, gemm, nn, patch_products

# (name, input NHWC, filter HWIO, strides, dilations, padding, special, PATCH_BYTES)
CASES = [
    ("lenet2", (6, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "", 1 << 24),
    ("vgg3x3x32", (8, 32, 32, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME", "", 1 << 22),  # several image blocks
    ("lenet1", (5, 28, 28, 1), (5, 5, 1, 32), (1, 1), (1, 1), "SAME", "", 1 << 24),  # one channel, 25 columns
    ("vgg1", (4, 32, 32, 3), (3, 3, 3, 32), (1, 1), (1, 1), "SAME", "", 1 << 16),
    ("odd-valid-strided", (5, 17, 15, 40), (3, 2, 40, 48), (2, 2), (1, 1), "VALID", "", 1 << 24),  # 48: a part panel
    ("odd-same-strided", (4, 19, 23, 8), (4, 3, 8, 40), (2, 1), (1, 1), "SAME", "x", 1 << 15),
    ("row-dilation", (4, 20, 20, 16), (3, 3, 16, 32), (1, 1), (3, 1), "SAME", "", 1 << 24),
    ("column-dilation", (4, 20, 20, 16), (3, 3, 16, 32), (1, 1), (1, 2), "SAME", "", 1 << 24),  # filter gradient
    ("specials", (4, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "x", 1 << 24),
    ("filter-inf", (4, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "f_inf", 1 << 24),
    ("signed-zeros", (4, 9, 11, 16), (3, 3, 16, 32), (1, 1), (1, 1), "SAME", "zeros", 1 << 24),
    ("tall-kernel", (3, 5, 24, 32), (7, 3, 32, 32), (1, 1), (1, 1), "SAME", "x", 1 << 24),
    ("subnormals-ftz", (4, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "tiny", 1 << 24),
    # sums that round to -0 from below, where the padding's terms (+0 * f, f > 0) make +0
    ("underflow-signed-zeros", (3, 6, 7, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "underflow", 1 << 24),
    ("underflow-vgg", (3, 8, 8, 64), (3, 3, 64, 64), (1, 1), (1, 1), "SAME", "underflow", 1 << 24),
    ("underflow-all-negative", (3, 6, 7, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "underflow-", 1 << 24),
]


def _inputs(rng, xs, fs, special, dtype):
    x, f = rng.standard_normal(xs).astype(dtype), rng.standard_normal(fs).astype(dtype)
    if special == "x":
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, 12, replace=False)] = np.array([np.nan, np.inf, -np.inf, -0.0] * 3, dtype)
    elif special == "f_inf":
        f[0, 0, 0, 0] = np.inf
    elif special == "zeros":
        x[...] = -0.0
        f = np.where(rng.random(fs) < 0.5, -0.0, 0.0).astype(dtype)
    elif special.startswith("underflow"):  # products below the smallest subnormal: each rounds to a signed zero
        x = np.abs(x) * dtype(1e-30 if dtype == np.float32 else 1e-200)
        f = -np.abs(f) * dtype(1e-20 if dtype == np.float32 else 1e-200)
        if special == "underflow":
            f[-1] = -f[-1]  # the last kernel row positive: +0 where it is padding, the whole chain +0
    elif special == "tiny":  # products and sums below the smallest normal number
        x *= 4 * np.finfo(dtype).tiny
    return x, f


def _whole_patch_matrix(x, fs, dy, g):
    """Conv2DBackpropFilter as before: each PATCH_BYTES block's patch matrix, one product
    on ref's kernel, the blocks' products added in order."""
    o = fs[3]
    df = np.zeros((fs[0] * fs[1] * fs[2], o), x.dtype)
    for b0, b1, cols in conv._patch_blocks(x, fs[0], fs[1], g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, pad=(g.ph0, g.pw0)):
        part = gemm.matmul(cols.T, dy[b0:b1].reshape(-1, o))
        if b0 == 0 and b1 == x.shape[0]:
            return part.reshape(fs)
        df += part
    return df.reshape(fs)


@pytest.fixture(scope="module", autouse=True)
def _built():
    patch_products._sample_direct()  # builds the direct loops here (else a background thread does)


@pytest.mark.filterwarnings("ignore:invalid value encountered")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, xs, fs, strides, dil, padding, special, patch_bytes", CASES, ids=lambda v: str(v))
def test_direct_convolutions_have_the_patch_matrix_bits(name, xs, fs, strides, dil, padding, special, patch_bytes,
                                                        dtype, monkeypatch):
    monkeypatch.setattr(conv, "PATCH_BYTES", patch_bytes)
    rng = np.random.default_rng(31)
    x, f = _inputs(rng, xs, fs, special, dtype)
    bias = rng.standard_normal(fs[3]).astype(dtype)
    bias[:4] = [np.nan, -np.inf, -0.0, 0.0]
    kw = dict(strides=[1, *strides, 1], dilations=[1, *dil, 1], padding=padding)
    g = conv.Geometry(xs[1], xs[2], fs[0], fs[1], kw["strides"], kw["dilations"], padding, [], "NHWC")
    dy = rng.standard_normal((xs[0], g.oh, g.ow, fs[3])).astype(dtype)
    if special.startswith("underflow"):  # the filter gradient's sums underflow too, to -0 but for the
        dy = -np.abs(dy) * dtype(1e-20 if dtype == np.float32 else 1e-200)  # bottom rows' padding terms
        dy[:, -2:] = -dy[:, -2:]
    half = np.ascontiguousarray(f[..., :max(1, xs[3] // 2)])  # out depth <= in depth: a correlation
    dyh = rng.standard_normal((xs[0], g.oh, g.ow, half.shape[3])).astype(dtype)
    ran = []
    for fn in ("correlate", "filter_grad"):
        real = getattr(conv_kernel, fn)
        monkeypatch.setattr(conv_kernel, fn, lambda *a, real=real, fn=fn: ran.append(fn) or real(*a))

    def run():
        y = conv.conv2d(x, f, **kw)
        yb = fused.conv_bias_relu(x, f, bias, dict(kw, data_format="NHWC"))
        dx = dxh = None
        if strides == (1, 1):
            dx = conv.conv2d_backprop_input(np.int32(xs), f, dy, **kw)
            dxh = conv.conv2d_backprop_input(np.int32(xs), half, dyh, **kw)
        df = conv.conv2d_backprop_filter(x, np.int32(fs), dy, **kw)
        return y, yb, dx, dxh, df

    def runs():
        if special != "tiny":
            return run()
        with fpenv.flush_denormals():
            return run()

    got = runs()
    assert "filter_grad" in ran and ("correlate" in ran) is (dil[1] == 1)
    with gemm.limit_threads(1):
        alone = runs()
    monkeypatch.setattr(patch_products, "DIRECT", False)
    chunked = runs()
    monkeypatch.setattr(patch_products, "correlates", lambda *a: False)  # whole-image patch blocks
    blocks = runs()
    if special == "underflow":  # (the chains without the bottom padding rows' terms are -0)
        assert (got[0] == 0).all() and not np.signbit(got[0]).any()
    if special == "underflow-":
        assert (got[0] == 0).all() and np.signbit(got[0]).all()
    if special == "tiny":
        assert not np.all(got[0] == 0)
        with fpenv.flush_denormals():
            want_df = _whole_patch_matrix(x, fs, dy, g)
    else:
        want_df = _whole_patch_matrix(x, fs, dy, g)
    for i, (a, b, c, d) in enumerate(zip(got, alone, chunked, blocks)):
        if i == 1 and d is None:  # the fused op declines where the chunks do not run: the three ops
            d = nn.relu(nn.bias_add(got[0], bias))
        if i == 1 and c is None:
            c = d
        assert (a is None and d is None) or a.dtype == dtype and a.tobytes() == b.tobytes() == c.tobytes() == \
            d.tobytes(), (name, i)
    assert got[4].tobytes() == want_df.tobytes()


@pytest.mark.parametrize("h, w, c, hp, wp, top, left", [
    (5, 7, 3, 9, 11, 2, 2), (5, 7, 3, 5, 7, 0, 0), (6, 6, 2, 4, 5, -1, -2), (4, 4, 1, 8, 3, 3, 0),
    (3, 5, 4, 6, 9, 1, 5),
])
def test_pad_image_is_numpy_pad(h, w, c, hp, wp, top, left):
    """The padded image: zeros before (``top``, ``left``; negative crops) and after, cut
    to ``hp x wp`` -- against NumPy's pad and slicing."""
    rng = np.random.default_rng(32)
    x = rng.standard_normal((2, h, w, c)).astype(np.float32)
    full = np.pad(x[1], ((max(top, 0), hp + h), (max(left, 0), wp + w), (0, 0)))
    want = full[max(-top, 0):max(-top, 0) + hp, max(-left, 0):max(-left, 0) + wp]
    dst = np.full(hp * wp * c, np.nan, np.float32)
    conv_kernel.pad_image.py_func(x.reshape(-1), h * w * c, dst, h, w, c, hp, wp, top, left)
    assert dst.reshape(hp, wp, c).tobytes() == np.ascontiguousarray(want).tobytes()
