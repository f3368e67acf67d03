"""``ref.ops.gemm``: large products in blocks on ref's own threads.

The blocks come from the shapes and the thread count; the bits of a product must
not depend on how many threads run it (``REF_MATMUL_THREADS``: 0 is BLAS's own threading,
which gives other bits and is not compared); every product must agree with a
float64 oracle; the MatMul kernel must give what ``gemm.matmul`` gives."""
import hashlib
import threading
import time
import weakref
import os
import subprocess
import sys

import numpy as np
import pytest

import ref.raw_ops as raw
from ref.ops import eigen_gemm, eigen_reduce, gemm, gemm_kernel

SHAPES = [(128, 784, 256), (784, 128, 256), (128, 256, 10), (64, 3000, 64), (33, 129, 65), (1000, 500, 300),
          (7, 5, 3), (4096, 64, 17), (20000, 25, 64)]


def _operands(m, k, n, ta, tb, dtype, seed):
    rng = np.random.RandomState(seed)
    a = rng.randn(k, m).astype(dtype).T if ta else rng.randn(m, k).astype(dtype)
    b = rng.randn(n, k).astype(dtype).T if tb else rng.randn(k, n).astype(dtype)
    return a, b


def _digest():
    h = hashlib.sha1()
    for i, (m, k, n) in enumerate(SHAPES):
        for ta in (False, True):
            for tb in (False, True):
                for dtype in (np.float32, np.float64):
                    a, b = _operands(m, k, n, ta, tb, dtype, i)
                    h.update(gemm.matmul(a, b).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("m, k, n", SHAPES)
@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_product_matches_float64_oracle(m, k, n, ta, tb, dtype):
    a, b = _operands(m, k, n, ta, tb, dtype, 1)
    got = gemm.matmul(a, b)
    assert got.dtype == dtype and got.shape == (m, n)
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k))


def test_bits_do_not_depend_on_the_number_of_threads():
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = f"import sys; sys.path.insert(0, {here!r}); sys.path.insert(0, {os.path.dirname(__file__)!r}); " \
           "import test_gemm; print(test_gemm._digest())"
    digests = set()
    for threads in ("1", "2", "3"):
        env = dict(os.environ, REF_MATMUL_THREADS=threads)
        digests.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True, timeout=300).stdout.strip())
    assert len(digests) == 1
    assert digests == {_digest()} or gemm.workers() == 0


@pytest.mark.parametrize("m, k, n", [(128, 784, 256), (784, 128, 256), (10, 20, 30), (4096, 64, 17),
                                     (400, 10000, 200), (300, 1000, 300), (2048, 512, 512)])
@pytest.mark.parametrize("threads", [2, 8])
def test_blocks_cover_the_result_once(m, k, n, threads):
    with gemm.limit_threads(threads):
        axis, edges = gemm.blocks(m, n, k)
    if edges is None:
        return
    size = (m, n)[axis]
    assert edges[0] == 0 and edges[-1] == size and edges == sorted(set(edges))
    assert 2 <= len(edges) - 1 <= gemm.MAX_BLOCKS
    assert all(b - a >= 16 for a, b in zip(edges, edges[1:]))


TALL_BLOCKS = [  # (m, k, n, B transposed, dtype): row blocks that each pack a B larger than L2
    (400, 10000, 200, True, np.float32),   # the LSTM LM's softmax input gradient d @ W.T
    (300, 1000, 300, True, np.float32),
    (300, 1000, 300, False, np.float64),
    (1100, 700, 400, False, np.float32),   # tall enough for 8 blocks of at least 128 rows
    (257, 1031, 255, True, np.float32),    # odd sizes: a partial last panel and row group
]


@pytest.mark.parametrize("m, k, n, tb, dtype", TALL_BLOCKS)
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_blocks_follow_threads_and_packed_b(m, k, n, tb, dtype, threads):
    with gemm.limit_threads(threads):
        axis, edges = gemm.blocks(m, n, k)
        a, b = _operands(m, k, n, False, tb, dtype, 5)
        got = gemm.matmul(a, b)
    threads = min(threads, gemm.workers())
    if threads <= 1:  # one thread: one block
        assert edges is None
    else:
        want = min(gemm.MAX_BLOCKS, gemm.BLOCKS_PER_WORKER * threads, m // gemm.PACKED_B_ROWS)
        assert axis == 0 and len(edges) - 1 == 1 << (want.bit_length() - 1)
        assert all(hi - lo >= gemm.PACKED_B_ROWS for lo, hi in zip(edges[:-2], edges[1:-1]))  # all but the rest
    # any cut and one call over all rows give the same bits: each element is one chain
    # whatever block it is in
    one = np.empty(m * n, dtype)
    nr = 2 * gemm_kernel.WIDTH[np.dtype(dtype)]
    fb = b.T.reshape(-1) if tb else b.reshape(-1)
    gemm_kernel.gemm(m, n, k, a.reshape(-1), 0, k, 1, fb, 0, *((1, k) if tb else (n, 1)), one, 0, n, 1, nr)
    assert got.tobytes() == one.tobytes()
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4 * np.sqrt(k))


def test_matmul_kernel_uses_it(monkeypatch):
    """Where TF's order is not modelled (``REF_EIGEN_GEMM=0``, AVX-512 CPUs) MatMul is
    this module's product; where it is, ``ref.ops.eigen_gemm``'s."""
    a, b = _operands(128, 784, 256, False, True, np.float32, 3)
    monkeypatch.setenv("REF_EIGEN_GEMM", "0")
    got = raw.MatMul(a=a, b=np.ascontiguousarray(b.T), transpose_b=True)
    assert got.tobytes() == gemm.matmul(a, b).tobytes()
    monkeypatch.setenv("REF_EIGEN_GEMM", "1")
    got = raw.MatMul(a=a, b=np.ascontiguousarray(b.T), transpose_b=True)
    assert got.tobytes() == eigen_gemm.product(a, b, eigen_reduce.pool_threads()).tobytes()


