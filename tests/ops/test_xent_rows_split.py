"""Cross entropy's rows split among ref's matrix threads (``nn._run_xent``) give
the bits of one kernel call over all rows (the path before the split), for the
dense and sparse ops, float32 and float64, row counts that do and do not divide
among the threads."""
import numpy as np
import pytest

from ref.ops import gemm, nn
from ref.ops import nn as _under_test  # noqa: F401  (the module these tests cover)

# (op, rows, classes, dtype): large enough to be split (nn.XENT_SPLIT_ELEMENTS)
ROWS = [
    ("sparse", 400, 10000, np.float32),
    ("sparse", 7, 12000, np.float32),
    ("sparse", 33, 4096, np.float64),
    ("dense", 64, 2048, np.float32),
    ("dense", 5, 20000, np.float64),
]


def _inputs(op, n, c, dtype):
    rng = np.random.RandomState(n * 31 + c)
    x = (rng.standard_normal((n, c)) * 4).astype(dtype)
    if op == "sparse":
        return x, rng.randint(0, c, n).astype(np.int64)
    y = rng.rand(n, c).astype(dtype)
    return x, y / y.sum(axis=1, keepdims=True)


def _one_call(op, x, y):
    """The row kernel over all rows at once, as before the split."""
    loss, backprop = np.empty(x.shape[0], x.dtype), np.empty(x.shape, x.dtype)
    kernel = nn._sparse_xent_rows if op == "sparse" else nn._xent_rows
    kernel(x, y, loss, backprop, x.dtype.type(0))
    return loss, backprop


def _op(op, x, y):
    """The row kernels through ``nn._run_xent`` (the float64 ops' path; float32 ops take
    ``ref.ops.eigen_softmax``, tested in test_eigen_softmax.py)."""
    loss, backprop = np.empty(x.shape[0], x.dtype), np.empty(x.shape, x.dtype)
    kernels = (nn._sparse_xent_rows, nn._sparse_xent_rows_numpy) if op == "sparse" else \
        (nn._xent_rows, nn._xent_rows_numpy)
    nn._run_xent(*kernels, x, y, loss, backprop, x.dtype.type(0))
    return loss, backprop


@pytest.mark.parametrize("op,n,c,dtype", ROWS)
def test_split_rows_same_bits_as_one_call(op, n, c, dtype):
    x, y = _inputs(op, n, c, dtype)
    assert x.size >= nn.XENT_SPLIT_ELEMENTS
    want = _one_call(op, x, y)
    for threads in (0, 1, 2):  # all the matrix threads, one, two
        with gemm.limit_threads(threads):
            got = _op(op, x, y)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


@pytest.mark.parametrize("op,n,c,dtype", ROWS)
def test_helper_blocks_same_bits_as_one_call(op, n, c, dtype):
    """The blocks a helper thread computes apart (``scratch``) and stores, and those
    the caller writes in place, on any split of the rows."""
    x, y = _inputs(op, n, c, dtype)
    want = _one_call(op, x, y)
    kernel = nn._sparse_xent_rows if op == "sparse" else nn._xent_rows
    loss, backprop = np.full(n, np.nan, dtype), np.full((n, c), np.nan, dtype)
    rows = nn._XentRows(kernel, x, y, loss, backprop, x.dtype.type(0))
    edges = sorted({0, n, n // 3, (2 * n) // 3})
    for i, (lo, hi) in enumerate(zip(edges, edges[1:])):
        if i % 2:
            rows.store(lo, hi, rows.scratch(lo, hi))
        else:
            rows.into_result(lo, hi)
    np.testing.assert_array_equal(loss.view(np.uint8), want[0].view(np.uint8))
    np.testing.assert_array_equal(backprop.view(np.uint8), want[1].view(np.uint8))
