"""``tf.sinh``, ``tf.cosh``, the inverse trigonometric and hyperbolic functions,
``tf.atan2``, the safe products (``xlogy``, ``xdivy``, ``xlog1py``,
``multiply_no_nan``, ``reciprocal_no_nan``, ``divide_no_nan``), ``log_sigmoid``,
``reduce_euclidean_norm``, ``truncatemod`` and ``trace``: the kernels of
``ref.ops.trig`` under TF's names, each building the nodes TF's
``math_ops`` builds (name scopes and constant names included)."""
from __future__ import annotations

import math

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import linalg_ops, math_ops

__all__ = ["sinh", "cosh", "asin", "acos", "atan", "acosh", "atanh", "atan2", "xlogy", "xdivy", "xlog1py",
           "multiply_no_nan", "reciprocal_no_nan", "divide_no_nan", "log_sigmoid", "reduce_euclidean_norm",
           "truncatemod", "trace", "erfinv", "ndtri", "erfcinv"]


def _raw_unary(op_type, fname, doc):
    def fn(x, name=None):
        return apply_op(op_type, x=x, name=name)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    return fn


sinh = _raw_unary("Sinh", "sinh", "sinh(x) element-wise (``Sinh``).")
cosh = _raw_unary("Cosh", "cosh", "cosh(x) element-wise (``Cosh``).")
asin = _raw_unary("Asin", "asin", "arcsin(x) element-wise (``Asin``).")
acos = _raw_unary("Acos", "acos", "arccos(x) element-wise (``Acos``).")
atan = _raw_unary("Atan", "atan", "arctan(x) element-wise (``Atan``).")
acosh = _raw_unary("Acosh", "acosh", "The inverse hyperbolic cosine, element-wise (``Acosh``).")
atanh = _raw_unary("Atanh", "atanh", "The inverse hyperbolic tangent, element-wise (``Atanh``).")


def atan2(y, x, name=None):
    """The angle of the point (x, y) in [-pi, pi] element-wise (``Atan2``; note y first)."""
    return apply_op("Atan2", y=y, x=x, name=name)


def truncatemod(x, y, name=None):
    """x - trunc(x / y) * y element-wise, C's remainder (``TruncateMod``)."""
    return apply_op("TruncateMod", x=x, y=y, name=name)


def _scoped(op_type, scope_name):
    def fn(x, y, name=None):
        with name_scope(name, scope_name, [x]):
            return apply_op(op_type, x=x, y=y)

    fn.__name__ = fn.__qualname__ = scope_name
    return fn


def xlogy(x, y, name=None):
    """0 if x == 0 else x * log(y), element-wise (``Xlogy``; the raw op, as TF exports it)."""
    return apply_op("Xlogy", x=x, y=y, name=name)


xdivy = _scoped("Xdivy", "xdivy")
xdivy.__doc__ = "0 if x == 0 else x / y, element-wise (``Xdivy``)."
xlog1py = _scoped("Xlog1py", "xlog1py")
xlog1py.__doc__ = "0 if x == 0 else x * log1p(y), element-wise (``Xlog1py``)."


def _same_dtype(x, y):
    if x.dtype.base_dtype != y.dtype.base_dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != {y.dtype.base_dtype!r}")


def multiply_no_nan(x, y, name=None):
    """x * y, but 0 wherever y is 0 even if x is NaN or infinite (``MulNoNan``)."""
    with name_scope(name, "multiply_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        _same_dtype(x, y)
        return apply_op("MulNoNan", x=x, y=y, name=scope)


def reciprocal_no_nan(x, name=None):
    """1 / x, 0 where x is 0 (``DivNoNan(1, x)``)."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant(1, dtype=x.dtype.base_dtype, name="one")
        return apply_op("DivNoNan", x=one, y=x, name=scope)


divide_no_nan = math_ops.div_no_nan


def log_sigmoid(x, name=None):
    """log(1 / (1 + e**-x)) element-wise, as ``-softplus(-x)`` (stable for large |x|)."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Neg", x=apply_op("Softplus", features=math_ops.negative(x)), name=scope)


reduce_euclidean_norm = math_ops._reducer(
    "EuclideanNorm", "reduce_euclidean_norm", "sqrt(sum(x * conj(x))) over ``axis`` (``EuclideanNorm``).")


def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix: ``reduce_sum(matrix_diag_part(x), [-1])``."""
    with name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.reduce_sum(linalg_ops.matrix_diag_part(x), [-1], name=scope)



def erfinv(x, name=None):
    """y with erf(y) = x (``Erfinv``)."""
    with name_scope(name, "erfinv", [x]):
        return apply_op("Erfinv", x=x)


def ndtri(x, name=None):
    """The standard normal quantile, Phi^-1(x) (``Ndtri``)."""
    with name_scope(name, "ndtri", [x]):
        return apply_op("Ndtri", x=x)


def erfcinv(x, name=None):
    """y with erfc(y) = x: ``-ndtri(x / 2) / sqrt(2)``."""
    with name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * math.sqrt(0.5)
