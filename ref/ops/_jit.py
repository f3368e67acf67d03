"""Lazy Numba compilation: ``import ref`` must not pay for ``import numba``.

``@njit`` (and ``@njit(parallel=True)``) wrap a function in a :class:`LazyKernel`;
the first call imports Numba, compiles with ``cache=True`` and
``error_model="numpy"`` (no divide-by-zero branch: TF's kernels give inf/nan
there too) and never ``fastmath`` (TF's arithmetic, in TF's order). Other lazy
kernels a function calls (scalar helpers written once with ``inline="always"``)
are compiled first and substituted, so helpers compose.

**Cold start.** A process pays ~0.5 s to import and set up Numba before its
first kernel runs, even with every kernel in the on-disk cache, and seconds
more to compile with an empty cache. A kernel with an *exact NumPy form* (the
same IEEE operations in the same order, so the same bits: integer arithmetic,
``+ - * /``, ``sqrt``, comparisons; never NumPy's own ``exp``/``log``/``**``,
which round differently from libm) runs that form instead while its input is
small (:data:`NUMPY_MAX` elements) and Numba has not built the kernel yet
(NaN for NaN: which NaN an operation on two NaNs returns depends on the order
LLVM puts the operands in, so payloads are not part of the promise);
:func:`numpy_tier` decides. Each kernel gives its NumPy form
:data:`NUMPY_BUDGET_S` seconds in all (a rent-or-buy rule: after about as much
time as loading Numba costs, it loads Numba and compiles), so a short script
never loads Numba and a long one pays for it once; once anything has loaded
Numba the budget is :data:`NUMPY_BUDGET_LOADED_S`, since buying then costs
only the kernel's own compilation.

**Background builds.** A kernel whose NumPy form has spent its budget is
normally compiled there and then, on the calling thread. One registered with
:func:`compiles_in_background` (a ``sample`` call of it on small inputs of
the types its NumPy form stands in for) is compiled by ``sample`` on a daemon
thread instead, while the caller goes on with the NumPy form; the compiled
kernel takes over from the first call after that thread has finished (the
same bits: only an exact form may be registered). The first such build of a
process is announced once through ``tf_logging``: ``compiling ref kernels in
the background``. While such a build runs (it holds Numba's compiler), any
other kernel whose budget runs out keeps its NumPy form too, rather than wait
for that compiler; and the first kernel whose budget runs out (one without a
build of its own) first loads Numba itself on a background thread
(:func:`_numba_loading`), keeping its form until that is done. ``REF_BACKGROUND_COMPILE=0`` compiles on the calling thread.

**Out of the process.** Numba's compiler holds the GIL for most of a build, so a
build thread slowed the steps beside it (on a loaded machine, twice: each hand-over
of the GIL waits for the scheduler). By default (:data:`PROCESS`) the build thread
of a kernel that a fresh process can find (its module's global, its sample
registered at import: :func:`_addressable`) has :mod:`ref.ops.compile_worker`, one
child process at the lowest CPU priority, compile it into Numba's on-disk cache,
waits for the answer on a pipe, and then runs the sample itself, which only loads
the kernel (milliseconds). The worker announces its first compile through
``tf_logging`` ("compiling ref kernels in the background process"). Kernels made
at run time (the optimizers' generated loops) still build on the thread.

A kernel registered with ``any_size`` (a form about as fast as the kernel: a
copy, max pooling, whole-array NumPy updates) runs its form at every input size
until it is built. A kernel with no NumPy form but another path of the same
bits (``ref.ops.patch_products``' chunked convolutions: the patches copied in
blocks and ``ref.ops.gemm_llvm``'s products) asks :func:`ready`, which starts its
background build and answers False until that is done. So with an empty cache a
first step compiles nothing on its own thread; what it pays is the forms' speed
while the builds run beside it.

**Compile notice.** A compilation (a Numba cache miss) still running after
:data:`COMPILE_NOTICE_S` seconds prints one line on stderr, ``compiling kernels
for <kernel>, first run only`` (once per kernel and process), so that a first
step that sits for seconds says why; loads from the cache and short compiles
print nothing.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
import time
import types

import numpy as np

from ref.ops import fpenv as _fp
from ref.platform import tf_logging

_LOCK = threading.RLock()

DISABLE = os.environ.get("REF_DISABLE_JIT") == "1"
PARALLEL_MIN = int(os.environ.get("REF_PARALLEL_MIN", 1 << 18))
"""Element count from which :func:`njit_sized` kernels use their parallel compilation."""
NUMPY_MAX = int(os.environ.get("REF_NUMPY_MAX", 1 << 14))
"""Largest input (elements) for which a kernel may run its exact NumPy form (0: never)."""
NUMPY_BUDGET_S = float(os.environ.get("REF_NUMPY_BUDGET_S", 0.25))
"""Seconds each kernel may spend in its NumPy form before Numba compiles it
(about half of what loading Numba costs: the forms that call libm element by
element are ~10x slower per call than the compiled loop, so a long run should
not rent for too long). Benchmarks of the steady state set ``REF_NUMPY_MAX=0``."""
NUMPY_BUDGET_LOADED_S = float(os.environ.get("REF_NUMPY_BUDGET_LOADED_S", 0.05))
"""The budget once Numba is loaded (by another kernel, or by the program): buying
is then only this kernel's compilation, or its load from Numba's cache."""
BACKGROUND = os.environ.get("REF_BACKGROUND_COMPILE", "1") != "0"
"""Whether kernels registered with :func:`compiles_in_background` build on a thread of their own."""
PROCESS = os.environ.get("REF_BACKGROUND_COMPILE", "process") not in ("0", "thread")
"""Whether that thread has the compiling done in a child process (:mod:`ref.ops.compile_worker`)
and only loads the result from Numba's on-disk cache (``REF_BACKGROUND_COMPILE=thread``: the
thread compiles itself)."""
IN_WORKER = False
"""True inside :mod:`ref.ops.compile_worker`'s process."""
COMPILE_NOTICE_S = float(os.environ.get("REF_COMPILE_NOTICE_S", 1.0))
"""Seconds a compilation runs before its notice is printed (negative: never)."""
_LAYER_CHOSEN = False
_NOTICE_INSTALLED = False
_NOTICE_THREAD = threading.local()
_ANNOUNCED = set()


