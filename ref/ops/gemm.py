"""Large matrix products on ``ref``'s own kernel and threads.

**The kernel** (:mod:`ref.ops.gemm_kernel`) computes each element of a
float32 or float64 product as one chain of fused multiply-adds over the inner
dimension, in order: the same bits on every machine, whatever its vector
width, its number of cores or its BLAS, at the speed of an AVX-512 BLAS where
the CPU has AVX-512. (NumPy's OpenBLAS chooses its kernels for the CPU at load
time, and can be told to use older ones: ``OPENBLAS_CORETYPE=Haswell`` runs
AVX2 kernels on an AVX-512 CPU at half its multiply-add width.) Products up to
:data:`SERIAL_WORK` multiply-adds, and those of other dtypes, are NumPy's
``matmul``, as are products with fewer than :data:`KERNEL_MIN_SIDE` rows,
columns or inner length: there the kernel's packing costs more than it saves.
``REF_MATMUL=numpy`` sends every product to NumPy (the behaviour before this
kernel, for comparisons).

**Threads.** NumPy's OpenBLAS runs a product on as many threads as the machine
has cores, and its threads spin while they wait: on a machine whose cores are
busy with anything else (another process, Numba's threads, a second session)
one descheduled thread stalls the others, and a product can take ten times its
single-threaded time. TensorFlow shards a product into blocks that its pool's
threads pick up, so a late thread only means its blocks go to another one.

:func:`matmul` does the same: a large product is cut into a fixed number of
row (or column) blocks, chosen from the shapes alone; each block is one
single-threaded kernel call (it releases the GIL) writing straight into its
part of the result; the calling thread and ``workers() - 1`` helper threads
take blocks until none is left, and whoever waits, sleeps. Blocks never change
an element's chain, so the bits do not depend on them either. Inside
:func:`ref.ops.fpenv.flush_denormals` every block runs in the calling thread,
whose floating-point environment is the one set. ``REF_MATMUL_THREADS``
overrides the number of threads (1: no helpers; 0: plain ``np.matmul`` with
BLAS's own threading). With ``REF_MATMUL=numpy`` the blocks are
single-threaded NumPy products, BLAS's threads set to one only around them.
"""
from __future__ import annotations

import ctypes
import glob
import itertools
import os
import threading

import numpy as np

from ref.ops import fpenv as _fp
from ref.ops import gemm_kernel

SERIAL_WORK = 65536 * 4
"""Multiply-adds up to which OpenBLAS itself runs a product on one thread
(``SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD``): those go to it untouched."""
KERNEL_MIN_SIDE = 32
"""Rows, columns and inner length a product needs, each, for :mod:`ref.ops.gemm_kernel`:
a narrower one spends more on packing and padding to whole panels than it saves."""
MIN_BLOCK_WORK = 1 << 22
"""Multiply-adds per block, at least: smaller products are one single-threaded BLAS call."""
MAX_BLOCKS = 8

_OWN_KERNEL = os.environ.get("REF_MATMUL", "").lower() != "numpy"
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

    __slots__ = ("product", "edges", "claim", "done", "finished", "error")

    def __init__(self, product, edges):
        self.product, self.edges = product, edges
        self.claim = itertools.count()
        self.done = []
        self.finished = threading.Lock()
        self.finished.acquire()
        self.error = None

    def work(self, helper=False):
        product, edges = self.product, self.edges
        last = len(edges) - 1
        mine = False
        for i in self.claim:
            if i >= last:
                break
            try:
                product(edges[i], edges[i + 1])
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


def _flat(x):
    """``(flat, row stride, column stride)``: a 2-D array as a 1-D view from its
    first element with its strides in elements; None when its strides are
    negative or not whole elements (the caller copies it)."""
    rows, cols = x.shape
    if x.flags.c_contiguous:
        return x.reshape(-1), cols, 1
    if x.flags.f_contiguous:
        return x.T.reshape(-1), 1, rows
    s0, s1 = x.strides
    size = x.itemsize
    if s0 < 0 or s1 < 0 or s0 % size or s1 % size:
        return None
    s0, s1 = s0 // size, s1 // size
    span = (rows - 1) * s0 + (cols - 1) * s1 + 1
    return np.lib.stride_tricks.as_strided(x, (span,), (size,)), s0, s1


def _kernel_product(a, b, out, axis):
    """``product(lo, hi)``: rows (axis 0) or columns (axis 1) ``lo:hi`` of ``out = a @ b``
    by :func:`gemm_kernel.gemm`."""
    fa = _flat(a) or _flat(np.ascontiguousarray(a))
    fb = _flat(b) or _flat(np.ascontiguousarray(b))
    fc = _flat(out)
    k = a.shape[1]
    m, n = out.shape
    (fa, sa0, sa1), (fb, sb0, sb1), (fc, sc0, sc1) = fa, fb, fc
    nr = 2 * gemm_kernel.WIDTH[out.dtype]
    kernel = gemm_kernel.gemm
    if axis == 0:
        def product(lo, hi):
            kernel(hi - lo, n, k, fa, lo * sa0, sa0, sa1, fb, 0, sb0, sb1, fc, lo * sc0, sc0, sc1, nr)
    else:
        def product(lo, hi):
            kernel(m, hi - lo, k, fa, 0, sa0, sa1, fb, lo * sb1, sb0, sb1, fc, lo * sc1, sc0, sc1, nr)
    return product


def _numpy_product(a, b, out, axis):
    """``product(lo, hi)`` of rows or columns ``lo:hi`` by NumPy's (single-threaded) BLAS."""
    if axis == 0:
        def product(lo, hi):
            np.matmul(a[lo:hi], b, out=out[lo:hi])
    else:
        def product(lo, hi):
            np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])
    return product


def matmul(a, b, out=None):
    """``a @ b`` for 2-D arrays (views such as ``x.T`` are read in place), large
    float products on ``ref``'s kernel in blocks as described in the module
    docstring; written into ``out`` (C-contiguous, the result's shape and
    dtype) when given."""
    m, k = a.shape
    n = b.shape[1]
    if (m * n * k <= SERIAL_WORK or _WORKERS <= 0 or b.shape[0] != k or a.dtype != b.dtype or a.dtype not in _BLAS_DTYPES
            or (out is not None and (out.dtype != a.dtype or not out.flags.c_contiguous))
            or (_OWN_KERNEL and min(m, n, k) < KERNEL_MIN_SIDE)):
        return np.matmul(a, b, out=out)
    set_threads = None
    if not _OWN_KERNEL:
        blas = _openblas()
        if not blas:
            return np.matmul(a, b, out=out)
        set_threads, get_threads = blas
    if out is None:
        out = np.empty((m, n), a.dtype)
    axis, edges = blocks(m, n, k)
    if edges is None:
        axis, edges = 0, [0, m]
    product = (_kernel_product if _OWN_KERNEL else _numpy_product)(a, b, out, axis)
    if len(edges) == 2 or _WORKERS == 1 or _fp.active():  # one block, or one thread: no helpers
        if set_threads is None:
            for lo, hi in zip(edges, edges[1:]):
                product(lo, hi)
            return out
    with _RUN_LOCK:  # one product at a time owns the helpers (and NumPy's BLAS thread setting)
        if set_threads is not None:
            before = get_threads()
            set_threads(1)
        try:
            job = _Job(product, edges)
            if _WORKERS > 1 and len(edges) > 2 and not _fp.active():
                _pool().run(job)
            else:
                job.work()
                job.wait()
        finally:
            if set_threads is not None:
                set_threads(before)
    return out
