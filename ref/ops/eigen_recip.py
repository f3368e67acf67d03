"""TF's float32 ``Reciprocal`` and ``Rsqrt`` as its CPU kernels compute them.

TF's x86-64 package builds Eigen with ``EIGEN_FAST_MATH`` (AVX, no FMA), and
there ``Reciprocal`` (Eigen's ``scalar_inverse_op``) and ``Rsqrt``
(``scalar_rsqrt_op``) have packet forms that start from the CPU's *estimate*
instructions and refine it by one Newton step, each multiply-add a product
rounded and then a sum rounded:

``preciprocal`` (``rcpps``, ``generic_reciprocal_newton_step``)::

    r = rcp(a)               # 12 good bits: |r * a - 1| <= 1.5 * 2**-12
    t = 1 - a * r            # NaN only when a is +-0 or +-inf: then r itself
    y = r + r * t

``prsqrt`` (``rsqrtps``, ``generic_rsqrt_newton_step``)::

    r = rsqrt(a)             # |r * sqrt(a) - 1| <= 1.5 * 2**-12
    h = (a * r) * r - 1
    y = (r * -0.5) * h + r   # NaN (a NaN, 0 * inf, a < 0): r itself

The last ``size % 8`` elements of the flat tensor take the scalar functors:
``1 / a`` and ``1 / sqrt(a)``, correctly rounded. float16 and bfloat16 packets
are widened to float32, take the same packet form and are rounded once
(:func:`half`).

The estimate's exact bits are a table in the CPU (Intel's and AMD's differ),
so no NumPy formula gives them: ref asks the CPU. The loops are built with
llvmlite straight (the intrinsics ``llvm.x86.sse.rcp.ps`` and
``llvm.x86.sse.rsqrt.ps``, four lanes at a time: each lane's bits are those of
the eight-lane AVX form), compiled once and cached on disk with
:mod:`ref.ops.gemm_llvm`'s objects (~10 ms the first time, then loaded in
milliseconds), and called through ``ctypes``: no Numba, so a first step with a
``Softmax`` or a batch normalisation loads none. (What a process pays once is
llvmlite's import and target set-up, ~0.3 s, which a graph with a ``MatMul``
pays anyway, on ``gemm_llvm``'s prefetch thread.) On a CPU that is not x86-64
there is no such instruction to ask: both functions
divide exactly instead (``1 / a``, ``1 / sqrt(a)``), within 2 ULPs of TF's
x86 numbers rather than equal to them (:data:`AVAILABLE` says which).

TF reads subnormal inputs as zero (``inf`` out); ref does so inside
``ref.ops.fpenv.flush_denormals`` (whose MXCSR bits the loops obey) and
otherwise divides a subnormal exactly, as IEEE does (the instructions read
it as zero whatever the MXCSR says). (Measured against tensorflow-cpu 2.21 on
this machine, oneDNN off: every element equal; ``tests/ops/test_eigen_recip.py``.)
"""
from __future__ import annotations

import ctypes
import platform

import numpy as np

from ref.ops import gemm_llvm

PACKET = 8
_F = np.float32
ESTIMATE_REL_ERROR = 1.5 * 2.0 ** -12
"""Intel's and AMD's documented bound on ``rcpps``/``rsqrtps``: relative error at most this."""

AVAILABLE = platform.machine().lower() in ("x86_64", "amd64")
"""Whether the CPU has ``rcpps``/``rsqrtps`` (x86-64); otherwise the functions divide exactly."""

_LOOPS = {}


