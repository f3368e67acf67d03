"""Matrix products on ``ref``'s own kernel and threads.

**The kernel** (:mod:`ref.ops.gemm_kernel`, built by llvmlite in
:mod:`ref.ops.gemm_llvm`: no Numba compilation, ~0.1 s per micro-kernel size
with an empty cache) computes each element of a
float32 or float64 product as one chain of fused multiply-adds over the inner
dimension, in order: the same bits on every machine, whatever its vector
width, its number of cores or its BLAS, at the speed of an AVX-512 BLAS where
the CPU has AVX-512. (NumPy's OpenBLAS chooses its kernels for the CPU at load
time, and can be told to use older ones: ``OPENBLAS_CORETYPE=Haswell`` runs
AVX2 kernels on an AVX-512 CPU at half its multiply-add width.) Products up to
:data:`SERIAL_WORK` multiply-adds, and those of other dtypes, are NumPy's
``matmul``. Larger products with fewer than :data:`KERNEL_MIN_SIDE` rows
or inner length, or :data:`KERNEL_MIN_COLUMNS` columns (lanes left idle)
are NumPy's BLAS in blocks on ref's threads, BLAS itself on one thread.
``REF_MATMUL=numpy`` sends every product to NumPy (the behaviour before this
kernel, for comparisons).

**TF's bits.** ``MatMul`` of float32 with one row or one column (``m == 1`` or
``n == 1``, ``k >= 2``) does not come here: :mod:`ref.ops.eigen_gemv` computes it
in the order of TF's Eigen dense products, bit for bit. Nor, on an x86-64 CPU with
AVX2 and no AVX-512, does any other float32 ``MatMul``: :mod:`ref.ops.eigen_gemm`
follows TF's Eigen tensor contraction over oneDNN's AVX2 nocopy ``sgemm``
(``TENSORFLOW_USE_MKLDNN_CONTRACTION_KERNEL``), which is not one chain per element:

* Eigen (TF's build: AVX, no FMA, ``mr = 16``) chooses threads with its cost model
  on TF's intra-op pool, may shard ``k`` over threads (each shard computed apart,
  then summed), and blocks ``k`` by ``kc`` from the L1 size (TF evens the slices
  out and rounds them to 8); each output block adds its slices in order;
* oneDNN cuts each slice into pieces of at most 256 (halving under 512 left) and
  adds them in order (``beta = 1``), each piece summed from 0;
* its JIT kernel holds 16 columns by 6 rows: one FMA chain per element in a 16-wide
  tile of 4-6 rows; two chains (even, odd steps), added, for 8-wide tiles and
  3-row tiles; two chains of unfused multiply-adds for 1-2-row tiles.

Measured against tensorflow-cpu 2.21 (``TF_ENABLE_ONEDNN_OPTS=0``) on a 2-CPU
AMD EPYC (AVX2; 32K/512K/32M caches), fraction of elements equal, before (this
module: NumPy's OpenBLAS for small products, one FMA chain for large ones) and
after (``ref.ops.eigen_gemm``; all four transpositions alike):

=============  ======  =====    ==============  ======  =====
m x k x n      before  after    m x k x n       before  after
=============  ======  =====    ==============  ======  =====
30x20x10       0.92    1.00     16x400x16       0.42    1.00
8x64x8         0.81    1.00     32x784x10       0.12    1.00
20x64x20       0.39    1.00     100x600x30      0.12    1.00
48x64x24       0.72    1.00     64x5000x64      0.02    1.00
64x128x64      1.00    1.00     128x784x256     0.06    1.00
128x256x128    0.99    1.00     1024x1024x1024  0.05    1.00
=============  ======  =====    ==============  ======  =====

(A one-chain order matches TF only where ``k`` fits one oneDNN piece and every
tile is 16 wide with 4-6 rows.) With oneDNN on (``TF_ENABLE_ONEDNN_OPTS=1``, TF's
default) ``MatMul`` is oneDNN's matmul primitive: 8-11% of elements equal to
the model (``128x784x256``, ``32x784x10``). On an AVX-512 CPU oneDNN runs its AVX-512 kernels (48x8 tiles, other
blockings), not modelled: there float32 ``MatMul`` stays here (an earlier
measurement on a 2-CPU AVX-512 machine: ``16x400x16`` two FMA chains over ``k``'s
halves, 0.12 equal to one chain; ``32x784x10`` 0.06), as does every product
under ``REF_EIGEN_GEMM=0``, float64, and the products inside convolutions.

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
whose floating-point environment is the one set; a product made while another
thread's holds the helpers runs on its own thread. :func:`concurrently` runs
independent calls at once on the same threads (a compiled plan's two products
of one gradient, ``ref.session.interpreter.rewrite.MatMulPair``). ``REF_MATMUL_THREADS``
overrides the number of threads (1: no helpers; 0: plain ``np.matmul`` with
BLAS's own threading). With ``REF_MATMUL=numpy`` every large product's
blocks are single-threaded NumPy products, BLAS's threads set to one only
while any of them runs (:func:`_one_blas_thread`).
"""
from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import threading
import time

