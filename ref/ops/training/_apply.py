"""What every training kernel (``Apply*`` / ``SparseApply*``) does around its arithmetic.

* Run-time checks with TensorFlow's messages (training_ops.cc): hyperparameters
  are scalars, slots and the gradient have ``var``'s shape, sparse indices are
  a vector of in-range row numbers.
* Hyperparameters become scalars of ``var``'s dtype (a Python ``0.1`` given to a
  float32 kernel is ``float32(0.1)``, never a float64 that would promote).
* Outputs: new arrays, or the caller's ``out=`` buffers (which may be the
  inputs themselves: the interpreter's in-place update).
* Dispatch: float32/float64 run the Numba loop; float16, bfloat16 and complex
  run the same scalar update on whole NumPy arrays (NumPy rounds each float16
  operation to half, as Eigen does).
* Loops: the arithmetic is written once, as a scalar ``*_update`` function;
  :func:`dense_loop` and :func:`sparse_loop` generate the Numba CPU loops from
  it, as :mod:`ref.ops._cuda` generates the GPU loop from the same function.
* GPU: :func:`gpu_dense` makes the GPU form of a dense kernel: the same checks
  and hyperparameter arithmetic, then the same scalar update in a CUDA loop
  (:mod:`ref.ops._cuda`); :func:`declare` registers it as the op's ``gpu=`` kernel.

Shape rules for graph construction live here too (:func:`dense_rule`,
:func:`sparse_rule`, :func:`declare`).
"""
from __future__ import annotations

import dis
import threading
import types

import numpy as np

from ref.ops import _jit, fpenv as _fp, gemm, registry
from ref.ops._cuda import cuda_elementwise, to_host
from ref.ops._jit import LazyKernel, njit, njit_sized, numpy_tier, prange, run_numpy_form
from ref.types import dtypes
from ref.types.shapes import TensorShape

FAST = (np.dtype(np.float32), np.dtype(np.float64))


@njit(inline="always")
def where(cond, a, b):
    """``cond ? a : b`` on scalars (Eigen's ``select``); ``np.where`` on arrays."""
    return a if cond else b


_NUMPY_HELPERS = {"where": np.where}
_FORMS: dict = {}


def numpy_form(update):
    """The scalar update as a function of whole NumPy arrays (float16, complex)."""
    form = _FORMS.get(update)
    if form is None:
        fn = update.py_func if isinstance(update, LazyKernel) else update
        glb = dict(fn.__globals__)
        for name in fn.__code__.co_names:
            if name in _NUMPY_HELPERS:
                glb[name] = _NUMPY_HELPERS[name]
        form = _FORMS.setdefault(update, types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__,
                                                            fn.__closure__))
    return form


_EXACT_NAMES = frozenset({"np", "sqrt", "where"})
_EXACT: dict = {}


def numpy_exact(update) -> bool:
    """Whether :func:`numpy_form` of ``update`` gives the Numba loop's bits on
    float32/float64 arrays: it calls nothing but ``np.sqrt`` and ``where``
    (correctly rounded, or exact) and raises nothing to a power (``**`` is
    libm's ``pow`` in Numba, NumPy's own in NumPy); ``+ - * /`` are IEEE in
    both, done in the same order and type (the scalars are of the arrays'
    dtype, ``T(...)`` constants too)."""
    exact = _EXACT.get(update)
    if exact is None:
        code = (update.py_func if isinstance(update, LazyKernel) else update).__code__
        power = any(i.opname in ("BINARY_POWER", "INPLACE_POWER") or (i.opname == "BINARY_OP" and "**" in i.argrepr)
                    for i in dis.get_instructions(code))
        exact = set(code.co_names) <= _EXACT_NAMES and not power
        _EXACT[update] = exact
    return exact


def _run_numpy_form(update, work, grad, params, T):
    token = _fp.ignore_errors()  # Numba's loops raise no floating-point warnings
    try:
        new = numpy_form(update)(*work, grad, *params, T)
    finally:
        _fp.restore_errors(token)
    for w, n in zip(work, new):
        w[...] = n  # np.copyto(w, n, casting="unsafe"), at a third of its cost


