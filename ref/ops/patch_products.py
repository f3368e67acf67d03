"""Products over a convolution's im2col patches that never hold the patch matrix.

``Conv2DBackpropFilter`` is ``df = patches^T @ out_backprop``: a product whose
inner dimension is the batch's output pixels (``N * OH * OW``, 65,536 rows for
a 32x32 batch of 64), so the patch matrix it reads is large (75 MB for VGG's
3x3x32 layer). Copied whole and then multiplied, it is written to memory and
read back once more; both passes run at the memory's pace, not the core's.
:class:`FilterGrad` copies the patches a *chunk* of rows at a time into a
buffer that stays in the core's L2 cache and multiplies each chunk at once,
:func:`ref.ops.gemm_kernel.gemm_resume` carrying every element's chain of
fused multiply-adds from one chunk to the next: each element of a block's
product is still one chain over the block's rows in order, so the bits are
those of one product over the whole block (``ref.ops.conv``'s
``PATCH_BYTES`` blocks of images, whose products are added in block order, as
before). The rows of ``df`` are split among ``ref``'s matrix threads
(``gemm.run_blocks``), each thread copying only the patch columns its rows
read: an element's chain does not depend on the split.
"""
from __future__ import annotations

import math

import numpy as np

from ref.ops import conv_kernel
from ref.ops import fpenv
from ref.ops import gemm
from ref.ops import gemm_kernel
from ref.ops import _jit
from ref.ops._jit import njit

DIRECT = True
"""Whether convolutions whose windows have no column dilation (Conv2D, the stride-1
input gradient) and filter gradients run :mod:`ref.ops.conv_kernel`'s direct loops
(the windows read in place in a padded image, no patch copies) once those are
built; False: the chunked patch copies below (the same bits). Single thread,
float32, batch 64, chunked -> direct: LeNet conv2 Conv2D 12.8 -> 10.6 ms, filter
gradient 13.0 -> 11.9; VGG 3x3x32 Conv2D 13.8 -> 11.5, filter gradient 14.0 -> 11.3;
LeNet conv1 filter gradient 2.9 -> 0.8."""

SKIP_PADDING_ROWS = True
"""Whether :func:`correlate` leaves out the terms of the kernel rows a window reads
from padding where that keeps every bit (see there); False multiplies every
padding zero, as the patch matrix would."""

SKIP_MIN_SHARE = 0.04
"""The least share of padding among the kernel rows read (:func:`padding_share`)
for which :func:`correlate` skips them: each run of output rows is a product of
its own (more calls, more short row blocks), which costs about 2% of the product.
Single thread, float32, batch 64, full -> skipped: LeNet's 5x5 SAME on 14x14
(8.6% padding) Conv2D 13.6 -> 12.9 ms, input gradient 14.7 -> 13.8; VGG's 3x3 SAME
on 32x32 (2.1%) 13.9 -> 14.1 (so not skipped), on 16x16 (4.2%) 13.0-14.0 -> 12.7."""

CHUNK_BYTES = 1 << 18
"""Bytes of patch rows copied (then multiplied) at a time by one thread: the
chunk stays in the core's L2 cache (1 MiB here) next to the kernel's packed
B panel."""

_copy_vector = gemm_kernel.copy_vector
_gemm_resume = gemm_kernel.gemm_resume


@njit(inline="always")
def _copy_run(dst, d, src, s, count, width):
    """dst[d:d + count] = src[s:s + count] (unsigned offsets), ``width`` values (64
    bytes) at a time, then one by one."""
    q = np.uintp(0)
    while q + width <= count:
        _copy_vector(dst, d + q, src, s + q)
        q += width
    while q < count:
        dst[d + q] = src[s + q]
        q += np.uintp(1)


