"""Matrix products on NumPy's BLAS, with ``ref``'s own threading.

NumPy's OpenBLAS runs a product on as many threads as the machine has cores,
and its threads spin while they wait: on a machine whose cores are busy with
anything else (another process, Numba's threads, a second session) one
descheduled thread stalls the others, and a product can take ten times its
single-threaded time. TensorFlow shards a product into blocks that its pool's
threads pick up, so a late thread only means its blocks go to another one.

:func:`matmul` does the same: a large product is cut into a fixed number of
row (or column) blocks, chosen from the shapes alone; each block is one
single-threaded BLAS call writing straight into its part of the result; the
calling thread and ``workers() - 1`` helper threads take blocks until none is
left, and whoever waits, sleeps. So the bits of a product depend on its shapes
(and the CPU's BLAS kernels), not on how many cores the machine has or how busy
they are: the blocks are the same on one core as on sixteen.

BLAS threads are set to one only around those calls (NumPy's threading stays
what it was for the rest of the process). Without an OpenBLAS whose threads can
be set (NumPy built on another BLAS), products are plain ``np.matmul``.
``REF_MATMUL_THREADS`` overrides the number of threads (1: no helpers; 0: plain
``np.matmul``, BLAS's own threading).
"""
from __future__ import annotations

import ctypes
import glob
import itertools
import os
import threading

import numpy as np

SERIAL_WORK = 65536 * 4
"""Multiply-adds up to which OpenBLAS itself runs a product on one thread
(``SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD``): those go to it untouched."""
MIN_BLOCK_WORK = 1 << 22
"""Multiply-adds per block, at least: smaller products are one single-threaded BLAS call."""
MAX_BLOCKS = 8

_BLAS = None  # (set_num_threads, get_num_threads) of NumPy's OpenBLAS, False when there is none
_BLAS_LOCK = threading.Lock()


def _openblas():
    """NumPy's OpenBLAS thread setters (``scipy_openblas``, ``openblas`` and
    their 64-bit-index names), or False."""
    global _BLAS
    if _BLAS is None:
        with _BLAS_LOCK:
            if _BLAS is None:
                _BLAS = _find_openblas()
    return _BLAS


def _find_openblas():
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "lib*openblas*.so*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("scipy_openblas", ""), ("openblas", "64_"),
                               ("openblas", "")):
            setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
            getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
            if setter is not None and getter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                return setter, getter
    return False


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_THREADS_ENV = os.environ.get("REF_MATMUL_THREADS", "")
_WORKERS = int(_THREADS_ENV) if _THREADS_ENV.strip().lstrip("-").isdigit() else min(_cores(), MAX_BLOCKS)


def workers() -> int:
    """Threads a large product runs on (the caller and its helpers); 0: BLAS's own."""
    return _WORKERS


def blocks(m, n, k):
    """``(axis, bounds)``: how an ``[m, k] @ [k, n]`` product is cut (axis 0: rows
    of the result, 1: columns; ``bounds`` the block edges), from the shapes alone."""
    axis = 0 if m >= n else 1
    size = m if axis == 0 else n
    count = int(min(MAX_BLOCKS, m * n * k // MIN_BLOCK_WORK, size // 16))  # 16 rows/columns: a BLAS tile
    if count < 2:
        return axis, None
    count = 1 << (count.bit_length() - 1)  # 2, 4 or 8
    step = -(-size // count)
    step = -(-step // 16) * 16
    edges = list(range(0, size, step)) + [size]
    return axis, edges


class _Pool:
    """Helper threads that take blocks of the current product."""

    def __init__(self, helpers):
        self.job = None
        self.wake = [threading.Lock() for _ in range(helpers)]
        for i, lock in enumerate(self.wake):
            lock.acquire()
            threading.Thread(target=self._loop, args=(lock,), name=f"ref-matmul-{i}", daemon=True).start()

    def _loop(self, wake):
        while True:
            wake.acquire()
            job = self.job
            if job is not None:
                job.work(helper=True)

    def run(self, job):
        self.job = job
        for lock in self.wake:
            if lock.locked():
                try:
                    lock.release()
                except RuntimeError:  # a helper woke in between
                    pass
        job.work()
        job.wait()
        self.job = None


class _Job:
    """One product's blocks: ``next`` hands out block numbers, ``done`` counts
    finished ones; ``finished`` is released when a helper finishes the last."""

    __slots__ = ("a", "b", "out", "axis", "edges", "claim", "done", "finished", "error")

    def __init__(self, a, b, out, axis, edges):
        self.a, self.b, self.out, self.axis, self.edges = a, b, out, axis, edges
        self.claim = itertools.count()
        self.done = []
        self.finished = threading.Lock()
        self.finished.acquire()
        self.error = None

    def work(self, helper=False):
        a, b, out, edges = self.a, self.b, self.out, self.edges
        last = len(edges) - 1
        mine = False
        for i in self.claim:
            if i >= last:
                break
            lo, hi = edges[i], edges[i + 1]
            try:
                if self.axis == 0:
                    np.matmul(a[lo:hi], b, out=out[lo:hi])
                else:
                    np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])
            except BaseException as e:  # noqa: BLE001 -- reported by the caller
                self.error = e
            self.done.append(i)
            mine = True
        if helper and mine and len(self.done) == last:
            try:
                self.finished.release()
            except RuntimeError:  # another helper finished at the same moment and released it
                pass

    def wait(self):
        if len(self.done) < len(self.edges) - 1:
            self.finished.acquire()
        if self.error is not None:
            raise self.error


_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_POOL = None
_POOL_LOCK = threading.Lock()
_RUN_LOCK = threading.Lock()


def _pool():
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = _Pool(_WORKERS - 1)
    return _POOL


def _after_fork():
    """A forked child has none of its parent's helper threads: start afresh."""
    global _POOL, _RUN_LOCK
    _POOL = None
    _RUN_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def matmul(a, b):
    """``a @ b`` for 2-D float arrays (views such as ``x.T`` go to BLAS as
    transpose flags), cut into blocks as described in the module docstring."""
    m, k = a.shape
    n = b.shape[1]
    if m * n * k <= SERIAL_WORK or _WORKERS <= 0 or a.dtype != b.dtype or a.dtype not in _BLAS_DTYPES:
        return np.matmul(a, b)
    blas = _openblas()
    if not blas:
        return np.matmul(a, b)
    axis, edges = blocks(m, n, k)
    set_threads, get_threads = blas
    out = np.empty((m, n), a.dtype)
    with _RUN_LOCK:  # one product at a time owns the helpers and BLAS's thread setting
        before = get_threads()
        set_threads(1)
        try:
            if edges is None:
                np.matmul(a, b, out=out)
            else:
                job = _Job(a, b, out, axis, edges)
                if _WORKERS > 1:
                    _pool().run(job)
                else:
                    job.work()
                    job.wait()
        finally:
            set_threads(before)
    return out
