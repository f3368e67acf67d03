"""TF's float32 ``Reciprocal`` as its CPU kernel computes it.

``Reciprocal`` is Eigen's ``scalar_inverse_op``. In TF's x86-64 package
(AVX, no FMA) its packet form is ``preciprocal``: the CPU's ``rcpps`` estimate
``r`` (12 good bits; its exact bits are the CPU maker's table, so ref asks the
CPU itself through a Numba intrinsic) refined by one Newton step written with
two multiply-adds, each a product rounded and then a sum rounded::

    t = 1 - a * r            # NaN only when a is +-0 or +-inf: then r itself
    y = r + r * t

The last ``size % 8`` elements of the flat tensor take the scalar functor,
``1 / a`` correctly rounded. TF reads subnormal inputs as zero (``inf`` out);
ref does so inside ``ref.ops.fpenv.flush_denormals`` (whose MXCSR bits the
compiled loop obeys) and otherwise divides a subnormal exactly, as IEEE does
(``rcpps`` itself would read it as zero and the Newton step make a NaN).
(Measured against tensorflow-cpu 2.21 on this machine, oneDNN off: every
element equal; ``tests/ops/test_eigen_recip.py``.)

A hand-written ``1 / y`` stays a ``RealDiv`` (correctly rounded) in the
graphs measured; grappler's ``ReplaceDivisionOfOnesByReciprocal`` applied in
one larger program only, under conditions not yet pinned down.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import LazyIntrinsic, njit

PACKET = 8
_F = np.float32


def _make_rcp(numba):
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def rcp(typingctx, a):
        if a != types.float32:
            return None

        def codegen(context, builder, signature, args):
            f32 = ir.FloatType()
            v4 = ir.VectorType(f32, 4)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(v4, [v4]), "llvm.x86.sse.rcp.ps")
            lane = ir.Constant(ir.IntType(32), 0)
            vec = builder.insert_element(ir.Constant(v4, None), args[0], lane)
            return builder.extract_element(builder.call(fn, [vec]), lane)
        return types.float32(a), codegen

    return rcp


_rcp = LazyIntrinsic(_make_rcp)
"""The CPU's ``rcpss`` estimate of 1 / a (in compiled kernels)."""


@njit
def _recip_loop(x, out, body):
    one = np.float32(1.0)
    tiny = np.float32(1.1754943508222875e-38)
    for i in range(x.size):
        a = x[i]
        if i < body and not (abs(a) < tiny and a != 0):
            r = _rcp(a)
            t = one - a * r
            y = r + r * t if t == t else r
        else:
            y = one / a
        out[i] = y


def reciprocal(x):
    """``Reciprocal`` of a float32 array, bit for bit as TF's CPU kernel."""
    x = np.asarray(x)
    flat = np.ascontiguousarray(x, dtype=_F).reshape(-1)
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        _recip_loop(flat, out, flat.size - flat.size % PACKET)
    return out.reshape(x.shape)
