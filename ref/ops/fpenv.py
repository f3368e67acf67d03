"""TensorFlow's floating-point environment: subnormals flushed to zero.

TF's CPU executor runs every kernel under ``port::ScopedFlushDenormal``: the
x86 MXCSR register's FTZ bit (a subnormal *result* becomes 0) and DAZ bit (a
subnormal *input* reads as 0) are set for the kernel and restored after, in
eager and graph mode alike. So in TensorFlow ``1e-39 * 1.0`` is ``0.0`` and an
update whose result falls below float32's smallest normal number (1.18e-38)
stores 0.

``ref`` follows IEEE arithmetic by default. Inside ``with
flush_denormals():`` every kernel run in this thread -- ``ref.raw_ops`` calls
and ``Session.run`` alike, NumPy and Numba code both -- uses TF's FTZ/DAZ
arithmetic, for golden numbers that match TF's on subnormal inputs. Numba's
parallel loops use their own worker threads, which do not share the
caller's MXCSR, so inside the block every loop runs serially.

The MXCSR is read and written by two tiny functions compiled with llvmlite
(Numba's code generator), x86-64 only; elsewhere ``flush_denormals`` raises
``NotImplementedError``.

NumPy's own floating-point error handling is here too: :func:`ignore_errors`
and :func:`restore_errors` switch its warnings off and back, as
``np.errstate(all="ignore")`` does, at a fraction of the cost (``Session.run``
and the kernels' exact NumPy forms, which must warn no more than the compiled
loops they stand for).
"""
from __future__ import annotations

import contextlib
import threading
import ctypes
import platform

import numpy as np

FTZ, DAZ = 0x8000, 0x0040
_LOCK = threading.Lock()
_FUNCS = None


class _State(threading.local):
    depth = 0  # a class default: reading it needs no failed attribute lookup (every sized kernel call reads it)


_state = _State()


_IR_OPAQUE = """
declare void @llvm.x86.sse.stmxcsr(ptr)
declare void @llvm.x86.sse.ldmxcsr(ptr)
define i32 @ref_get_mxcsr() {
  %p = alloca i32, align 4
  call void @llvm.x86.sse.stmxcsr(ptr %p)
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
define void @ref_set_mxcsr(i32 %v) {
  %p = alloca i32, align 4
  store i32 %v, ptr %p, align 4
  call void @llvm.x86.sse.ldmxcsr(ptr %p)
  ret void
}
"""
_IR_TYPED = """
declare void @llvm.x86.sse.stmxcsr(i8*)
declare void @llvm.x86.sse.ldmxcsr(i8*)
define i32 @ref_get_mxcsr() {
  %p = alloca i32, align 4
  %q = bitcast i32* %p to i8*
  call void @llvm.x86.sse.stmxcsr(i8* %q)
  %v = load i32, i32* %p, align 4
  ret i32 %v
}
define void @ref_set_mxcsr(i32 %v) {
  %p = alloca i32, align 4
  store i32 %v, i32* %p, align 4
  %q = bitcast i32* %p to i8*
  call void @llvm.x86.sse.ldmxcsr(i8* %q)
  ret void
}
"""


def _compile():
    """(get_mxcsr, set_mxcsr) as ctypes functions, compiled once."""
    global _FUNCS
    with _LOCK:
        if _FUNCS is not None:
            return _FUNCS
        if platform.machine().lower() not in ("x86_64", "amd64"):
            raise NotImplementedError(f"flush_denormals needs an x86-64 CPU (MXCSR), not {platform.machine()}")
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        last = None
        for ir in (_IR_OPAQUE, _IR_TYPED):  # newer LLVM: opaque pointers; older: typed ones
            try:
                mod = llvm.parse_assembly(ir)
                mod.verify()
                break
            except RuntimeError as e:
                last = e
        else:
            raise RuntimeError(f"cannot compile the MXCSR helpers: {last}")
        target = llvm.Target.from_default_triple().create_target_machine()
        engine = llvm.create_mcjit_compiler(mod, target)
        engine.finalize_object()
        get = ctypes.CFUNCTYPE(ctypes.c_uint32)(engine.get_function_address("ref_get_mxcsr"))
        set_ = ctypes.CFUNCTYPE(None, ctypes.c_uint32)(engine.get_function_address("ref_set_mxcsr"))
        _FUNCS = (get, set_, engine)  # the engine owns the code: keep it alive
        return _FUNCS


def get_mxcsr() -> int:
    """This thread's MXCSR register."""
    return _compile()[0]()


def active() -> bool:
    """Whether this thread is inside ``flush_denormals()``."""
    return _state.depth > 0


@contextlib.contextmanager
def flush_denormals():
    """Run the enclosed kernels with TF's flush-to-zero arithmetic (see the module docstring)."""
    get, set_, _ = _compile()
    previous = get()
    set_(previous | FTZ | DAZ)
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        set_(previous)


# -- NumPy's floating-point error handling, switched off and back cheaply ----------------

try:  # what np.errstate sets and resets (NumPy 2), without building its object: a fifth of its cost
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE, _make_extobj
except ImportError:  # another NumPy: np.errstate itself
    _ERRSTATE = _make_extobj = None


_QUIET = (None, None)
"""(a state, the same state ignoring every error): the last pair :func:`ignore_errors` made."""


def ignore_errors():
    """``np.errstate(all="ignore").__enter__()`` for the current context, cheaply:
    NumPy raises no floating-point warnings (overflow, invalid, divide by zero)
    until :func:`restore_errors` is called with the token this returns. Kernels
    compiled by Numba never warn; their NumPy forms run under this. Nothing to do
    (token None) inside another ``ignore_errors`` (a ``Session.run``); the error
    state made from the caller's is kept for the next call from that same state."""
    global _QUIET
    if _ERRSTATE is None:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    current = _ERRSTATE.get()
    base, quiet = _QUIET
    if current is quiet:
        return None
    if current is not base:  # NumPy's states are immutable: made once per caller's state
        quiet = _make_extobj(all="ignore")
        _QUIET = (current, quiet)
    return _ERRSTATE.set(quiet)


def restore_errors(token):
    """Undo the :func:`ignore_errors` call that returned ``token``."""
    if token is None:
        return
    if _ERRSTATE is None:
        token.__exit__(None, None, None)
    else:
        _ERRSTATE.reset(token)