@njit(nogil=True)
def patch_rows(src, dst, p0, p1, k0, k1, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left):
    """dst (flat, ``[p1 - p0, k1 - k0]`` row-major) = columns ``k0:k1`` of rows
    ``p0:p1`` of the im2col matrix of the flat NHWC input ``src``: row ``p`` is
    output pixel ``(b, i, j)`` (row-major over ``[N, OH, OW]``), column
    ``(a * KW + e) * C + q`` holds ``src[b, sh * i + dh * a - top, sw * j + dw * e
    - left, q]``, zero outside the input. Without column dilation a window row's
    columns inside the input are one run of the input's row (one copy, zeros
    around it); with it, one run of C values per tap."""
    u = np.uintp
    width = u(64 // src.itemsize)
    span = kw * c
    if dw == 1:  # pieces: kernel rows a, each its columns seg0:seg1 of the row's span
        first, last = k0 // span, (k1 - 1) // span + 1
    else:  # pieces: taps, each its channels seg0:seg1
        first, last = k0 // c, (k1 + c - 1) // c
    pieces = last - first
    roff = np.empty(pieces, np.int64)
    coff = np.empty(pieces, np.int64)
    seg0 = np.empty(pieces, np.int64)
    seg1 = np.empty(pieces, np.int64)
    for t in range(pieces):
        piece = first + t
        if dw == 1:
            roff[t], coff[t] = dh * piece, 0
            seg0[t], seg1[t] = max(k0 - piece * span, 0), min(k1 - piece * span, span)
        else:
            roff[t], coff[t] = dh * (piece // kw), dw * (piece % kw)
            seg0[t], seg1[t] = max(k0 - piece * c, 0), min(k1 - piece * c, c)
    per = oh * ow
    b = p0 // per
    i = (p0 // ow) % oh
    j = p0 % ow
    o = u(0)
    for _ in range(p0, p1):
        r0 = sh * i - top
        c0 = sw * j - left
        for t in range(pieces):
            r = r0 + roff[t]
            s = c0 + coff[t]
            lo, hi = seg0[t], seg1[t]
            if dw == 1 and 0 <= r < h:  # the run inside the input: columns s + v // c in 0:w
                v0 = min(max(lo, -s * c), hi)
                v1 = max(min(hi, (w - s) * c), v0)
                for q in range(u(v0 - lo)):
                    dst[o + q] = 0
                o += u(v0 - lo)
                _copy_run(dst, o, src, u(((b * h + r) * w + s) * c + v0), u(v1 - v0), width)
                o += u(v1 - v0)
                for q in range(u(hi - v1)):
                    dst[o + q] = 0
                o += u(hi - v1)
            elif dw != 1 and 0 <= r < h and 0 <= s < w:
                _copy_run(dst, o, src, u(((b * h + r) * w + s) * c + lo), u(hi - lo), width)
                o += u(hi - lo)
            else:
                for q in range(u(hi - lo)):
                    dst[o + q] = 0
                o += u(hi - lo)
        j += 1
        if j == ow:
            j = 0
            i += 1
            if i == oh:
                i = 0
                b += 1


@njit(nogil=True)
def _filter_grad_rows(xf, dyf, out, tmp, buf, geometry, k0, k1, o, nb, chunk, nr):
    """Rows ``k0:k1`` of ``df = patches^T @ out_backprop`` into ``out`` (flat, ``[k1 -
    k0, o]``; zeros to start with where the batch has more than one block): per
    block of ``nb`` images one product (chunks of ``chunk`` patch rows, each chain
    resumed), added into ``out`` in block order where there are several."""
    n, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left = geometry
    kk = k1 - k0
    per = oh * ow
    several = n > nb
    dst = tmp if several else out
    for b0 in range(0, n, nb):
        r1 = min(n, b0 + nb) * per
        resume = 0
        for q0 in range(b0 * per, r1, chunk):
            q1 = min(r1, q0 + chunk)
            patch_rows(xf, buf, q0, q1, k0, k1, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left)
            _gemm_resume(kk, o, q1 - q0, buf, 0, 1, kk, dyf, q0 * o, o, 1, dst, 0, o, 1, nr, resume)
            resume = 1
        if several:
            for t in range(kk * o):
                out[t] += tmp[t]


class FilterGrad:
    """``df [KH*KW*C, O] = patches^T @ out_backprop`` (see the module docstring) for
    the NHWC input ``x`` and out_backprop ``dy`` of a convolution of ``geometry`` =
    ``(kh, kw, oh, ow, sh, sw, dh, dw, top, left)``, in blocks of ``nb`` images;
    ``df`` zeros, written in place by :meth:`run`."""

    def __init__(self, x, dy, df, geometry, nb):
        n, h, w, c = x.shape
        kh, kw, oh, ow, sh, sw, dh, dw, top, left = geometry
        self.xf = gemm.writable(np.ascontiguousarray(x)).reshape(-1)
        self.dyf = gemm.writable(np.ascontiguousarray(dy)).reshape(-1)
        self.df = df
        self.geometry = (n, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left)
        self.nb = nb
        self.o = df.shape[1]
        # the padding rows' terms left out of the direct loop (0 * dy: a finite dy, no flushing)
        self.skip = DIRECT and SKIP_PADDING_ROWS and not fpenv.active() and bool(np.isfinite(self.dyf).all())
        self.nr = 2 * gemm_kernel.WIDTH[df.dtype]

    def run(self):
        k, o = self.df.shape
        n, _, _, _, oh, ow = self.geometry[:6]
        threads = gemm.workers()
        parts = threads if threads > 1 and n * oh * ow * k * o >= 2 * gemm.MIN_BLOCK_WORK else 1
        mr = gemm_kernel.MR_T  # edges at whole row groups of the kernel, the parts about even
        inner = sorted({round(k * p / parts / mr) * mr for p in range(1, parts)} - {0} - set(range(k, k + mr)))
        gemm.run_blocks(self, [0] + [e for e in inner if e < k] + [k])

    def _rows(self, lo, hi, out):
        kk = hi - lo
        if DIRECT and _jit.ready(conv_kernel.filter_grad_rows):
            tmp = np.zeros(kk * self.o if self.geometry[0] > self.nb else 0, out.dtype)
            n, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left = self.geometry
            conv_kernel.filter_grad(self.xf, self.dyf, out, tmp,
                                    (n, h, w, c, oh, ow, self.df.shape[0] // (kw * c), kw, sh, sw, dh, dw, top, left),
                                    lo, hi, self.o, self.nb, self.skip)
            return
        chunk = max(gemm_kernel.KC, CHUNK_BYTES // (kk * out.itemsize) // gemm_kernel.KC * gemm_kernel.KC)
        tmp = np.empty(kk * self.o if self.geometry[0] > self.nb else 0, out.dtype)
        buf = np.empty(chunk * kk, out.dtype)
        _filter_grad_rows(self.xf, self.dyf, out, tmp, buf, self.geometry, lo, hi, self.o, self.nb, chunk, self.nr)

    def into_result(self, lo, hi):
        self._rows(lo, hi, self.df[lo:hi].reshape(-1))

    def scratch(self, lo, hi):
        part = np.zeros((hi - lo, self.o), self.df.dtype)
        self._rows(lo, hi, part.reshape(-1))
        return part

    def store(self, lo, hi, scratch):
        self.df[lo:hi] = scratch


@njit(inline="always")
def _kernel_rows(i, sh, top, dh, kh, h):
    """The kernel rows ``a0:a1`` whose input row ``sh * i - top + dh * a`` of output row
    ``i`` lies inside the input's ``h`` rows (the others read padding)."""
    r0 = sh * i - top
    a0 = 0 if r0 >= 0 else min((dh - 1 - r0) // dh, kh)
    a1 = 0 if r0 >= h else min((h - r0 + dh - 1) // dh, kh)
    return a0, max(a1, a0)


@njit(nogil=True)
def _correlate_rows(xf, fm, out, buf, geometry, k, o, chunk, nr, bias, skip):
    """``out`` (flat ``[N * OH * OW, o]``) = the im2col matrix of ``xf`` (columns
    ``0:k``) @ ``fm`` (flat ``[k, o]``), ``chunk`` patch rows at a time; with a
    ``bias`` (``o`` values, else empty) each chunk's rows, still in cache, then
    become ``max(row + bias, 0)``: ``BiasAdd`` and ``Relu``'s operations (NumPy's
    ``max``: a NaN passes, -0 becomes +0). With ``skip`` the rows of a chunk go in
    runs of output rows whose windows read the same kernel rows inside the input
    (:func:`_kernel_rows`), each run's product over those kernel rows' columns only:
    the columns left out are padding, ``+0 * f`` terms (see :func:`correlate`)."""
    n, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left = geometry
    span = kw * c
    kh = k // span
    rows = n * oh * ow
    zero = out.dtype.type(0)
    for q0 in range(0, rows, chunk):
        q1 = min(rows, q0 + chunk)
        patch_rows(xf, buf, q0, q1, 0, k, h, w, c, oh, ow, kw, sh, sw, dh, dw, top, left)
        if not skip:
            _gemm_resume(q1 - q0, o, k, buf, 0, k, 1, fm, 0, o, 1, out, q0 * o, o, 1, nr, 0)
        else:
            p = q0
            while p < q1:
                a0, a1 = _kernel_rows((p // ow) % oh, sh, top, dh, kh, h)
                end = min(q1, (p // ow + 1) * ow)
                while end < q1:  # the next output rows read the same kernel rows: one run
                    b0, b1 = _kernel_rows((end // ow) % oh, sh, top, dh, kh, h)
                    if b0 != a0 or b1 != a1:
                        break
                    end = min(q1, end + ow)
                _gemm_resume(end - p, o, (a1 - a0) * span, buf, (p - q0) * k + a0 * span, k, 1,
                             fm, a0 * span * o, o, 1, out, p * o, o, 1, nr, 0)
                if a1 < kh:  # a -0 may be the whole chain's +0 (ref.ops.conv_kernel.pixel_classes)
                    for r in range(p, end):
                        for j in range(o):
                            v = out[r * o + j]
                            if v == 0 and math.copysign(1.0, v) < 0:
                                _gemm_resume(1, o, k, buf, (r - q0) * k, k, 1, fm, 0, o, 1, out, r * o, o, 1, nr, 0)
                                break
                p = end
        if bias.size:  # (unsigned indices: no negative-index test, so LLVM vectorises the loop)
            for r in range(q0, q1):
                at = np.uintp(r * o)
                for j in range(np.uintp(o)):
                    v = out[at + j] + bias[j]
                    out[at + j] = v if not v <= zero else zero


def correlate(x, fm, out, window, pad, bias=None):
    """``out [N, OH, OW, O]`` = patches of the NHWC ``x`` (``window`` = ``(kh, kw, oh,
    ow, sh, sw, dh, dw)``, ``pad`` = (top, left) zeros before) @ ``fm [KH*KW*C, O]``
    on ``ref``'s kernel, the patches copied a chunk of rows at a time (a cache-sized
    buffer) instead of a block of images: each element is one chain over the
    patch columns whatever rows share its product, so the bits are the same.
    With ``bias``: ``relu(out + bias)``, as ``BiasAdd`` and ``Relu`` after it
    (TF's remapper's fused Conv2D + BiasAdd + Relu).

    **Padding rows are skipped.** A window at the top or bottom of a padded
    input reads whole kernel rows of padding; their columns of the patch matrix
    are zeros, whose terms ``fma(+0, f, acc)`` leave the chain as it was unless
    ``acc`` is -0 (a sum that rounded to zero from below: then +0 where ``f`` is
    not negative). So a result without the bottom rows' terms is the whole
    chain's unless it is -0, and a -0 is computed again over every column
    (``ref.ops.conv_kernel.pixel_classes`` has the argument; the rows above the
    input come before any other term, when ``acc`` is still +0). That holds when
    every ``f`` is finite (``0 * inf`` is NaN) and subnormals are not flushed:
    otherwise every column is multiplied, as before. So each run
    of output rows reading the same kernel rows is one product over those rows'
    columns only, with the bits of the whole product (LeNet's 5x5 SAME layer on
    14x14 rows: 6 of the 70 kernel rows its output rows read are padding, 8.6% of
    its work)."""
    n, h, w, c = x.shape
    kh, kw, oh, ow, sh, sw, dh, dw = window
    k, o = fm.shape
    if _direct(x, window):
        xf = gemm.writable(np.ascontiguousarray(x)).reshape(-1)
        fm = gemm.writable(np.ascontiguousarray(fm))
        skip = k >= CORRELATE_MIN_COLUMNS and skips_padding(fm)  # whatever their share: classes cost nothing
        bias = np.empty(0, out.dtype) if bias is None else gemm.writable(np.ascontiguousarray(bias))
        conv_kernel.correlate(xf, fm, out, x.shape, window, pad, bias, skip)
        return
    step = gemm_kernel.MC
    chunk = max(step, CHUNK_BYTES // (k * out.itemsize) // step * step)
    buf = np.empty(chunk * k, out.dtype)
    xf = gemm.writable(np.ascontiguousarray(x)).reshape(-1)
    fm = gemm.writable(np.ascontiguousarray(fm))
    skip = skips_padding_rows(fm, h, window, pad[0])
    bias = np.empty(0, out.dtype) if bias is None else gemm.writable(np.ascontiguousarray(bias))
    _correlate_rows(xf, fm.reshape(-1), out.reshape(-1), buf,
                    (n, h, w, c, oh, ow, kw, sh, sw, dh, dw, pad[0], pad[1]), k, o, chunk,
                    2 * gemm_kernel.WIDTH[out.dtype], bias, skip)


def padding_share(h, window, top) -> float:
    """The share of the kernel rows read by a convolution's output rows (``window``
    as in :func:`correlate`, ``h`` input rows, ``top`` rows of padding before) that
    lie in padding."""
    kh, _, oh, _, sh, _, dh, _ = window
    inside = sum(b - a for a, b in (_kernel_rows(i, sh, top, dh, kh, h) for i in range(oh)))
    return 1.0 - inside / (oh * kh)


def skips_padding_rows(fm, h, window, top) -> bool:
    """Whether :func:`correlate` leaves out the padding rows' terms for the filter
    matrix ``fm`` over ``h`` input rows (``window`` as there, ``top`` rows of padding
    before): at least ``SKIP_MIN_SHARE`` of the kernel rows read are padding, every
    filter value is finite and subnormals are not flushed (``SKIP_PADDING_ROWS`` set)."""
    return padding_share(h, window, top) >= SKIP_MIN_SHARE and skips_padding(fm)


def skips_padding(fm) -> bool:
    """Whether the terms of a convolution's padding may be left out with the filter
    matrix ``fm`` (``SKIP_PADDING_ROWS`` set, every filter value finite, subnormals not
    flushed): the results then differ only where one comes out -0, which is computed
    again over every term (``ref.ops.conv_kernel.pixel_classes``)."""
    return SKIP_PADDING_ROWS and not fpenv.active() and bool(np.isfinite(fm).all())


CORRELATE_MIN_COLUMNS = 64
"""Patch columns (``KH * KW * C``) from which :func:`correlate` runs a convolution: with
fewer (LeNet's and VGG's first layers, 25 and 27) a patch row is a few short runs,
which ``ref.ops.conv``'s whole-image copy writes faster (single thread: LeNet conv1
2.5 against 2.1 ms), and the patch matrix is small next to the product's work."""


def correlates(x, fm, rows_per_image, window=None) -> bool:
    """Whether :func:`correlate` computes a convolution's products (float32/64 of one
    dtype, where one image's product is already ``ref``'s kernel: so are all of the
    products it replaces): its direct loop for a ``window`` without column dilation,
    else its patch chunks from ``CORRELATE_MIN_COLUMNS`` patch columns."""
    if window is not None and _direct(x, window) and _kernel_shaped(x, fm, rows_per_image):
        return True
    return correlation_shaped(x, fm, rows_per_image) and _jit.ready(_correlate_rows)


def _direct(x, window) -> bool:
    """Whether :func:`correlate` runs ``ref.ops.conv_kernel``'s direct loop for ``x`` and
    ``window`` (no column dilation; the loop built)."""
    return DIRECT and window[7] == 1 and _jit.ready(conv_kernel.correlate_images)


def _kernel_shaped(x, fm, rows_per_image) -> bool:
    k, o = fm.shape
    return (x.dtype == fm.dtype and x.dtype in (np.float32, np.float64) and not _jit.DISABLE
            and gemm.uses_kernel(rows_per_image, k, o, x.dtype))


def correlation_shaped(x, fm, rows_per_image) -> bool:
    """:func:`correlates` whether or not its loop is built yet: where a caller picks
    between the correlation's bits and another algorithm's, this decides (while the
    loop builds, patch blocks through ``ref``'s GEMM give the correlation's bits)."""
    return fm.shape[0] >= CORRELATE_MIN_COLUMNS and _kernel_shaped(x, fm, rows_per_image)


def _sample_correlate():
    """A float32 :func:`correlate` with a bias (the types of every call: ``ref.ops.conv``
    sends float32 convolutions here): its background build (``_jit.ready``)."""
    x = np.ones((1, 4, 4, 8), np.float32)
    fm = np.ones((72, 32), np.float32)
    out = np.empty((1, 4, 4, 32), np.float32)
    correlate(x, fm, out, (3, 3, 4, 4, 1, 1, 1, 1), (1, 1), np.zeros(32, np.float32))


def _sample_filter_grad():
    """A float32 :class:`FilterGrad` of two blocks of images: its background build."""
    x = np.ones((2, 4, 4, 8), np.float32)
    df = np.zeros((72, 32), np.float32)
    FilterGrad(x, np.ones((2, 4, 4, 32), np.float32), df, (3, 3, 4, 4, 1, 1, 1, 1, 1, 1), 1).run()


def _sample_direct():
    """The float32 direct loops (``ref.ops.conv_kernel``) with a bias and two blocks of
    images: their background builds."""
    x = np.ones((2, 4, 4, 8), np.float32)
    fm = np.ones((72, 32), np.float32)
    out = np.empty((2, 4, 4, 32), np.float32)
    window = (3, 3, 4, 4, 1, 1, 1, 1)
    conv_kernel.correlate(x.reshape(-1), fm, out, x.shape, window, (1, 1), np.zeros(32, np.float32), True)
    df = np.zeros(72 * 32, np.float32)
    conv_kernel.filter_grad(x.reshape(-1), out.reshape(-1), df, np.zeros(72 * 32, np.float32),
                            (2, 4, 4, 8, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1), 0, 72, 32, 1)


_jit.compiles_in_background(_correlate_rows, _sample_correlate)
_jit.compiles_in_background(_filter_grad_rows, _sample_filter_grad)
_jit.compiles_in_background(conv_kernel.correlate_images, _sample_direct)
_jit.compiles_in_background(conv_kernel.filter_grad_rows, _sample_direct)


def filter_grads(x) -> bool:
    """Whether :class:`FilterGrad` is built for ``x``'s dtype (float32: else its build is
    started on a background thread, and ``ref.ops.conv`` copies the patches in blocks
    meanwhile -- the same chains, the same bits); with ``DIRECT``, whether
    ``ref.ops.conv_kernel``'s loop is."""
    if DIRECT:
        return x.dtype != np.float32 or _jit.ready(conv_kernel.filter_grad_rows)
    return x.dtype != np.float32 or _jit.ready(_filter_grad_rows)
