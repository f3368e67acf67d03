"""TF's float32 ``MatMul`` when one side of the product is 1 (``[1, k] @ [k, n]`` or
``[m, k] @ [k, 1]``), in Eigen's order.

TF's CPU ``MatMul`` (``LaunchBatchMatMul<CPUDevice>``, ``matmul_op_impl.h``)
sends a single product whose smallest side ``min(m, k, n)`` is 1 not to the
tensor contraction but to Eigen's dense products on row-major maps: one call
when ``m * k * n <= 128 * 128``, else the output cut into blocks
(``SingleBatchParallelMatMulKernel``: halves rounded up to 64 rows or columns
while a block holds more than ``max(m * k * n / threads, 128 * 128)``
multiply-adds, :func:`output_blocks`; ``threads`` TF's intra-op pool,
:func:`ref.ops.eigen_reduce.pool_threads`). TF's x86-64 build has AVX without
FMA: a multiply-add is a float32 product rounded, then a sum rounded; packets
hold 8 floats. Each block is, by Eigen's dispatch:

* ``rows + k + cols < 20``: coefficient by coefficient, an inner product;
* one output element (``m == n == 1``): an inner product, added to 0;
* else a matrix-vector product (GEMV) with the output vector's length ``r``:
  Eigen writes ``z = L v``; ``L`` is ``a`` for ``n == 1``, ``b^T`` for ``m == 1``,
  and is column-major when ``a`` is transposed (``n == 1``) or ``b`` is not (``m ==
  1``), else row-major.

The inner product (``inner_product_impl``) is vectorised only when both operands
are contiguous for Eigen (``a`` not transposed and ``b`` transposed): four
packet accumulators (:func:`_inner`); otherwise products summed in order.

The column-major GEMV cuts ``k`` into blocks of ``block_cols`` columns (all when
``k < 128``, else 16, or 4 when L's columns are 32000 bytes or more apart); for
each block ``c = 0``, ``c = c + L[i, j] * v[j]`` in order, then ``res += c``
(``res`` starts at 0).

The row-major GEMV takes rows in groups of 8, 4, 2 and, for an odd block, one
last row alone: each row's dot product accumulates 8 lanes over the whole
packets, ``predux`` (halves added lane by lane, then ``(q0 + q2) + (q1 + q3)``),
then the values left one by one; a row alone first adds a half packet of 4 (and
its ``predux``) when 4 or more values are left. The result is added to 0.

``BatchMatMulV2`` takes the same route for each matrix (``SequentialMatMulKernel``,
one block each when the batch holds more than one); a batch of several small
matrices (``m * k * n <= 128 * 128``, ``k + m + n < 20``) is Eigen's
coefficient-based product whatever its sides (:func:`batch_product`).

(Measured against tensorflow-cpu 2.21 with oneDNN off: every element equal,
all four transpositions, ``k`` from 2 to 30000, ``m`` or ``n`` up to 20000;
``tests/ops/test_eigen_gemv.py``.) ``k == 1`` and products with no side of 1
go through TF's tensor contraction with oneDNN's JIT sgemm as its inner kernel
(``TENSORFLOW_USE_MKLDNN_CONTRACTION_KERNEL``): :mod:`ref.ops.eigen_gemm` on AVX2
CPUs, :mod:`ref.ops.gemm` elsewhere.
"""
from __future__ import annotations

import numpy as np

from ref.ops import _jit
from ref.ops._jit import njit, numpy_tier, run_numpy_form

_F = np.float32
BLOCK_COLS_MIN_K = 128
"""Inner length from which Eigen's GEMV cuts it into blocks of columns."""
PACKET = 8
"""float32 lanes of an AVX packet."""
STRIDE_BYTES = 32000
"""Bytes between the matrix's columns from which the column-major GEMV's blocks are 4 columns, not 16."""


