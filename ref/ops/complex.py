"""Complex-number kernels: Complex, Real, Imag, Conj, Angle, ComplexAbs.

``Tout`` is the result's dtype: complex64 from float32 parts, complex128 from
float64 (``Complex``); float32 from complex64, float64 from complex128 (the
others). A kernel given a part of the wrong precision raises TF's
InvalidArgumentError.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import broadcast_rule, register_op, invalid_argument
from ref.types import dtypes

_PARTS = (dtypes.float32, dtypes.float64)


def _complex_shape(ins, attrs):
    (_, shape), = broadcast_rule("real", "imag")(ins, attrs)
    return [(attrs.get("Tout") or dtypes.complex64, shape)]


@register_op("Complex", inputs=("real", "imag"), outputs=("out",), attrs={"Tout": dtypes.complex64},
             type_attrs={"T": ("real", "imag")}, allowed={"T": _PARTS}, shape=_complex_shape)
def complex_(real, imag, Tout=dtypes.complex64):
    """out = real + i * imag, broadcasting."""
    re, im = np.asarray(real), np.asarray(imag)
    want = np.dtype(dtypes.as_dtype(Tout).as_numpy_dtype)
    if want.itemsize != 2 * re.dtype.itemsize:
        raise invalid_argument(f"Complex: Tout {dtypes.as_dtype(Tout).name} does not match input type "
                               f"{re.dtype.name}")
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, want)
    out.real, out.imag = re, im
    return out


def _part_rule(name):
    def rule(ins, attrs):
        return [(attrs.get("Tout") or dtypes.float32, ins[name].shape)]
    return rule


def _part(op_name, fn, doc, inp="input"):
    @register_op(op_name, inputs=(inp,), outputs=("output",) if inp == "input" else ("y",),
                 attrs={"Tout": dtypes.float32}, type_attrs={"T": inp},
                 allowed={"T": dtypes.COMPLEX + (() if op_name in ("Real", "Imag", "ComplexAbs") else ())},
                 shape=_part_rule(inp))
    def kernel(Tout=dtypes.float32, **kwargs):
        x = np.asarray(kwargs[inp])
        return np.asarray(fn(x), dtype=dtypes.as_dtype(Tout).as_numpy_dtype)

    kernel.__name__ = op_name.lower()
    kernel.__doc__ = doc
    return kernel


real = _part("Real", np.real, "output = the real part of ``input``.")
imag = _part("Imag", np.imag, "output = the imaginary part of ``input``.")
angle = _part("Angle", np.angle, "output = atan2(imag(input), real(input)), the argument of ``input``.")
complex_abs = _part("ComplexAbs", np.abs, "y = sqrt(real(x)**2 + imag(x)**2), computed without overflow "
                                          "(hypot).", inp="x")


@register_op("Conj", inputs=("input",), outputs=("output",), type_attrs={"T": "input"},
             allowed={"T": dtypes.COMPLEX + (dtypes.variant,)})
def conj(input):
    """output = real(input) - i * imag(input)."""
    return np.conj(np.asarray(input))