import numpy as np

from ref.ops import _jit
from ref.ops import fpenv as _fp
from ref.ops import gemm_kernel
from ref.ops import gemm_llvm

SERIAL_WORK = 65536 * 4
"""Multiply-adds up to which a product is NumPy's ``matmul`` untouched (OpenBLAS
runs those on one thread too: ``SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD``)."""
KERNEL_MIN_COLUMNS = 32
"""Columns a product needs for :mod:`ref.ops.gemm_kernel` (a panel of B is 32
float32 / 16 float64 columns wide: a narrower product leaves lanes idle; 4096x64x16
ran at 0.7x OpenBLAS's speed)."""
KERNEL_MIN_SIDE = 8
"""Rows and inner length a product needs, each, for the kernel: a last group of
rows runs a micro-kernel of its own size and B is read in place for few rows (an
LSTM's 20x400x800 gates, and 400x20x800 weight gradient, run at 1.2-1.3x
OpenBLAS's single-thread speed)."""
MIN_BLOCK_WORK = 1 << 23
"""Multiply-adds per block, at least: smaller products are one single-threaded call.
Waking a helper costs the caller ~10 us (a futex wake, an inter-processor
interrupt on a virtual machine) and the helper ~20 us before it starts: an MLP
step ran 9% faster with this limit than with half of it (128x256x256 products
on one thread)."""
MAX_BLOCKS = 8
BLOCKS_PER_WORKER = 2
"""Blocks of a product per thread that runs it, at most: each block of columns reads
all of A and each block of rows packs all of B, and a helper's block is computed
apart and copied, so fewer, larger blocks cost less; two per thread still let the
caller take over the share of a helper that a busy machine deschedules. The MLP's
four large products (``bench/models.py``), one thread's CPU time: 9.6 ms in 8
blocks, 8.8 in 4, 7.7 in 2 (``bench/README.md``)."""
PACKED_B_ELEMENTS = 1 << 18
"""Elements of B (``k * n``) from which a block of rows packs a B larger than L2 (1 MiB
of float32), from memory, for each block: such products are cut in at most ``m //
:data:`PACKED_B_ROWS``` blocks. The LSTM LM's softmax input gradient ``[400, 10000] @
[10000, 200]`` (B = W.T, packed by transposes): seven blocks of 64 rows packed its 8 MB
seven times, 74 GFLOP/s single-threaded; two blocks 90 (``bench/README.md``)."""
PACKED_B_ROWS = 128
"""Rows a block needs where B is packed from memory (:data:`PACKED_B_ELEMENTS`): the
packing (~1 ns an element, transposed) is then under 1/10 of the block's multiply-adds."""
PAIR_MIN_WORK = 1 << 22
"""Multiply-adds each of two products needs for :func:`concurrently` to run them
at once (:func:`one_thread`): below it waking a helper costs more than it saves
(word2vec's 128x128x64 gradient pair: 54 us one after the other, 84 us at once,
2 shared cores at load 7; 256x256x128: 327 against 368 us)."""

_OWN_KERNEL = os.environ.get("REF_MATMUL", "").lower() != "numpy"
_DRIVER = os.environ.get("REF_GEMM_DRIVER", "").lower()
"""Which driver runs :func:`matmul`'s kernel products (the same bits either way):
by default :func:`ref.ops.gemm_kernel.gemm` (Numba's BLIS loop nest, the faster
in the steady state: 5-15% on the MLP's products) once it is built or in Numba's
on-disk cache, and :func:`ref.ops.gemm_llvm.gemm` (llvmlite, ~0.1 s to build a
micro-kernel size) until then, while the Numba one builds in the background;
``REF_GEMM_DRIVER=numba`` or ``llvm``: that one only (for comparisons)."""
_NUMBA_DRIVER = _DRIVER == "numba"
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