def block_cols(k: int, stride: int) -> int:
    """Eigen's column-major GEMV's ``block_cols`` for an inner length ``k`` and a matrix
    whose columns are ``stride`` floats apart."""
    if k < BLOCK_COLS_MIN_K:
        return max(k, 1)
    return 16 if stride * 4 < STRIDE_BYTES else 4


@njit(nogil=True)
def _gemv(x, b, bc, out):
    """out[i] = Eigen's blocked non-fused sum of x[j] * b[j, i] (``b`` any strides)."""
    k = x.shape[0]
    n = out.shape[0]
    c = np.zeros(n, np.float32)
    for i in range(n):
        out[i] = 0.0
    for j2 in range(0, k, bc):
        jend = min(j2 + bc, k)
        for i in range(n):
            c[i] = 0.0
        for j in range(j2, jend):
            xj = x[j]
            for i in range(n):
                c[i] = c[i] + xj * b[j, i]
        for i in range(n):
            out[i] = out[i] + c[i]
    return out


def _gemv_numpy(x, b, bc, out):
    """:func:`_gemv` as NumPy passes over the ``n`` outputs (the same roundings in the same order)."""
    k = x.shape[0]
    out[:] = 0
    c = np.empty(out.shape[0], _F)
    p = np.empty(out.shape[0], _F)
    for j2 in range(0, k, bc):
        c[:] = 0
        for j in range(j2, min(j2 + bc, k)):
            np.multiply(x[j], b[j], out=p)
            c += p
        out += c
    return out


def _colmajor(lt, v, bc):
    """Each ``lt[:, i] . v`` (``lt``: ``[k, r]``) in the column-major GEMV's order, blocks of ``bc``."""
    k, r = lt.shape
    out = np.empty(r, _F)
    if numpy_tier(_gemv, k * r):
        return run_numpy_form(_gemv, _gemv_numpy, v, lt, bc, out)
    return _gemv(v, np.ascontiguousarray(lt, _F), bc, out)


def _predux8(c):
    q = c[:, :4] + c[:, 4:]
    return (q[:, 0] + q[:, 2]) + (q[:, 1] + q[:, 3])


@njit(inline="always")
def _pred4(a, b, c, d):
    return (a + c) + (b + d)


