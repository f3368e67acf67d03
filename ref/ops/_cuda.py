"""Lazy CUDA kernels from the scalar update functions (``import ref`` never imports numba).

DESIGN.md, "Kernels": the arithmetic is written once, as a scalar
``@njit(inline="always")`` function; the CPU loops inline it, and
:func:`cuda_elementwise` loops the *same* function in a ``@cuda.jit`` kernel::

    kernel = cuda_elementwise(adam_update, n_refs=3)
    kernel(refs=(var, m, v), grad=grad, params=(alpha, beta1, beta2, epsilon, False),
           T=np.float32, outs=(new_var, new_m, new_v))

The kernel is a grid-stride loop over flat arrays; thread ``i`` does
``refs[k][i], ... = update(refs[0][i], ..., grad[i], *params, T)``. Nothing is
compiled (and numba.cuda is not imported) before the first call; each
(update, number of params, dtype) compiles once. Inputs are copied to the
device, the loop runs, results are copied back into the host ``outs``.

Device functions: on a real GPU the scalar function's Python code (its
``py_func``) is compiled with ``cuda.jit(device=True)``, and the scalar helpers
it calls (other lazy kernels, such as ``_apply.where``) are compiled the same
way and substituted, recursively. Under the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) the ``py_func`` runs as Python on NumPy scalars,
with the helpers' ``py_func`` substituted; float32 stays float32, so the
simulator reproduces the CPU kernels bit for bit (tests/ops/training/test_gpu_kernels.py).

Running on a real GPU
---------------------
1. ``pip install -e '.[cuda]'`` (the ``numba-cuda`` package: NVIDIA's CUDA
   target for Numba) on a machine with an NVIDIA driver; check with
   ``python -c "from numba import cuda; cuda.detect()"``.
2. Call a training op with ``device="gpu"``::

       from ref.ops import registry
       new_var, new_m, new_v = registry.call("ApplyAdam", device="gpu", var=var, m=m, v=v, ...)

   Arguments are NumPy arrays or CUDA device arrays (``cuda.to_device``);
   results are new NumPy arrays (``out=`` fills host buffers, as on the CPU).
3. Do not set ``NUMBA_ENABLE_CUDASIM``: it selects the simulator, which runs
   every GPU thread as Python (only for tests, on a few dozen elements).

float32 and float64 only (the dtypes of the CPU Numba loops); other dtypes
raise TypeError on the GPU path. The first call of each kernel pays for its
compilation (about a second); it is not cached across processes.
"""
from __future__ import annotations

import threading
import types

from ref.ops._jit import LazyKernel
import numpy as np

_LOCK = threading.RLock()
_DEVICE_FUNCS: dict = {}
_KERNELS: dict = {}
THREADS = 256
"""Threads per block on a real GPU (the simulator uses 32: each thread is a Python thread)."""
MAX_BLOCKS = 1024


def _cuda():
    """numba.cuda, imported on first use."""
    from numba import cuda

    return cuda


def simulating() -> bool:
    """True when numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1`` before numba's import)."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def _substituted(fn, convert):
    """``fn``'s code with every lazy kernel it names replaced by ``convert(kernel)``."""
    glb = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        val = glb.get(name)
        if isinstance(val, LazyKernel):
            glb[name] = convert(val)
    new = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    return new


def device_function(update):
    """``update`` (a lazy ``@njit`` scalar function, or a plain function) as a CUDA
    device function; under the simulator, its Python code with Python helpers."""
    key = (update, simulating())
    fn = _DEVICE_FUNCS.get(key)
    if fn is not None:
        return fn
    with _LOCK:
        py = update.py_func if isinstance(update, LazyKernel) else update
        if simulating():
            fn = _substituted(py, device_function)
        else:
            fn = _cuda().jit(device=True)(_substituted(py, device_function))
        return _DEVICE_FUNCS.setdefault(key, fn)


def _loop_source(n_refs, n_params):
    refs = [f"r{k}" for k in range(n_refs)]
    params = [f"p{k}" for k in range(n_params)]
    lhs = ", ".join(f"{r}[i]" for r in refs) + ("," if n_refs == 1 else "")
    call = ", ".join([f"{r}[i]" for r in refs] + ["g[i]"] + params + ["T"])
    return (f"def loop({', '.join(refs + ['g'] + params)}):\n"
            f"    start = cuda.grid(1)\n"
            f"    stride = cuda.gridsize(1)\n"
            f"    for i in range(start, g.size, stride):\n"
            f"        {lhs} = update({call})\n")


