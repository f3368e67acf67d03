"""``ref.ops.gemm_llvm``: the GEMM built by llvmlite has the bits of ``ref.ops.gemm_kernel``
(the Numba build, itself checked against the exact oracles of test_gemm_kernel.py),
on every path of its driver; its object code is cached on disk under a key that
changes with the IR, the CPU and llvmlite; first builds on several threads at once
give one module each."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from ref.ops import gemm, gemm_kernel, gemm_llvm

from tests.ops.test_gemm_kernel import EDGES, SMALL, _operands, fused_chain_f32, fused_chain_f64, kernel

F32, F64 = np.float32, np.float64
E = 2.0 ** -12
_TINY = np.float32(2.0 ** -70)  # products of two of them are float32 subnormals


@pytest.fixture(autouse=True)
def _llvm_driver(monkeypatch):
    """matmul's products on gemm_llvm here, built or not the Numba driver (gemm._DRIVER)."""
    monkeypatch.setattr(gemm, "_DRIVER", "llvm")
    monkeypatch.setattr(gemm, "_NUMBA_DRIVER", False)


@pytest.mark.parametrize("numba_ready", [False, True])
@pytest.mark.parametrize("m, k, n, layout", [(256, 784, 512, "C"), (300, 96, 130, "T"), (20, 400, 800, "C")])
def test_default_driver_is_numba_once_built_with_the_same_bits(monkeypatch, numba_ready, m, k, n, layout):
    """By default (no REF_GEMM_DRIVER) matmul takes gemm_kernel.gemm once _jit says it is
    built and gemm_llvm until then; the two give the same bits."""
    monkeypatch.setattr(gemm, "_DRIVER", "")
    monkeypatch.setattr(gemm._jit, "ready", lambda kernel: numba_ready)
    used = []
    for cls in (gemm._KernelProduct, gemm._LlvmProduct):
        monkeypatch.setattr(cls, "into_result", (lambda f, c: lambda self, lo, hi: used.append(c) or f(self, lo, hi))(
            cls.into_result, cls.__name__))
    a, b = _operands(m, k, n, F32, 11, layout)
    got = gemm.matmul(a, b)
    assert set(used) == {"_KernelProduct" if numba_ready else "_LlvmProduct"}
    _same(got, kernel(a, b))


def llvm(a, b):
    return gemm_llvm.gemm(a, b, np.empty((a.shape[0], b.shape[1]), a.dtype))


def _same(got, want):
    np.testing.assert_array_equal(got, want)  # NaN where NaN
    finite = ~np.isnan(want)
    assert got[finite].tobytes() == want[finite].tobytes()


@pytest.mark.parametrize("m, k, n", SMALL + EDGES + [(128, 784, 256), (65, 130, 4200), (24, 1030, 70)])
@pytest.mark.parametrize("layout", ["C", "T", "slice"])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_llvm_driver_has_the_kernels_bits(m, k, n, layout, dtype):
    a, b = _operands(m, k, n, dtype, m * 7 + k + n, layout)
    _same(llvm(a, b), kernel(a, b))


SPECIAL = [  # (a, b): values where the order and the fusing decide, against the exact oracle
    (np.array([[1e8, 1, -1e8], [1, -1e8, 1e8]], F32), np.ones((3, 32), F32)),
    (np.array([[1, 1 + E]], F32), np.tile(np.array([[-(1 + 2 * E)], [1 + E]], F32), (1, 32))),  # the fused tie
    (np.array([[1, np.inf, 0], [np.nan, 1, 1], [2, 3, 4], [-0.0, 0, 0], [-0.0, -0.0, 1]], F32),
     np.array([[1, 0, -1], [1, 1, 0], [1, -np.inf, -0.0]], F32)),
    (_operands(8, 40, 32, F32, 5)[0] * _TINY, _operands(8, 40, 32, F32, 6)[1] * _TINY),  # subnormal chains
    (_operands(8, 40, 32, F32, 7)[0] * np.float32(2.0 ** 60), _operands(8, 40, 32, F32, 8)[1] * np.float32(2.0 ** 60)),
    (np.array([[1, 1 + 2.0 ** -27]], F64), np.tile(np.array([[-(1 + 2.0 ** -26)], [1 + 2.0 ** -27]], F64), (1, 16))),
    (_operands(9, 30, 17, F64, 9)[0], _operands(9, 30, 17, F64, 9)[1]),
]