@njit(nogil=True)
def _rows(lm, v, single_last, out):
    """:func:`_rowmajor_numpy`, row by row (``single_last``: the last row is a row alone)."""
    r, k = lm.shape
    full = 8 * (k // 8)
    half = 4 * (k // 4)
    c = np.zeros(8, np.float32)
    for i in range(r):
        for t in range(8):
            c[t] = 0.0
        for j in range(0, full, 8):
            for t in range(8):
                c[t] = c[t] + lm[i, j + t] * v[j + t]
        cc = _pred4(c[0] + c[4], c[1] + c[5], c[2] + c[6], c[3] + c[7])
        start = full
        if single_last and i == r - 1:
            h0 = np.float32(0.0)
            h1 = np.float32(0.0)
            h2 = np.float32(0.0)
            h3 = np.float32(0.0)
            if half > full:
                h0 = h0 + lm[i, full] * v[full]
                h1 = h1 + lm[i, full + 1] * v[full + 1]
                h2 = h2 + lm[i, full + 2] * v[full + 2]
                h3 = h3 + lm[i, full + 3] * v[full + 3]
            cc = cc + _pred4(h0, h1, h2, h3)
            start = half
        for j in range(start, k):
            cc = cc + lm[i, j] * v[j]
        out[i] = np.float32(0.0) + cc
    return out


def _rowmajor(lm, v, single):
    r = lm.shape[0]
    out = np.empty(r, _F)
    if numpy_tier(_rows, lm.size):
        return run_numpy_form(_rows, _rowmajor_numpy, lm, v, single)
    return _rows(np.ascontiguousarray(lm, _F), v, bool(single[-1]), out)


def _rowmajor_numpy(lm, v, single):
    """Each ``lm[i] . v`` (``lm``: ``[r, k]``) in the row-major GEMV's order: lanes of 8
    over the whole packets, ``predux``, then (rows in ``single`` only) a half packet of 4
    and its ``predux``, then the values left one by one; the result added to 0."""
    r, k = lm.shape
    full, half = PACKET * (k // PACKET), 4 * (k // 4)
    c = np.zeros((r, PACKET), _F)
    for j in range(0, full, PACKET):
        c += lm[:, j:j + PACKET] * v[j:j + PACKET]
    cc = _predux8(c)
    h = np.zeros((r, 4), _F)
    if half > full:
        h += lm[:, full:half] * v[full:half]
    hs = (h[:, 0] + h[:, 2]) + (h[:, 1] + h[:, 3])
    cc[single] += hs[single]
    for j in range(full, k):
        if j >= half:
            cc += lm[:, j] * v[j]
        else:  # grouped rows take these one by one too
            cc[~single] += lm[~single, j] * v[j]
    return _F(0) + cc


def _inner(lm, v, vectorized):
    """Eigen's inner product of each ``lm[i]`` with ``v`` (``inner_product_impl``; a
    multiply-add is a product rounded, then a sum rounded): in order from the first
    product, or, ``vectorized`` (both operands contiguous for Eigen) with at least a
    packet, four packet accumulators started from the first four packets' products,
    further packets added in turn, the 1-3 packets after the last group of four into
    the first accumulators, then ``p2 += p3``, ``p1 += p2``, ``p0 += p1``, ``predux``
    and the values left one by one."""
    k = lm.shape[1]
    prod = lm * v
    if not vectorized or k < PACKET:
        acc = prod[:, 0].copy()
        for j in range(1, k):
            acc += prod[:, j]
        return acc
    packets, quad = k // PACKET, 4 * PACKET * (k // (4 * PACKET))
    p = [prod[:, PACKET * i:PACKET * (i + 1)].copy() for i in range(min(packets, 4))]
    if packets >= 4:
        for j in range(4 * PACKET, quad, 4 * PACKET):
            for i in range(4):
                p[i] += prod[:, j + PACKET * i:j + PACKET * (i + 1)]
        for i in range((PACKET * packets - quad) // PACKET):
            p[i] += prod[:, quad + PACKET * i:quad + PACKET * (i + 1)]
        p[2] += p[3]
    if packets >= 3:
        p[1] += p[2]
    if packets >= 2:
        p[0] += p[1]
    acc = _predux8(p[0])
    for j in range(PACKET * packets, k):
        acc += prod[:, j]
    return acc


LAZY_SIZE = 20
"""``EIGEN_GEMM_TO_COEFFBASED_THRESHOLD``: a product whose ``k + rows + cols`` is
below it is computed coefficient by coefficient."""
SMALL_COST = 128 * 128
"""TF's ``kMaxCostOuterParallelism``: above ``m * k * n`` a single product is cut into
output blocks (``SingleBatchParallelMatMulKernel``)."""
BLOCK_MIN = 8 * PACKET


def output_blocks(m, k, n, threads):
    """TF's ``SingleBatchParallelMatMulKernel`` blocks of the ``[m, n]`` output, as
    ``(row, col, nrows, ncols)``; one block when ``m * k * n`` is at most :data:`SMALL_COST`."""
    if m * k * n <= SMALL_COST:
        return [(0, 0, m, n)]
    limit = max(m * k * n // threads, SMALL_COST)
    out = []

    def split(row, col, nrows, ncols):
        while nrows * k * ncols > limit and (nrows > BLOCK_MIN or ncols > BLOCK_MIN):
            if nrows > ncols:
                half = -(-(nrows // 2) // BLOCK_MIN) * BLOCK_MIN
                split(row + half, col, nrows - half, ncols)
                nrows = half
            else:
                half = -(-(ncols // 2) // BLOCK_MIN) * BLOCK_MIN
                split(row, col + half, nrows, ncols - half)
                ncols = half
        if nrows > 0 and ncols > 0:
            out.append((row, col, nrows, ncols))

    split(0, 0, m, n)
    return out


def vector_product(a, b, transpose_a=False, transpose_b=False, threads=1, blocks=True):
    """``a @ b`` for float32 ``a`` ``[m, k]`` and ``b`` ``[k, n]`` (views of the stored
    operands when transposed) with ``m == 1`` or ``n == 1``, in TF's order (module
    docstring; ``blocks=False``: one block, as TF's ``BatchMatMul`` computes each
    matrix of a batch of several); None where ``k < 2`` (:mod:`ref.ops.gemm`'s)."""
    m, k = a.shape
    n = b.shape[1]
    if k < 2:
        return None
    if m == 0 or n == 0:
        return np.zeros((m, n), _F)
    if n == 1:  # the output column: L = a, v = b
        lm, v, colmajor, stride = a, b[:, 0], transpose_a, m
    else:  # the output row: L = b^T, v = a
        lm, v, colmajor, stride = b.T, a[0], not transpose_b, n
    v = np.ascontiguousarray(v, _F)
    r = lm.shape[0]
    res = np.empty(r, _F)
    with np.errstate(all="ignore"):
        for row, col, nrows, ncols in output_blocks(m, k, n, threads) if blocks else [(0, 0, m, n)]:
            lo, cnt = (row, nrows) if n == 1 else (col, ncols)
            part = lm[lo:lo + cnt]
            if nrows + k + ncols < LAZY_SIZE:  # coefficient by coefficient
                res[lo:lo + cnt] = _inner(part, v, not transpose_a and transpose_b)
            elif nrows == ncols == 1:  # an inner product, added to 0
                if transpose_b and not transpose_a:
                    res[lo:lo + cnt] = _F(0) + _inner(part, v, True)
                else:  # in order; from 0 rather than the first product: the same once added to 0
                    res[lo:lo + cnt] = _F(0) + _colmajor(part.T, v, k)
            elif colmajor:
                res[lo:lo + cnt] = _colmajor(part.T, v, block_cols(k, stride))
            else:
                single = np.zeros(cnt, bool)
                single[-1] = cnt % 2 == 1
                res[lo:lo + cnt] = _rowmajor(part, v, single)
    return res.reshape(m, n)


def batch_product(x, y, adj_x, adj_y, threads):
    """``BatchMatMulV2`` of float32 ``x`` ``[..., m, k]`` and ``y`` ``[..., k, n]`` (views
    of the stored operands when adjoint) in TF's order where ``m == 1`` or ``n == 1``
    (:func:`vector_product` for each matrix: TF's output blocks for a batch of one,
    one block each otherwise), and for batches of several matrices with ``k + m + n <
    20`` (inner products, coefficient by coefficient); None for the others and ``k < 2``."""
    m, k, n = x.shape[-2], x.shape[-1], y.shape[-1]
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    one = int(np.prod(batch)) == 1
    lazy = not one and m + k + n < LAZY_SIZE and k >= 2
    if k < 2 or (m != 1 and n != 1 and not lazy):
        return None
    xb = np.broadcast_to(x, batch + x.shape[-2:])
    yb = np.broadcast_to(y, batch + y.shape[-2:])
    out = np.empty(batch + (m, n), _F)
    with np.errstate(all="ignore"):
        for i in np.ndindex(*batch):
            if m != 1 and n != 1:  # coefficient by coefficient
                for j in range(n):
                    out[i][:, j] = _inner(xb[i], np.ascontiguousarray(yb[i][:, j]), not adj_x and adj_y)
            else:
                out[i] = vector_product(xb[i], yb[i], adj_x, adj_y, threads, blocks=one)
    return out


# The NumPy forms serve every size while the loops build in the background.
_jit.compiles_in_background(
    _gemv, lambda: _gemv(np.ones(20, _F), np.ones((20, 3), _F), 16, np.empty(3, _F)), any_size=True)
_jit.compiles_in_background(
    _rows, lambda: _rows(np.ones((3, 20), _F), np.ones(20, _F), True, np.empty(3, _F)), any_size=True)