# -- the CPU loops: one template, filled with each algorithm's scalar update ---------
#
# A generated loop is compiled as if it were written in its update's module file
# (adam.py for _adam_loop): Numba's on-disk cache (cache=True) finds a function by
# file, qualname and line, and drops the entries when that file changes -- the file
# holding the arithmetic the loop inlines. Its key also holds the loop's bytecode,
# so a change to this template misses the cache too. Names are fixed by the update's
# name and checked unique per file; _jit gives the parallel build its own name.

_LOOPS: dict = {}
"""(file, name) -> source of every generated loop (two loops of one file must never share a name)."""


def _update_arguments(update):
    """``(refs, grad, params)``: the scalar update's argument names, which are
    ``(updated values..., grad or delta, scalar parameters..., T)``."""
    code = (update.py_func if isinstance(update, LazyKernel) else update).__code__
    names = code.co_varnames[:code.co_argcount]
    grads = [k for k, n in enumerate(names) if n in ("grad", "delta")]
    if not grads or names[-1] != "T" or {"i", "j", "r", "indices"} & set(names):
        raise ValueError(f"{update.__name__}{names}: a scalar update takes (values..., grad, params..., T)")
    k = grads[0]
    return names[:k], names[k], names[k + 1:-1]


def _loop_name(update, sparse):
    base = update.__name__.removesuffix("_update")
    return f"_{'sparse_' if sparse and not base.startswith('sparse_') else ''}{base}_loop"


def _call_line(update, refs, grad, params, at, grad_at, indent):
    lhs = ", ".join(f"{r}[{at}]" for r in refs) + ("," if len(refs) == 1 else "")
    args = ", ".join([f"{r}[{at}]" for r in refs] + [f"{grad}[{grad_at}]", *params, "T"])
    return f"{indent}{'(' + lhs + ')' if len(refs) == 1 else lhs} = {update.__name__}({args})\n"


def _generate(update, name, source, jit, constants=None):
    """``source`` compiled as if it were written in the update's own file (see above)
    and wrapped by ``jit``; the source is kept as the loop's docstring and as its
    ``source`` attribute (a traceback through a loop run as Python, under
    REF_DISABLE_JIT=1, names lines of the generated source, not of that file)."""
    py = update.py_func if isinstance(update, LazyKernel) else update
    filename = py.__code__.co_filename
    if _LOOPS.setdefault((filename, name), source) != source:
        raise ValueError(f"two different loops named {name} in {filename}")
    namespace = {"__name__": py.__module__, update.__name__: update, "prange": prange, **(constants or {})}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    fn = namespace[name]
    fn.__doc__ = f"Generated from ``{update.__name__}`` (ref.ops.training._apply)::\n\n" + \
        "".join("    " + line + "\n" for line in source.splitlines())
    kernel = jit(fn)
    kernel.source = source
    return kernel


def dense_loop(update, constants=None, cases=()):
    """The Numba CPU loop of the scalar ``update`` over flat arrays, updating them in place::

        @njit_sized
        def _adam_loop(var, m, v, grad, alpha, beta1, beta2, epsilon, use_nesterov, T):
            for i in prange(var.size):
                var[i], m[i], v[i] = adam_update(var[i], m[i], v[i], grad[i], alpha, beta1, beta2,
                                                 epsilon, use_nesterov, T)

    ``constants`` ({parameter: value}) are written into the call as literals.
    ``cases`` (each a {flag parameter: value} dict) give the loop one copy per case,
    taken when the flags have those values, with the flags as literals, so that
    Numba folds the branches they select and the common variants vectorise (FTRL);
    any other combination runs the general copy. The loop is named after the update
    (``adam_update`` -> ``_adam_loop``), serial below ``REF_PARALLEL_MIN`` elements
    and parallel above (:func:`ref.ops._jit.njit_sized`)."""
    refs, grad, params = _update_arguments(update)
    name = _loop_name(update, sparse=False)
    constants = dict(constants or {})

    def loop(indent, fixed):
        args = [repr(fixed[p]) if p in fixed else p for p in params]
        return (f"{indent}for i in prange({refs[0]}.size):\n"
                + _call_line(update, refs, grad, args, "i", "i", indent + "    "))

    source = f"def {name}({', '.join([*refs, grad, *params, 'T'])}):\n"
    for k, case in enumerate(cases):
        test = " and ".join(p if v is True else f"not {p}" if v is False else f"{p} == {v!r}" for p, v in case.items())
        source += f"    {'if' if k == 0 else 'elif'} {test}:\n" + loop("        ", {**constants, **case})
    source += ("    else:\n" + loop("        ", constants)) if cases else loop("    ", constants)
    kernel = _generate(update, name, source, njit_sized)
    # Its NumPy form (numpy_form(update), where numpy_exact) is whole-array operations:
    # it serves variables of any size until Numba has built the loop (ref.ops._jit.numpy_tier).
    kernel.serial.any_size = True
    # The same loop without the GIL, under a name of its own (Numba's on-disk cache keys a
    # function by its name and bytecode, not by its options): run in blocks on ref's
    # matrix threads for a large in-place update (:class:`_DenseBlocks`).
    # One per element type, T a global of its source (a compile-time constant: Numba types
    # a class argument slowly on every call).
    kernel.blocks = {}
    for T in (np.float32, np.float64):
        blocks = f"{name}_nogil_{T.__name__}"
        kernel.blocks[np.dtype(T)] = _generate(
            update, blocks, source.replace(f"def {name}(", f"def {blocks}(", 1).replace(", T):", "):", 1),
            lambda fn: njit(fn, nogil=True), {"T": T})
    return kernel