def _kernel_name(dispatcher) -> str:
    """``module.function`` of what a dispatcher compiles (a bound wrapper by its kernel's name)."""
    fn = getattr(dispatcher, "py_func", None)
    if fn is None:
        return repr(dispatcher)
    return f"{fn.__module__}.{fn.__name__.split('__bound_')[0]}"


def _announce(name):
    with _LOCK:
        if name in _ANNOUNCED:
            return
        _ANNOUNCED.add(name)
    try:
        print(f"compiling kernels for {name}, first run only", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: nobody to tell
        pass


def _install_compile_notice():
    """Registers the notice with Numba's ``numba:compile`` event (cache misses only):
    the outermost compilation of a thread starts a timer; its end cancels it."""
    global _NOTICE_INSTALLED
    if _NOTICE_INSTALLED or COMPILE_NOTICE_S < 0:
        return
    with _LOCK:
        if _NOTICE_INSTALLED:
            return
        _NOTICE_INSTALLED = True
        from numba.core import event

        class Notice(event.Listener):
            def on_start(self, ev):
                depth = getattr(_NOTICE_THREAD, "depth", 0)
                _NOTICE_THREAD.depth = depth + 1
                if depth == 0 and getattr(_NOTICE_THREAD, "background", False):
                    _announce_background(_kernel_name(ev.data["dispatcher"]))
                elif depth == 0:
                    timer = threading.Timer(COMPILE_NOTICE_S, _announce, (_kernel_name(ev.data["dispatcher"]),))
                    timer.daemon = True
                    timer.start()
                    _NOTICE_THREAD.timer = timer

            def on_end(self, ev):
                _NOTICE_THREAD.depth = max(getattr(_NOTICE_THREAD, "depth", 1) - 1, 0)
                if _NOTICE_THREAD.depth == 0 and getattr(_NOTICE_THREAD, "timer", None) is not None:
                    _NOTICE_THREAD.timer.cancel()
                    _NOTICE_THREAD.timer = None

        event.register("numba:compile", Notice())


def _choose_threading_layer(numba):
    global _LAYER_CHOSEN
    if not _LAYER_CHOSEN:
        _LAYER_CHOSEN = True
        if "NUMBA_THREADING_LAYER" not in os.environ:
            numba.config.THREADING_LAYER_PRIORITY = ["omp", "workqueue", "tbb"]


class LazyKernel:
    """A function compiled by Numba on first call (or run as Python with REF_DISABLE_JIT=1)."""

    def __init__(self, fn, options):
        self.py_func = fn
        self.options = {"cache": True, "error_model": "numpy", **options}
        self._dispatcher = None
        self.numpy_seconds = 0.0  # time spent in the kernel's NumPy form (numpy_tier)
        self.sample = None  # compiles_in_background
        self.any_size = False  # compiles_in_background: the NumPy form serves inputs of any size until built
        self.background = None  # the thread building it (numpy_tier)
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn

    def compiled(self):
        """The Numba dispatcher (compiling on first use)."""
        if self._dispatcher is None:
            with _LOCK:
                if self._dispatcher is None:
                    self._dispatcher = self._build()
        return self._dispatcher

    def _build(self):
        fn = self.py_func
        if DISABLE:
            return fn
        import numba

        _install_compile_notice()
        if self.options.get("parallel"):
            _choose_threading_layer(numba)
        glb = dict(fn.__globals__)
        for name in fn.__code__.co_names:
            val = glb.get(name)
            if isinstance(val, (LazyKernel, LazyIntrinsic)):
                glb[name] = val.compiled()
            elif val is prange:
                glb[name] = numba.prange
        new = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
        # Numba's on-disk cache is keyed by the function's file, qualname and
        # signature -- not by its options: the serial and parallel builds of one
        # loop (SizedKernel) need distinct qualnames, or whichever is compiled
        # first is loaded for both.
        new.__qualname__ = fn.__qualname__ + ("__parallel" if self.options.get("parallel") else "")
        new.__module__ = fn.__module__
        new.__doc__ = fn.__doc__
        return numba.njit(**self.options)(new)

    def __call__(self, *args, **kwargs):
        d = self._dispatcher
        if d is None:
            d = self.compiled()
        return d(*args, **kwargs)

    def __repr__(self):
        return f"<lazy numba kernel {self.__qualname__}>"


class LazyIntrinsic:
    """A Numba intrinsic (code written in LLVM IR) made on first use:
    ``make(numba)`` returns it. Kernels that call it name it as a global, and
    :class:`LazyKernel` substitutes the intrinsic when it compiles them."""

    def __init__(self, make):
        self.make = make
        self._intrinsic = None

    def compiled(self):
        if self._intrinsic is None:
            with _LOCK:
                if self._intrinsic is None:
                    import numba

                    self._intrinsic = self.make(numba)
        return self._intrinsic


def njit(fn=None, **options):
    """``numba.njit`` compiled lazily; use as ``@njit`` or ``@njit(parallel=True)``."""
    if fn is None:
        return lambda f: LazyKernel(f, options)
    return LazyKernel(fn, options)


def prange(*args):
    """``numba.prange`` inside jitted code; plain ``range`` when run as Python."""
    return range(*args)


class SizedKernel:
    """One loop compiled twice: serial below ``PARALLEL_MIN`` elements of its
    first argument, ``parallel=True`` from there on (see the module docstring)."""

    def __init__(self, fn, options):
        self.py_func = fn
        self.serial = LazyKernel(fn, options)
        self.parallel = LazyKernel(fn, {**options, "parallel": True})
        self._serial_bound = {}
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args):
        last = args[-1]
        if isinstance(last, type):  # the loops' element type T, last
            size = args[0].size
            fn = self._serial_bound.get((last, len(args) - 1)) if size < PARALLEL_MIN else None
            if fn is None:
                fn = self.bound(last, len(args) - 1, size)
            return fn(*args[:-1])
        return self._pick(args[0].size)(*args)

    def _pick(self, size):
        # Under fpenv.flush_denormals() loops stay in the calling thread, whose MXCSR is set.
        return self.parallel if size >= PARALLEL_MIN and not DISABLE and not _fp.active() else self.serial

    def bound(self, T, nargs, size):
        """The loop for a first argument of ``size`` elements, its last argument ``T``
        (the element type) frozen in: call it with the other ``nargs`` arguments.
        Numba types a class argument slowly on every call; a wrapper with ``T`` a
        compile-time constant avoids that (:func:`_bound`). The serial wrapper of a
        small loop is kept here, by ``(T, nargs)``: one dictionary lookup per call."""
        if size < PARALLEL_MIN:
            fn = self._serial_bound.get((T, nargs))
            if fn is not None:
                return fn
        kernel = self._pick(size)
        if DISABLE:
            return lambda *args: kernel(*args, T)
        fn = _bound(kernel, T, nargs)
        if kernel is self.serial:
            self._serial_bound.setdefault((T, nargs), fn)
        return fn


