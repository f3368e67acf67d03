"""Complex numbers: ``tf.complex``, ``tf.real``, ``tf.imag``, ``tf.conj``, ``tf.angle``."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops

__all__ = ["complex", "real", "imag", "conj", "angle"]


def _op_name(scope):
    """The op takes the scope's own name (a trailing '/' names it absolutely)."""
    return scope


def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """``real + i * imag`` element-wise (``Complex``): complex64 from float32
    parts, complex128 from float64; TypeError for other or mixed part types."""
    with name_scope(name, "Complex", [real, imag]) as scope:
        real = convert_to_tensor(real, name="real")
        imag = convert_to_tensor(imag, name="imag")
        input_types = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if input_types == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif input_types == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError(f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
                            f"{imag.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]")
        return apply_op("Complex", real=real, imag=imag, Tout=tout, name=_op_name(scope))


def real(input, name=None):
    """The real part (``Real``) of a complex tensor; a real tensor unchanged."""
    with name_scope(name, "Real", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return apply_op("Real", input=input, Tout=input.dtype.real_dtype, name=_op_name(scope))
        if input.dtype.is_numpy_compatible and input.dtype.base_dtype not in (dtypes.string, dtypes.bool):
            return input
        raise TypeError("input must be a numeric tensor, but got tensor with dtype "
                        f"{input.dtype.base_dtype.name}")


def imag(input, name=None):
    """The imaginary part (``Imag``) of a complex tensor; zeros for a real one."""
    with name_scope(name, "Imag", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return apply_op("Imag", input=input, Tout=input.dtype.real_dtype, name=_op_name(scope))
        return array_ops.zeros_like(input)


def conj(x, name=None):
    """The complex conjugate (``Conj``); a real tensor unchanged."""
    if hasattr(x, "dtype") and getattr(x, "dtype") == dtypes.variant or \
            (not hasattr(x, "dtype") and np.iscomplexobj(x)) or getattr(getattr(x, "dtype", None), "is_complex",
                                                                         False):
        with name_scope(name, "Conj", [x]) as scope:
            x = convert_to_tensor(x, name="x")
            return apply_op("Conj", input=x, name=_op_name(scope))
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_numpy_compatible and x.dtype.base_dtype not in (dtypes.string,):
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype.base_dtype!r}")


def angle(input, name=None):
    """The argument ``atan2(imag, real)`` (``Angle``) of a complex tensor; for a
    real tensor ``pi`` where it is negative, else 0."""
    with name_scope(name, "Angle", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return apply_op("Angle", input=input, Tout=input.dtype.real_dtype, name=_op_name(scope))
        # TF1's where (Select) and operators: nodes Less, mul, Select
        return array_ops.where(input < 0, np.pi * array_ops.ones_like(input), array_ops.zeros_like(input))
