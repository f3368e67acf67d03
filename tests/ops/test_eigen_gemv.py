"""``ref.ops.eigen_gemv``: float32 ``MatMul`` with ``m == 1`` or ``n == 1`` in Eigen's
order, bit for bit against ``tf.raw_ops.MatMul`` over a table of shapes in all
four transpositions (coefficient-based products below 20; inner products
vectorised or not; column-major GEMV blocks of all, 16 and 4 columns;
row-major GEMV groups of rows, odd blocks, whole and half packets; products cut
into output blocks), the compiled column loop against its NumPy form, TF's
output blocks, and the documented orders on hand cases without TensorFlow."""
import os

import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_gemv

_RNG = np.random.RandomState(5)

# (m, k, n): n == 1 (a column), m == 1 (a row), both
SHAPES = [
    (4, 3, 1), (3, 12, 1), (9, 9, 1), (2, 16, 1), (5, 7, 1), (100, 10, 1), (1000, 13, 1), (64, 100, 1),
    (65, 300, 1), (129, 200, 1), (7, 784, 1), (16, 1000, 1), (1000, 784, 1), (20000, 5, 1), (2000, 8001, 1),
    (1, 3, 5), (1, 2, 9), (1, 20, 10), (1, 100, 33), (1, 127, 40), (1, 128, 40), (1, 784, 10), (1, 784, 256),
    (1, 1000, 7), (1, 30000, 3), (1, 300, 7999), (1, 300, 8000), (1, 200, 10000), (1, 3000, 3000),
    (1, 5, 0), (0, 40, 1), (1, 1, 7), (9, 1, 1),
    (1, 16, 1), (1, 17, 1), (1, 24, 1), (1, 33, 1), (1, 47, 1), (1, 300, 1), (1, 20000, 1),
]
TRANSPOSES = [(False, False), (False, True), (True, False), (True, True)]


def _x(shape):
    return np.asarray(_RNG.randn(*shape), np.float32)


@pytest.mark.parametrize("ta, tb", TRANSPOSES, ids=["ab", "abT", "aTb", "aTbT"])
@pytest.mark.parametrize("m, k, n", SHAPES, ids=[f"{m}x{k}x{n}" for m, k, n in SHAPES])
def test_equals_tensorflow(m, k, n, ta, tb):
    tf = pytest.importorskip("tensorflow")
    a = _x((k, m) if ta else (m, k))
    b = _x((n, k) if tb else (k, n))
    want = tf.raw_ops.MatMul(a=a, b=b, transpose_a=ta, transpose_b=tb).numpy()
    got = raw_ops.MatMul(a=a, b=b, transpose_a=ta, transpose_b=tb)
    assert got.dtype == want.dtype and got.shape == want.shape == (m, n)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled loop")
@pytest.mark.parametrize("k, n, bc", [(5, 3, 5), (40, 9, 40), (200, 17, 16), (300, 33, 4)])
def test_numpy_form_is_the_compiled_loop(k, n, bc):
    x, b = _x((k,)), _x((k, n))
    one = eigen_gemv._gemv(x, b, bc, np.empty(n, np.float32))
    two = eigen_gemv._gemv_numpy(x, b, bc, np.empty(n, np.float32))
    np.testing.assert_array_equal(one.view(np.int32), two.view(np.int32))


@pytest.mark.parametrize("k, stride, want", [(5, 3, 5), (127, 9000, 127), (128, 10, 16), (128, 7999, 16),
                                             (128, 8000, 4), (128, 1, 16)])
def test_block_cols(k, stride, want):
    assert eigen_gemv.block_cols(k, stride) == want


# (m, k, n, threads, blocks as (row, col, nrows, ncols), sorted)
BLOCKS = [
    (128, 128, 1, 4, [(0, 0, 128, 1)]),
    (65, 300, 1, 2, [(0, 0, 64, 1), (64, 0, 1, 1)]),
    (1, 3000, 3000, 2, [(0, 0, 1, 768), (0, 768, 1, 768), (0, 1536, 1, 1464)]),
    (1000, 784, 1, 1, [(0, 0, 1000, 1)]),
    (1000, 784, 1, 4, [(0, 0, 128, 1), (128, 0, 128, 1), (256, 0, 128, 1), (384, 0, 128, 1), (512, 0, 128, 1),
                       (640, 0, 128, 1), (768, 0, 232, 1)]),
]


@pytest.mark.parametrize("m, k, n, threads, want", BLOCKS)
def test_output_blocks(m, k, n, threads, want):
    """TF's SingleBatchParallelMatMulKernel split, worked by hand: halves rounded up to
    64 while a block holds more than max(m*k*n/threads, 16384) multiply-adds."""
    assert sorted(eigen_gemv.output_blocks(m, k, n, threads)) == want


def _r(v):
    return float(np.float32(v))


def test_column_major_order_by_hand():
    """[1, 130] @ [130, 3]: blocks of 16 columns, each an in-order non-fused sum from 0,
    added to the result in order (float64 rounded after every operation)."""
    x, b = _x((1, 130)), _x((130, 3))
    want = []
    for i in range(3):
        res = 0.0
        for j2 in range(0, 130, 16):
            c = 0.0
            for j in range(j2, min(j2 + 16, 130)):
                c = _r(c + _r(float(x[0, j]) * float(b[j, i])))
            res = _r(res + c)
        want.append(res)
    got = eigen_gemv.vector_product(x, b)
    np.testing.assert_array_equal(got.reshape(-1).view(np.int32), np.asarray(want, np.float32).view(np.int32))