_BOUND = {}


def _bound(kernel, T, nargs):
    """``kernel(*args, T)`` compiled with ``T`` as a compile-time constant.

    The wrapper is compiled as if written in the kernel's own file, under a
    name of its own (kernel, T), so Numba's on-disk cache keeps it as it keeps
    the kernel (and drops it when that file changes) -- the serial kernels' only:
    see below."""
    key = (id(kernel), T, nargs)
    fn = _BOUND.get(key)
    if fn is None:
        import numba

        _install_compile_notice()
        target = kernel.compiled()
        if kernel.options.get("parallel") and not DISABLE:
            # A parallel loop runs on >= PARALLEL_MIN elements: typing the class argument
            # on each call (tens of microseconds) is small beside it, and a jitted wrapper
            # could not be cached (below), so every process would compile it again (~1 s
            # on the first step of any model with a large variable).
            fn = _BOUND.setdefault(key, lambda *args: target(*args, T))
            return fn
        py = kernel.py_func
        names = ", ".join(f"a{i}" for i in range(nargs))
        name = f"{py.__name__}__bound_{T.__name__}"
        ns = {"__name__": py.__module__, "target": target, "T": T}
        code = compile(f"def {name}({names}):\n    return target({names}, T)\n", py.__code__.co_filename, "exec")
        exec(code, ns)  # noqa: S102
        wrapper = ns[name]
        wrapper.__qualname__ = name
        # (A wrapper of a parallel loop is never compiled: one compiled against a parallel
        # loop that was itself loaded from the cache crashes the next process that loads
        # the wrapper from the cache -- Numba 0.68 does not link the loop's outlined
        # parallel regions again.)
        cache = kernel.options.get("cache", True) and not DISABLE
        options = {"error_model": "numpy", "cache": cache}
        fn = _BOUND.setdefault(key, numba.njit(**options)(wrapper))
    return fn


