"""C's ``expf`` as code a loop can vectorise: :data:`exp` (a Numba intrinsic).

Numba compiles ``math.exp`` of a float32 to a call of the C math library's
``expf`` per element (``ref.ops._jit.libm`` is that function), which no loop
vectorises: the cross entropy over a language model's ``[400, 10000]`` logits
spent ~20 ms a step in those calls against ~2 ms for a vector ``exp``.
NumPy's SIMD ``np.exp`` rounds differently, so it would change the bits.

glibc's ``expf`` (2.28 and later; the ARM optimized-routines algorithm) is
itself a short sequence of IEEE double operations, exactly reproducible: with
``N = 32``, ``k = round(x * N / ln 2)`` by the add-and-subtract of ``1.5 * 2^52``
(one fused multiply-add on CPUs with FMA, whose variant the library selects
there), ``r = x * N / ln 2 - k`` (one fused multiply-subtract),
``s = 2^(k/N)`` from a 32-entry table of ``2^(i/N)`` with ``k div N`` added to
the exponent field, and ``exp(x) ~= s * (C0 r^3 + C1 r^2 + C2 r + 1)`` as three
fused multiply-adds and a product, rounded once to float; ``|x| >= 88`` takes
the overflow / underflow cases (``+inf`` above ``0x1.62e42ep6``, ``0`` below
``-0x1.9fe368p6``, the smallest subnormal down to ``-0x1.9d1d9ep6``, ``x + x``
for NaN and ``+inf``, ``0`` for ``-inf``). :data:`exp` emits that sequence for
float32 and a call of ``llvm.exp.f64`` (libm's ``exp``, what ``math.exp``
compiles to) for float64, so a kernel written once serves both.

The result equals the library's ``expf`` bit for bit on every float32 input
(checked exhaustively against this machine's glibc 2.36, x86-64 with FMA;
``tests/ops/test_libm_exp.py`` checks a sample of every exponent and the
special cases against ``ref.ops._jit.libm("exp", float32)`` on each run).
"""
from __future__ import annotations

import struct

from ref.ops._jit import LazyIntrinsic

__all__ = ["exp", "TABLE_BITS", "table", "CONSTANTS"]

TABLE_BITS = 5
"""``N = 2 ** TABLE_BITS`` table entries."""

CONSTANTS = {
    "invln2_n": float.fromhex("0x1.71547652b82fep+5"),  # N / ln 2
    "shift": float.fromhex("0x1.8p+52"),  # 1.5 * 2^52: adding it rounds to an integer
    "c0": float.fromhex("0x1.c6af84b912394p-20"),  # the polynomial in r, r = x N / ln 2 - k
    "c1": float.fromhex("0x1.ebfce50fac4f3p-13"),
    "c2": float.fromhex("0x1.62e42ff0c52d6p-6"),
    "overflow": float.fromhex("0x1.62e42ep6"),  # above: +inf
    "underflow": -float.fromhex("0x1.9fe368p6"),  # below: 0
    "may_underflow": -float.fromhex("0x1.9d1d9ep6"),  # below: the smallest subnormal, 2^-149
}
"""glibc's constants (``__exp2f_data``'s scaled polynomial, the bounds of ``__expf``)."""


def table():
    """The 64-bit patterns ``bits(2^(i/N)) - (i << (52 - TABLE_BITS))``, ``i < N``: adding
    ``k << (52 - TABLE_BITS)`` for ``k = i (mod N)`` gives ``2^(k/N)``'s bits."""
    n = 1 << TABLE_BITS
    return [struct.unpack("<Q", struct.pack("<d", 2.0 ** (i / n)))[0] - (i << (52 - TABLE_BITS))
            for i in range(n)]


def _make_exp(numba):
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    f32, f64, i64, i32 = ir.FloatType(), ir.DoubleType(), ir.IntType(64), ir.IntType(32)
    k = CONSTANTS

    def fn(module, name, ret, args):
        f = module.globals.get(name)
        return f if f is not None else ir.Function(module, ir.FunctionType(ret, args), name)

    def expf(builder, x):
        module = builder.module
        fma = fn(module, "llvm.fma.f64", f64, [f64, f64, f64])
        fabs = fn(module, "llvm.fabs.f32", f32, [f32])
        tab = module.globals.get("ref_expf_table")
        if tab is None:
            ty = ir.ArrayType(i64, 1 << TABLE_BITS)
            tab = ir.GlobalVariable(module, ty, "ref_expf_table")
            tab.initializer = ir.Constant(ty, table())
            tab.global_constant = True
            tab.linkage = "internal"

        def c(v):
            return ir.Constant(f64, v)

        xd = builder.fpext(x, f64)
        kd = builder.call(fma, [c(k["invln2_n"]), xd, c(k["shift"])])
        ki = builder.bitcast(kd, i64)
        kd = builder.fsub(kd, c(k["shift"]))
        r = builder.call(fma, [c(k["invln2_n"]), xd, builder.fneg(kd)])
        z = builder.call(fma, [r, c(k["c0"]), c(k["c1"])])
        t = builder.load(builder.gep(tab, [ir.Constant(i32, 0), builder.and_(ki, ir.Constant(i64, 31))]))
        s = builder.bitcast(builder.add(t, builder.shl(ki, ir.Constant(i64, 52 - TABLE_BITS))), f64)
        r2 = builder.fmul(r, r)
        y = builder.call(fma, [r, c(k["c2"]), c(1.0)])
        y = builder.call(fma, [z, r2, y])
        out = builder.fptrunc(builder.fmul(y, s), f32)

        def when(cond, value, rest):
            return builder.select(cond, value, rest)

        def f(v):
            return ir.Constant(f32, v)

        out = when(builder.fcmp_ordered("<", x, f(k["may_underflow"])), f(2.0 ** -149), out)
        out = when(builder.fcmp_ordered("<", x, f(k["underflow"])), f(0.0), out)
        out = when(builder.fcmp_ordered(">", x, f(k["overflow"])), f(float("inf")), out)
        out = when(builder.fcmp_unordered(">=", builder.call(fabs, [x]), f(float("inf"))), builder.fadd(x, x), out)
        return when(builder.fcmp_ordered("==", x, f(float("-inf"))), f(0.0), out)

    @intrinsic
    def exp(typingctx, x):
        if x not in (types.float32, types.float64):
            return None

        def codegen(context, builder, signature, args):
            (v,) = args
            if signature.args[0] == types.float32:
                return expf(builder, v)
            return builder.call(fn(builder.module, "llvm.exp.f64", f64, [f64]), [v])

        return x(x), codegen

    return exp


exp = LazyIntrinsic(_make_exp)
"""``exp(x)`` in compiled kernels: glibc's ``expf`` for float32 (vectorisable), libm's
``exp`` for float64 (see the module docstring)."""