_LOCAL = threading.local()


def workers() -> int:
    """Threads a large product of this thread runs on (the caller and its
    helpers; :func:`limit_threads` lowers it); 0: BLAS's own."""
    return getattr(_LOCAL, "workers", _WORKERS)


@contextlib.contextmanager
def limit_threads(n):
    """Products made by this thread inside the block run on at most ``n``
    threads (``n`` <= 0: no limit) -- a Session's
    ``ConfigProto.intra_op_parallelism_threads``. The bits are the same."""
    before = getattr(_LOCAL, "workers", None)
    if n and n > 0:
        _LOCAL.workers = max(1, min(n, _WORKERS)) if _WORKERS > 0 else _WORKERS
    try:
        yield
    finally:
        if before is None:
            _LOCAL.__dict__.pop("workers", None)
        else:
            _LOCAL.workers = before


def blocks(m, n, k, threads=None):
    """``(axis, bounds)``: how an ``[m, k] @ [k, n]`` product is cut (axis 0: rows
    of the result, 1: columns; ``bounds`` the block edges), from the shapes and the
    threads this thread's products run on (``threads``, default :func:`workers`: at
    most :data:`BLOCKS_PER_WORKER` blocks each; one thread: one block). The bits of
    ref's kernel never depend on the cut: each element is one chain, whatever block
    holds it. NumPy's BLAS may pick other kernels for other block sizes (OpenBLAS on
    AMD Zen does), so its products are cut as for :data:`MAX_BLOCKS` threads whatever
    the thread count."""
    axis = 0 if m >= n else 1
    size = m if axis == 0 else n
    threads = workers() if threads is None else threads
    count = int(min(MAX_BLOCKS, m * n * k // MIN_BLOCK_WORK, size // 16,  # 16 rows/columns: a BLAS tile
                    BLOCKS_PER_WORKER * threads if threads > 1 else 1))
    if axis == 0 and k * n >= PACKED_B_ELEMENTS:  # each block of rows packs all of B: few, tall blocks
        count = min(count, m // PACKED_B_ROWS)
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
                job.help()
            # drop the job while asleep: its product may refer to a variable's buffer, which an
            # in-place update donates only when nothing else refers to it (steps.owned)
            job = None

    def run(self, job):
        self.job = job
        for lock in self.wake:
            if lock.locked():
                try:
                    lock.release()
                except RuntimeError:  # a helper woke in between
                    pass
        try:
            job.lead()
        finally:
            self.job = None


_FREE, _CLAIMED, _DONE = range(3)


class _Job:
    """One product's blocks, claimed by the calling thread and the helpers.

    A helper computes its block into a scratch array of its own and copies it
    into the result only if the block is not done yet. The caller computes its
    blocks straight into the result; when none is left to claim it waits for the
    helpers' blocks about as long as one of its own took, then computes a block a
    helper still holds itself (a backup task: a helper that a busy machine has
    descheduled must not hold up the product for its time slice). Whichever
    copy of a block finishes first is the one kept -- both hold the same bits --
    and a late helper never writes into a result that has been returned."""

    __slots__ = ("product", "edges", "state", "left", "cond", "error", "seats")

    def __init__(self, product, edges, helpers=MAX_BLOCKS):
        self.product, self.edges = product, edges
        self.seats = helpers  # helpers that may still join (limit_threads)
        self.state = [_FREE] * (len(edges) - 1)
        self.left = len(edges) - 1
        self.cond = threading.Condition(threading.Lock())
        self.error = None

    def _claim(self):
        with self.cond:
            for i, s in enumerate(self.state):
                if s == _FREE:
                    self.state[i] = _CLAIMED
                    return i
        return None

    def _finish(self, i, scratch=None, error=None):
        with self.cond:
            if self.state[i] == _DONE:
                return
            if error is not None:
                self.error = error
            elif scratch is not None:
                self.product.store(self.edges[i], self.edges[i + 1], scratch)
            self.state[i] = _DONE
            self.left -= 1
            if not self.left:
                self.cond.notify_all()

    def _backup(self, i):
        try:
            scratch = self.product.scratch(self.edges[i], self.edges[i + 1])
        except BaseException as e:  # noqa: BLE001 -- reported by the caller
            self._finish(i, error=e)
        else:
            self._finish(i, scratch)

    def help(self):
        """A helper's share: free blocks, each into scratch."""
        with self.cond:
            if self.seats <= 0:
                return
            self.seats -= 1
        while (i := self._claim()) is not None:
            self._backup(i)

    def lead(self):
        """The caller's share: free blocks into the result, then backups of late
        helpers' blocks; returns (or raises a block's error) when every block is done."""
        spent, count = 0.0, 0
        while (i := self._claim()) is not None:
            start = time.perf_counter()
            try:
                self.product.into_result(self.edges[i], self.edges[i + 1])
            except BaseException as e:  # noqa: BLE001 -- raised below, once every block is done
                self._finish(i, error=e)
            else:
                self._finish(i)
            spent += time.perf_counter() - start
            count += 1
        patience = spent / count if count else 1e-3
        while True:
            with self.cond:
                if not self.left or self.cond.wait_for(lambda: not self.left, timeout=patience):
                    break
                late = self.state.index(_CLAIMED)
            self._backup(late)
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


class _Alias:
    """The memory of a read-only array as an array Numba types like any other
    (``__array_interface__`` with the read-only flag off): the kernel reads A and
    B and never writes them, and one compiled kernel per dtype serves both."""

    def __init__(self, x):
        self.x = x  # keeps the memory alive
        face = dict(x.__array_interface__)
        face["data"] = (face["data"][0], False)
        self.__array_interface__ = face


def writable(x):
    """x itself, or (read-only x) a view of its memory that Numba types as any
    other array: one compiled loop serves both (the loops never write it)."""
    return x if x.flags.writeable else np.asarray(_Alias(x))


def _flat(x):
    """``(flat, row stride, column stride)``: a 2-D array as a 1-D view from its
    first element with its strides in elements; None when its strides are
    negative or not whole elements (the caller copies it)."""
    if not x.flags.writeable:
        x = np.asarray(_Alias(x))
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


class _Product:
    """Row (axis 0) or column (axis 1) blocks ``lo:hi`` of ``out = a @ b``:
    :meth:`into_result` writes one into ``out``, :meth:`scratch` returns one apart
    and :meth:`store` copies that into ``out`` (see :func:`run_blocks`)."""

    def __init__(self, out, axis):
        self.out, self.axis = out, axis

    def store(self, lo, hi, scratch):
        if self.axis == 0:
            self.out[lo:hi] = scratch
        else:
            self.out[:, lo:hi] = scratch


class _KernelProduct(_Product):
    """The blocks by :func:`gemm_kernel.gemm`."""

    def __init__(self, a, b, out, axis):
        super().__init__(out, axis)
        self.fa, self.sa0, self.sa1 = _flat(a) or _flat(np.ascontiguousarray(a))
        self.fb, self.sb0, self.sb1 = _flat(b) or _flat(np.ascontiguousarray(b))
        self.fc, self.sc0, self.sc1 = _flat(out)
        self.k = a.shape[1]
        self.nr = 2 * gemm_kernel.WIDTH[out.dtype]

    def _run(self, lo, hi, c, c0, sc0, sc1):
        m, n = self.out.shape
        if self.axis == 0:
            gemm_kernel.gemm(hi - lo, n, self.k, self.fa, lo * self.sa0, self.sa0, self.sa1,
                             self.fb, 0, self.sb0, self.sb1, c, c0, sc0, sc1, self.nr)
        else:
            gemm_kernel.gemm(m, hi - lo, self.k, self.fa, 0, self.sa0, self.sa1,
                             self.fb, lo * self.sb1, self.sb0, self.sb1, c, c0, sc0, sc1, self.nr)

    def into_result(self, lo, hi):
        self._run(lo, hi, self.fc, lo * (self.sc0 if self.axis == 0 else self.sc1), self.sc0, self.sc1)

    def scratch(self, lo, hi):
        m, n = self.out.shape
        shape = (hi - lo, n) if self.axis == 0 else (m, hi - lo)
        scratch = np.empty(shape, self.out.dtype)
        self._run(lo, hi, scratch.reshape(-1), 0, shape[1], 1)
        return scratch


class _LlvmProduct(_Product):
    """The blocks by :func:`gemm_llvm.gemm` (the kernel's micro-kernels built by llvmlite:
    no Numba compilation, so an empty Numba cache costs a first product ~0.1 s per
    micro-kernel size, a warm one milliseconds)."""

    def __init__(self, a, b, out, axis):
        super().__init__(out, axis)
        self.a, self.b = a, b

    def _parts(self, lo, hi):
        return (self.a[lo:hi], self.b) if self.axis == 0 else (self.a, self.b[:, lo:hi])

    def into_result(self, lo, hi):
        gemm_llvm.gemm(*self._parts(lo, hi), self.out[lo:hi] if self.axis == 0 else self.out[:, lo:hi])

    def scratch(self, lo, hi):
        a, b = self._parts(lo, hi)
        return gemm_llvm.gemm(a, b, np.empty((a.shape[0], b.shape[1]), self.out.dtype))


def _sample_kernel_products():
    """:class:`_KernelProduct` in float32 and float64, on C-ordered and transposed A, row
    and column blocks (the types of every call): the Numba driver's background build."""
    for dtype in (np.float32, np.float64):
        a, b = np.ones((8, 8), dtype), np.ones((8, 8), dtype)
        for x in (a, a.T):
            _KernelProduct(x, b, np.empty((8, 8), dtype), 0).into_result(0, 8)
            _KernelProduct(x, b, np.empty((8, 8), dtype), 1).scratch(0, 8)


_jit.compiles_in_background(gemm_kernel.gemm, _sample_kernel_products)


def _numba_driver() -> bool:
    """Whether :func:`matmul` runs its kernel products on :func:`gemm_kernel.gemm` (see
    :data:`_DRIVER`); asking starts its background build."""
    if _DRIVER or _jit.DISABLE:  # (REF_DISABLE_JIT: llvmlite's build, not a Python loop)
        return _NUMBA_DRIVER
    return _jit.ready(gemm_kernel.gemm)


PRODUCT_OPS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Conv2D",
                         "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative"})