def numpy_tier(kernel, size) -> bool:
    """Whether to run ``kernel``'s exact NumPy form (see the module docstring)
    for an input of ``size`` elements instead of the Numba build: while the
    input is small, Numba has not built the kernel and the kernel's NumPy form
    has used less than its budget -- or, the budget spent, while the kernel's
    background build, any background build, or Numba's background loading runs
    (see the module docstring). Run the form through :func:`run_numpy_form`. A
    kernel whose ``any_size`` is set (:func:`compiles_in_background`, or by its
    maker: a form of whole-array NumPy operations) has no size limit."""
    lazy = kernel.serial if isinstance(kernel, SizedKernel) else kernel
    if (size > NUMPY_MAX and not lazy.any_size) or DISABLE or NUMPY_MAX <= 0:
        return False
    thread = lazy.background
    if thread is not None:
        return _running(thread)  # the NumPy form until the background build has finished
    if lazy._dispatcher is not None or _in_cache(lazy):
        return False
    if lazy.numpy_seconds < (NUMPY_BUDGET_LOADED_S if "numba" in sys.modules else NUMPY_BUDGET_S):
        return True
    if lazy.sample is None or not BACKGROUND:
        # Numba compiles one kernel at a time: while a background build holds its compiler,
        # buying here would wait for that build too -- rent until it is done; likewise
        # while Numba itself loads in the background (_numba_loading)
        return any([t.is_alive() for t in _BUILDING]) or _numba_loading()
    return _running(_start_background(lazy))


_PRELOAD = []  # the thread loading Numba (_numba_loading), once started


def _numba_loading() -> bool:
    """Whether Numba is being loaded on a background thread: started here the first
    time a kernel without a background build of its own has spent its NumPy budget
    (with :data:`BACKGROUND`). Loading Numba -- its import and its target's
    registries, ~2 s of CPU, which the first kernel a process builds or loads from
    the cache pays -- then happens while the NumPy forms go on; what the kernel
    pays itself afterwards is its own load from the cache (milliseconds) or its
    compilation (announced by the compile notice)."""
    if not BACKGROUND:
        return False
    if not _PRELOAD:
        with _LOCK:
            if not _PRELOAD:
                thread = threading.Thread(target=_load_numba, name="ref-load-numba", daemon=True)
                _PRELOAD.append(thread)
                thread.start()
    return _PRELOAD[0].is_alive()


