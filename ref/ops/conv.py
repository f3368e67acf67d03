"""Convolutions: Conv2D and its input/filter backprops (TF's ``conv_ops.cc``,
``conv_grad_*_ops.cc``), and the geometry, padding and shape rules that
``depthwise_conv`` and ``pooling`` share.

Geometry (TF's ``GetWindowedOutputSizeVerbose``), per spatial dimension of
size ``n`` with filter size ``k``, stride ``s`` and dilation ``d``, the
effective filter size being ``ke = (k - 1) * d + 1``:

* ``VALID``: ``out = ceil((n - ke + 1) / s)``, no padding;
* ``SAME``: ``out = ceil(n / s)``, ``pad = max((out - 1) * s + ke - n, 0)``,
  ``pad // 2`` before and the rest after;
* ``EXPLICIT``: ``explicit_paddings`` gives (before, after) per dimension in
  ``data_format`` order, ``out = (n + before + after - ke) // s + 1``.

The kernels compute in NHWC (NCHW is transposed in and out) by im2col: the
padded input's windows become the rows of a ``[N*OH*OW, KH*KW*C]`` patch
matrix multiplied by the ``[KH*KW*C, O]`` filter in BLAS GEMMs of the
input's dtype, the patches copied a block of images at a time
(``PATCH_BYTES``, ``KERNEL_PATCH_BYTES``) by a compiled loop that reads the
unpadded input and writes the padding's zeros itself (``_im2col``); a 1x1
filter at stride 1 needs no copy (the input is the patch matrix). Where the
products are ``ref``'s kernel the patch matrix is never held: ``conv_kernel``
reads the windows in place in each padded image (no column dilation in Conv2D;
every filter gradient), else ``patch_products`` copies a cache-sized chunk of its
rows at a time and multiplies it at once (the same chains, so the same bits). The filter
gradient is ``patches^T @ out_backprop`` summed over the blocks. The input
gradient at stride 1 (when the filter has no more outputs than inputs) is the
same correlation run on ``out_backprop`` zero-extended by ``(K - 1) *
dilation - pad_before`` rows and columns before, with the filter
flipped in space and transposed in depth; otherwise ``out_backprop @
filter^T`` per block, its columns added back where each window read them
(col2im, a compiled loop). TF sums the same products in Eigen's (or oneDNN's)
blocked order: float32 results sit a few ULPs from ``tf.raw_ops``
(``tests/ops/tf_budgets.py``; long sums: within ``terms * eps``). float16/
bfloat16 compute in float32 and round once.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ref.types import dtypes
from ref.ops import gemm
from ref.ops import gemm_kernel
from ref.ops import patch_products
from ref.ops import _jit
from ref.ops._jit import njit
from ref.ops.registry import REQUIRED, invalid_argument, register_op, require_rank, shape_input
from ref.types.shapes import TensorShape, unknown_shape

_CONV_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32)
_PADDINGS = ("SAME", "VALID", "EXPLICIT")


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


def _nchw(data_format):
    return _s(data_format) == "NCHW"


def _hw(values, data_format):
    """(h, w) entries of a 4-list in ``data_format`` order."""
    v = list(values)
    return (v[2], v[3]) if _nchw(data_format) else (v[1], v[2])


def output_size(n, k, stride, dilation, padding, before=0, after=0):
    """(out, pad_before, pad_after) for one spatial dimension (see module doc);
    None sizes give None."""
    if n is None or k is None:
        return None, 0, 0
    ke = (k - 1) * dilation + 1
    padding = _s(padding)
    if padding == "VALID":
        out, pb, pa = ((n - ke + stride) // stride if n >= ke else n - ke), 0, 0
    elif padding == "SAME":
        out = (n + stride - 1) // stride
        total = max((out - 1) * stride + ke - n, 0)
        pb, pa = total // 2, total - total // 2
    else:
        out, pb, pa = (n + before + after - ke) // stride + 1, before, after
    return out, pb, pa


def check_attrs(strides, dilations, padding, explicit_paddings, data_format, what, name="", kind=""):
    """ValueError for malformed attrs (at graph construction and in raw calls)."""
    if len(strides) != 4:
        raise ValueError(f"Sliding window strides field must specify 4 dimensions for '{name}'")
    if dilations is not None and len(dilations) != 4:
        raise ValueError(f"Sliding window dilations field must specify 4 dimensions for '{name}'")
    if _s(data_format) not in ("NHWC", "NCHW"):
        raise ValueError(f"Invalid data format '{_s(data_format)}' for '{name}'")
    if _s(padding) not in _PADDINGS:
        raise ValueError(f"padding must be one of {_PADDINGS}, got '{_s(padding)}' for '{name}'")
    c = 1 if _nchw(data_format) else 3
    if strides[0] != 1 or strides[c] != 1:
        raise ValueError(f"Current implementation does not yet support strides in the batch and depth "
                         f"dimensions for '{name}' ({what})")
    if dilations is not None and (dilations[0] != 1 or dilations[c] != 1):
        raise ValueError(f"Current implementation does not yet support dilations in the batch and depth "
                         f"dimensions for '{name}' ({what})")
    if min(strides) < 1 or (dilations is not None and min(dilations) < 1):
        raise ValueError(f"Strides and dilations must be positive for '{name}' ({what})")
    if _s(padding) == "EXPLICIT":
        if len(explicit_paddings) != 8:
            raise ValueError(f"explicit_paddings attribute must contain 8 values, but got: "
                             f"{len(explicit_paddings)} for '{name}'")
        if any(p < 0 for p in explicit_paddings):
            raise ValueError(f"All elements of explicit_paddings must be nonnegative for '{name}'")
        outer = list(explicit_paddings[:2]) + list(explicit_paddings[2 * c:2 * c + 2])
        if any(outer):
            raise ValueError(f"Nonzero explicit padding in the batch or depth dimensions is not supported "
                             f"for '{name}'")
    elif explicit_paddings:
        raise ValueError(f"explicit_paddings attribute must be empty if the padding attribute is not "
                         f"EXPLICIT for '{name}'")


def _explicit_hw(explicit_paddings, data_format):
    if not explicit_paddings:
        return (0, 0), (0, 0)
    p = list(explicit_paddings or [])
    if _nchw(data_format):
        return (p[4], p[5]), (p[6], p[7])
    return (p[2], p[3]), (p[4], p[5])


class Geometry:
    """The windows of one 2-D convolution or pooling over an NHWC input."""

    def __init__(self, h, w, kh, kw, strides, dilations, padding, explicit_paddings, data_format):
        self.kh, self.kw = kh, kw
        self.sh, self.sw = _hw(strides, data_format)
        self.dh, self.dw = _hw(dilations, data_format) if dilations is not None else (1, 1)
        (eh0, eh1), (ew0, ew1) = _explicit_hw(explicit_paddings, data_format)
        self.oh, self.ph0, self.ph1 = output_size(h, kh, self.sh, self.dh, padding, eh0, eh1)
        self.ow, self.pw0, self.pw1 = output_size(w, kw, self.sw, self.dw, padding, ew0, ew1)
        self.h, self.w = h, w

    def pad(self, x, value=0):
        """x [N, H, W, C] padded to the windows' extent (trailing rows that no
        window reaches are kept: they get zero gradient)."""
        if not (self.ph0 or self.ph1 or self.pw0 or self.pw1):
            return x
        return np.pad(x, ((0, 0), (self.ph0, max(self.ph1, 0)), (self.pw0, max(self.pw1, 0)), (0, 0)),
                      constant_values=value)

    def windows(self, xp):
        """Strided view [N, OH, OW, KH, KW, C] of the padded input."""
        n, _, _, c = xp.shape
        s = xp.strides
        return as_strided(xp, (n, self.oh, self.ow, self.kh, self.kw, c),
                          (s[0], s[1] * self.sh, s[2] * self.sw, s[1] * self.dh, s[2] * self.dw, s[3]),
                          writeable=False)

    def window_slice(self, i, j):
        """Index of the padded input read by filter tap (i, j) across all outputs."""
        h0, w0 = i * self.dh, j * self.dw
        return (slice(None), slice(h0, h0 + self.sh * (self.oh - 1) + 1, self.sh),
                slice(w0, w0 + self.sw * (self.ow - 1) + 1, self.sw), slice(None))

    def unpad(self, xp):
        return xp[:, self.ph0:self.ph0 + self.h, self.pw0:self.pw0 + self.w, :]


def to_nhwc(x, data_format):
    return np.transpose(x, (0, 2, 3, 1)) if _nchw(data_format) else x


def from_nhwc(x, data_format):
    return np.ascontiguousarray(np.transpose(x, (0, 3, 1, 2))) if _nchw(data_format) else x


def _compute(x):
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype in (np.float16, dtypes.bfloat16.np) else x


def _sizes(v, what):
    v = np.asarray(v)
    if v.ndim != 1 or v.size != 4:
        raise invalid_argument(f"{what} must be a 1-D tensor of 4 elements, got shape {list(v.shape)}")
    return [int(d) for d in v]


def _check_run(x, f, op):
    if x.ndim != 4:
        raise invalid_argument(f"{op}: input must be 4-dimensional: {list(x.shape)}")
    if f.ndim != 4:
        raise invalid_argument(f"{op}: filter must be 4-dimensional: {list(f.shape)}")


def _geometry(in_shape_nhwc, f_shape, strides, dilations, padding, explicit_paddings, data_format, op):
    n, h, w, c = in_shape_nhwc
    g = Geometry(h, w, f_shape[0], f_shape[1], strides, dilations, padding, explicit_paddings, data_format)
    if g.oh is not None and (g.oh < 0 or g.ow < 0):
        raise invalid_argument(f"{op}: Computed output size would be negative: input {list(in_shape_nhwc)}, "
                               f"filter {list(f_shape)}")
    return g


def _pointwise(g):
    """A 1x1 filter at stride 1 without padding: the windows are the input itself."""
    return (g.kh == g.kw == g.sh == g.sw == 1 and not (g.ph0 or g.ph1 or g.pw0 or g.pw1)
            and g.oh == g.h and g.ow == g.w)


PATCH_BYTES = 1 << 24
"""Bytes of patch rows (whole images, at least one) copied per GEMM. Smaller
blocks stay in cache between the copy and the GEMM (with one BLAS thread on a
busy 2-core machine, 32 MiB blocks ran 1.1-1.5x slower than 16 or 8 MiB), but
each GEMM call of a multithreaded BLAS waits for all its threads, which costs
more when other processes hold the cores (two BLAS threads there: 8 MiB
1.3-2x slower than 32 MiB, 16 MiB in between). The bound also caps the patch
buffer's memory for large batches."""

