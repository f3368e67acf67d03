"""Conv2DBackpropFilter without the patch matrix (``ref.ops.patch_products``):
the patches copied a chunk of rows at a time, each element's chain resumed
from chunk to chunk, has the bits of the product over the whole patch matrix
(the formulation before it: ``_patch_blocks`` + one kernel product per
``PATCH_BYTES`` block, added in block order), on any number of threads; and
each piece on its own against its oracle."""
import numpy as np
import pytest

from ref.ops import conv, gemm, gemm_kernel
from ref.ops import patch_products

# (input NHWC, filter HWIO, strides, dilations, padding, PATCH_BYTES, CHUNK_BYTES)
CASES = [
    ((16, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", 1 << 24, 1 << 18),  # LeNet conv2 (one block)
    ((16, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", 1 << 20, 1 << 14),  # several blocks, short chunks
    ((12, 28, 28, 1), (5, 5, 1, 32), (1, 1), (1, 1), "SAME", 1 << 24, 1 << 18),  # one channel: runs of a row
    ((9, 32, 32, 3), (3, 3, 3, 32), (1, 1), (1, 1), "SAME", 1 << 19, 1 << 16),
    ((8, 32, 32, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME", 1 << 22, 1 << 18),  # VGG 3x3x32
    ((7, 17, 15, 40), (3, 2, 40, 48), (2, 2), (1, 1), "VALID", 1 << 24, 1 << 15),
    ((9, 20, 20, 16), (3, 3, 16, 32), (1, 1), (2, 2), "SAME", 1 << 20, 1 << 16),  # dilated columns: per tap
    ((6, 19, 23, 8), (4, 3, 8, 40), (2, 1), (1, 3), "SAME", 1 << 24, 1 << 14),  # chunk edges inside rows
]


def _kw(strides, dil, padding):
    return dict(strides=[1, *strides, 1], dilations=[1, *dil, 1], padding=padding)


def _whole_patch_matrix(x, fs, dy, kw):
    """The formulation before: the patch matrix of each PATCH_BYTES block, one product
    each on ref's kernel, added in block order."""
    g = conv.Geometry(x.shape[1], x.shape[2], fs[0], fs[1], kw["strides"], kw["dilations"], kw["padding"], [],
                      "NHWC")
    o = fs[3]
    df = np.zeros((fs[0] * fs[1] * fs[2], o), x.dtype)
    for b0, b1, cols in conv._patch_blocks(x, fs[0], fs[1], g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, pad=(g.ph0, g.pw0)):
        part = gemm.matmul(cols.T, dy[b0:b1].reshape(-1, o))  # (cols: one buffer, refilled per block)
        if b0 == 0 and b1 == x.shape[0]:
            return part.reshape(fs)
        df += part
    return df.reshape(fs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, fs, strides, dil, padding, patch_bytes, chunk_bytes", CASES, ids=str)
def test_filter_gradient_has_the_whole_products_bits(xs, fs, strides, dil, padding, patch_bytes, chunk_bytes, dtype,
                                                     monkeypatch):
    monkeypatch.setattr(conv, "PATCH_BYTES", patch_bytes)
    monkeypatch.setattr(patch_products, "CHUNK_BYTES", chunk_bytes)
    calls = []
    real = patch_products.FilterGrad.run
    monkeypatch.setattr(patch_products.FilterGrad, "run", lambda self: calls.append(1) or real(self))
    rng = np.random.default_rng(11)
    x, f = rng.standard_normal(xs).astype(dtype), rng.standard_normal(fs).astype(dtype)
    kw = _kw(strides, dil, padding)
    dy = rng.standard_normal(conv.conv2d(x, f, **kw).shape).astype(dtype)
    got = conv.conv2d_backprop_filter(x, np.int32(fs), dy, **kw)
    assert calls  # the chunked path ran
    with gemm.limit_threads(1):
        alone = conv.conv2d_backprop_filter(x, np.int32(fs), dy, **kw)
    want = _whole_patch_matrix(x, fs, dy, kw)
    assert got.dtype == dtype and got.tobytes() == alone.tobytes() == want.tobytes()


@pytest.mark.parametrize("xs, fs, strides, dil, padding", [c[:5] for c in CASES], ids=str)
@pytest.mark.parametrize("cols", [(0, None), (5, 29), (13, 14), (0, 7), (30, None)], ids=str)
def test_patch_rows_are_the_window_views_columns(xs, fs, strides, dil, padding, cols):
    rng = np.random.default_rng(12)
    x = rng.standard_normal(xs).astype(np.float32)
    n, h, w, c = xs
    kh, kw, _, _ = fs
    g = conv.Geometry(h, w, kh, kw, [1, *strides, 1], [1, *dil, 1], padding, [], "NHWC")
    window = (kh, kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw)
    want = np.empty((n, g.oh, g.ow, kh, kw, c), np.float32)
    conv._copy_windows(x, want, window, (g.ph0, g.pw0))
    want = want.reshape(n * g.oh * g.ow, -1)
    k = want.shape[1]
    k0, k1 = cols[0] % k, k if cols[1] is None else min(cols[1], k)
    k0 = min(k0, k1 - 1)
    for p0, p1 in [(0, want.shape[0]), (g.ow // 2 + 1, 2 * g.oh * g.ow + 3), (want.shape[0] - 1, want.shape[0])]:
        dst = np.full((p1 - p0) * (k1 - k0), np.nan, np.float32)
        patch_products.patch_rows(x.reshape(-1), dst, p0, p1, k0, k1, h, w, c, g.oh, g.ow, kw, g.sh, g.sw, g.dh,
                                  g.dw, g.ph0, g.pw0)
        assert dst.reshape(p1 - p0, k1 - k0).tobytes() == np.ascontiguousarray(want[p0:p1, k0:k1]).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, n, k, cuts", [(40, 64, 700, (256, 300, 699)), (12, 32, 90, (1, 2, 50)),
                                           (7, 45, 513, (13, 256))])
def test_gemm_resume_continues_each_chain(m, n, k, cuts, dtype):
    """A product over k made in pieces (``resume`` after the first) has the bits of one call."""
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    nr = 2 * gemm_kernel.WIDTH[np.dtype(dtype)]
    want = np.empty((m, n), dtype)
    gemm_kernel.gemm(m, n, k, a.reshape(-1), 0, k, 1, b.reshape(-1), 0, n, 1, want.reshape(-1), 0, n, 1, nr)
    got = np.full((m, n), np.nan, dtype)
    edges = [0, *cuts, k]
    for i, (p0, p1) in enumerate(zip(edges, edges[1:])):
        gemm_kernel.gemm_resume(m, n, p1 - p0, a.reshape(-1), p0, k, 1, b.reshape(-1), p0 * n, n, 1,
                                got.reshape(-1), 0, n, 1, nr, 1 if i else 0)
    assert got.tobytes() == want.tobytes()


# (input NHWC, filter HWIO, strides, dilations, padding, CHUNK_BYTES): Conv2D, and the
# stride-1 input gradient where out depth <= in depth (the same correlation)
CORRELATE_CASES = [
    ((16, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", 1 << 18),  # LeNet conv2
    ((8, 32, 32, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME", 1 << 18),  # VGG 3x3x32
    ((6, 16, 16, 64), (3, 3, 64, 64), (1, 1), (1, 1), "SAME", 1 << 14),
    ((7, 17, 15, 40), (3, 2, 40, 48), (2, 2), (1, 1), "VALID", 1 << 15),
    ((9, 20, 20, 16), (3, 3, 16, 32), (1, 1), (2, 2), "SAME", 1 << 16),
    ((6, 19, 23, 8), (4, 3, 8, 40), (2, 1), (1, 3), "SAME", 1 << 12),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, fs, strides, dil, padding, chunk_bytes", CORRELATE_CASES, ids=str)
def test_correlation_in_chunks_has_the_blocks_bits(xs, fs, strides, dil, padding, chunk_bytes, dtype, monkeypatch):
    """Conv2D (and the stride-1 input gradient) with patches copied a chunk of rows at a
    time: the bits of the whole-image blocks' products, on any number of threads."""
    monkeypatch.setattr(patch_products, "CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(14)
    x, f = rng.standard_normal(xs).astype(dtype), rng.standard_normal(fs).astype(dtype)
    kw = _kw(strides, dil, padding)
    half = f[..., :max(1, xs[3] // 2)]  # out depth <= in depth: the input gradient is a correlation

    def run():
        y = conv.conv2d(x, f, **kw)
        dx = None
        if strides == (1, 1):
            dyw = rng.standard_normal(conv.conv2d(x, half, **kw).shape).astype(dtype)
            dx = conv.conv2d_backprop_input(np.int32(xs), np.ascontiguousarray(half), dyw, **kw)
        return y, dx

    real = patch_products.correlates
    used = []
    monkeypatch.setattr(patch_products, "correlates", lambda *a: used.append(real(*a)) or used[-1])
    rng = np.random.default_rng(15)
    got = run()
    assert any(used)
    with gemm.limit_threads(1):
        rng = np.random.default_rng(15)
        alone = run()
    monkeypatch.setattr(patch_products, "correlates", lambda *a: False)
    rng = np.random.default_rng(15)
    before = run()
    for g, a, b in zip(got, alone, before):
        assert (g is None and b is None) or g.tobytes() == a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, fs, strides, dil, padding, chunk_bytes", CORRELATE_CASES, ids=str)
def test_conv_bias_relu_has_the_three_ops_bits(xs, fs, strides, dil, padding, chunk_bytes, dtype, monkeypatch):
    """``fused.conv_bias_relu`` (Conv2D + BiasAdd + Relu in one pass) against the three
    kernels, with a NaN, an infinity and zeros of both signs among the biases."""
    from ref.ops import fused, nn

    monkeypatch.setattr(patch_products, "CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(16)
    x, f = rng.standard_normal(xs).astype(dtype), rng.standard_normal(fs).astype(dtype)
    bias = rng.standard_normal(fs[3]).astype(dtype)
    bias[:4] = [np.nan, -np.inf, -0.0, 0.0]
    kw = _kw(strides, dil, padding)
    want = nn.relu(nn.bias_add(conv.conv2d(x, f, **kw), bias))
    got = fused.conv_bias_relu(x, f, bias, kw)
    if not patch_products.correlates(x, f.reshape(-1, fs[3]), want.shape[1] * want.shape[2]):
        assert got is None  # the caller runs the three kernels
        return
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


# (name, input NHWC, filter HWIO, strides, dilations, padding, special values, padding rows
# skipped, SKIP_MIN_SHARE set to 0)
# special: "x" puts NaN, +-inf and -0 among the inputs (real terms), "f_inf" an infinity
# in the filter (0 * inf is NaN: every column is multiplied), "zeros" -0 inputs and
# filter values of both signs (every chain a sum of signed zeros)
SKIP_CASES = [
    ("lenet2", (6, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "", True, False),
    ("lenet2-specials", (6, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "x", True, False),
    ("signed-zeros", (4, 9, 11, 16), (3, 3, 16, 32), (1, 1), (1, 1), "SAME", "zeros", True, False),
    ("filter-inf", (4, 14, 14, 32), (5, 5, 32, 64), (1, 1), (1, 1), "SAME", "f_inf", False, False),
    ("valid", (4, 12, 12, 32), (3, 3, 32, 40), (1, 1), (1, 1), "VALID", "", False, False),
    ("vgg-32x32", (3, 32, 32, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME", "", False, False),  # 2.1% padding
    ("vgg-32x32-forced", (3, 32, 32, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME", "x", True, True),
    ("strided-bottom", (5, 17, 15, 40), (4, 2, 40, 48), (2, 2), (1, 1), "SAME", "x", True, False),
    ("dilated", (5, 20, 20, 16), (3, 3, 16, 32), (1, 1), (3, 2), "SAME", "", True, False),
    ("tall-kernel", (3, 5, 24, 32), (7, 3, 32, 32), (1, 1), (1, 1), "SAME", "x", True, False),  # taller than the input
]


def _special(rng, xs, fs, special, dtype):
    x, f = rng.standard_normal(xs).astype(dtype), rng.standard_normal(fs).astype(dtype)
    if special == "x":
        flat = x.reshape(-1)
        at = rng.choice(flat.size, 12, replace=False)
        flat[at] = np.array([np.nan, np.inf, -np.inf, -0.0] * 3, dtype)
    elif special == "f_inf":
        f[0, 0, 0, 0] = np.inf
    elif special == "zeros":
        x[...] = -0.0
        f = np.where(rng.random(fs) < 0.5, -0.0, 0.0).astype(dtype)
    return x, f


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, xs, fs, strides, dil, padding, special, skipped, forced", SKIP_CASES,
                         ids=lambda v: str(v))
def test_skipped_padding_rows_keep_every_bit(name, xs, fs, strides, dil, padding, special, skipped, forced, dtype,
                                             monkeypatch):
    """Conv2D, its stride-1 input gradient (a correlation of the out_backprop) and the
    fused Conv2D + BiasAdd + Relu with the padding rows' columns left out have the bits
    of the products over every column (``SKIP_PADDING_ROWS`` off), on any number of
    threads; an infinite filter value multiplies every column."""
    from ref.ops import fused

    monkeypatch.setattr(patch_products, "CHUNK_BYTES", 1 << 15)
    if forced:
        monkeypatch.setattr(patch_products, "SKIP_MIN_SHARE", 0.0)
    rng = np.random.default_rng(21)
    x, f = _special(rng, xs, fs, special, dtype)
    bias = rng.standard_normal(fs[3]).astype(dtype)
    kw = _kw(strides, dil, padding)
    g = conv.Geometry(xs[1], xs[2], fs[0], fs[1], kw["strides"], kw["dilations"], padding, [], "NHWC")
    window = (fs[0], fs[1], g.oh, g.ow, g.sh, g.sw, g.dh, g.dw)
    assert patch_products.correlates(x, f.reshape(-1, fs[3]), g.oh * g.ow)
    assert patch_products.skips_padding_rows(f.reshape(-1, fs[3]), xs[1], window, g.ph0) is skipped
    dy = rng.standard_normal((xs[0], g.oh, g.ow, fs[3])).astype(dtype)

    def run():
        y = conv.conv2d(x, f, **kw)
        yb = fused.conv_bias_relu(x, f, bias, dict(kw, data_format="NHWC"))
        dx = conv.conv2d_backprop_input(np.int32(xs), f, dy, **kw) if strides == (1, 1) else None
        return y, yb, dx

    got = run()
    assert got[1] is not None
    with gemm.limit_threads(1):
        alone = run()
    monkeypatch.setattr(patch_products, "SKIP_PADDING_ROWS", False)
    every = run()
    for a, b, c in zip(got, alone, every):
        assert (a is None and c is None) or a.tobytes() == b.tobytes() == c.tobytes()


# (input NHWC, filter HWIO, dilations, padding): stride 1, out depth > in depth
DEEPER_CASES = [
    ((8, 14, 14, 32), (5, 5, 32, 64), (1, 1), "SAME"),  # LeNet conv2
    ((6, 16, 16, 32), (3, 3, 32, 64), (1, 1), "SAME"),  # VGG's 32 -> 64 layer
    ((5, 13, 11, 32), (3, 2, 32, 48), (1, 1), "VALID"),
    ((5, 13, 11, 32), (3, 3, 32, 48), (2, 1), "VALID"),  # (TF's CPU kernel has no dilated input gradient)
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, fs, dil, padding", DEEPER_CASES, ids=str)
def test_input_gradient_of_a_deeper_layer_is_the_flipped_correlation(xs, fs, dil, padding, dtype, monkeypatch):
    """Stride 1 with more output than input channels: the input gradient is the
    correlation of out_backprop with the flipped, depth-transposed filter (the bits of
    Conv2D of those, one chain per element), near TensorFlow's (positive terms summed
    in another order: at most ``terms`` roundings apart)."""
    rng = np.random.default_rng(22)
    f = rng.uniform(0.5, 1.5, fs).astype(dtype)
    kw = _kw((1, 1), dil, padding)
    g = conv.Geometry(xs[1], xs[2], fs[0], fs[1], kw["strides"], kw["dilations"], padding, [], "NHWC")
    dy = rng.uniform(0.5, 1.5, (xs[0], g.oh, g.ow, fs[3])).astype(dtype)
    flipped = np.ascontiguousarray(f[::-1, ::-1].transpose(0, 1, 3, 2))
    assert fs[3] > fs[2] and patch_products.correlates(dy, flipped.reshape(-1, fs[2]), xs[1] * xs[2])
    got = conv.conv2d_backprop_input(np.int32(xs), f, dy, **kw)
    # the same correlation as a Conv2D: out_backprop padded by (kernel extent - 1 - padding before)
    top, left = (fs[0] - 1) * dil[0] - g.ph0, (fs[1] - 1) * dil[1] - g.pw0
    bottom = xs[1] + (fs[0] - 1) * dil[0] - top - g.oh
    right = xs[2] + (fs[1] - 1) * dil[1] - left - g.ow
    want = conv.conv2d(dy, flipped, strides=[1, 1, 1, 1], dilations=[1, *dil, 1], padding="EXPLICIT",
                       explicit_paddings=[0, 0, top, bottom, left, right, 0, 0])
    assert got.tobytes() == want.tobytes()
    if dil != (1, 1):
        return
    tf = pytest.importorskip("tensorflow")
    theirs = tf.raw_ops.Conv2DBackpropInput(input_sizes=np.int32(xs), filter=f, out_backprop=dy, **kw).numpy()
    np.testing.assert_allclose(got, theirs, rtol=fs[0] * fs[1] * fs[3] * np.finfo(dtype).eps, atol=0)


@pytest.mark.parametrize("h, window, top, share", [
    (14, (5, 5, 14, 14, 1, 1, 1, 1), 2, 6 / 70),  # LeNet conv2, SAME
    (32, (3, 3, 32, 32, 1, 1, 1, 1), 1, 2 / 96),  # VGG, SAME
    (12, (3, 3, 10, 10, 1, 1, 1, 1), 0, 0.0),  # VALID
    (17, (4, 2, 9, 8, 2, 2, 1, 1), 1, 3 / 36),  # stride 2: one row above, two below
    (20, (3, 3, 20, 20, 1, 1, 3, 2), 3, 6 / 60),  # dilation 3: rows 3 apart
])
def test_padding_share_counts_the_kernel_rows_read_outside(h, window, top, share):
    """The share of padding among the kernel rows the output rows read, against a count
    of the rows one by one."""
    kh, _, oh, _, sh, _, dh, _ = window
    outside = sum(not 0 <= sh * i - top + dh * a < h for i in range(oh) for a in range(kh))
    assert outside / (oh * kh) == pytest.approx(share)
    assert patch_products.padding_share(h, window, top) == pytest.approx(share)