def _load_numba():
    with _LOCK:  # one import of Numba at a time (LazyKernel._build imports it under this lock too)
        try:
            import numba  # noqa: F401
        except Exception:  # noqa: BLE001 -- the kernel's own build reports it
            return
    try:
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
        cpu_target.typing_context.refresh()
    except Exception:  # noqa: BLE001 -- the kernel's own build reports it
        pass


_BACKGROUND_ANNOUNCED = []
_BUILDING = []  # the background builds' threads, in the order started


def compiles_in_background(kernel, sample, any_size=False):
    """Registers ``sample`` (a function of no arguments that calls ``kernel`` on
    small inputs, of the types for which the caller runs its exact NumPy form):
    once that form has spent its budget, :func:`numpy_tier` runs ``sample`` on a
    thread of its own and keeps answering True until it has returned (see the
    module docstring). With ``any_size`` the form serves inputs of every size
    until then, not only up to :data:`NUMPY_MAX` elements (a form about as fast
    as the kernel: a copy). Returns ``kernel``."""
    lazy = kernel.serial if isinstance(kernel, SizedKernel) else kernel
    lazy.sample = sample
    lazy.any_size = any_size
    return kernel


def ready(kernel) -> bool:
    """Whether ``kernel`` (registered with :func:`compiles_in_background`) is built in
    this process; if not, its background build is started (once, with
    :data:`BACKGROUND`) and the caller runs something with the same bits meanwhile.
    Without :data:`BACKGROUND` it is never built on a caller's behalf (False until
    something else builds it). True under ``REF_DISABLE_JIT``, and with the NumPy
    forms off (``REF_NUMPY_MAX=0``: the steady state's benchmarks, ``python -m ref
    warmup``), where the caller builds it there and then."""
    if DISABLE or NUMPY_MAX <= 0:
        return True
    lazy = kernel.serial if isinstance(kernel, SizedKernel) else kernel
    thread = lazy.background
    if thread is not None:
        return not _running(thread)
    if lazy._dispatcher is not None or _in_cache(lazy):
        return True
    if lazy.sample is None or not BACKGROUND:
        return False
    return not _running(_start_background(lazy))


def _in_cache(lazy) -> bool:
    """Whether Numba (already loaded) has ``lazy`` in its on-disk cache: then the kernel
    is loaded there and then (milliseconds: a warm cache's first step runs the kernels,
    not the forms). Not asked before Numba is loaded (its import alone costs more)."""
    numba = sys.modules.get("numba")
    if numba is None or getattr(numba.__spec__, "_initializing", False) or lazy.sample is None \
            or lazy.options.get("parallel"):  # (Numba being imported on another thread: not yet)
        return False
    path = lazy.__dict__.get("_index_path")
    if path is None:
        try:
            from numba.core.caching import FunctionCache

            path = FunctionCache(lazy.py_func)._cache_file._index_path
        except Exception:  # noqa: BLE001 -- no cache (a Numba without this layout): build it
            path = ""
        lazy._index_path = path
    return bool(path) and os.path.exists(path)


def _running(thread) -> bool:
    """Whether a background build's thread is not done: started and alive, or about
    to start (another thread, in :func:`_start_background`, made it and has not
    started it yet)."""
    return thread.ident is None or thread.is_alive()


def _start_background(lazy):
    with _LOCK:
        if lazy.background is None:
            thread = threading.Thread(target=_build_in_background, args=(lazy,),
                                      name=f"ref-compile-{lazy.__name__}", daemon=True)
            lazy.background = thread
            _BUILDING.append(thread)
            thread.start()
        return lazy.background


def _announce_background(name):
    """The first compilation (a cache miss) on a background build's thread, once a process."""
    with _LOCK:
        if _BACKGROUND_ANNOUNCED:
            return
        _BACKGROUND_ANNOUNCED.append(name)
    tf_logging.warning("compiling ref kernels in the background%s (%s); the exact NumPy forms run until "
                       "they are built", " process" if IN_WORKER else "", name)


def _after_fork():
    """A forked child has none of its parent's threads: a build or a load of Numba that
    was running in the parent never finishes in the child, and Numba's compiler lock it
    held stays held there -- a new lock, and the child builds in the foreground."""
    global _WORKER_LOCK
    _WORKER.pop("proc", None)  # the parent's worker answers the parent: a child starts its own
    _WORKER_LOCK = threading.Lock()
    running = [t for t in _BUILDING + _PRELOAD if t.ident is not None]
    if running and "numba.core.compiler_lock" in sys.modules:
        sys.modules["numba.core.compiler_lock"].global_compiler_lock._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _build_in_background(lazy):
    try:
        if PROCESS and not IN_WORKER and _addressable(lazy):
            _in_worker(lazy)  # compiled there into Numba's cache: the sample below only loads it
        run_sample(lazy)
    except BaseException:  # noqa: BLE001 -- the caller's own compilation reports it
        pass