KERNEL_PATCH_BYTES = 1 << 23
"""The bound for Conv2D's blocks (at most ``PATCH_BYTES``) where every block's
GEMM runs on ``ref``'s kernel (``gemm.uses_kernel``), single-threaded on its
thread's images: 8 MiB blocks stay in the shared cache between the copy and
the GEMM (copy + GEMM of the dilated 3x3 benchmark shape on one thread 3.4-3.5
ms, against 3.7-3.8 ms with 16 MiB; 4 MiB within noise of 8, 2 MiB slower
on the 3x3 VALID and stride-2 shapes, whose GEMMs repack the filter per call).
Where a block would not run on the kernel the blocks stay ``PATCH_BYTES``'
(the bits of a product then depend on its rows)."""


def _pad_hw(x, top, bottom, left, right):
    """x [N, H, W, C] with zero rows/columns added (negative amounts crop)."""
    n, h, w, c = x.shape
    x = x[:, max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]
    top, bottom, left, right = max(top, 0), max(bottom, 0), max(left, 0), max(right, 0)
    if not (top or bottom or left or right):
        return x
    out = np.zeros((n, x.shape[1] + top + bottom, x.shape[2] + left + right, c), x.dtype)
    out[:, top:top + x.shape[1], left:left + x.shape[2]] = x
    return out


