"""Background builds (ref/ops/_jit.py ``compiles_in_background``): once a kernel's
exact NumPy form has spent its budget, the kernel builds on a thread of its own
while the form goes on serving; the compiled kernel takes over when that thread
is done. The bits never change across the handover, whichever thread runs the op
meanwhile. The kernel here is max pooling's loop (``ref.ops.pooling``), whose
form serves inputs of any size."""
import os
import threading

import numpy as np
import pytest

from ref.ops import _jit, pooling

pytestmark = pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles with Numba")


def _pool(x):
    return pooling.max_pool(input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")


def _input(shape, seed):
    x = np.random.RandomState(seed).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::17] = 0.0  # ties of -0 and +0 and equal values: the first one wins
    x.reshape(-1)[::23] = -0.0
    return x


@pytest.fixture
def fresh_pool(monkeypatch):
    """Max pooling's loop not built yet, its NumPy budget spent, its background build
    waiting for ``gate`` (so the test decides when it finishes); yields (kernel, gate,
    forms), ``forms`` counting the NumPy-form calls."""
    old = pooling._max_taps_loop
    fresh = _jit.LazyKernel(old.py_func, {k: v for k, v in old.options.items() if k not in ("cache", "error_model")})
    fresh.numpy_seconds = 1e9
    fresh._index_path = ""  # not in Numba's on-disk cache (an empty cache)
    gate = threading.Event()

    def sample():
        gate.wait(60)
        out = np.empty((1, 2, 2, 3), np.float32)
        fresh(np.ones((1, 4, 4, 3), np.float32), 2, 2, 2, 2, out, np.empty(out.shape, np.int64), True)

    _jit.compiles_in_background(fresh, sample, any_size=True)
    forms = []
    form = pooling._max_taps_numpy
    monkeypatch.setattr(pooling, "_max_taps_loop", fresh)
    monkeypatch.setattr(pooling, "_max_taps_numpy", lambda *a: forms.append(1) or form(*a))
    monkeypatch.setattr(_jit, "NUMPY_MAX", 1 << 14)
    monkeypatch.setattr(_jit, "BACKGROUND", True)
    monkeypatch.setattr(_jit, "_BUILDING", [])
    loaded = threading.Thread(target=lambda: None)  # Numba's background loading: done
    loaded.start()
    loaded.join()
    monkeypatch.setattr(_jit, "_PRELOAD", [loaded])
    yield fresh, gate, forms
    gate.set()
    if fresh.background is not None:
        fresh.background.join(60)


SHAPES = [(2, 9, 9, 3), (1, 32, 32, 16), (8, 28, 28, 32), (3, 5, 7, 1)]  # the last ones past NUMPY_MAX


@pytest.mark.parametrize("shape", SHAPES)
def test_the_handover_keeps_the_bits(fresh_pool, shape):
    fresh, gate, forms = fresh_pool
    x = _input(shape, sum(shape))
    before = [_pool(x) for _ in range(3)]  # the build is held at the gate: NumPy forms
    assert len(forms) == 3 and fresh.background.is_alive()
    gate.set()
    fresh.background.join(120)
    assert not fresh.background.is_alive()
    after = _pool(x)  # the compiled loop
    assert len(forms) == 3 and not _jit.numpy_tier(fresh, x.size)
    for got in before:
        assert got.tobytes() == after.tobytes()


def test_runs_on_several_threads_while_the_build_finishes(fresh_pool):
    fresh, gate, forms = fresh_pool
    x = _input((4, 16, 16, 8), 3)
    want = _pool(x)  # a NumPy form (the build waits at the gate)
    results, errors = [], []

    def worker():
        try:
            for _ in range(6):
                results.append(_pool(x).tobytes())
        except BaseException as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    gate.set()  # the build finishes while the workers run
    for t in threads:
        t.join(120)
    fresh.background.join(120)
    assert not errors and len(results) == 18
    assert set(results) == {want.tobytes()}
    assert _pool(x).tobytes() == want.tobytes()  # compiled now
    assert not _jit.numpy_tier(fresh, x.size)


def test_other_kernels_keep_their_forms_while_a_build_runs(fresh_pool):
    fresh, gate, _ = fresh_pool
    other = _jit.LazyKernel(lambda x: x, {})  # no background build of its own
    other.numpy_seconds = 1e9  # budget spent: would compile now
    assert not _jit.numpy_tier(other, 10)
    _pool(_input((1, 8, 8, 2), 5))  # starts the (gated) build
    assert fresh.background.is_alive()
    assert _jit.numpy_tier(other, 10)  # rents while the compiler is busy
    assert not _jit.numpy_tier(other, _jit.NUMPY_MAX + 1)  # too large for its form: the kernel
    other.any_size = True  # a form of whole-array NumPy operations (the optimizers' dense updates)
    assert _jit.numpy_tier(other, _jit.NUMPY_MAX + 1)
    other.any_size = False
    gate.set()
    fresh.background.join(120)
    assert not _jit.numpy_tier(other, 10)


def test_no_background_build_when_switched_off(fresh_pool, monkeypatch):
    fresh, _, _ = fresh_pool
    monkeypatch.setattr(_jit, "BACKGROUND", False)
    assert not _jit.numpy_tier(fresh, 64)
    assert not _jit.ready(fresh)
    assert fresh.background is None


def test_within_budget_no_build_starts(fresh_pool):
    fresh, _, _ = fresh_pool
    fresh.numpy_seconds = 0.0
    assert _jit.numpy_tier(fresh, 64)
    assert fresh.background is None


def test_ready_starts_the_build_and_answers_false_until_it_is_done(fresh_pool):
    fresh, gate, _ = fresh_pool
    assert not _jit.ready(fresh) and fresh.background.is_alive()
    assert not _jit.ready(fresh)  # one build, however often asked
    assert _jit._BUILDING == [fresh.background]
    gate.set()
    fresh.background.join(120)
    assert _jit.ready(fresh)


def test_a_build_made_but_not_started_yet_is_running(fresh_pool):
    """Another thread, in ``_start_background``, has made the build's thread and not
    started it: it is not finished (the kernel is not built)."""
    fresh, _, _ = fresh_pool
    fresh.background = threading.Thread(target=lambda: None)
    assert not _jit.ready(fresh) and _jit.numpy_tier(fresh, 64)
    fresh.background.start()
    fresh.background.join(60)
    assert _jit.ready(fresh) and not _jit.numpy_tier(fresh, 64)


def test_a_kernel_in_numbas_cache_is_loaded_not_stood_in_for(fresh_pool, tmp_path):
    """A warm cache: the kernel's index file is there, so the caller loads it at once
    (milliseconds) instead of running the form and a build beside it."""
    fresh, _, forms = fresh_pool
    index = tmp_path / "pooling._max_taps_loop.nbi"
    fresh._index_path = str(index)
    assert not _jit._in_cache(fresh)
    index.write_bytes(b"")
    assert _jit._in_cache(fresh) and _jit.ready(fresh) and not _jit.numpy_tier(fresh, 64)
    assert fresh.background is None and not forms


def test_the_index_path_is_numbas_own():
    from numba.core.caching import FunctionCache

    kernel = pooling._max_grad_loop
    kernel.__dict__.pop("_index_path", None)
    _jit._in_cache(kernel)
    assert kernel._index_path == FunctionCache(kernel.py_func)._cache_file._index_path
    assert kernel._index_path.endswith(".nbi") and "_max_grad_loop" in kernel._index_path


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