def run_sample(lazy):
    """Runs ``lazy``'s sample (its background build): a compile there is announced
    through ``tf_logging`` (the first of a process)."""
    _NOTICE_THREAD.background = True  # the compile notice announces through tf_logging (above)
    with np.errstate(all="ignore"):
        lazy.sample()


def _addressable(lazy) -> bool:
    """Whether a fresh process finds ``lazy`` and its sample by importing modules: a
    cached kernel that is its module's global of its own name, its sample a function
    of a module whose import registers it."""
    module = sys.modules.get(lazy.py_func.__module__)
    obj = getattr(module, lazy.__name__, None)
    if isinstance(obj, SizedKernel):
        obj = obj.serial
    return obj is lazy and lazy.options.get("cache") and getattr(lazy.sample, "__module__", None) in sys.modules


WORKER_PREFIX = "ref-built"
"""How :mod:`ref.ops.compile_worker`'s answers begin (``ref-built ok|failed <kernel>``)."""
_WORKER = {}  # "proc": the compile worker (subprocess.Popen), "dead": it could not be used
_WORKER_LOCK = threading.Lock()


def _worker():
    proc = _WORKER.get("proc")
    if proc is None or proc.poll() is not None:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ, REF_NUMPY_MAX="0")
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        proc = subprocess.Popen([sys.executable, "-m", "ref.ops.compile_worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env)
        _WORKER["proc"] = proc
    return proc


def _in_worker(lazy) -> bool:
    """Has the compile worker build ``lazy`` (waiting for it, the GIL released); whether it did."""
    with _WORKER_LOCK:
        if _WORKER.get("dead"):
            return False
        try:
            proc = _worker()
            proc.stdin.write(f"{lazy.sample.__module__} {lazy.py_func.__module__} {lazy.__name__}\n")
            proc.stdin.flush()
            for line in proc.stdout:
                parts = line.split()
                if parts[:1] == [WORKER_PREFIX]:
                    return parts[1] == "ok"
        except (OSError, ValueError):
            pass
        _WORKER["dead"] = True  # no worker to be had: the build threads compile themselves
        return False


def run_numpy_form(kernel, form, *args):
    """``form(*args)``, its time charged to ``kernel``'s budget."""
    lazy = kernel.serial if isinstance(kernel, SizedKernel) else kernel
    start = time.perf_counter()
    try:
        return form(*args)
    finally:
        lazy.numpy_seconds += time.perf_counter() - start


def njit_sized(fn=None, **options):
    """Like :func:`njit`, for an element-wise loop written with :func:`prange`:
    serial for small arrays, parallel for large ones."""
    if fn is None:
        return lambda f: SizedKernel(f, options)
    return SizedKernel(fn, options)


# -- libm's own functions, element by element (NumPy forms of kernels that call them) -----

_LIBM = {}


def libm(name, dtype):
    """C's ``name`` (``exp``, ``log``; ``expf``/``logf`` for float32) as the
    process links it (the C math library), as a function of a NumPy array of ``dtype`` that calls it on
    each element: the function Numba's ``math.exp`` / ``math.log`` compile to,
    so the same bits (NumPy's ``np.exp`` / ``np.log`` round differently). None
    where no C math library can be loaded (the NumPy form is then not used).
    About 0.2 us an element: for the small inputs of :func:`numpy_tier` only."""
    key = (name, np.dtype(dtype))
    if key not in _LIBM:
        _LIBM[key] = _load_libm(name, np.dtype(dtype))
    return _LIBM[key]


def _load_libm(name, dtype):
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        return None
    try:
        # The process's own symbols, where Numba's compiled code finds the function too.
        lib = ctypes.CDLL(None)
        ctype = ctypes.c_float if dtype == np.float32 else ctypes.c_double
        fn = getattr(lib, name + ("f" if dtype == np.float32 else ""))
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype = ctype
    fn.argtypes = [ctype]

    def apply(a):
        return np.array([fn(v) for v in a.ravel().tolist()], dtype).reshape(a.shape)

    apply.__name__ = fn.__name__
    return apply