GRAD_PATCH_BYTES = 1 << 19
"""The bound for the strided input gradient's blocks of ``dcols`` (see
``KERNEL_PATCH_BYTES``; the same condition): blocks that stay in the core's
cache between the GEMM and the col2im that reads them back. Two threads, best
(median) of 15: stride-2 VALID benchmark shape 3.1 (3.9) ms with 16 MiB, 1.9
(3.3) with 1 MiB, 1.7 (2.9) with 512 KiB; stride-2 SAME 4.7 (6.0), 4.2 (5.2),
4.0 (4.3)."""


def _images_per_block(n, image_bytes, bound):
    return int(max(1, min(n, bound // max(1, image_bytes))))


def _patch_blocks(x, kh, kw, oh, ow, sh, sw, dh, dw, nb=None, pad=(0, 0)):
    """(b0, b1, patches) over batch blocks of ``nb`` images (default: as many
    as fit ``PATCH_BYTES``): patches is the contiguous [(b1 - b0) * OH * OW,
    KH * KW * C] im2col matrix of images b0:b1 of x padded with ``pad`` = (top,
    left) zero rows and columns before (negative: cropped) and zeros after as
    the windows need (one buffer, refilled per block by :func:`_im2col`)."""
    n, _, _, c = x.shape
    k = kh * kw * c
    if nb is None:
        nb = _images_per_block(n, oh * ow * k * x.itemsize, PATCH_BYTES)
    buf = np.empty((nb, oh, ow, kh, kw, c), x.dtype)
    window = (kh, kw, oh, ow, sh, sw, dh, dw)
    for b0 in range(0, n, nb):
        b1 = min(n, b0 + nb)
        part = buf[:b1 - b0]
        _PatchCopy(x[b0:b1], part, window, pad).run()
        yield b0, b1, part.reshape(-1, k)


PARALLEL_COPY_BYTES = 1 << 20
"""Bytes of patches from which :func:`_patch_blocks` copies a block's images on
``ref``'s matrix threads (waking a helper costs ~30 us: ~1 MB of copying)."""


class _PatchCopy:
    """The im2col copy of a block of images, the images split among ``ref``'s matrix
    threads (``gemm.run_blocks``: each image's patches are a copy of its own input, so
    which thread copies it changes nothing) -- the filter gradient's copies, which
    otherwise run on the calling thread alone while the products' helper waits."""

    def __init__(self, x, dst, window, pad):
        self.x, self.dst, self.window, self.pad = x, dst, window, pad

    def run(self):
        n = self.dst.shape[0]
        threads = gemm.workers()
        if threads > 1 and n > 1 and self.dst.nbytes >= PARALLEL_COPY_BYTES:
            parts = min(threads, n)
            gemm.run_blocks(self, [n * i // parts for i in range(parts + 1)])
        else:
            self.into_result(0, n)

    def into_result(self, lo, hi):
        _im2col(self.x[lo:hi], self.dst[lo:hi], self.window, self.pad)

    def scratch(self, lo, hi):
        part = np.empty_like(self.dst[lo:hi])
        _im2col(self.x[lo:hi], part, self.window, self.pad)
        return part

    def store(self, lo, hi, scratch):
        self.dst[lo:hi] = scratch


def _windows(xp, kh, kw, oh, ow, sh, sw, dh, dw):
    """The [N, OH, OW, KH, KW, C] view of the padded input xp's windows (read only)."""
    n, _, _, c = xp.shape
    s = xp.strides
    return as_strided(xp, (n, oh, ow, kh, kw, c), (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3]),
                      writeable=False)


_COPY_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64))


def _im2col(x, dst, window, pad=(0, 0)):
    """dst [N, OH, OW, KH, KW, C][b, i, j, a, e, q] = xp[b, sh * i + dh * a, sw * j + dw * e, q],
    xp being x with ``pad`` = (top, left) zero rows and columns before it (negative:
    rows and columns cropped) and zeros after it: the compiled copy
    :func:`_im2col_runs` (no padded copy of x; NumPy's copy of the strided window
    view of xp takes ~4 ns per run of C values, most of the time where C is small),
    or that NumPy copy (the same values) for a small input before Numba is loaded."""
    kh, kw, oh, ow, sh, sw, dh, dw = window
    top, left = pad
    n, h, w, c = x.shape
    if _jit.DISABLE or x.dtype not in _COPY_DTYPES or not dst.size:
        _copy_windows(x, dst, window, pad)
    elif _jit.numpy_tier(_im2col_runs, dst.size):
        _jit.run_numpy_form(_im2col_runs, _copy_windows, x, dst, window, pad)
    else:
        _im2col_runs(np.ascontiguousarray(x).reshape(-1), dst.reshape(-1), n, h, w, c, oh, ow, kh, kw, sh, sw, dh,
                     dw, top, left)


def _copy_windows(x, dst, window, pad):
    """:func:`_im2col` in NumPy: a padded copy of x, then its strided window view copied."""
    kh, kw, oh, ow, sh, sw, dh, dw = window
    top, left = pad
    h, w = x.shape[1:3]
    bottom = (oh - 1) * sh + (kh - 1) * dh + 1 - top - h
    right = (ow - 1) * sw + (kw - 1) * dw + 1 - left - w
    np.copyto(dst, _windows(_pad_hw(x, top, bottom, left, right), *window))


_copy_vector = gemm_kernel.copy_vector  # one 64-byte vector copied


@njit(inline="always")
def _copy_run(dst, d, src, s, count, width):
    """dst[d:d + count] = src[s:s + count] (unsigned offsets), ``width`` (64 bytes)
    values at a time, then one by one."""
    q = np.uintp(0)
    while q + width <= count:
        _copy_vector(dst, d + q, src, s + q)
        q += width
    while q < count:
        dst[d + q] = src[s + q]
        q += np.uintp(1)


@njit(nogil=True)
def _im2col_runs(src, dst, n, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, top, left):
    """dst (flat, in order b, i, j, a, e, q) = the flat [N, H, W, C] input src at
    (b, sh * i + dh * a - top, sw * j + dw * e - left, q), zero outside it. Each
    window's rows and columns inside the input are found first (the others are
    zeros written in bulk), then copied as runs of C values (one run of KW * C
    where the columns are not dilated). Offsets are unsigned (no negative-index
    branch in the inner loops); ``nogil``: the threads of :class:`_ImageBlocks`
    copy in parallel. (NumPy's element-wise strided copy took 1.7-2.2 ms for the
    37 MB patch matrix of the dilated 3x3 benchmark shape; this loop ~0.7 ms.)"""
    u = np.uintp
    width = u(64 // src.itemsize)
    cu = u(c)
    row = u(w) * cu
    image = u(h) * row
    span = u(kw) * cu
    step = u(dw) * cu
    o = u(0)
    for b in range(n):
        for i in range(oh):
            r0 = sh * i - top
            a0, a1 = 0, kh  # the window's rows inside the input: a0 <= a < a1
            if r0 < 0 or r0 + dh * (kh - 1) >= h:  # (no division: a few windows only)
                while a0 < kh and r0 + dh * a0 < 0:
                    a0 += 1
                a1 = a0
                while a1 < kh and r0 + dh * a1 < h:
                    a1 += 1
            for j in range(ow):
                c0 = sw * j - left
                e0, e1 = 0, kw  # and its columns: e0 <= e < e1
                if c0 < 0 or c0 + dw * (kw - 1) >= w:
                    while e0 < kw and c0 + dw * e0 < 0:
                        e0 += 1
                    e1 = e0
                    while e1 < kw and c0 + dw * e1 < w:
                        e1 += 1
                for q in range(u(a0) * span):
                    dst[o + q] = 0
                o += u(a0) * span
                sb = u(b) * image + u(r0 + dh * a0) * row + u(c0) * cu
                if e0 == 0 and e1 == kw:
                    if dw == 1:  # a window row's KW * C values: one run
                        for a in range(a1 - a0):
                            s0 = sb + u(a) * u(dh) * row
                            _copy_run(dst, o, src, s0, span, width)
                            o += span
                    else:  # runs of C values (LLVM's vectorised loop: faster here for short runs)
                        for a in range(a1 - a0):
                            s0 = sb + u(a) * u(dh) * row
                            for e in range(kw):
                                s1 = s0 + u(e) * step
                                for q in range(cu):
                                    dst[o + q] = src[s1 + q]
                                o += cu
                else:
                    z0, z1 = u(e0) * cu, u(e1) * cu
                    for a in range(a1 - a0):
                        s0 = sb + u(a) * u(dh) * row + u(e0) * step
                        for q in range(z0):
                            dst[o + q] = 0
                        d0 = o + z0
                        for e in range(e1 - e0):
                            _copy_run(dst, d0, src, s0, cu, width)
                            d0 += cu
                            s0 += step
                        for q in range(z1, span):
                            dst[o + q] = 0
                        o += span
                tail = u(kh - a1) * span
                for q in range(tail):
                    dst[o + q] = 0
                o += tail


def _sample_im2col():
    """A float32 :func:`_im2col` (the types of its calls): its background build, while
    the NumPy copy serves inputs of every size (``_jit.compiles_in_background``)."""
    _im2col_runs(np.ones(2 * 4 * 4 * 3, np.float32), np.empty(2 * 4 * 4 * 27, np.float32), 2, 4, 4, 3, 4, 4, 3, 3,
                 1, 1, 1, 1, 1, 1)


_jit.compiles_in_background(_im2col_runs, _sample_im2col, any_size=True)


def _correlate(x, f, oh, ow, sh=1, sw=1, dh=1, dw=1, top=0, left=0):
    """out [N, OH, OW, O][b, i, j, o] = sum_{a, e, q} xp[b, sh * i + dh * a, sw * j + dw * e, q]
    * f[a, e, q, o], xp being x with ``top`` rows and ``left`` columns of zeros
    before (negative: cropped) and zeros after: one GEMM per block of images.
    The images are split among ``ref``'s matrix threads (``gemm.run_blocks``), each
    copying its own patches: the copies run in parallel too, and each product
    gives the bits it gives alone (``ref.ops.gemm_kernel``)."""
    n, c = x.shape[0], x.shape[3]
    kh, kw, _, o = f.shape
    out = np.empty((n, oh, ow, o), np.result_type(x.dtype, f.dtype))
    if not out.size or not kh * kw * c:
        out[...] = 0
        return out
    images = _Images(out, x, np.ascontiguousarray(f).reshape(-1, o), (kh, kw, oh, ow, sh, sw, dh, dw), (top, left))
    images.run(oh * ow * kh * kw * c * o)
    return out


class _ImageBlocks:
    """Images ``lo:hi`` of a convolution's result ``out`` (all zeros to start with
    when ``zeroed``), each a pure function of its inputs: split among ``ref``'s
    matrix threads (``gemm.run_blocks``) when the work is large. ``_fill(lo, hi,
    dst)`` computes images ``lo:hi`` into ``dst``."""

    zeroed = False

    def __init__(self, out):
        self.out = out

    def run(self, work_per_image):
        n = self.out.shape[0]
        threads = gemm.workers()
        if threads > 1 and n > 1 and n * work_per_image >= 2 * gemm.MIN_BLOCK_WORK:
            parts = min(threads, n)
            gemm.run_blocks(self, [n * i // parts for i in range(parts + 1)])
        else:
            self.into_result(0, n)

    def into_result(self, lo, hi):
        self._fill(lo, hi, self.out[lo:hi])

    def scratch(self, lo, hi):
        dst = (np.zeros if self.zeroed else np.empty)((hi - lo,) + self.out.shape[1:], self.out.dtype)
        self._fill(lo, hi, dst)
        return dst

    def store(self, lo, hi, scratch):
        self.out[lo:hi] = scratch


class _Images(_ImageBlocks):
    """:func:`_correlate`'s images: patches copied, then one GEMM per block of them."""

    def __init__(self, out, x, fm, window, pad, bias=None):
        super().__init__(out)
        self.x, self.fm, self.window, self.pad, self.bias = x, fm, window, pad, bias

    def _fill(self, lo, hi, dst):
        k, o = self.fm.shape
        rows = self.window[2] * self.window[3]
        if self.bias is not None or patch_products.correlates(self.x, self.fm, rows, self.window):  # patches a chunk at a time
            return patch_products.correlate(self.x[lo:hi], self.fm, dst, self.window, self.pad, self.bias)
        nb = _kernel_images_per_block(hi - lo, rows, k, o, self.fm.dtype)
        for b0, b1, cols in _patch_blocks(self.x[lo:hi], *self.window, nb=nb, pad=self.pad):
            gemm.matmul(cols, self.fm, out=dst[b0:b1].reshape(-1, o))


def _kernel_images_per_block(n, rows, k, o, dtype, image_bytes=None, bound=None):
    """Images per block (a block's product ``[nb * rows, k] @ [k, o]``; ``image_bytes``
    of the block's buffer an image, by default its ``rows * k`` patches): ``bound``
    (``KERNEL_PATCH_BYTES``) bytes of them where every block, of those and of
    ``PATCH_BYTES``, is a product on ``ref``'s kernel (each row's bits then its
    own, whatever rows share its block); else ``PATCH_BYTES``."""
    if image_bytes is None:
        image_bytes = rows * k * np.dtype(dtype).itemsize
    nb = _images_per_block(n, image_bytes, PATCH_BYTES)
    small = _images_per_block(n, image_bytes, min(PATCH_BYTES, KERNEL_PATCH_BYTES if bound is None else bound))
    sizes = {nb, n % nb or nb, small, n % small or small}
    if small < nb and all(gemm.uses_kernel(m * rows, k, o, dtype) for m in sizes):
        return small
    return nb


def _conv_nhwc(x, f, g):
    """out [N, OH, OW, O] = windows(x) . f."""
    o = f.shape[3]
    if _pointwise(g):
        return gemm.matmul(np.ascontiguousarray(x).reshape(-1, x.shape[3]), f.reshape(-1, o)).reshape(
            x.shape[0], g.oh, g.ow, o)
    return _correlate(x, f, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.ph0, g.pw0)


def _conv_input_grad_nhwc(shape, f, dy, g):
    """At stride 1 the input gradient is a correlation of the zero-extended
    out_backprop with the filter flipped in space and transposed in depth:
    dx[b, h, w] = sum_{a, e} dy[b, h + p_t - d_h * a, w + p_l - d_w * e] . f[a, e]^T,
    each element one chain over (a, e, o). Its patches hold KH*KW*O values per
    input element where col2im's columns hold KH*KW*C: it is used when O <= C,
    and for any O where ``patch_products.correlate`` computes it (the patches a
    cache-sized chunk at a time: no patch matrix in memory, while col2im writes
    and reads its whole columns; LeNet's 5x5x32->64 layer, batch 64, single
    thread: 20 -> 14 ms). The bits then are the correlation's (one chain per
    element), not col2im's (a sum over the taps of chains over O).
    Strided: dcols = out_backprop . f^T per block of images, each window's
    column added back where it was read (col2im)."""
    n, h, w, c = shape
    kh, kw, _, o = f.shape
    if _pointwise(g):
        return gemm.matmul(dy.reshape(-1, o), f.reshape(-1, o).T).reshape(n, h, w, c)
    if g.sh == g.sw == 1:
        flipped = f[::-1, ::-1].transpose(0, 1, 3, 2)
        if o <= c or patch_products.correlation_shaped(dy, flipped.reshape(-1, c), h * w):
            top = (kh - 1) * g.dh - g.ph0
            left = (kw - 1) * g.dw - g.pw0
            return _correlate(dy, flipped, h, w, 1, 1, g.dh, g.dw, top, left)
    dxp = np.zeros((n, g.ph0 + h + max(g.ph1, 0), g.pw0 + w + max(g.pw1, 0), c), dy.dtype)
    if not dy.size or not c:
        return g.unpad(dxp)
    _ImageGrads(dxp, np.ascontiguousarray(dy), np.ascontiguousarray(f.reshape(-1, o).T), g, (kh, kw, c)).run(
        g.oh * g.ow * kh * kw * c * o)
    return g.unpad(dxp)


class _ImageGrads(_ImageBlocks):
    """Images of the strided input gradient (dcols = out_backprop . f^T per block
    of images, then col2im): an image's values do not depend on the images
    computed with it."""

    zeroed = True

    def __init__(self, dxp, dym, ft, g, window):
        super().__init__(dxp)
        self.dym, self.ft, self.g, self.window = dym, ft, g, window

    def _fill(self, lo, hi, dst):
        g, (kh, kw, c) = self.g, self.window
        n = hi - lo
        rows, width = g.oh * g.ow, kh * kw * c
        nb = _kernel_images_per_block(n, rows, self.ft.shape[0], width, self.dym.dtype, rows * width * dst.itemsize,
                                      GRAD_PATCH_BYTES)
        dcols = np.empty((nb * g.oh * g.ow, kh * kw * c), dst.dtype)
        for b0 in range(0, n, nb):
            b1 = min(n, b0 + nb)
            part = dcols[:(b1 - b0) * g.oh * g.ow]
            gemm.matmul(self.dym[lo + b0:lo + b1].reshape(-1, self.ft.shape[0]), self.ft, out=part)
            cols = part.reshape(b1 - b0, g.oh, g.ow, kh, kw, c)
            if _jit.numpy_tier(_col2im, cols.size):
                _jit.run_numpy_form(_col2im, _col2im_numpy, cols, dst[b0:b1], g.sh, g.sw, g.dh, g.dw)
            else:
                _col2im(cols, dst[b0:b1], g.sh, g.sw, g.dh, g.dw)


@njit(nogil=True)
def _col2im(cols, out, sh, sw, dh, dw):
    """out[b, sh * i + dh * a, sw * j + dw * e, q] += cols[b, i, j, a, e, q], in the
    order (b, i, a, j, e, q). Few channels and no column dilation: a window
    row's KW*C values are contiguous in both arrays and are added as one run
    (with many channels the loop over q is the faster inner loop)."""
    nb, oh, ow, kh, kw, c = cols.shape
    if dw == 1 and c < 8:
        run = kw * c
        flat = cols.reshape((nb, oh, ow, kh, run))
        dst = out.reshape((nb, out.shape[1], out.shape[2] * c))
        for b in range(nb):
            for i in range(oh):
                for a in range(kh):
                    row = dst[b, sh * i + dh * a]
                    for j in range(ow):
                        src = flat[b, i, j, a]
                        o0 = sw * j * c
                        for t in range(run):
                            row[o0 + t] += src[t]
        return
    for b in range(nb):
        for i in range(oh):
            for a in range(kh):
                r = sh * i + dh * a
                for j in range(ow):
                    for e in range(kw):
                        col = sw * j + dw * e
                        for q in range(c):
                            out[b, r, col, q] += cols[b, i, j, a, e, q]


def _col2im_numpy(cols, out, sh, sw, dh, dw):
    """:func:`_col2im` in NumPy, the same additions in the same order: an element of
    ``out`` gets its terms in the order of ``(i, j)`` (the window row, then column),
    which for a fixed element is the order of ``(a, e)`` from the last tap to the
    first -- so one strided ``+=`` per tap, taps last to first."""
    _, oh, ow, kh, kw, _ = cols.shape
    for a in range(kh - 1, -1, -1):
        for e in range(kw - 1, -1, -1):
            out[:, dh * a:dh * a + sh * (oh - 1) + 1:sh, dw * e:dw * e + sw * (ow - 1) + 1:sw] += cols[:, :, :, a, e]
    return out


def _sample_col2im():
    """A float32 :func:`_col2im` (the types of its calls): its background build."""
    _col2im(np.ones((1, 3, 3, 2, 2, 4), np.float32), np.zeros((1, 6, 6, 4), np.float32), 2, 2, 1, 1)


_jit.compiles_in_background(_col2im, _sample_col2im, any_size=True)


def _conv_filter_grad_nhwc(x, f_shape, dy, g):
    """df = patches^T . out_backprop, summed over blocks of images (``PATCH_BYTES``
    of patches each: one product per block, the blocks' products added in order).
    Where every block's product is ``ref``'s kernel, the patches are never
    materialised (:class:`_FilterGrad`): the same chains, the same bits."""
    o = dy.shape[3]
    if _pointwise(g):
        return gemm.matmul(np.ascontiguousarray(x).reshape(-1, x.shape[3]).T, dy.reshape(-1, o)).reshape(f_shape)
    kh, kw, c, _ = f_shape
    df = np.zeros((kh * kw * c, o), np.result_type(x.dtype, dy.dtype))
    if not dy.size:
        return df.reshape(f_shape)
    nb = _images_per_block(x.shape[0], g.oh * g.ow * kh * kw * c * x.itemsize, PATCH_BYTES)
    if (x.dtype == dy.dtype == df.dtype and not _jit.DISABLE
            and all(gemm.uses_kernel(kh * kw * c, m * g.oh * g.ow, o, df.dtype) for m in {nb, x.shape[0] % nb or nb})
            and patch_products.filter_grads(x)):
        patch_products.FilterGrad(x, dy, df, (kh, kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.ph0, g.pw0), nb).run()
        return df.reshape(f_shape)
    dym = np.ascontiguousarray(dy)
    tmp = None
    for b0, b1, cols in _patch_blocks(x, kh, kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, pad=(g.ph0, g.pw0)):
        d = dym[b0:b1].reshape(-1, o)
        if tmp is None and b1 == x.shape[0]:
            gemm.matmul(cols.T, d, out=df)
        else:
            tmp = gemm.matmul(cols.T, d, out=tmp)
            df += tmp
    return df.reshape(f_shape)


# ---------------------------------------------------------------------------
# Shape rules
# ---------------------------------------------------------------------------

def _dims4(spec):
    s = spec.shape
    if s.ndims is None:
        return [None] * 4
    return s.as_list()


def _value_dims(spec):
    """The 4 dims given by a constant sizes input, else unknown."""
    if spec.value is not None:
        return [int(d) for d in np.asarray(spec.value).reshape(-1)]
    return [None] * 4


def _conv_out_shape(in_dims, f_dims, attrs, depthwise=False):
    fmt = attrs.get("data_format", "NHWC")
    name = attrs.get("_op_name", "")
    if _nchw(fmt):
        n, c, h, w = in_dims
    else:
        n, h, w, c = in_dims
    kh, kw, fc, o = f_dims
    if c is not None and fc is not None:
        if depthwise and c != fc:
            raise ValueError(f"Dimensions must be equal, but are {c} and {fc} for '{name}'")
        if not depthwise and c % fc:
            raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter ({fc}) "
                             f"for '{name}'")
    g = Geometry(h, w, kh, kw, attrs["strides"], attrs.get("dilations"), attrs["padding"],
                 (attrs.get("explicit_paddings") or []), fmt)
    for size, k, d, out in ((h, kh, g.dh, g.oh), (w, kw, g.dw, g.ow)):
        if out is not None and out < 0:
            raise ValueError(f"Negative dimension size caused by subtracting {(k - 1) * d + 1} from {size} "
                             f"for '{name}' with input shapes: {in_dims}, {f_dims}.")
    if depthwise:
        o = None if fc is None and c is None or o is None else (fc if fc is not None else c) * o
    dims = [n, o, g.oh, g.ow] if _nchw(fmt) else [n, g.oh, g.ow, o]
    return TensorShape(dims)


def _check_ranks(ins, names, attrs):
    require_rank(ins, attrs, **{k: 4 for k in names})


def _attrs_ok(attrs, what):
    check_attrs(attrs["strides"], attrs.get("dilations"), attrs["padding"], (attrs.get("explicit_paddings") or []),
                attrs.get("data_format", "NHWC"), what, attrs.get("_op_name", ""))


def _conv_shape(depthwise):
    def rule(ins, attrs):
        _check_ranks(ins, ("input", "filter"), attrs)
        _attrs_ok(attrs, "convolution")
        return [(ins["input"].dtype, _conv_out_shape(_dims4(ins["input"]), _dims4(ins["filter"]), attrs,
                                                     depthwise))]
    return rule


def _sizes_shape(sizes, like):
    def rule(ins, attrs):
        _attrs_ok(attrs, "convolution gradient")
        known = shape_input(ins[sizes])  # TF's MakeShapeFromShapeTensor: [batch, 4, 4, 4] is [?, 4, 4, 4]
        return [(ins[like].dtype, known if known.ndims is not None else unknown_shape(4))]
    return rule


def _backprop_input_shape(ins, attrs):
    """TF's Conv2DBackpropInputShape: spatial dims (and depth) from ``input_sizes``
    (4 values, or 2 spatial ones with the filter's input depth), the batch
    dimension from ``out_backprop`` -- so a known batch in ``input_sizes`` stays
    unknown when the gradient's batch is."""
    _attrs_ok(attrs, "convolution gradient")
    nchw = _nchw(attrs.get("data_format", "NHWC"))
    dy = ins["out_backprop"].shape.with_rank(4)
    filt = ins["filter"].shape.with_rank(4)
    depth_dy = dy.dims[1] if nchw else dy.dims[3]
    if not depth_dy.is_compatible_with(filt.dims[3]):
        raise ValueError(f"Dimensions must be equal, but are {depth_dy} and {filt[3]} for "
                         f"'{attrs.get('_op_name', 'Conv2DBackpropInput')}'")
    known = shape_input(ins["input_sizes"])
    if known.ndims is None:
        known = unknown_shape(4)
    if known.ndims == 4:
        spatial = [known.dims[2], known.dims[3]] if nchw else [known.dims[1], known.dims[2]]
        depth = known.dims[1] if nchw else known.dims[3]
    elif known.ndims == 2:
        spatial, depth = [known.dims[0], known.dims[1]], filt.dims[2]
    else:
        raise ValueError(f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: "
                         f"{known.ndims}")
    batch = dy.dims[0]
    dims = [batch, depth] + spatial if nchw else [batch] + spatial + [depth]
    return [(ins["filter"].dtype, TensorShape(dims))]


_CONV_ATTRS = {"strides": REQUIRED, "use_cudnn_on_gpu": True, "padding": REQUIRED, "explicit_paddings": [],
               "data_format": "NHWC", "dilations": [1, 1, 1, 1]}


def _prepare(strides, dilations, padding, explicit_paddings, data_format, op):
    try:
        check_attrs(list(strides), list(dilations), padding, list(explicit_paddings or []), data_format, op, op)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    sh, sw = _hw(strides, data_format)
    if op.startswith("Depthwise") and sh != sw:
        raise invalid_argument(f"{op}: Current implementation only supports equal length strides in the row and "
                               f"column dimensions.")


# ---------------------------------------------------------------------------
# Conv2D
# ---------------------------------------------------------------------------

@register_op("Conv2D", inputs=("input", "filter"), attrs=dict(_CONV_ATTRS), type_attrs={"T": ("input", "filter")},
             allowed={"T": _CONV_T}, shape=_conv_shape(False))
def conv2d(input, filter, strides, padding, use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
           dilations=(1, 1, 1, 1)):
    """output[b, i, j, o] = sum_{di, dj, q} input[b, s_h * i + d_h * di - p_t, s_w * j + d_w * dj - p_l, q]
    * filter[di, dj, q, o] (zero outside the input; NCHW moves the channel axis)."""
    _prepare(strides, dilations, padding, explicit_paddings, data_format, "Conv2D")
    x0, f0 = np.asarray(input), np.asarray(filter)
    _check_run(x0, f0, "Conv2D")
    x, f = to_nhwc(_compute(x0), data_format), _compute(f0)
    if x.shape[3] != f.shape[2]:
        if f.shape[2] and x.shape[3] % f.shape[2] == 0:
            return _grouped(x, f, x0.dtype, strides, dilations, padding, explicit_paddings, data_format)
        raise invalid_argument(f"input depth must be evenly divisible by filter depth: {x.shape[3]} vs "
                               f"{f.shape[2]}")
    g = _geometry(x.shape, f.shape, strides, dilations, padding, explicit_paddings, data_format, "Conv2D")
    return from_nhwc(_conv_nhwc(x, f, g).astype(x0.dtype, copy=False), data_format)


def _grouped(x, f, dtype, strides, dilations, padding, explicit_paddings, data_format):
    """Grouped convolution: input channels in ``C / filter_depth`` groups,
    each convolved with its ``O / groups`` filters."""
    groups = x.shape[3] // f.shape[2]
    if f.shape[3] % groups:
        raise invalid_argument(f"output depth {f.shape[3]} is not divisible by the number of groups {groups}")
    g = _geometry(x.shape, f.shape, strides, dilations, padding, explicit_paddings, data_format, "Conv2D")
    og, cg = f.shape[3] // groups, f.shape[2]
    outs = [_conv_nhwc(np.ascontiguousarray(x[..., k * cg:(k + 1) * cg]), f[..., k * og:(k + 1) * og], g)
            for k in range(groups)]
    return from_nhwc(np.concatenate(outs, axis=3).astype(dtype, copy=False), data_format)


@register_op("Conv2DBackpropInput", inputs=("input_sizes", "filter", "out_backprop"), attrs=dict(_CONV_ATTRS),
             type_attrs={"T": ("filter", "out_backprop")}, allowed={"T": _CONV_T},
             shape=_backprop_input_shape)
def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,
                          explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    """d loss / d input of Conv2D: each output gradient spread over its window,
    dx[b, ih, iw, q] = sum over (i, j, di, dj) reaching (ih, iw) of
    out_backprop[b, i, j, o] * filter[di, dj, q, o]."""
    _prepare(strides, dilations, padding, explicit_paddings, data_format, "Conv2DBackpropInput")
    f0, dy0 = np.asarray(filter), np.asarray(out_backprop)
    sizes = _sizes(input_sizes, "Conv2DBackpropInput: input_sizes")
    shape = [sizes[0], sizes[2], sizes[3], sizes[1]] if _nchw(data_format) else sizes
    f, dy = _compute(f0), to_nhwc(_compute(dy0), data_format)
    _check_run(dy, f, "Conv2DBackpropInput")
    g = _geometry(shape, f.shape, strides, dilations, padding, explicit_paddings, data_format,
                  "Conv2DBackpropInput")
    if shape[3] != f.shape[2] or dy.shape != (shape[0], g.oh, g.ow, f.shape[3]):
        raise invalid_argument(f"Conv2DBackpropInput: input_sizes {sizes}, filter {list(f0.shape)} and "
                               f"out_backprop {list(dy0.shape)} do not match (expected out_backprop "
                               f"{[shape[0], g.oh, g.ow, f.shape[3]]} in NHWC)")
    return from_nhwc(_conv_input_grad_nhwc(shape, f, dy, g).astype(f0.dtype, copy=False), data_format)


@register_op("Conv2DBackpropFilter", inputs=("input", "filter_sizes", "out_backprop"), attrs=dict(_CONV_ATTRS),
             type_attrs={"T": ("input", "out_backprop")}, allowed={"T": _CONV_T},
             shape=_sizes_shape("filter_sizes", "input"))
def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True,
                           explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    """d loss / d filter of Conv2D: df[di, dj, q, o] = sum_{b, i, j}
    input[b, s_h * i + d_h * di - p_t, s_w * j + d_w * dj - p_l, q] * out_backprop[b, i, j, o]."""
    _prepare(strides, dilations, padding, explicit_paddings, data_format, "Conv2DBackpropFilter")
    x0, dy0 = np.asarray(input), np.asarray(out_backprop)
    fs = _sizes(filter_sizes, "Conv2DBackpropFilter: filter_sizes")
    x, dy = to_nhwc(_compute(x0), data_format), to_nhwc(_compute(dy0), data_format)
    _check_run(x, dy, "Conv2DBackpropFilter")
    g = _geometry(x.shape, fs, strides, dilations, padding, explicit_paddings, data_format, "Conv2DBackpropFilter")
    if x.shape[3] != fs[2] or dy.shape != (x.shape[0], g.oh, g.ow, fs[3]):
        raise invalid_argument(f"Conv2DBackpropFilter: input {list(x0.shape)}, filter_sizes {fs} and "
                               f"out_backprop {list(dy0.shape)} do not match")
    return _conv_filter_grad_nhwc(x, fs, dy, g).astype(x0.dtype, copy=False)
