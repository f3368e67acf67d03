"""ref/ops/conv.py's im2col copy (``_im2col``, a compiled loop) and Conv2D's
patch blocks: the patch matrix is exactly the one of the strided window view
(an index oracle), and Conv2D's bits are those of the GEMMs of that matrix in
``PATCH_BYTES`` blocks (the formulation before the compiled copy)."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import ref.ops
from ref.ops import _jit, conv, gemm, registry

ref.ops.load_all()


def _oracle_patches(xp, kh, kw, oh, ow, sh, sw, dh, dw):
    """[N, OH, OW, KH, KW, C][b, i, j, a, e, q] = xp[b, sh * i + dh * a, sw * j + dw * e, q] by fancy indexing."""
    rows = sh * np.arange(oh)[:, None, None, None] + dh * np.arange(kh)[None, None, :, None]
    cols = sw * np.arange(ow)[None, :, None, None] + dw * np.arange(kw)[None, None, None, :]
    return xp[:, rows, cols, :]


def _strided_patches(xp, kh, kw, oh, ow, sh, sw, dh, dw):
    """The NumPy formulation _patch_blocks copied from before the compiled loop."""
    n, _, _, c = xp.shape
    s = xp.strides
    return np.ascontiguousarray(as_strided(xp, (n, oh, ow, kh, kw, c),
                                           (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3])))


# (input NHWC, filter KH x KW, strides, dilations, padding, images per block)
IM2COL_CASES = [
    ((5, 7, 6, 4), (3, 3), (1, 1), (1, 1), "SAME", 2),
    ((5, 7, 6, 4), (3, 3), (1, 1), (2, 2), "SAME", 3),
    ((5, 9, 11, 3), (3, 2), (1, 1), (3, 1), "VALID", 5),
    ((5, 9, 11, 3), (2, 3), (2, 1), (1, 3), "SAME", 4),
    ((3, 8, 8, 32), (3, 3), (1, 1), (2, 2), "SAME", 2),
    ((3, 8, 9, 17), (3, 3), (1, 1), (1, 2), "SAME", 2),  # runs of whole 64-byte vectors and a rest
    ((3, 8, 9, 20), (3, 3), (1, 2), (2, 1), "SAME", 2),
    ((4, 13, 9, 1), (5, 5), (1, 1), (1, 1), "SAME", 3),
    ((4, 13, 9, 1), (5, 3), (2, 2), (1, 2), "VALID", 1),
    ((3, 10, 10, 6), (3, 3), (2, 2), (1, 1), "SAME", 2),
    ((3, 11, 7, 5), (2, 2), (2, 3), (3, 2), "VALID", 2),
    ((2, 6, 6, 8), (1, 1), (2, 2), (1, 1), "VALID", 1),
    ((3, 5, 5, 2), (3, 3), (1, 2), (2, 3), ((2, 1), (0, 3)), 2),
    ((3, 9, 8, 2), (3, 3), (1, 1), (2, 1), ((-2, 1), (-1, -2)), 2),  # negative: rows/columns cropped
    ((2, 7, 9, 3), (2, 4), (2, 1), (1, 1), ((5, 6), (4, 4)), 1),  # more padding than the window
]


@pytest.mark.parametrize("case", IM2COL_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("layout", ["nhwc", "transposed"])
def test_patch_blocks_equal_the_window_view(case, dtype, layout, monkeypatch):
    monkeypatch.setattr(_jit, "NUMPY_MAX", 0)  # the compiled copy, however small the input
    xs, (kh, kw), (sh, sw), (dh, dw), padding, nb = case
    n, h, w, c = xs
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(xs) * 100).astype(dtype)
    if layout == "transposed":  # an NCHW input's NHWC view: not contiguous
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2)).transpose(0, 2, 3, 1)
    if not isinstance(padding, str):  # (top, bottom), (left, right)
        (oh, pt, pb), (ow, pl, pr) = (conv.output_size(h, kh, sh, dh, "EXPLICIT", *padding[0]),
                                      conv.output_size(w, kw, sw, dw, "EXPLICIT", *padding[1]))
    else:
        (oh, pt, pb), (ow, pl, pr) = conv.output_size(h, kh, sh, dh, padding), conv.output_size(w, kw, sw, dw, padding)
    xp = conv._pad_hw(x, pt, pb, pl, pr)
    if layout == "transposed" and c > 1 and not (pt or pb or pl or pr):
        assert not xp.flags.c_contiguous
    window = (kh, kw, oh, ow, sh, sw, dh, dw)
    want = _oracle_patches(xp, *window).reshape(n * oh * ow, kh * kw * c)
    np.testing.assert_array_equal(_strided_patches(xp, *window).reshape(want.shape), want)  # the old formulation
    for source, pad in [(xp, (0, 0)), (x, (pt, pl))]:  # padded, or padded by the copy
        got = np.concatenate([cols.copy() for _, _, cols in conv._patch_blocks(source, *window, nb=nb, pad=pad)])
        assert got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()
    edges = [b0 for b0, _, _ in conv._patch_blocks(x, *window, nb=nb, pad=(pt, pl))]
    assert edges == list(range(0, n, nb))


@pytest.mark.parametrize("numpy_max", [0, 1 << 30], ids=["compiled", "numpy-form"])
@pytest.mark.parametrize("pad", [(0, 0), (2, 1), (-1, 3), (1, -2)])
def test_im2col_paths_agree(numpy_max, pad, monkeypatch):
    monkeypatch.setattr(_jit, "NUMPY_MAX", numpy_max)
    x = np.random.default_rng(2).standard_normal((3, 9, 10, 5)).astype(np.float32)
    window = (3, 2, 4, 3, 2, 3, 1, 2)
    top, left = pad
    xp = conv._pad_hw(x, top, 3 * 2 + 2 + 1 - top - 9, left, 2 * 3 + 2 + 1 - left - 10)
    dst = np.full((3, 4, 3, 3, 2, 5), np.nan, np.float32)
    conv._im2col(x, dst, window, pad)
    assert dst.tobytes() == _oracle_patches(xp, *window).tobytes()


def _old_conv2d(x, f, s, d, padding, patch_bytes):
    """Conv2D NHWC as before the compiled copy: PATCH_BYTES blocks of the strided
    window view's copy, one gemm.matmul each."""
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    (oh, pt, pb), (ow, pl, pr) = conv.output_size(h, kh, s, d, padding), conv.output_size(w, kw, s, d, padding)
    xp = conv._pad_hw(x, pt, pb, pl, pr)
    k = kh * kw * c
    nb = int(max(1, min(n, patch_bytes // max(1, oh * ow * k * x.itemsize))))
    fm = np.ascontiguousarray(f).reshape(k, o)
    out = np.empty((n, oh, ow, o), x.dtype)
    for b0 in range(0, n, nb):
        b1 = min(n, b0 + nb)
        cols = _strided_patches(xp[b0:b1], kh, kw, oh, ow, s, s, d, d).reshape(-1, k)
        out[b0:b1] = gemm.matmul(cols, fm).reshape(b1 - b0, oh, ow, o)
    return out


# (input NHWC, filter HWIO, stride, dilation, padding, PATCH_BYTES, KERNEL_PATCH_BYTES)
BITS_CASES = [
    ((5, 32, 32, 32), (3, 3, 32, 32), 1, 2, "SAME", 1 << 24, 1 << 23),  # the benchmark's dilated shape, 5 images
    ((5, 32, 32, 32), (3, 3, 32, 32), 1, 2, "SAME", 1 << 24, 3 << 20),  # blocks of 2, 2, 1 images
    ((7, 17, 19, 16), (3, 3, 16, 48), 1, 1, "SAME", 1 << 24, 1 << 20),
    ((7, 17, 19, 16), (3, 3, 16, 48), 2, 1, "VALID", 3 << 20, 1 << 19),
    ((6, 15, 15, 24), (5, 5, 24, 40), 1, 3, "SAME", 1 << 24, 1 << 21),
    ((5, 16, 16, 32), (3, 3, 32, 8), 1, 2, "SAME", 1 << 24, 1 << 19),  # 8 outputs: np.matmul, PATCH_BYTES' blocks
    ((4, 9, 9, 3), (3, 3, 3, 4), 1, 2, "SAME", 1 << 24, 1 << 10),  # small: one np.matmul
]


@pytest.mark.parametrize("case", BITS_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [1, 0], ids=["one-thread", "default-threads"])
def test_conv2d_bits_equal_the_strided_copy_formulation(case, dtype, threads, monkeypatch):
    xs, fs, s, d, padding, patch_bytes, kernel_bytes = case
    monkeypatch.setattr(conv, "PATCH_BYTES", patch_bytes)
    monkeypatch.setattr(conv, "KERNEL_PATCH_BYTES", kernel_bytes)
    monkeypatch.setattr(_jit, "NUMPY_MAX", 0)
    rng = np.random.default_rng(5)
    x, f = rng.standard_normal(xs).astype(dtype), rng.standard_normal(fs).astype(dtype)
    with gemm.limit_threads(1):
        want = _old_conv2d(x, f, s, d, padding, patch_bytes)
    with gemm.limit_threads(threads):
        got = registry.call("Conv2D", input=x, filter=f, strides=[1, s, s, 1], padding=padding,
                            dilations=[1, d, d, 1])
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("n, rows, k, o, patch_bytes, kernel_bytes, want", [
    (32, 1024, 288, 32, 1 << 24, 1 << 23, 7),  # every block on ref's kernel: KERNEL_PATCH_BYTES
    (32, 1024, 288, 8, 1 << 24, 1 << 23, 14),  # 8 columns: not the kernel, PATCH_BYTES
    (32, 1024, 288, 32, 1 << 22, 1 << 23, 3),  # at most PATCH_BYTES
    (32, 16, 27, 64, 1 << 24, 1 << 23, 32),  # the whole batch in one block either way
    (9, 64, 64, 64, 1 << 24, 1 << 16, 9),  # blocks of 4 images: 1 << 20 multiply-adds, of 1: not the kernel
])
def test_kernel_images_per_block(n, rows, k, o, patch_bytes, kernel_bytes, want, monkeypatch):
    monkeypatch.setattr(conv, "PATCH_BYTES", patch_bytes)
    monkeypatch.setattr(conv, "KERNEL_PATCH_BYTES", kernel_bytes)
    if not gemm.uses_kernel(1 << 16, 64, 64, np.float32):
        pytest.skip("ref's matrix kernel is off (REF_MATMUL=numpy or no threads)")
    assert conv._kernel_images_per_block(n, rows, k, o, np.float32) == want


@pytest.mark.parametrize("x_shape,f_shape,stride,padding", [
    ((8, 32, 32, 32), (3, 3, 32, 64), 2, "VALID"),
    ((5, 17, 17, 8), (3, 3, 8, 40), 2, "SAME"),
    ((6, 20, 20, 3), (5, 5, 3, 64), 3, "VALID"),
])
def test_strided_input_gradient_bits_do_not_depend_on_its_block_size(monkeypatch, x_shape, f_shape, stride, padding):
    import ref.raw_ops as raw
    from ref.ops import conv

    rng = np.random.default_rng(7)
    f = rng.standard_normal(f_shape).astype(np.float32)
    probe = raw.Conv2D(input=np.zeros(x_shape, np.float32), filter=f, strides=[1, stride, stride, 1], padding=padding)
    dy = rng.standard_normal(probe.shape).astype(np.float32)

    def grad():
        return raw.Conv2DBackpropInput(input_sizes=np.array(x_shape, np.int32), filter=f, out_backprop=dy,
                                       strides=[1, stride, stride, 1], padding=padding)

    results = []
    for bound in (1 << 24, 1 << 16, 1 << 21):
        monkeypatch.setattr(conv, "GRAD_PATCH_BYTES", bound)
        results.append(grad().tobytes())
    assert len(set(results)) == 1
