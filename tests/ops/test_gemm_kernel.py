"""``ref.ops.gemm_kernel``: every element a chain of fused multiply-adds in order.

The oracles compute that chain exactly, independently of the kernel:

* float32: each step ``a*b + acc`` in float64 (the product of two float32 values
  is exact there), the float64 rounding error recovered with TwoSum, and a sum
  that lands on a float32 rounding midpoint moved off it toward the exact value
  before rounding to float32 -- so each step is rounded once, as ``fmaf``;
* float64: each step as ``math.fsum`` of the exact product (Dekker's
  TwoProduct) and the accumulator, which is the correctly rounded ``fma``.

Plus cases worked by hand where the order, or the fusing, decides the result."""
import math

import numpy as np
import pytest

from ref.ops import gemm, gemm_kernel


def kernel(a, b):
    """``a @ b`` straight through the kernel (no size threshold, no blocks)."""
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), a.dtype)
    gemm._KernelProduct(a, b, out, 0).into_result(0, m)
    return out


def fused_chain_f32(a, b):
    with np.errstate(invalid="ignore", over="ignore"):  # inf and NaN inputs (test_special_values_propagate)
        return _fused_chain_f32(a, b)


def _fused_chain_f32(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        prod = np.multiply.outer(a[:, p], b[p])  # exact: 24 + 24 bits
        old = acc.astype(np.float64)
        s = prod + old
        z = s - prod
        err = (prod - (s - z)) + (old - z)  # TwoSum: s + err == prod + old exactly
        bits = s.view(np.uint64)
        midpoint = (bits & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)
        fix = midpoint & (err != 0)
        s = np.where(fix, np.nextafter(s, s + err), s)
        acc = s.astype(np.float32)
    return acc


def _two_product(x, y):
    def split(v):
        c = 134217729.0 * v
        hi = c - (c - v)
        return hi, v - hi
    p = x * y
    xh, xl = split(x)
    yh, yl = split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def fused_chain_f64(a, b):
    out = np.zeros((a.shape[0], b.shape[1]), np.float64)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0.0
            for p in range(a.shape[1]):
                x, y = float(a[i, p]), float(b[p, j])
                prod, err = _two_product(x, y)
                if math.isfinite(prod) and math.isfinite(err) and math.isfinite(acc):
                    acc = math.fsum([prod, err, acc])
                else:  # inf or NaN: no rounding to get right
                    acc = x * y + acc if not (math.isinf(x * y) and math.isinf(acc) and x * y != acc) else math.nan
            out[i, j] = acc
    return out


SMALL = [(1, 1, 1), (6, 1, 32), (7, 3, 33), (13, 40, 37), (5, 300, 17), (12, 2, 64), (97, 5, 3)]
"""Edges: fewer rows than a block (6), columns past a panel (32 / 16), an inner
length past KC (256: chains resumed from the packed block), more rows than MC (96)."""


def _operands(m, k, n, dtype, seed, layout="C"):
    rng = np.random.RandomState(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    if layout == "T":  # transposed views of C-ordered arrays
        a, b = np.ascontiguousarray(a.T).T, np.ascontiguousarray(b.T).T
    elif layout == "slice":  # row-padded views: unit column stride, row stride past the width
        a = np.pad(a, ((0, 0), (0, 3)))[:, :k]
        b = np.pad(b, ((0, 0), (0, 5)))[:, :n]
    return a, b


EDGES = [
    # every last-row-group size (micro-kernels of 1..MR rows), B read in place (m <= SMALL_M)
    (2, 40, 64), (3, 17, 32), (4, 9, 96), (8, 33, 64), (9, 12, 40), (10, 70, 45), (11, 5, 33),
    # in place, with a last partial panel packed, and chains resumed from C past KC
    (20, 300, 80), (23, 520, 47), (17, 257, 32),
    # B packed (m > SMALL_M): partial panels through the scratch block, resumed past KC
    (25, 300, 40), (31, 513, 65), (50, 260, 31),
    # more columns than NC (2048): B packed and in place
    (3, 20, 2100), (40, 9, 2081),
    # B larger than DIRECT_B_BYTES with few rows: packed
    (5, 1600, 1030),
    # layout "T" (A = x.T): micro-kernels of MR_T = 12 rows, last groups of 4 and 7..11, past MC
    (40, 300, 64), (100, 260, 70), (30, 9, 33),
]
"""Shapes through each path of ``gemm_kernel.gemm``: the row-group sizes, B in
place or packed, whole or partial panels (C written in place or through the
scratch block), first and resumed chains."""


@pytest.mark.parametrize("m, k, n", SMALL + EDGES)
@pytest.mark.parametrize("layout", ["C", "T", "slice"])
def test_float32_is_the_fused_chain(m, k, n, layout):
    a, b = _operands(m, k, n, np.float32, m * 1000 + k, layout)
    assert kernel(a, b).tobytes() == fused_chain_f32(a, b).tobytes()


@pytest.mark.parametrize("m, k, n", SMALL[:5] + [(2, 30, 16), (5, 7, 40), (11, 270, 17), (26, 20, 33)])
@pytest.mark.parametrize("layout", ["C", "T"])
def test_float64_is_the_fused_chain(m, k, n, layout):
    a, b = _operands(m, k, n, np.float64, k, layout)
    assert kernel(a, b).tobytes() == fused_chain_f64(a, b).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_inner_dimension_is_zeros(dtype):
    a, b = np.ones((3, 0), dtype), np.ones((0, 40), dtype)
    out = np.full((3, 40), np.nan, dtype)
    gemm._KernelProduct(a, b, out, 0).into_result(0, 3)
    assert out.tobytes() == np.zeros((3, 40), dtype).tobytes()


@pytest.mark.parametrize("m, k, n", [(128, 784, 256), (300, 257, 70), (96, 64, 96)])
@pytest.mark.parametrize("layout", ["C", "T"])
def test_large_products_through_matmul_are_the_fused_chain(m, k, n, layout):
    a, b = _operands(m, k, n, np.float32, n, layout)
    assert gemm.matmul(a, b).tobytes() == fused_chain_f32(a, b).tobytes()


F32 = np.float32
E = 2.0 ** -12
CASES = [
    # (a row, b column, dtype, the chain's value, what a summation in another order or unfused gives)
    ([1e8, 1, -1e8], [1, 1, 1], F32, 0.0, 1.0),  # 1e8 + 1 rounds back to 1e8 in float32
    ([1, -1e8, 1e8], [1, 1, 1], F32, 0.0, 1.0),
    ([-1e8, 1e8, 1], [1, 1, 1], F32, 1.0, 0.0),
    # fma(x, x, -(1 + 2^-11)) with x = 1 + 2^-12: x*x = 1 + 2^-11 + 2^-24 exactly, a tie
    # that a rounded product loses (round-to-even gives 1 + 2^-11, and the sum 0)
    ([1, 1 + E], [-(1 + 2 * E), 1 + E], F32, 2.0 ** -24, 0.0),
    ([1, 1 + 2.0 ** -27], [-(1 + 2.0 ** -26), 1 + 2.0 ** -27], np.float64, 2.0 ** -54, 0.0),
]


@pytest.mark.parametrize("row, col, dtype, want, other", CASES)
def test_hand_worked_order_and_fusing(row, col, dtype, want, other):
    a = np.array([row], dtype)
    b = np.array(col, dtype)[:, None]
    got = kernel(a, b)[0, 0]
    assert got == want and want != other


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_propagate(dtype):
    a = np.array([[1, np.inf, 0], [np.nan, 1, 1], [2, 3, 4], [-0.0, 0, 0]], dtype)
    b = np.array([[1, 0], [1, 1], [1, -np.inf]], dtype)
    got = kernel(a, b)
    want = fused_chain_f32(a, b) if dtype == np.float32 else fused_chain_f64(a, b)
    np.testing.assert_array_equal(got, want)  # NaN where NaN: inf * 0, inf - inf, NaN inputs
    assert np.isnan(got[0, 1]) and got[0, 0] == np.inf and np.isnan(got[1]).all() and got[2, 0] == 9


def test_one_compiled_kernel_per_dtype():
    for dtype in (np.float32, np.float64):
        for layout in ("C", "T", "slice"):
            kernel(*_operands(7, 9, 11, dtype, 0, layout))
    assert len(gemm_kernel.gemm.compiled().signatures) == 2


def test_read_only_operands_use_the_same_kernel():
    a, b = _operands(96, 64, 96, np.float32, 3)
    want = gemm.matmul(a, b)
    a.setflags(write=False)
    b.setflags(write=False)  # graph constants are frozen so
    assert gemm.matmul(a, b).tobytes() == want.tobytes()
    assert len(gemm_kernel.gemm.compiled().signatures) <= 2


def test_batch_matmul_of_large_matrices_is_the_kernel_per_batch():
    import ref.raw_ops as raw

    rng = np.random.RandomState(7)
    x = rng.standard_normal((3, 1, 64, 80)).astype(np.float32)
    y = rng.standard_normal((2, 96, 80)).astype(np.float32)
    got = raw.BatchMatMulV2(x=x, y=y, adj_y=True)
    assert got.shape == (3, 2, 64, 96)
    for i in range(3):
        for j in range(2):
            assert got[i, j].tobytes() == fused_chain_f32(x[i, 0], y[j].T).tobytes()