def test_row_major_order_by_hand():
    """[3, 29] @ [29, 1]: rows 0-1 a pair, row 2 alone. Lanes of 8 over 24 values, predux,
    then (row 2) a half packet of 4 with its predux, then the rest one by one."""
    a, v = _x((3, 29)), _x((29, 1))
    p = [[float(a[i, j]) * float(v[j, 0]) for j in range(29)] for i in range(3)]
    p = [[_r(t) for t in row] for row in p]

    def predux(lanes):
        if len(lanes) == 8:
            lanes = [_r(lanes[i] + lanes[i + 4]) for i in range(4)]
        return _r(_r(lanes[0] + lanes[2]) + _r(lanes[1] + lanes[3]))

    want = []
    for i in range(3):
        lanes = [0.0] * 8
        for j in range(0, 24, 8):
            lanes = [_r(lanes[t] + p[i][j + t]) for t in range(8)]
        cc = predux(lanes)
        start = 24
        if i == 2:
            cc = _r(cc + predux([_r(0.0 + p[i][24 + t]) for t in range(4)]))
            start = 28
        for j in range(start, 29):
            cc = _r(cc + p[i][j])
        want.append(_r(0.0 + cc))
    got = eigen_gemv.vector_product(a, v)
    np.testing.assert_array_equal(got.reshape(-1).view(np.int32), np.asarray(want, np.float32).view(np.int32))


def test_vectorised_inner_product_by_hand():
    """[1, 45] @ [1, 45]^T: four packet accumulators from the first four packets' products,
    one more packet into p0, p2 += p3, p1 += p2, p0 += p1, predux, 5 values left."""
    a, bt = _x((1, 45)), _x((1, 45))
    p = [_r(float(a[0, j]) * float(bt[0, j])) for j in range(45)]
    acc = [p[8 * i:8 * i + 8] for i in range(4)]
    acc[0] = [_r(acc[0][t] + p[32 + t]) for t in range(8)]
    acc[2] = [_r(acc[2][t] + acc[3][t]) for t in range(8)]
    acc[1] = [_r(acc[1][t] + acc[2][t]) for t in range(8)]
    acc[0] = [_r(acc[0][t] + acc[1][t]) for t in range(8)]
    q = [_r(acc[0][t] + acc[0][t + 4]) for t in range(4)]
    res = _r(_r(q[0] + q[2]) + _r(q[1] + q[3]))
    for j in range(40, 45):
        res = _r(res + p[j])
    got = eigen_gemv.vector_product(a, bt.T, transpose_b=True)
    assert got.shape == (1, 1) and got.view(np.int32)[0, 0] == np.float32(_r(0.0 + res)).view(np.int32)


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled loop")
@pytest.mark.parametrize("r, k", [(1, 3), (2, 8), (3, 13), (5, 29), (8, 100), (7, 1001)])
def test_numpy_form_is_the_compiled_rows(r, k):
    lm, v = _x((r, k)), _x((k,))
    single = np.zeros(r, bool)
    single[-1] = r % 2 == 1
    one = eigen_gemv._rows(lm, v, bool(single[-1]), np.empty(r, np.float32))
    two = eigen_gemv._rowmajor_numpy(lm, v, single)
    np.testing.assert_array_equal(one.view(np.int32), two.view(np.int32))


# (x shape, y shape, adj_x, adj_y): one row or one column per matrix, batches of one and more
BATCHES = [
    ((1, 1, 300), (1, 300, 40), False, False), ((3, 1, 300), (3, 300, 40), False, False),
    ((4, 200, 100), (4, 100, 1), False, False), ((1, 200, 100), (1, 100, 1), False, False),
    ((2, 3, 100, 1), (1, 100, 40), True, False), ((5, 17, 64), (64, 1), False, False),
    ((2, 1, 700), (2, 9000, 700), False, True), ((6, 65, 300), (6, 1, 300), False, True),
    ((1, 300), (300, 40), False, False), ((65, 300), (300, 1), False, False),
    # batches of small matrices (k + m + n < 20): Eigen's coefficient-based product
    ((3, 4, 5), (3, 5, 6), False, False), ((2, 9, 8), (2, 2, 8), False, True), ((2, 8, 9), (2, 8, 2), True, False),
    ((4, 2, 8), (4, 3, 2), True, True),
]


@pytest.mark.parametrize("xs, ys, ax, ay", BATCHES, ids=[f"{x}@{y}-{a}-{b}" for x, y, a, b in BATCHES])
def test_batch_matmul_equals_tensorflow(xs, ys, ax, ay):
    tf = pytest.importorskip("tensorflow")
    x, y = _x(xs), _x(ys)
    want = tf.raw_ops.BatchMatMulV2(x=x, y=y, adj_x=ax, adj_y=ay).numpy()
    got = raw_ops.BatchMatMulV2(x=x, y=y, adj_x=ax, adj_y=ay)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