"""Op types whose float32 kernels multiply on ``ref``'s kernel (:func:`prefetch`)."""


def prefetch(op_types):
    """Before the first step of a graph with any of :data:`PRODUCT_OPS` among
    ``op_types`` (a ``Session`` is made): the float32 llvmlite product modules build,
    or load from their disk cache, on a background thread (``gemm_llvm.prefetch``),
    so that a first product with an empty cache does not compile them itself. Not
    with ``REF_MATMUL=numpy``, ``REF_GEMM_DRIVER=numba``, or the NumPy forms off
    (``REF_NUMPY_MAX=0``: steady-state benchmarks, ``python -m ref warmup``)."""
    if not _OWN_KERNEL or _NUMBA_DRIVER or _jit.NUMPY_MAX <= 0 or _WORKERS <= 0:
        return
    if any(t in PRODUCT_OPS for t in op_types):
        try:
            gemm_llvm.prefetch(np.float32)
        except Exception:  # noqa: BLE001 -- no llvmlite build here: the first product reports it
            pass


class _NumpyProduct(_Product):
    """The blocks by NumPy's (single-threaded) BLAS (``REF_MATMUL=numpy``)."""

    def __init__(self, a, b, out, axis):
        super().__init__(out, axis)
        self.a, self.b = a, b

    def _parts(self, lo, hi):
        return (self.a[lo:hi], self.b) if self.axis == 0 else (self.a, self.b[:, lo:hi])

    def into_result(self, lo, hi):
        np.matmul(*self._parts(lo, hi), out=self.out[lo:hi] if self.axis == 0 else self.out[:, lo:hi])

    def scratch(self, lo, hi):
        return np.matmul(*self._parts(lo, hi))


