"""Background builds in a child process (ref/ops/compile_worker.py) and the product
modules prefetched for a Session (ref/ops/gemm_llvm.py ``prefetch``)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from ref.ops import _jit, compile_worker, gemm, gemm_kernel, gemm_llvm, nn, pooling

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
jit = pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles with Numba")

ADDRESSABLE = [  # (kernel, whether a fresh process finds it and its sample by importing modules)
    (lambda: pooling._max_taps_loop, True),
    (lambda: pooling._max_grad_loop, True),
    (lambda: nn._sparse_xent_rows, True),
    (lambda: gemm_kernel.gemm, True),  # its sample is ref.ops.gemm's
    (lambda: _jit.LazyKernel(pooling._max_taps_loop.py_func, {}), False),  # not its module's global
]


@pytest.mark.parametrize("kernel,found", ADDRESSABLE)
def test_which_kernels_the_worker_can_build(kernel, found):
    k = kernel()
    if not found:
        k.sample = pooling._max_taps_loop.sample
    assert bool(_jit._addressable(k)) is found
    if found:
        assert compile_worker.find_kernel(k.py_func.__module__, k.__name__) is k


@jit
def test_the_worker_builds_into_numbas_cache_and_answers(tmp_path):
    """The worker compiles a kernel into the cache it is given and says so; a kernel it
    cannot find is answered ``failed`` (the parent then compiles it itself)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), REF_NUMPY_MAX="0", PYTHONPATH=ROOT)
    lines = "ref.ops.pooling ref.ops.pooling _max_grad_loop\nref.ops.pooling ref.ops.pooling no_such_kernel\n"
    out = subprocess.run([sys.executable, "-m", "ref.ops.compile_worker"], input=lines, capture_output=True,
                         text=True, env=env, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    answers = [line for line in out.stdout.splitlines() if line.startswith(_jit.WORKER_PREFIX)]
    assert answers == ["ref-built ok _max_grad_loop", "ref-built failed no_such_kernel"]
    index = [f for _, _, files in os.walk(tmp_path) for f in files if f.endswith(".nbi")]
    assert any("_max_grad_loop" in f for f in index)


def test_prefetch_builds_every_row_count():
    assert sorted(gemm_llvm.PREFETCH_ORDER) == list(range(1, gemm_kernel.MR_T + 1))
    gemm_llvm.prefetch(np.float32).join(300)
    assert all(gemm_llvm.built(np.float32, r) for r in gemm_llvm.PREFETCH_ORDER)
    assert gemm_llvm.prefetch(np.float32) is gemm_llvm.prefetch(np.float32)  # once a process


PRODUCTS = [(m, k, n) for m in (1, 5, 12, 37, 256) for k, n in ((64, 48), (300, 130))]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,k,n", PRODUCTS)
def test_prefetched_modules_keep_the_kernels_bits(m, k, n, threads, monkeypatch):
    """Products on the prefetched modules (every row count; A C-ordered and transposed)
    against the exact oracle of the kernel's chains (``gemm_kernel.fused_chain_numpy``),
    and ``matmul``'s blocks on them on 1 and 2 threads where it uses the kernel."""
    gemm_llvm.prefetch(np.float32).join(300)
    monkeypatch.setattr(gemm, "_numba_driver", lambda: False)  # the llvmlite driver
    rng = np.random.default_rng(m * k + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    want = gemm_kernel.fused_chain_numpy(a, b, np.empty((m, n), np.float32)).tobytes()
    for x in (a, np.ascontiguousarray(a.T).T):
        assert gemm_llvm.gemm(x, b, np.empty((m, n), np.float32)).tobytes() == want
        if gemm.uses_kernel(m, k, n, np.float32):
            with gemm.limit_threads(threads):
                assert gemm.matmul(x, b).tobytes() == want


def test_a_session_of_products_prefetches(monkeypatch):
    started = []
    monkeypatch.setattr(gemm_llvm, "prefetch", lambda dtype: started.append(np.dtype(dtype)))
    monkeypatch.setattr(_jit, "NUMPY_MAX", 1 << 14)
    gemm.prefetch(["Placeholder", "Const"])
    assert started == []
    gemm.prefetch(["Placeholder", "MatMul"])
    assert started == ([np.dtype(np.float32)] if gemm._OWN_KERNEL and not gemm._NUMBA_DRIVER else [])