def module_ir(kind) -> str:
    """The LLVM IR (text) of ``ref_eigen_<kind>(x, y, n)``: ``y[i]`` for ``i < n``
    (``n`` a multiple of 4) -- ``rcp``: Eigen's ``preciprocal``; ``rsqrt``: its
    ``prsqrt``; ``*_estimate``: the CPU's bare estimate (for tests). A subnormal
    ``x[i]`` that the MXCSR does not read as zero is divided exactly."""
    from llvmlite import ir

    f32 = ir.FloatType()
    v4 = ir.VectorType(f32, 4)
    i64 = ir.IntType(64)
    ptr = f32.as_pointer()
    module = ir.Module(f"ref_eigen_{kind}")
    base = kind.split("_")[0]
    est = ir.Function(module, ir.FunctionType(v4, [v4]), f"llvm.x86.sse.{base}.ps")
    fabs = ir.Function(module, ir.FunctionType(v4, [v4]), "llvm.fabs.v4f32")
    vsqrt = ir.Function(module, ir.FunctionType(v4, [v4]), "llvm.sqrt.v4f32")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, i64]), f"ref_eigen_{kind}")
    x, y, n = fn.args
    entry, body, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), body, done)
    b.position_at_end(body)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)

    def splat(v):
        return ir.Constant(v4, [ir.Constant(f32, v)] * 4)

    vptr = v4.as_pointer()
    a = b.load(b.bitcast(b.gep(x, [i]), vptr), align=4)
    r = b.call(est, [a])
    if kind == "rcp":
        t = b.fsub(splat(1.0), b.fmul(a, r))  # pnmadd(a, r, 1) without FMA
        out = b.select(b.fcmp_unordered("uno", t, t), r, b.fadd(b.fmul(r, t), r))
        exact = b.fdiv(splat(1.0), a)
    elif kind == "rsqrt":
        h = b.fadd(b.fmul(b.fmul(a, r), r), splat(-1.0))  # pmadd(a * r, r, -1)
        s = b.fadd(b.fmul(b.fmul(r, splat(-0.5)), h), r)  # pmadd(r * -0.5, h, r)
        out = b.select(b.fcmp_unordered("uno", s, s), r, s)
        exact = b.fdiv(splat(1.0), b.call(vsqrt, [a]))
    else:
        out = r
        exact = r
    tiny = splat(float(np.finfo(np.float32).tiny))
    sub = b.and_(b.fcmp_ordered("<", b.call(fabs, [a]), tiny), b.fcmp_ordered("!=", a, splat(0.0)))
    b.store(b.select(sub, exact, out), b.bitcast(b.gep(y, [i]), vptr), align=4)
    nxt = b.add(i, ir.Constant(i64, 4))
    i.add_incoming(nxt, body)
    b.cbranch(b.icmp_signed("<", nxt, n), body, done)
    b.position_at_end(done)
    b.ret_void()
    return str(module)


def _loop(kind):
    """The ctypes function ``ref_eigen_<kind>`` (built or loaded once a process)."""
    fn = _LOOPS.get(kind)
    if fn is None:
        with gemm_llvm._LOCK:
            fn = _LOOPS.get(kind)
            if fn is None:
                llvm, _, engine = gemm_llvm._llvm()
                symbol = f"ref_eigen_{kind}"
                engine.add_object_file(llvm.ObjectFileRef.from_data(gemm_llvm._object(module_ir(kind))))
                engine.finalize_object()
                address = engine.get_function_address(symbol)
                if not address:
                    raise RuntimeError(f"{symbol}: no such symbol after loading its object")
                fn = _LOOPS[kind] = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(address)
    return fn


def _exact(kind, x):
    one = _F(1)
    return one / np.sqrt(x) if kind == "rsqrt" else one / x


def _apply(kind, x, body):
    """``kind`` of the float32 array ``x``: the compiled packets on the first
    ``body`` elements (a multiple of 4), the scalar functor on the rest."""
    x = np.asarray(x)
    flat = np.ascontiguousarray(x, dtype=_F).reshape(-1)
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        if AVAILABLE and body:
            _loop(kind)(flat.ctypes.data, out.ctypes.data, body)
        else:
            body = 0
        out[body:] = _exact(kind.split("_")[0], flat[body:])
    return out.reshape(x.shape)


def reciprocal(x):
    """``Reciprocal`` of a float32 array, bit for bit as TF's CPU kernel (``preciprocal``
    on whole packets of 8, ``1 / a`` on the rest)."""
    size = np.size(x)
    return _apply("rcp", x, size - size % PACKET)


def rsqrt(x):
    """``Rsqrt`` of a float32 array, bit for bit as TF's CPU kernel (``prsqrt`` on
    whole packets of 8, ``1 / sqrt(a)`` on the rest)."""
    size = np.size(x)
    return _apply("rsqrt", x, size - size % PACKET)


def half(fn, x, tail):
    """``fn`` (:func:`reciprocal` or :func:`rsqrt`) of a float16/bfloat16 array as TF's
    kernel: Eigen's half packets widen to float32, take ``fn``'s packet form and round
    once (``F16_PACKET_FUNCTION``/``BF16_PACKET_FUNCTION``); the last ``size % 8``
    elements take ``tail`` (the scalar functor in the half type)."""
    x = np.asarray(x)
    flat = x.reshape(-1)
    body = flat.size - flat.size % PACKET
    out = np.empty(flat.shape, x.dtype)
    out[:body] = fn(flat[:body].astype(_F)).astype(x.dtype)
    with np.errstate(all="ignore"):
        out[body:] = tail(flat[body:])
    return out.reshape(x.shape)


def estimate(kind, x):
    """The CPU's bare ``rcpps`` (``kind="rcp"``) or ``rsqrtps`` (``"rsqrt"``) of
    every element of the float32 array ``x`` (tests: its documented accuracy,
    the Newton step worked by hand). x86-64 only."""
    if not AVAILABLE:
        raise NotImplementedError(f"the {kind} estimate is an x86-64 instruction")
    flat = np.ascontiguousarray(x, dtype=_F).reshape(-1)
    pad = np.ones(-flat.size % 4 + flat.size, _F)
    pad[:flat.size] = flat
    out = _apply(f"{kind}_estimate", pad, pad.size)
    return out[:flat.size].reshape(np.shape(x))