class _Calls:
    """Blocks that are whole calls: block ``i`` (``edges`` 0, 1, 2, ...) is ``calls[i]()``."""

    def __init__(self, calls):
        self.calls = calls
        self.results = [None] * len(calls)

    def into_result(self, i, _):
        self.results[i] = self.calls[i]()

    def scratch(self, i, _):
        return self.calls[i]()

    def store(self, i, _, value):
        self.results[i] = value


def run_blocks(product, edges):
    """Blocks ``edges[i]:edges[i + 1]`` of some work on ``ref``'s matrix threads, as
    :func:`matmul` runs a product's: ``product.into_result(lo, hi)`` does a block
    in place, ``product.scratch(lo, hi)`` returns it computed apart and
    ``product.store(lo, hi, scratch)`` puts that in place (a helper's blocks, and
    the caller's backups of late ones: so a block must be a pure function of its
    bounds). One after the other, in place, with one block or one thread
    (:func:`limit_threads`), inside ``flush_denormals`` (its setting is the calling
    thread's) or while another product holds the helpers (another thread's, or the
    one this block belongs to)."""
    threads = getattr(_LOCAL, "workers", _WORKERS)
    if len(edges) <= 2 or threads <= 1 or _fp.active() or not _RUN_LOCK.acquire(False):
        for lo, hi in zip(edges, edges[1:]):
            product.into_result(lo, hi)
        return
    try:
        _pool().run(_Job(product, edges, threads - 1))
    finally:
        _RUN_LOCK.release()