def _sparse_loop_source(n_refs, n_params):
    """Rows ``idx[i]`` of the flat ``(rows, inner)`` arrays updated with gradient row
    ``i``: one thread per column, the indices in order (duplicates apply one after
    another, as in the CPU ``sparse_loop``); out-of-range indices are skipped (TF's
    GPU sparse training kernels: "Ignore indices that are out of range")."""
    refs = [f"r{k}" for k in range(n_refs)]
    params = [f"p{k}" for k in range(n_params)]
    at = "r * inner + j"
    lhs = ", ".join(f"{r}[{at}]" for r in refs) + ("," if n_refs == 1 else "")
    call = ", ".join([f"{r}[{at}]" for r in refs] + ["g[i * inner + j]"] + params + ["T"])
    return (f"def loop({', '.join(refs + ['g', 'idx', 'rows', 'inner'] + params)}):\n"
            f"    for j in range(cuda.grid(1), inner, cuda.gridsize(1)):\n"
            f"        for i in range(idx.size):\n"
            f"            r = idx[i]\n"
            f"            if r >= 0 and r < rows:\n"
            f"                {lhs} = update({call})\n")


class CudaElementwise:
    """A grid-stride ``@cuda.jit`` loop of one scalar update (see the module docstring)."""

    def __init__(self, update, n_refs):
        self.update = update
        self.n_refs = n_refs
        self.__name__ = f"cuda_{getattr(update, '__name__', 'update')}"

    def compiled(self, n_params, T):
        """The ``@cuda.jit`` kernel for ``n_params`` scalar parameters and element type ``T``."""
        key = (self.update, self.n_refs, n_params, T, simulating())
        kernel = _KERNELS.get(key)
        if kernel is None:
            with _LOCK:
                kernel = _KERNELS.get(key)
                if kernel is None:
                    cuda = _cuda()
                    ns = {"cuda": cuda, "update": device_function(self.update), "T": T}
                    exec(_loop_source(self.n_refs, n_params), ns)  # noqa: S102
                    kernel = _KERNELS.setdefault(key, cuda.jit(ns["loop"]))
        return kernel

    def compiled_sparse(self, n_params, T):
        """The ``@cuda.jit`` row-update loop (:func:`_sparse_loop_source`) for ``n_params``
        scalar parameters and element type ``T``."""
        key = (self.update, self.n_refs, n_params, T, simulating(), "sparse")
        kernel = _KERNELS.get(key)
        if kernel is None:
            with _LOCK:
                kernel = _KERNELS.get(key)
                if kernel is None:
                    cuda = _cuda()
                    ns = {"cuda": cuda, "update": device_function(self.update), "T": T}
                    exec(_sparse_loop_source(self.n_refs, n_params), ns)  # noqa: S102
                    kernel = _KERNELS.setdefault(key, cuda.jit(ns["loop"]))
        return kernel

    def __call__(self, refs, grad, params, T, outs):
        """Copies ``refs`` and ``grad`` (host arrays of one shape) to the device, runs
        the update on every element and copies the new values into the host ``outs``."""
        cuda = _cuda()
        if not simulating() and not cuda.is_available():
            raise RuntimeError("no CUDA GPU available (numba.cuda.is_available() is False); install the "
                               "'cuda' extra on a machine with an NVIDIA GPU, or set NUMBA_ENABLE_CUDASIM=1 "
                               "before importing numba to run the simulator")
        if len(refs) != self.n_refs:
            raise ValueError(f"{self.__name__} updates {self.n_refs} arrays, got {len(refs)}")
        n = grad.size
        if n == 0:
            return outs
        kernel = self.compiled(len(params), T)
        d_refs = [cuda.to_device(np.ascontiguousarray(r).reshape(-1)) for r in refs]
        d_grad = cuda.to_device(np.ascontiguousarray(grad).reshape(-1))
        threads = 32 if simulating() else THREADS
        blocks = min(-(-n // threads), MAX_BLOCKS)
        kernel[blocks, threads](*d_refs, d_grad, *params)
        for o, d in zip(outs, d_refs):
            if o.flags.c_contiguous:
                d.copy_to_host(o.reshape(-1))
            else:
                np.copyto(o, d.copy_to_host().reshape(o.shape))
        return outs


def cuda_elementwise(update, n_refs):
    """A lazily compiled CUDA loop of the scalar function ``update`` over ``n_refs``
    updated arrays, the gradient and scalar parameters (see the module docstring)."""
    return CudaElementwise(update, n_refs)


def is_device_array(x) -> bool:
    """A CUDA device array (real or simulated): it has ``copy_to_host``."""
    return hasattr(x, "copy_to_host") and hasattr(x, "shape")


def to_host(x):
    """A device array's contents as a new NumPy array; anything else unchanged."""
    return x.copy_to_host() if is_device_array(x) else x
