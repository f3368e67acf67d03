"""Background builds (ref/ops/_jit.py ``compiles_in_background``): once the float32
matrix product's NumPy form has spent its budget, the kernel builds on a thread
of its own while the form goes on serving; the compiled kernel takes over when
that thread is done. The bits never change across the handover, whichever
thread runs products meanwhile."""
import os
import threading

import numpy as np
import pytest

from ref.ops import _jit, gemm, gemm_kernel

pytestmark = pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles with Numba")


def _operands(m, k, n, seed):
    rng = np.random.RandomState(seed)
    return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)


@pytest.fixture
def fresh_gemm(monkeypatch):
    """A GEMM kernel not built yet, its NumPy budget spent, whose background build
    waits for ``gate`` (so the test decides when it finishes); yields (kernel, gate, forms),
    ``forms`` counting the NumPy-form calls."""
    old = gemm_kernel.gemm
    fresh = _jit.LazyKernel(old.py_func, {k: v for k, v in old.options.items() if k not in ("cache", "error_model")})
    fresh.numpy_seconds = 1e9
    gate = threading.Event()
    _jit.compiles_in_background(fresh, lambda: (gate.wait(60), gemm._float32_sample()))
    forms = []
    form = gemm_kernel.fused_chain_numpy
    monkeypatch.setattr(gemm_kernel, "gemm", fresh)
    monkeypatch.setattr(gemm_kernel, "fused_chain_numpy", lambda *a: forms.append(1) or form(*a))
    monkeypatch.setattr(_jit, "NUMPY_MAX", 1 << 14)
    monkeypatch.setattr(_jit, "BACKGROUND", True)
    monkeypatch.setattr(_jit, "_BUILDING", [])
    yield fresh, gate, forms
    gate.set()
    if fresh.background is not None:
        fresh.background.join(60)


SHAPES = [(64, 128, 64), (8, 1024, 40), (33, 257, 45), (96, 200, 40)]  # each through matmul's kernel path


@pytest.mark.parametrize("m, k, n", SHAPES)
def test_the_handover_keeps_the_bits(fresh_gemm, m, k, n):
    fresh, gate, forms = fresh_gemm
    a, b = _operands(m, k, n, m + k + n)
    assert gemm.uses_kernel(m, k, n, np.float32)
    before = [gemm.matmul(a, b) for _ in range(3)]  # the build is held at the gate: NumPy forms
    assert len(forms) == 3 and fresh.background.is_alive()
    gate.set()
    fresh.background.join(120)
    assert not fresh.background.is_alive()
    after = gemm.matmul(a, b)  # the compiled kernel
    assert len(forms) == 3 and not _jit.numpy_tier(fresh, m * n)
    for got in before:
        assert got.tobytes() == after.tobytes()
    assert np.allclose(after, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_products_on_several_threads_while_the_build_finishes(fresh_gemm):
    fresh, gate, forms = fresh_gemm
    a, b = _operands(40, 160, 48, 3)
    want = gemm.matmul(a, b)  # a NumPy form (the build waits at the gate)
    results, errors = [], []

    def worker():
        try:
            for _ in range(6):
                results.append(gemm.matmul(a, b).tobytes())
        except BaseException as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    gate.set()  # the build finishes while the workers run products
    for t in threads:
        t.join(120)
    fresh.background.join(120)
    assert not errors and len(results) == 18
    assert set(results) == {want.tobytes()}
    assert gemm.matmul(a, b).tobytes() == want.tobytes()  # compiled now
    assert not _jit.numpy_tier(fresh, 40 * 48)


def test_other_kernels_keep_their_forms_while_a_build_runs(fresh_gemm):
    fresh, gate, _ = fresh_gemm
    other = _jit.LazyKernel(lambda x: x, {})  # no background build of its own
    other.numpy_seconds = 1e9  # budget spent: would compile now
    assert not _jit.numpy_tier(other, 10)
    a, b = _operands(16, 600, 32, 5)
    gemm.matmul(a, b)  # starts the (gated) build
    assert fresh.background.is_alive()
    assert _jit.numpy_tier(other, 10)  # rents while the compiler is busy
    assert not _jit.numpy_tier(other, _jit.NUMPY_MAX + 1)  # too large for its form: the kernel
    gate.set()
    fresh.background.join(120)
    assert not _jit.numpy_tier(other, 10)


def test_no_background_build_when_switched_off(fresh_gemm, monkeypatch):
    fresh, _, _ = fresh_gemm
    monkeypatch.setattr(_jit, "BACKGROUND", False)
    assert not _jit.numpy_tier(fresh, 64)
    assert fresh.background is None


def test_within_budget_no_build_starts(fresh_gemm):
    fresh, _, _ = fresh_gemm
    fresh.numpy_seconds = 0.0
    assert _jit.numpy_tier(fresh, 64)
    assert fresh.background is None


def test_the_announcement_is_made_once(monkeypatch):
    said = []
    monkeypatch.setattr(_jit, "_BACKGROUND_ANNOUNCED", [])
    monkeypatch.setattr(_jit.tf_logging, "warning", lambda msg, *args: said.append(msg % args))
    threads = [threading.Thread(target=_jit._announce_background, args=(f"k{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(said) == 1 and said[0].startswith("compiling ref kernels in the background (k")


def test_numba_loads_in_the_background_before_the_first_buy(monkeypatch):
    """A kernel without a background build of its own, its budget spent: Numba's own
    loading (import, target registries) runs on a thread while the form goes on."""
    gate = threading.Event()
    loads = []
    monkeypatch.setattr(_jit, "_PRELOAD", [])
    monkeypatch.setattr(_jit, "_BUILDING", [])
    monkeypatch.setattr(_jit, "BACKGROUND", True)
    monkeypatch.setattr(_jit, "_load_numba", lambda: (loads.append(1), gate.wait(60)))
    kernel = _jit.LazyKernel(lambda x: x, {})
    kernel.numpy_seconds = 1e9
    try:
        assert _jit.numpy_tier(kernel, 10) and _jit.numpy_tier(kernel, 10)
        assert loads == [1]  # one loader, however often asked
    finally:
        gate.set()
    _jit._PRELOAD[0].join(60)
    assert not _jit.numpy_tier(kernel, 10)
    monkeypatch.setattr(_jit, "_PRELOAD", [])
    monkeypatch.setattr(_jit, "BACKGROUND", False)
    assert not _jit.numpy_tier(kernel, 10) and _jit._PRELOAD == []


@pytest.mark.parametrize("name", ["_load_numba"])
def test_the_loader_loads_numba(name):
    getattr(_jit, name)()
    from numba.core.registry import cpu_target

    assert cpu_target.target_context is not None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_can_compile_while_the_parent_builds(monkeypatch):
    """The parent's build holds Numba's compiler lock when it forks: the child gets a
    lock of its own (its copy of the parent's would never be released there)."""
    from numba.core.compiler_lock import global_compiler_lock

    held, gate = threading.Event(), threading.Event()

    def build():
        with global_compiler_lock:
            held.set()
            gate.wait(60)

    monkeypatch.setattr(_jit, "_BUILDING", [threading.Thread(target=build, daemon=True)])
    _jit._BUILDING[0].start()
    try:
        assert held.wait(60)
        pid = os.fork()
        if pid == 0:  # the child: exit status 0 when it can take the lock
            got = global_compiler_lock._lock.acquire(timeout=10)
            os._exit(0 if got else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        gate.set()
        _jit._BUILDING[0].join(60)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