def concurrently(calls):
    """``[call() for call in calls]``, the calls made at once on ``ref``'s matrix
    threads (:func:`run_blocks`; the caller makes the first, and each must be a
    pure function). A call's error is raised once all are done."""
    product = _Calls(calls)
    run_blocks(product, list(range(len(calls) + 1)))
    return product.results


def _large(m, k, n, dtype) -> bool:
    """Whether an ``[m, k] @ [k, n]`` product of ``dtype`` is one :func:`matmul` runs
    itself (ref's kernel, or NumPy's BLAS in blocks); else it is ``np.matmul``."""
    return _WORKERS > 0 and m * n * k > SERIAL_WORK and np.dtype(dtype) in _BLAS_DTYPES


def uses_kernel(m, k, n, dtype) -> bool:
    """Whether an ``[m, k] @ [k, n]`` product of ``dtype`` goes to ``ref``'s kernel
    (a large one too narrow for it goes to NumPy's BLAS in blocks on ref's threads)."""
    return _OWN_KERNEL and min(m, k) >= KERNEL_MIN_SIDE and n >= KERNEL_MIN_COLUMNS and _large(m, k, n, dtype)


def one_thread(m, k, n, dtype) -> bool:
    """Whether an ``[m, k] @ [k, n]`` product goes to ``ref``'s kernel as one block
    (on the calling thread alone), of at least :data:`PAIR_MIN_WORK` multiply-adds:
    one that :func:`concurrently` may run beside another."""
    return m * k * n >= PAIR_MIN_WORK and uses_kernel(m, k, n, dtype) and blocks(m, n, k)[1] is None


def matmul(a, b, out=None):
    """``a @ b`` for 2-D arrays (views such as ``x.T`` are read in place), large
    float products on ``ref``'s kernel in blocks as described in the module
    docstring; written into ``out`` (C-contiguous, the result's shape and
    dtype) when given."""
    m, k = a.shape
    n = b.shape[1]
    if (b.shape[0] != k or a.dtype != b.dtype or not _large(m, k, n, a.dtype)
            or (out is not None and (out.dtype != a.dtype or not out.flags.c_contiguous))):
        return np.matmul(a, b, out=out)
    kernel = uses_kernel(m, k, n, a.dtype)
    numba_driver = kernel and _numba_driver()
    # a small float32 product whose llvmlite modules are not built yet (they build in the
    # background, ``gemm_llvm.prepared``): its bits in NumPy
    if kernel and not numba_driver and a.dtype == np.float32 and m * n * k <= gemm_kernel.FORM_MAX_WORK \
            and not _fp.active() and _jit.NUMPY_MAX > 0 \
            and not gemm_llvm.prepared(a.dtype, gemm_llvm.rows_needed(a)):
        return gemm_kernel.fused_chain_numpy(a, b, np.empty((m, n), a.dtype) if out is None else out)
    blas = None if kernel else _openblas()
    if blas is False:
        return np.matmul(a, b, out=out)
    if out is None:
        out = np.empty((m, n), a.dtype)
    axis, edges = blocks(m, n, k, None if kernel else MAX_BLOCKS)
    if edges is None:
        axis, edges = 0, [0, m]
    if kernel:
        run_blocks((_KernelProduct if numba_driver else _LlvmProduct)(a, b, out, axis), edges)
        return out
    with _one_blas_thread(blas):
        run_blocks(_NumpyProduct(a, b, out, axis), edges)
    return out


_BLAS_USERS = [0, None]  # products inside _one_blas_thread now, and BLAS's thread count before the first


@contextlib.contextmanager
def _one_blas_thread(blas):
    """NumPy's BLAS on one thread while any of ``ref``'s BLAS products runs (its
    setting is one for the process: the first product in sets it, the last out
    puts it back). Its own threads spin while they wait, and stall a product
    when the cores are busy; ``ref``'s threads run the blocks instead."""
    with _BLAS_LOCK:
        if _BLAS_USERS[0] == 0:
            _BLAS_USERS[1] = blas[1]()
            blas[0](1)
        _BLAS_USERS[0] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS[0] -= 1
            if _BLAS_USERS[0] == 0:
                blas[0](_BLAS_USERS[1])