def test_small_and_integer_products_are_numpys():
    a, b = _operands(7, 5, 3, False, False, np.float32, 4)
    assert gemm.matmul(a, b).tobytes() == np.matmul(a, b).tobytes()
    ai, bi = (np.arange(600 * 600).reshape(600, 600) % 7).astype(np.int32), np.eye(600, dtype=np.int32)
    np.testing.assert_array_equal(gemm.matmul(ai, bi), ai)


def test_errors_in_a_block_reach_the_caller():
    a = np.ones((512, 512), np.float32)
    b = np.ones((512, 512), np.float32)[:, ::2]  # fine: a view
    assert gemm.matmul(a, b.copy()).shape == (512, 256)
    with pytest.raises(ValueError):
        gemm.matmul(a, np.ones((300, 512), np.float32))


class _StalledHelper:
    """A product whose helper thread stalls inside its block (a descheduled thread)."""

    def __init__(self):
        self.entered, self.release, self.left = threading.Event(), threading.Event(), threading.Event()
        self.out, self.stored = {}, []

    def into_result(self, lo, hi):
        self.entered.wait(10)  # let the helper claim a block first
        self.out[lo] = ("caller", lo)

    def scratch(self, lo, hi):
        if threading.current_thread().name.startswith("ref-matmul"):
            self.entered.set()
            self.release.wait(30)
            self.left.set()
            return ("helper", lo)
        return ("backup", lo)

    def store(self, lo, hi, scratch):
        self.stored.append(scratch)
        self.out[lo] = scratch


def test_a_stalled_helper_does_not_hold_up_the_product_nor_write_late():
    product = _StalledHelper()
    job = gemm._Job(product, [0, 1, 2, 3, 4])
    caller = threading.Thread(target=gemm._Pool(1).run, args=(job,))
    caller.start()
    caller.join(20)
    try:
        assert not caller.is_alive(), "the caller waited for the stalled helper"
        assert sorted(product.out) == [0, 1, 2, 3]
        backups = [s for s in product.stored if s[0] == "backup"]
        assert len(backups) == 1 and product.out[backups[0][1]] == backups[0]
        assert [v[0] for k, v in sorted(product.out.items()) if k != backups[0][1]] == ["caller"] * 3
    finally:
        product.release.set()
    assert product.left.wait(10)
    caller.join(1)
    assert not [s for s in product.stored if s[0] == "helper"]  # its late copy was dropped


class _HelpedProduct:
    """A product whose caller waits until a helper thread took a block."""

    def __init__(self):
        self.helped = threading.Event()

    def into_result(self, lo, hi):
        self.helped.wait(10)

    def scratch(self, lo, hi):
        if threading.current_thread().name.startswith("ref-matmul"):
            self.helped.set()
        return lo

    def store(self, lo, hi, scratch):
        pass


def test_a_sleeping_helper_holds_no_reference_to_the_last_product():
    # a product may view a variable's buffer (an in-place training update in blocks); a
    # helper that kept it after the job would keep that update from running in place next time
    product = _HelpedProduct()
    gone = weakref.ref(product)
    gemm._Pool(1).run(gemm._Job(product, [0, 1, 2]))
    assert product.helped.is_set()
    del product
    deadline = time.monotonic() + 10
    while gone() is not None and time.monotonic() < deadline:  # the helper finishing its block
        time.sleep(0.01)
    assert gone() is None


def test_limit_threads_keeps_the_bits_and_nests():
    a, b = _operands(300, 257, 200, False, False, np.float32, 5)
    whole = gemm.matmul(a, b)
    with gemm.limit_threads(1):
        assert gemm.workers() == 1
        alone = gemm.matmul(a, b)
        with gemm.limit_threads(0):  # no limit: the outer one stays
            assert gemm.workers() == 1
    assert gemm.workers() == gemm._WORKERS
    assert alone.tobytes() == whole.tobytes()


NARROW = [(4096, 4, 32), (6272, 64, 16), (20000, 64, 8), (4, 4096, 4096), (3000, 7, 200), (4096, 512, 31)]


@pytest.mark.parametrize("m,k,n", NARROW)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_large_narrow_product_runs_on_one_blas_thread_in_blocks(m, k, n, dtype):
    # too narrow for ref's kernel: NumPy's BLAS on one thread per block, on ref's threads
    blas = gemm._openblas()
    if not blas:
        pytest.skip("no OpenBLAS thread setter found")
    a, b = _operands(m, k, n, False, False, dtype, 3)
    assert not gemm.uses_kernel(m, k, n, dtype) and gemm._large(m, k, n, dtype)
    before = blas[1]()
    seen = []
    product = gemm._NumpyProduct.into_result

    def spy(self, lo, hi):
        seen.append(blas[1]())
        return product(self, lo, hi)

    gemm._NumpyProduct.into_result = spy
    try:
        got = gemm.matmul(a, b)
    finally:
        gemm._NumpyProduct.into_result = product
    assert seen and set(seen) == {1}
    assert blas[1]() == before  # put back
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    with gemm.limit_threads(1):
        assert gemm.matmul(a, b).tobytes() == got.tobytes()  # the same bits on one thread
