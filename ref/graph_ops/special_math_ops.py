"""``tf.math.special``: the modified Bessel functions of the first kind,
``bessel_i0``/``bessel_i1`` and their exponentially scaled ``bessel_i0e``/
``bessel_i1e`` (``exp(-|x|) I_v(x)``), each one op under a name scope of its
name (TF's special_math_ops)."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]


def _bessel(op_type, scope, what):
    def builder(x, name=None):
        with name_scope(name, scope, [x]):
            return apply_op(op_type, x=x)
    builder.__name__ = builder.__qualname__ = scope
    builder.__doc__ = f"{what}, element-wise (``{op_type}``)."
    return builder


bessel_i0 = _bessel("BesselI0", "bessel_i0", "The modified Bessel function of order 0, I0(x)")
bessel_i0e = _bessel("BesselI0e", "bessel_i0e", "The scaled modified Bessel function of order 0, exp(-|x|) I0(x)")
bessel_i1 = _bessel("BesselI1", "bessel_i1", "The modified Bessel function of order 1, I1(x)")
bessel_i1e = _bessel("BesselI1e", "bessel_i1e", "The scaled modified Bessel function of order 1, exp(-|x|) I1(x)")