class _DenseBlocks:
    """Elements ``lo:hi`` of a dense in-place update, for ``gemm.run_blocks``: each
    element is a function of its own elements alone, so the blocks give the bits of
    one serial loop. The caller updates its blocks in place; a helper (or the caller
    backing up a late helper) updates copies, which the first to finish stores, so a
    block's inputs are never half-updated while someone reads them."""

    def __init__(self, kernel, refs, grad, params):
        self.kernel, self.refs, self.grad, self.params = kernel, refs, grad, params

    def run(self):
        n = self.grad.size
        parts = gemm.workers()
        gemm.run_blocks(self, [n * i // parts for i in range(parts + 1)])

    def into_result(self, lo, hi):
        self.kernel(*[r[lo:hi] for r in self.refs], self.grad[lo:hi], *self.params)

    def scratch(self, lo, hi):
        work = [r[lo:hi].copy() for r in self.refs]
        self.kernel(*work, self.grad[lo:hi], *self.params)
        return work

    def store(self, lo, hi, work):
        for r, w in zip(self.refs, work):
            r[lo:hi] = w


def _sample(loop, dtype, nrefs, params):
    """The background build of a dense update's loops (``_jit.compiles_in_background``):
    those :func:`run_dense` calls -- the serial loop's wrapper, the no-GIL loop of
    :class:`_DenseBlocks` (a Session's in-place update of a large variable) and the
    parallel loop (an update into new arrays of a large one) -- on small arrays of
    ``dtype``, with ``params`` themselves (their types are the calls')."""
    def sample():
        refs, grad = [np.zeros(8, dtype) for _ in range(nrefs)], np.zeros(8, dtype)
        loop.bound(dtype.type, nrefs + 1 + len(params), 0)(*refs, grad, *params)
        loop.blocks[dtype](*refs, grad, *params)
        if not _jit.DISABLE:
            loop.parallel(*refs, grad, *params, dtype.type)

    return sample


def _in_blocks(loop, size):
    """Whether a large in-place update runs in blocks on ref's matrix threads (each
    with a backup: a descheduled helper never holds the step up) rather than as
    Numba's parallel loop, whose threads all wait for the slowest one."""
    return (size >= _jit.PARALLEL_MIN and not _jit.DISABLE and gemm.workers() > 1 and not _fp.active()
            and hasattr(loop, "blocks"))


def sparse_loop(update):
    """The Numba CPU loop applying the scalar ``update`` to rows ``indices[i]`` of 2-d
    arrays (``[rows, inner]``), with gradient row ``i``, one index after another::

        @njit
        def _sparse_adadelta_loop(var, accum, accum_update, grad, indices, lr, rho, epsilon, T):
            for i in range(indices.size):  # index order: duplicates apply one after another
                r = indices[i]
                for j in range(var.shape[1]):
                    var[r, j], accum[r, j], accum_update[r, j] = adadelta_update(
                        var[r, j], accum[r, j], accum_update[r, j], grad[i, j], lr, rho, epsilon, T)

    Named after the update (``ftrl_update`` -> ``_sparse_ftrl_loop``,
    ``sparse_momentum_update`` -> ``_sparse_momentum_loop``)."""
    refs, grad, params = _update_arguments(update)
    name = _loop_name(update, sparse=True)
    source = (f"def {name}({', '.join([*refs, grad, 'indices', *params, 'T'])}):\n"
              f"    for i in range(indices.size):  # index order: duplicates apply one after another\n"
              f"        r = indices[i]\n"
              f"        for j in range({refs[0]}.shape[1]):\n"
              + _call_line(update, refs, grad, params, "r, j", "i, j", "            "))
    return _generate(update, name, source, njit)


# -- run-time checks ------------------------------------------------------------

def shape_str(shape) -> str:
    """TensorShape::DebugString: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def scalars(dtype, **values):
    """Hyperparameters as scalars of ``dtype``; InvalidArgument for a non-scalar."""
    t = dtype.type if isinstance(dtype, np.dtype) else np.dtype(dtype).type
    out = []
    for name, x in values.items():
        if x.__class__ is t:  # already a scalar of the dtype
            out.append(x)
            continue
        if x.__class__ is np.ndarray and x.ndim == 0 and x.dtype.type is t:  # a graph constant: the common case
            out.append(x[()])
            continue
        a = np.asarray(x)
        if a.ndim != 0:
            raise registry.invalid_argument(f"{name} is not a scalar: {shape_str(a.shape)}")
        out.append(t(a[()]) if a.dtype != dtype else a[()])
    return out


def check_dense(var, grad, **slots):
    """Slots and grad must have var's shape (TF's message, no space before the shapes)."""
    var = np.asarray(var)
    for name, s in (*slots.items(), ("grad", grad)):
        if s.__class__ is not np.ndarray:
            s = np.asarray(s)
        if s.shape != var.shape:
            raise registry.invalid_argument(
                f"var and {name} do not have the same shape{shape_str(var.shape)} {shape_str(s.shape)}")
        if s.dtype != var.dtype:
            raise registry.invalid_argument(f"{name} has dtype {s.dtype}, var has {var.dtype}")
    _check_dtype(var)


def check_sparse(var, grad, indices, **slots):
    """TF's SparseApply* checks, in TF's order; indices are validated before anything is written."""
    var, grad, indices = np.asarray(var), np.asarray(grad), np.asarray(indices)
    for name, s in slots.items():
        s = np.asarray(s)
        if s.shape != var.shape:
            raise registry.invalid_argument(
                f"var and {name} do not have the same shape{shape_str(var.shape)} {shape_str(s.shape)}")
    if var.ndim < 1:
        raise registry.invalid_argument("var must be at least 1 dimensional")
    if indices.ndim != 1:
        raise registry.invalid_argument("indices must be one-dimensional")
    if indices.dtype not in (np.int32, np.int64):
        raise registry.invalid_argument(f"indices must be int32 or int64, got {indices.dtype}")
    if grad.ndim != var.ndim:
        raise registry.invalid_argument(f"var and grad must have the same rank{shape_str(var.shape)} "
                                        f"{shape_str(grad.shape)}")
    for d in range(1, var.ndim):
        if var.shape[d] != grad.shape[d]:
            raise registry.invalid_argument(f"var and grad must match in dimension {d}")
    if grad.shape[0] != indices.shape[0]:
        raise registry.invalid_argument("grad must be the same size as indices in the first dimension.")
    bad = np.flatnonzero((indices < 0) | (indices >= var.shape[0]))
    if bad.size:
        i = int(bad[0])
        raise registry.invalid_argument(f"Index {int(indices[i])} at offset {i} in indices is out of range")
    _check_dtype(var)


def _check_dtype(var):
    if var.dtype.kind not in "fcV" and var.dtype != dtypes.bfloat16.as_numpy_dtype:
        raise registry.invalid_argument(f"no training kernel for dtype {var.dtype}")


# -- outputs and dispatch -------------------------------------------------------

def _outputs(out, refs, copy):
    if out is None:
        return [r.copy() if copy else np.empty_like(r) for r in refs]
    if len(out) == len(refs) and all([o is r for o, r in zip(out, refs)]):
        return list(out)  # in place on the inputs themselves (a Session's update): nothing to check or copy
    if len(out) != len(refs):
        raise ValueError(f"out= needs {len(refs)} buffers, got {len(out)}")
    for o, r in zip(out, refs):
        if o.shape != r.shape or o.dtype != r.dtype:
            raise ValueError(f"out buffer {o.dtype}{shape_str(o.shape)} does not match {r.dtype}{shape_str(r.shape)}")
        if copy and o is not r:
            np.copyto(o, r)
    return list(out)


class _Device(threading.local):
    gpu: object = False  # True, a Capture, or False; a class default: reading it needs no failed attribute lookup


_DEVICE = _Device()
"""``_DEVICE.gpu`` is True while a :func:`gpu_dense` kernel runs (in this thread)."""


def gpu_dense(kernel):
    """The GPU form of ``kernel``, a dense training kernel that ends in :func:`run_dense`.

    Same arguments, checks, hyperparameter arithmetic and results (new host
    arrays, or the host ``out=`` buffers); :func:`run_dense` hands the scalar
    update to a CUDA loop instead of the Numba CPU loop. CUDA device arrays are
    accepted anywhere an array is (copied to the host first: the kernels' checks
    read them). float32 and float64 only: other dtypes raise TypeError.
    """
    def gpu_kernel(*args, **kwargs):
        args = [to_host(a) for a in args]
        kwargs = {k: to_host(v) for k, v in kwargs.items()}
        previous = getattr(_DEVICE, "gpu", False)
        _DEVICE.gpu = True
        try:
            return kernel(*args, **kwargs)
        finally:
            _DEVICE.gpu = previous

    gpu_kernel.__name__ = f"gpu_{kernel.__name__}"
    gpu_kernel.__qualname__ = f"gpu_{kernel.__qualname__}"
    gpu_kernel.__doc__ = f"GPU form of {kernel.__qualname__} (see _apply.gpu_dense)."
    gpu_kernel.__wrapped__ = kernel
    return gpu_kernel


class Capture:
    """What a training kernel hands its loop: the scalar ``update`` and its ``params``
    (the hyperparameters after the kernel's checks and arithmetic). While
    :func:`capturing` runs a kernel, :func:`run_dense` / :func:`run_sparse` record
    them instead of updating anything, and return ``refs`` unchanged: the device
    kernels of :mod:`ref.ops.gpu_training` then run ``update`` on device arrays."""

    def __init__(self):
        self.update = self.params = None

    def take(self, update, refs, params):
        self.update, self.params = update, tuple(params)
        return tuple(refs)


def capturing(kernel, **kwargs) -> Capture:
    """``kernel(**kwargs)`` run for its checks and hyperparameter arithmetic only
    (see :class:`Capture`); its arrays may be stand-ins of the right shape and dtype
    (``np.broadcast_to``): nothing is read from them but their shapes (and the
    indices' values, which a stand-in of zeros passes)."""
    cap = Capture()
    previous = _DEVICE.gpu
    _DEVICE.gpu = cap
    try:
        kernel(**kwargs)
    finally:
        _DEVICE.gpu = previous
    if cap.update is None:
        raise TypeError(f"{getattr(kernel, '__name__', kernel)} ran no training loop")
    return cap


def _run_dense_gpu(update, refs, grad, params, out):
    dtype = refs[0].dtype
    if dtype not in FAST:
        raise TypeError(f"no GPU kernel for dtype {dtype} (float32 and float64 only)")
    outs = _outputs(out, refs, copy=False)
    cuda_elementwise(update, len(refs))(refs, grad, params, dtype.type, outs)
    return tuple(outs)


def _own_contiguous(out, refs) -> bool:
    """Whether the ``out`` buffers are the arrays ``refs`` themselves, each a C-contiguous ndarray."""
    for o, r in zip(out, refs):
        if o is not r or o.__class__ is not np.ndarray or not o.flags.c_contiguous:
            return False
    return True


def run_dense(loop, update, refs, grad, params, out=None):
    """new (var, slots...) = update(var, slots..., grad, *params, T), element-wise.

    ``loop(var, slots..., grad, *params, T)`` is the Numba loop over flat arrays,
    updating var and slots in place (few distinct written arrays keep LLVM's
    run-time alias checks within its limit, so the loop vectorises); the new
    values are first copied into fresh arrays or ``out`` unless ``out`` is the
    inputs themselves. ``update`` is the scalar function the loop inlines.
    """
    if out is not None and grad.__class__ is np.ndarray and grad.flags.c_contiguous and len(out) == len(refs):
        # A Session's in-place update: out= is the stored arrays themselves, contiguous, float32/64
        # (the kernel has checked that grad and the slots have var's shape and dtype).
        dtype = refs[0].dtype
        if dtype in FAST and _own_contiguous(out, refs) and not _DEVICE.gpu:
            T = dtype.type
            if numpy_tier(loop, grad.size) and numpy_exact(update):  # Numba not loaded yet
                if loop.serial.sample is None:
                    _jit.compiles_in_background(loop, _sample(loop, dtype, len(out), params), any_size=True)
                # element-wise on the arrays as they are: no flat views needed
                run_numpy_form(loop, _run_numpy_form, update, out, grad, params, T)
            elif _in_blocks(loop, grad.size):
                _DenseBlocks(loop.blocks[dtype], [o.ravel() for o in out], grad.ravel(), params).run()
            else:  # the loop over flat views (ravel() of a C-contiguous array is one); serial where
                # products are held to one thread (limit_threads: intra_op_parallelism_threads=1)
                loop.bound(T, len(out) + 1 + len(params), grad.size if gemm.workers() > 1 else 0)(
                    *[o if o.ndim == 1 else o.ravel() for o in out], grad if grad.ndim == 1 else grad.ravel(), *params)
            return out if out.__class__ is tuple else tuple(out)
    refs = [np.asarray(r) for r in refs]
    grad = np.asarray(grad)
    if _DEVICE.gpu:
        if _DEVICE.gpu is not True:  # a Capture: the device kernel runs the update itself
            return _DEVICE.gpu.take(update, refs, params)
        return _run_dense_gpu(update, refs, grad, params, out)
    dtype = refs[0].dtype
    T = dtype.type
    if dtype in FAST:
        outs = _outputs(out, refs, copy=True)
        direct = all([o.flags.c_contiguous for o in outs])
        work = [o.reshape(-1) for o in outs] if direct else [np.ascontiguousarray(o).reshape(-1) for o in outs]
        flat_grad = (grad if grad.flags.c_contiguous else np.ascontiguousarray(grad)).reshape(-1)
        if numpy_tier(loop, flat_grad.size) and numpy_exact(update):  # Numba not loaded yet
            if loop.serial.sample is None:
                _jit.compiles_in_background(loop, _sample(loop, dtype, len(work), params), any_size=True)
            run_numpy_form(loop, _run_numpy_form, update, work, flat_grad, params, T)
        else:
            loop(*work, flat_grad, *params, T)
        if not direct:
            for o, w in zip(outs, work):
                np.copyto(o, w.reshape(o.shape))
    else:
        outs = _outputs(out, refs, copy=False)
        new = numpy_form(update)(*refs, grad, *params, T)
        for o, n in zip(outs, new):
            np.copyto(o, np.asarray(n, dtype), casting="unsafe")
    return tuple(outs)


def run_sparse(loop, update, refs, grad, indices, params, out=None):
    """Rows ``indices[i]`` of (var, slots...) updated with ``grad[i]``, one index
    after another in index order (duplicates apply twice); other rows copied."""
    if _DEVICE.gpu.__class__ is Capture:
        return _DEVICE.gpu.take(update, refs, params)
    refs = [np.asarray(r) for r in refs]
    grad, indices = np.asarray(grad), np.asarray(indices)
    outs = _outputs(out, refs, copy=True)
    dtype = refs[0].dtype
    T = dtype.type
    rows = refs[0].shape[0]
    inner = int(np.prod(refs[0].shape[1:], dtype=np.int64))
    if indices.size == 0:
        return tuple(outs)
    g2 = np.ascontiguousarray(grad).reshape(indices.size, inner)
    direct = all(o.flags.c_contiguous for o in outs)
    work = [o.reshape(rows, inner) if direct else o.reshape(rows, inner).copy() for o in outs]
    if dtype in FAST:
        loop(*work, g2, indices, *params, T)
    else:
        fn = numpy_form(update)
        for i, r in enumerate(indices):
            new = fn(*(w[r] for w in work), g2[i], *params, T)
            for w, n in zip(work, new):
                w[r] = n
    if not direct:
        for o, w in zip(outs, work):
            np.copyto(o, w.reshape(o.shape))
    return tuple(outs)


# -- graph construction: shape rules and declarations -----------------------------

def _merge(a, b, op, names):
    if a.ndims is None or b.ndims is None:
        return a if b.ndims is None else b
    if a.ndims != b.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims} for '{op}' "
                         f"({names[0]} {a} vs {names[1]} {b})")
    dims = []
    for k, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {k} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {a} and {b}. for '{op}' ({names[0]} and {names[1]})")
        dims.append(x if x is not None else y)
    return TensorShape(dims)


def _check_scalars(ins, names, op):
    for n in names:
        s = ins[n].shape
        if s.ndims is not None and s.ndims != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {s.ndims} for '{op}' ({n} has shape {s})")


def dense_rule(refs, hypers, resource=False):
    """var, slots and grad agree; hyperparameters are scalars; output: var's shape."""

    def rule(ins, attrs):
        op = attrs.get("_op_name", "op")
        _check_scalars(ins, hypers, op)
        if resource:
            return []
        shape = ins["var"].shape
        for n in (*refs[1:], "grad"):
            shape = _merge(shape, ins[n].shape, op, ("var", n))
        return [(ins["var"].dtype, shape)]

    return rule


def sparse_rule(refs, hypers, resource=False):
    """slots agree with var; grad is [len(indices)] + var.shape[1:]; indices a vector."""

    def rule(ins, attrs):
        op = attrs.get("_op_name", "op")
        _check_scalars(ins, hypers, op)
        idx = ins["indices"].shape
        if idx.ndims is not None and idx.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {idx.ndims} for '{op}' (indices {idx})")
        if resource:
            return []
        shape = ins["var"].shape
        for n in refs[1:]:
            shape = _merge(shape, ins[n].shape, op, ("var", n))
        g = ins["grad"].shape
        if shape.ndims is not None and g.ndims is not None:
            _merge(TensorShape([None] + shape.as_list()[1:]), TensorShape([None] + g.as_list()[1:]),
                   op, ("var", "grad"))
            _merge(TensorShape(g.as_list()[:1]), TensorShape(idx.as_list()[:1]) if idx.ndims else
                   TensorShape([None]), op, ("grad", "indices"))
        return [(ins["var"].dtype, shape)]

    return rule


def declare(name, kernel, inputs, refs, hypers, attrs, allowed, sparse=False):
    """Registers ``name`` and ``Resource<name>`` (same kernel; the resource op has
    no outputs and its ref inputs are resource handles, outside ``T``). A dense
    op also gets its GPU kernel (:func:`gpu_dense`)."""
    rule = sparse_rule if sparse else dense_rule
    gpu = None if sparse else gpu_dense(kernel)
    floats = tuple(i for i in inputs if i != "indices")
    extra = {"Tindices": ("indices",)} if sparse else {}
    idx_allowed = {"Tindices": (dtypes.int32, dtypes.int64)} if sparse else {}
    registry.register_op(
        name, inputs=inputs, outputs=("out",), attrs=attrs,
        type_attrs={"T": floats, **extra}, allowed={"T": allowed, **idx_allowed},
        shape=rule(refs, hypers), refs=refs, ref_outputs={"out": "var"}, gpu=gpu)(kernel)
    registry.register_op(
        "Resource" + name, inputs=inputs, outputs=(), attrs=attrs,
        type_attrs={"T": tuple(i for i in floats if i not in refs), **extra},
        allowed={"T": allowed, **idx_allowed},
        shape=rule(refs, hypers, resource=True), refs=refs, gpu=gpu)(kernel)
