"""Trigonometric and hyperbolic kernels beyond ``Sin``/``Cos``/``Tan``/``Tanh``
(TF's cwise ``Sinh``, ``Cosh``, ``Asin``, ``Acos``, ``Atan``, ``Acosh``,
``Atanh``, ``Atan2``), and the "safe" products and quotients (``Xlogy``,
``Xdivy``, ``Xlog1py``, ``MulNoNan``) and ``TruncateMod``.

Each is its C library function element by element, as TF's Eigen functors
call ``std::sinh`` etc. for scalars; NumPy evaluates them here, so float32
results may sit a few ULPs from TF's (``tests/ops/tf_budgets.py`` records
how many). Outside the real domain the result is NaN (``Asin(2)``,
``Acosh(0.5)``, ``Atanh(2)``), and ``Atanh(+-1) = +-inf``, as in C.

The safe forms return exactly ``0`` where their first factor is zero, even
when the other side is ``inf`` or NaN -- the point of using them:

* ``Xlogy(x, y)   = 0 if x == 0 else x * log(y)``
* ``Xdivy(x, y)   = 0 if x == 0 else x / y``
* ``Xlog1py(x, y) = 0 if x == 0 else x * log1p(y)``
* ``MulNoNan(x, y) = 0 if y == 0 else x * y``
* ``TruncateMod(x, y) = x - trunc(x / y) * y`` (C's ``%`` and ``fmod``: the
  remainder takes the sign of ``x``).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import broadcast_rule, invalid_argument, register_op, unary_shape

_F = dtypes.FLOATS
_FC = dtypes.FLOATS + dtypes.COMPLEX


def _unary(name):
    return register_op(name, inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _FC},
                       shape=unary_shape)


def _binary(name, allowed):
    return register_op(name, inputs=("x", "y"), outputs=("z",), type_attrs={"T": ("x", "y")},
                       allowed={"T": allowed}, shape=broadcast_rule("x", "y"))


def _quiet(fn, *args):
    with np.errstate(all="ignore"):
        return np.asarray(fn(*args))


@_unary("Sinh")
def sinh(x):
    """y = sinh(x) = (e**x - e**-x) / 2."""
    return _quiet(np.sinh, x)


@_unary("Cosh")
def cosh(x):
    """y = cosh(x) = (e**x + e**-x) / 2."""
    return _quiet(np.cosh, x)


@_unary("Asin")
def asin(x):
    """y = arcsin(x), in [-pi/2, pi/2]; NaN for |x| > 1."""
    return _quiet(np.arcsin, x)


@_unary("Acos")
def acos(x):
    """y = arccos(x), in [0, pi]; NaN for |x| > 1."""
    return _quiet(np.arccos, x)


@_unary("Atan")
def atan(x):
    """y = arctan(x), in (-pi/2, pi/2)."""
    return _quiet(np.arctan, x)


@_unary("Acosh")
def acosh(x):
    """y = acosh(x) = log(x + sqrt(x**2 - 1)); NaN for x < 1."""
    return _quiet(np.arccosh, x)


@_unary("Atanh")
def atanh(x):
    """y = atanh(x) = log((1 + x) / (1 - x)) / 2; +-inf at +-1, NaN beyond."""
    return _quiet(np.arctanh, x)


@register_op("Atan2", inputs=("y", "x"), outputs=("z",), type_attrs={"T": ("y", "x")},
             allowed={"T": (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)},
             shape=broadcast_rule("y", "x"))
def atan2(y, x):
    """z = the angle of the point (x, y): arctan(y / x) in the quadrant of (x, y), in [-pi, pi]."""
    return _quiet(np.arctan2, y, x)


def _where_zero(mask, value):
    """``value`` with exact (+)0 wherever ``mask`` holds, in value's dtype and shape."""
    value = np.asarray(value)
    return np.where(mask, np.zeros((), value.dtype), value).astype(value.dtype, copy=False)


_SAFE = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


@_binary("Xlogy", _SAFE)
def xlogy(x, y):
    """z = 0 if x == 0 else x * log(y)."""
    x, y = np.asarray(x), np.asarray(y)
    return _where_zero(np.broadcast_to(x == 0, np.broadcast(x, y).shape), _quiet(lambda a, b: a * np.log(b), x, y))


@_binary("Xdivy", _SAFE)
def xdivy(x, y):
    """z = 0 if x == 0 else x / y."""
    x, y = np.asarray(x), np.asarray(y)
    return _where_zero(np.broadcast_to(x == 0, np.broadcast(x, y).shape), _quiet(np.true_divide, x, y))


@_binary("Xlog1py", _SAFE)
def xlog1py(x, y):
    """z = 0 if x == 0 else x * log1p(y)."""
    x, y = np.asarray(x), np.asarray(y)
    return _where_zero(np.broadcast_to(x == 0, np.broadcast(x, y).shape),
                       _quiet(lambda a, b: a * np.log1p(b), x, y))


@_binary("MulNoNan", _SAFE)
def mul_no_nan(x, y):
    """z = 0 if y == 0 else x * y (NaN or inf in x do not leak through a zero y)."""
    x, y = np.asarray(x), np.asarray(y)
    return _where_zero(np.broadcast_to(y == 0, np.broadcast(x, y).shape), _quiet(np.multiply, x, y))


@_binary("TruncateMod", (dtypes.int32, dtypes.int64, dtypes.bfloat16, dtypes.float16, dtypes.float32,
                         dtypes.float64))
def truncate_mod(x, y):
    """z = x - trunc(x / y) * y: C's remainder, with the sign of x (``fmod`` for floats)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind in "iu":
        if np.broadcast(x, y).size and np.any(y == 0):
            raise invalid_argument("Integer division by zero")
        return np.asarray(np.fmod(x, y))
    return _quiet(np.fmod, x, y)