@pytest.mark.parametrize("a, b", SPECIAL)
def test_special_values_are_the_exact_chain(a, b):
    got = llvm(a, b)
    _same(got, kernel(a, b))
    np.testing.assert_array_equal(got, fused_chain_f32(a, b) if a.dtype == F32 else fused_chain_f64(a, b))


@pytest.mark.parametrize("m, k, n, out", [
    (13, 40, 70, "columns"),  # a column block of a wider result: nothing outside it is written
    (40, 300, 33, "strided"),  # C without unit column stride: through a copy
    (7, 0, 40, "C"),  # empty inner dimension: zeros
])
def test_outputs_views_and_empty_inner_dimension(m, k, n, out):
    a, b = _operands(m, k, n, F32, 1)
    want = kernel(a, b) if k else np.zeros((m, n), F32)
    if out == "columns":
        big = np.full((m, n + 50), 7.0, F32)
        gemm_llvm.gemm(a, b, big[:, 20:20 + n])
        assert big[:, 20:20 + n].tobytes() == want.tobytes()
        assert (big[:, :20] == 7).all() and (big[:, 20 + n:] == 7).all()
    elif out == "strided":
        big = np.full((m, 2 * n), 7.0, F32)
        gemm_llvm.gemm(a, b, big[:, ::2])
        assert np.ascontiguousarray(big[:, ::2]).tobytes() == want.tobytes() and (big[:, 1::2] == 7).all()
    else:
        got = np.full((m, n), 7.0, F32)
        gemm_llvm.gemm(a, b, got)
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("m, k, n, layout", [(128, 784, 256, "C"), (300, 257, 70, "T"), (200, 64, 640, "C")])
def test_matmul_in_blocks_on_threads_is_the_kernel(m, k, n, layout):
    a, b = _operands(m, k, n, F32, 3, layout)
    assert gemm.uses_kernel(m, k, n, F32)
    assert gemm.matmul(a, b).tobytes() == kernel(a, b).tobytes()


def test_first_builds_on_several_threads_are_one_module(monkeypatch, tmp_path):
    monkeypatch.setenv("REF_GEMM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(gemm_llvm, "_STATE", {k: v for k, v in gemm_llvm._STATE.items() if k == "llvm"})
    compiles = []
    real = gemm_llvm._compile
    monkeypatch.setattr(gemm_llvm, "_compile", lambda text: compiles.append(1) or real(text))
    a, b = _operands(29, 300, 70, F32, 4)  # micro-kernels of 6 rows and of 5
    want = kernel(a, b)
    results, barrier = [], threading.Barrier(4)

    def worker():
        barrier.wait()
        results.append(llvm(a, b).tobytes())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == [want.tobytes()] * 4
    assert len(compiles) == 2 and len(os.listdir(tmp_path)) == 2


def test_cache_key_changes_with_ir_cpu_features_and_llvmlite():
    text = gemm_llvm.module_ir(F32, 6)
    keys = {gemm_llvm.cache_key(text, "znver4", "+avx512f"), gemm_llvm.cache_key(text + " ", "znver4", "+avx512f"),
            gemm_llvm.cache_key(text, "skylake-avx512", "+avx512f"), gemm_llvm.cache_key(text, "znver4", "-avx512f"),
            gemm_llvm.cache_key(text, "znver4", "+avx512f", "0.0.1"), gemm_llvm.cache_key(gemm_llvm.module_ir(F32, 5))}
    assert len(keys) == 6
    assert gemm_llvm.cache_key(text, "znver4", "+avx512f") == gemm_llvm.cache_key(gemm_llvm.module_ir(F32, 6),
                                                                                   "znver4", "+avx512f")


_CHILD = """
import numpy as np
from ref.ops import gemm_llvm
compiled = []
real = gemm_llvm._compile
gemm_llvm._compile = lambda text: compiled.append(1) or real(text)
a = np.arange(26 * 40, dtype=np.float32).reshape(26, 40) / 7
b = np.arange(40 * 33, dtype=np.float32).reshape(40, 33) / 11
out = gemm_llvm.gemm(a, b, np.empty((26, 33), np.float32))
print(len(compiled), out.tobytes().hex()[:64])
"""


def test_a_later_process_loads_the_object_code(tmp_path):
    env = dict(os.environ, REF_GEMM_CACHE_DIR=str(tmp_path), PYTHONPATH=os.getcwd())
    runs = [subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    first, second = (r.stdout.split() for r in runs)
    assert first[0] == "2" and second[0] == "0" and first[1] == second[1], [r.stderr[-500:] for r in runs]
    # files under other names (another IR, CPU or llvmlite) are never read: compiled afresh
    for name in os.listdir(tmp_path):
        os.replace(tmp_path / name, tmp_path / ("stale-" + name))
    third = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert third.stdout.split()[0] == "2"


def test_the_cache_follows_an_empty_numba_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("REF_GEMM_CACHE_DIR", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert gemm_llvm.cache_dir() == os.path.join(str(tmp_path), "ref_gemm")
    monkeypatch.setenv("REF_GEMM_CACHE_DIR", str(tmp_path / "own"))
    assert gemm_llvm.cache_dir() == str(tmp_path / "own")


FORM_ROWS = SPECIAL[:5] + [_operands(9, 33, 40, F32, 1), _operands(20, 64, 128, F32, 2, "T"),
                           _operands(17, 5, 33, F32, 3, "slice"), _operands(31, 129, 33, F32, 14, "T")]


@pytest.mark.parametrize("a, b", FORM_ROWS)
def test_numpy_form_is_the_kernel(a, b):
    got = gemm_kernel.fused_chain_numpy(a, b, np.empty((a.shape[0], b.shape[1]), F32))
    _same(got, kernel(a, b))


@pytest.mark.parametrize("m, k, n, layout", [(128, 64, 128, "C"), (40, 300, 64, "T"), (29, 130, 70, "C")])
def test_small_products_run_the_form_until_their_modules_are_built(monkeypatch, tmp_path, m, k, n, layout):
    monkeypatch.setenv("REF_GEMM_CACHE_DIR", str(tmp_path))  # an empty cache
    monkeypatch.setattr(gemm_llvm, "_STATE", {k_: v for k_, v in gemm_llvm._STATE.items() if k_ == "llvm"})
    monkeypatch.setattr(gemm_llvm, "_BUILDS", {})
    forms = []
    form = gemm_kernel.fused_chain_numpy
    monkeypatch.setattr(gemm_kernel, "fused_chain_numpy", lambda *a: forms.append(1) or form(*a))
    a, b = _operands(m, k, n, F32, 5, layout)
    assert gemm.uses_kernel(m, k, n, F32) and m * n * k <= gemm_kernel.FORM_MAX_WORK
    first = gemm.matmul(a, b)
    assert forms == [1] and len(gemm_llvm._BUILDS) == 1
    next(iter(gemm_llvm._BUILDS.values())).join(120)
    rows = gemm_llvm.rows_needed(a)
    assert all(gemm_llvm.built(F32, r) for r in rows) and len(os.listdir(tmp_path)) == len(rows)
    after = gemm.matmul(a, b)
    assert forms == [1] and first.tobytes() == after.tobytes() == kernel(a, b).tobytes()


def test_modules_in_the_disk_cache_are_loaded_not_stood_in_for(monkeypatch, tmp_path):
    monkeypatch.setenv("REF_GEMM_CACHE_DIR", str(tmp_path))
    a, b = _operands(64, 64, 128, F32, 6)
    for r in gemm_llvm.rows_needed(a):
        (tmp_path / (gemm_llvm.cache_key(gemm_llvm.module_ir(F32, r)) + ".o")).write_bytes(
            gemm_llvm._compile(gemm_llvm.module_ir(F32, r)))
    monkeypatch.setattr(gemm_llvm, "_STATE", {k_: v for k_, v in gemm_llvm._STATE.items() if k_ == "llvm"})
    monkeypatch.setattr(gemm_llvm, "_BUILDS", {})
    assert gemm_llvm.prepared(F32, gemm_llvm.rows_needed(a)) and not gemm_llvm._BUILDS
