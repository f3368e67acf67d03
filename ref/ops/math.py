"""Math ops: element-wise arithmetic, comparisons, matmul, AddN, casts,
gradient kernels -- TensorFlow's ``math_ops`` kernels on NumPy values.
Reductions (``reduction``) and scans and ``Range`` (``sequence``) are their
own families, as TF's kernels are.

Dtypes are TF's: a float32 input gives a float32 output (NumPy never promotes:
every input of a type attr has one dtype, and scalars take it). Broadcasting is
NumPy's, which is TF's (``ref.ops.registry.broadcast_shapes``).

Where TF's arithmetic is plain IEEE (``+ - * /``, ``sqrt``, comparisons,
``floor``, casts, ``AddN``'s summation order, ``Range``'s ``start + i*delta``)
the kernels give TF's bits. TF's float32 ``Exp``, ``Log``, ``Tanh`` and
``Sigmoid`` are Eigen's vectorised approximations, reproduced bit for bit in
:mod:`ref.ops.eigen_math`, and ``Expm1``, ``Log1p``, ``Erf`` and ``SigmoidGrad``
in :mod:`ref.ops.eigen_unary`; its other transcendental functions (``Erfc``,
``Rsqrt``...) are NumPy's here, and TF's float reductions (``Sum``, ``Mean``, ``MatMul``) sum
in Eigen's blocked order; those kernels use NumPy's (deterministic, pairwise)
arithmetic and ``tests/ops/tf_budgets.py`` records how many ULPs they are
from ``tf.raw_ops`` (measured on tensorflow-cpu 2.21).
"""
from __future__ import annotations

import builtins as _builtins
import math

import numpy as np

from ref.types import dtypes
from ref.ops import eigen_gemm, eigen_gemv, eigen_math, eigen_recip, eigen_reduce, eigen_unary, gemm
from ref.ops import fpenv as _fpenv
from ref.ops._jit import njit
from ref.ops.registry import REQUIRED, broadcast_rule, broadcast_shapes, invalid_argument, register_op, unary_shape
from ref.types.shapes import TensorShape, unknown_shape

_F = dtypes.FLOATS
_FC = dtypes.FLOATS + dtypes.COMPLEX
_SIGNED = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_REAL = dtypes.REALS
_NUM = dtypes.NUMBERS
_SIGNED_NUM = _F + _SIGNED + dtypes.COMPLEX  # TF's "signed number" list (Neg, Sign, Square...)
_INDEX = (dtypes.int32, dtypes.int64)
_BOOL = (dtypes.bool,)


def _bool_rule(*names):
    return broadcast_rule(*names, dtype=dtypes.bool)


def _binary(name, allowed=_NUM, outputs=("z",)):
    return register_op(name, inputs=("x", "y"), outputs=outputs, type_attrs={"T": ("x", "y")},
                       allowed={"T": allowed}, shape=broadcast_rule("x", "y"))


def _unary(name, allowed, inp="x", out="y"):
    return register_op(name, inputs=(inp,), outputs=(out,), type_attrs={"T": inp}, allowed={"T": allowed},
                       shape=unary_shape)


def _is_int(a) -> bool:
    return np.asarray(a).dtype.kind in "iu"


def _check_int_divisor(x, y):
    """InvalidArgumentError when an integer divisor is zero and some output element
    divides by it. An empty broadcast output divides by nothing, so TF raises
    nothing then, even for a zero divisor (``FloorMod([], 0)`` in Sum's gradient
    of a scalar); a non-empty output uses every divisor element."""
    if _is_int(y) and np.broadcast(x, y).size and np.any(np.asarray(y) == 0):
        raise invalid_argument("Integer division by zero")


# ---------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------

@_binary("AddV2")
def add_v2(x, y):
    """z = x + y."""
    return np.add(x, y)


@_binary("Add", allowed=_NUM + (dtypes.string,))
def add(x, y):
    """z = x + y (also concatenates strings, as TF's old ``Add``)."""
    return np.add(x, y)


@_binary("Sub")
def sub(x, y):
    """z = x - y."""
    return np.subtract(x, y)


@_binary("Mul")
def mul(x, y):
    """z = x * y."""
    return np.multiply(x, y)


@_binary("RealDiv", allowed=_FC)
def real_div(x, y):
    """z = x / y (floating point: inf/nan on division by zero)."""
    return np.true_divide(x, y)


def _trunc_div_int(x, y):
    """C++ integer division: the quotient rounded toward zero (exact: ``x - fmod(x, y)`` is a multiple of y)."""
    return np.floor_divide(np.subtract(x, np.fmod(x, y)), y)


@_binary("Div")
def div(x, y):
    """z = x / y: C++ truncating division for integers (InvalidArgumentError on
    zero), true division for floats."""
    if _is_int(x):
        _check_int_divisor(x, y)
        return _trunc_div_int(x, y)
    return np.true_divide(x, y)


@_binary("DivNoNan", allowed=_FC)
def div_no_nan(x, y):
    """z = 0 where y == 0, else x / y."""
    x, y = np.asarray(x), np.asarray(y)
    safe = np.where(y == 0, np.ones((), y.dtype), y)
    return np.where(y == 0, np.zeros((), x.dtype), np.true_divide(x, safe))


@_binary("FloorDiv")
def floor_div(x, y):
    """z = floor(x / y): integer floor division, or ``floor(x / y)`` computed in
    floating point (TF's ``google_floor_div_real``, not Python's divmod)."""
    if _is_int(x):
        _check_int_divisor(x, y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


@_binary("FloorMod", allowed=_REAL)
def floor_mod(x, y):
    """z = x - floor(x / y) * y, the sign of y: ``r = fmod(x, y)``; ``r + y``
    where r != 0 and its sign differs from y's (TF's ``google_floor_fmod``)."""
    if _is_int(x):
        _check_int_divisor(x, y)
        return np.mod(x, y)
    r = np.fmod(x, y)
    return np.where((r != 0) & ((np.asarray(y) < 0) != (r < 0)), r + y, r)


@_binary("TruncateDiv", allowed=_REAL)
def truncate_div(x, y):
    """z = x / y rounded toward zero (C semantics)."""
    if _is_int(x):
        _check_int_divisor(x, y)
        return _trunc_div_int(x, y)
    return np.trunc(np.true_divide(x, y))


@_binary("Maximum", allowed=_REAL)
def maximum(x, y):
    """z = max(x, y), NaN propagating."""
    return np.maximum(x, y)


@_binary("Minimum", allowed=_REAL)
def minimum(x, y):
    """z = min(x, y), NaN propagating."""
    return np.minimum(x, y)


@_binary("Pow")
def pow(x, y):  # noqa: A001 - TF's name
    """z = x ** y; integers to negative integer powers are an error, as in TF."""
    if _is_int(y) and np.any(np.asarray(y) < 0):
        raise invalid_argument("Integers to negative integer powers are not allowed")
    return np.power(x, y)


@_binary("SquaredDifference", allowed=_F + (dtypes.int32, dtypes.int64) + dtypes.COMPLEX)
def squared_difference(x, y):
    """z = (x - y) * conj(x - y)."""
    d = np.subtract(x, y)
    return np.multiply(d, np.conj(d)) if np.iscomplexobj(d) else np.multiply(d, d)


# ---------------------------------------------------------------------------
# Unary arithmetic
# ---------------------------------------------------------------------------

@_unary("Square", _SIGNED_NUM)
def square(x):
    """y = x * x."""
    return np.multiply(x, x)


@_unary("Sqrt", _FC)
def sqrt(x):
    """y = sqrt(x) (NaN for x < 0)."""
    return np.sqrt(x)


@_unary("Rsqrt", _FC)
def rsqrt(x):
    """y = 1 / sqrt(x) (float32: Eigen's rsqrtps estimate and one Newton step, as TF's kernel)."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return eigen_recip.rsqrt(x)
    if x.dtype in _HALVES:  # Eigen's half packets: float32's prsqrt, rounded once
        return eigen_recip.half(eigen_recip.rsqrt, x, lambda t: np.true_divide(np.ones((), t.dtype), np.sqrt(t)))
    return np.true_divide(np.ones((), x.dtype), np.sqrt(x))


def _eigen(x) -> bool:
    """Whether ``x`` is a float32/float16/bfloat16 array: TF computes its ``exp``, ``log``
    and ``tanh`` with Eigen's float32 approximations."""
    return getattr(x, "dtype", None) in _EIGEN_FLOATS


_HALVES = frozenset({np.dtype(np.float16), np.dtype(dtypes.bfloat16.as_numpy_dtype)})
_EIGEN_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float16), np.dtype(dtypes.bfloat16.as_numpy_dtype)})


@_unary("Exp", _FC)
def exp(x):
    """y = e ** x (float32, float16, bfloat16: Eigen's ``pexp_float`` as TF computes it,
    :mod:`ref.ops.eigen_math`)."""
    if _eigen(x):
        return eigen_math.exp(x)
    return np.exp(x)


@_unary("Expm1", _FC)
def expm1(x):
    """y = e ** x - 1, accurate near 0 (float32, float16, bfloat16: Eigen's ``generic_expm1``,
    :mod:`ref.ops.eigen_unary`)."""
    if _eigen(x):
        return eigen_unary.expm1(x)
    return np.expm1(x)


@_unary("Asinh", _FC)
def asinh(x):
    """y = asinh(x) = log(x + sqrt(x ** 2 + 1)), the inverse hyperbolic sine."""
    return np.arcsinh(x)


@_unary("Log", _FC)
def log(x):
    """y = ln(x) (float32, float16, bfloat16: Eigen's ``plog_float``, :mod:`ref.ops.eigen_math`)."""
    if _eigen(x):
        return eigen_math.log(x)
    return np.log(x)


@_unary("Log1p", _FC)
def log1p(x):
    """y = ln(1 + x), accurate near 0 (float32, float16, bfloat16: Eigen's ``generic_log1p``,
    :mod:`ref.ops.eigen_unary`)."""
    if _eigen(x):
        return eigen_unary.log1p(x)
    return np.log1p(x)


@_unary("Neg", _SIGNED_NUM)
def neg(x):
    """y = -x."""
    return np.negative(x)


@_unary("Abs", _F + _SIGNED)
def abs(x):  # noqa: A001 - TF's name
    """y = |x|."""
    return np.absolute(x)


@_unary("Sign", _SIGNED_NUM)
def sign(x):
    """y = -1, 0 or 1 (NaN for NaN); x / |x| for complex x (0 at 0)."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        mag = np.absolute(x)
        return np.where(mag == 0, np.zeros((), x.dtype), np.true_divide(x, np.where(mag == 0, 1, mag).astype(x.dtype)))
    return np.sign(x)


@_unary("Reciprocal", _FC)
def reciprocal(x):
    """y = 1 / x."""
    x = np.asarray(x)
    if x.dtype == np.float32:  # Eigen's rcpps estimate and one Newton step, as TF's kernel
        return eigen_recip.reciprocal(x)
    if x.dtype in _HALVES:  # Eigen's half packets: float32's preciprocal, rounded once
        return eigen_recip.half(eigen_recip.reciprocal, x, lambda t: np.true_divide(np.ones((), t.dtype), t))
    if x.dtype.type in _RECIPROCAL_EXACT:  # 1 / x correctly rounded, as true_divide's (a third of its cost)
        return np.reciprocal(x)
    return np.true_divide(x.dtype.type(1), x)


# NumPy's reciprocal divides in the type itself (SIMD) or in double for float32
# (an exact quotient rounded twice: 53 >= 2 * 24 + 2 bits, so the same bits).
_RECIPROCAL_EXACT = frozenset({np.float32, np.float64})


@_unary("Inv", _FC)
def inv(x):
    """y = 1 / x (the old name of Reciprocal)."""
    return reciprocal(x)


@_unary("Floor", _F)
def floor(x):
    """y = the largest integer <= x."""
    return np.floor(x)


@_unary("Ceil", _F)
def ceil(x):
    """y = the smallest integer >= x."""
    return np.ceil(x)


@_unary("Round", _F + _SIGNED)
def round(x):  # noqa: A001 - TF's name
    """y = x rounded to the nearest integer, halves to even (banker's rounding).
    Integers are returned unchanged (tensorflow-cpu 2.21's integer kernel
    returns zeros, a TF bug this kernel does not copy)."""
    x = np.asarray(x)
    return x.copy() if x.dtype.kind in "iu" else np.round(x)


@_unary("Rint", _F)
def rint(x):
    """y = the integer closest to x, halves to even."""
    return np.rint(x)


@_unary("Sin", _FC)
def sin(x):
    """y = sin(x)."""
    return np.sin(x)


@_unary("Cos", _FC)
def cos(x):
    """y = cos(x)."""
    return np.cos(x)


@_unary("Tan", _FC)
def tan(x):
    """y = tan(x)."""
    return np.tan(x)


@_unary("Tanh", _FC)
def tanh(x):
    """y = tanh(x) (float32, float16, bfloat16: Eigen's rational ``ptanh_float``,
    :mod:`ref.ops.eigen_math`)."""
    if _eigen(x):
        return eigen_math.tanh(x)
    return np.tanh(x)


@_unary("Sigmoid", _FC)
def sigmoid(x):
    """y = 1 / (1 + exp(-x)): float32 as Eigen's ``scalar_logistic_op<float>``
    (:mod:`ref.ops.eigen_math`), float16/bfloat16 as its generic ``e / (1 + e)``,
    ``e = exp(x)`` (:mod:`ref.ops.eigen_unary`); other dtypes computed so in x's dtype."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return eigen_math.sigmoid(x)
    if _eigen(x):
        return eigen_unary.sigmoid_half(x)
    one = np.ones((), x.dtype)
    with np.errstate(over="ignore"):
        e = np.negative(x, out=np.empty_like(x))  # an array even for 0-d x
        np.exp(e, out=e)
        np.add(e, one, out=e)
        return np.true_divide(one, e, out=e)


@njit
def _erf_loop(x, out):
    for i in _builtins.range(x.size):
        out[i] = math.erf(x[i])
    return out


@_unary("Erf", _F)
def erf(x):
    """y = 2/sqrt(pi) * integral_0^x exp(-t**2) dt (float32, float16, bfloat16: Eigen's rational
    ``generic_fast_erf<float>``, :mod:`ref.ops.eigen_unary`; float64: C's ``erf``)."""
    x = np.asarray(x)
    if _eigen(x):
        return eigen_unary.erf(x)
    flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    return _erf_loop(flat, np.empty_like(flat)).astype(x.dtype).reshape(x.shape)


@njit
def _erfc_loop(x, out):
    for i in _builtins.range(x.size):
        out[i] = math.erfc(x[i])
    return out


@_unary("Erfc", _F)
def erfc(x):
    """y = 1 - erf(x) = 2/sqrt(pi) * integral_x^inf exp(-t**2) dt (C's ``erfc`` in double,
    rounded to x's dtype: accurate where erf(x) is close to 1)."""
    x = np.asarray(x)
    flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    return _erfc_loop(flat, np.empty_like(flat)).astype(x.dtype).reshape(x.shape)


def _float_pred(name):
    return register_op(name, inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F},
                       shape=lambda ins, attrs: [(dtypes.bool, ins["x"].shape)])


@_float_pred("IsFinite")
def is_finite(x):
    """y = x is neither inf nor NaN."""
    return np.isfinite(x)


@_float_pred("IsNan")
def is_nan(x):
    """y = x is NaN."""
    return np.isnan(x)


@_float_pred("IsInf")
def is_inf(x):
    """y = x is +inf or -inf."""
    return np.isinf(x)


# ---------------------------------------------------------------------------
# Comparisons and logic
# ---------------------------------------------------------------------------

def _compare(name, allowed=_REAL):
    return register_op(name, inputs=("x", "y"), outputs=("z",), type_attrs={"T": ("x", "y")},
                       allowed={"T": allowed}, shape=_bool_rule("x", "y"))


@_compare("Less")
def less(x, y):
    """z = x < y."""
    return np.less(x, y)


@_compare("LessEqual")
def less_equal(x, y):
    """z = x <= y."""
    return np.less_equal(x, y)


@_compare("Greater")
def greater(x, y):
    """z = x > y."""
    return np.greater(x, y)


@_compare("GreaterEqual")
def greater_equal(x, y):
    """z = x >= y."""
    return np.greater_equal(x, y)


def _equality_shape(ins, attrs):
    x, y = ins["x"].shape, ins["y"].shape
    if attrs.get("incompatible_shape_error", True):
        return [(dtypes.bool, broadcast_shapes(x, y, attrs.get("_op_name", "op")))]
    try:
        return [(dtypes.bool, broadcast_shapes(x, y))]
    except ValueError:
        return [(dtypes.bool, TensorShape([]))]


def _equality(name):
    return register_op(name, inputs=("x", "y"), outputs=("z",), attrs={"incompatible_shape_error": True},
                       type_attrs={"T": ("x", "y")}, shape=_equality_shape)


def _broadcastable(x, y) -> bool:
    try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        return False
    return True


@_equality("Equal")
def equal(x, y, incompatible_shape_error=True):
    """z = x == y; with ``incompatible_shape_error=False`` shapes that cannot
    broadcast give a scalar False instead of an error."""
    if not _broadcastable(x, y):
        if incompatible_shape_error:
            raise invalid_argument("Incompatible shapes: " + " vs. ".join("[" + ",".join(map(str, np.shape(v))) + "]" for v in (x, y)))
        return np.array(False)
    return np.equal(x, y)


@_equality("NotEqual")
def not_equal(x, y, incompatible_shape_error=True):
    """z = x != y; shapes that cannot broadcast give a scalar True when
    ``incompatible_shape_error=False``."""
    if not _broadcastable(x, y):
        if incompatible_shape_error:
            raise invalid_argument("Incompatible shapes: " + " vs. ".join("[" + ",".join(map(str, np.shape(v))) + "]" for v in (x, y)))
        return np.array(True)
    return np.not_equal(x, y)


@register_op("LogicalAnd", inputs=("x", "y"), outputs=("z",), shape=_bool_rule("x", "y"))
def logical_and(x, y):
    """z = x AND y."""
    return np.logical_and(x, y)


@register_op("LogicalOr", inputs=("x", "y"), outputs=("z",), shape=_bool_rule("x", "y"))
def logical_or(x, y):
    """z = x OR y."""
    return np.logical_or(x, y)


@register_op("LogicalNot", inputs=("x",), outputs=("y",), shape=unary_shape)
def logical_not(x):
    """y = NOT x."""
    return np.logical_not(x)


# ---------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------

def _dims_str(shape) -> str:
    return "?" if shape.ndims is None else "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _inner_mismatch(a, b, da, db, op_name):
    raise ValueError(f"Dimensions must be equal, but are {da} and {db} for '{op_name}' "
                     f"with input shapes: {_dims_str(a)}, {_dims_str(b)}.")


def _matmul_shape(ins, attrs):
    a, b = ins["a"].shape, ins["b"].shape
    for s, n in ((a, "a"), (b, "b")):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims} for '{attrs.get('_op_name')}' "
                             f"(input '{n}') with input shapes: {_dims_str(a)}, {_dims_str(b)}.")
    la = a.as_list() if a.ndims is not None else [None, None]
    lb = b.as_list() if b.ndims is not None else [None, None]
    if attrs.get("transpose_a"):
        la = la[::-1]
    if attrs.get("transpose_b"):
        lb = lb[::-1]
    if la[1] is not None and lb[0] is not None and la[1] != lb[0]:
        _inner_mismatch(a, b, la[1], lb[0], attrs.get("_op_name"))
    return [(ins["a"].dtype, TensorShape([la[0], lb[1]]))]


_MATMUL_T = _F + (dtypes.int32, dtypes.int64) + dtypes.COMPLEX


@register_op("MatMul", inputs=("a", "b"), outputs=("product",),
             attrs={"transpose_a": False, "transpose_b": False, "grad_a": False, "grad_b": False},
             type_attrs={"T": ("a", "b")}, allowed={"T": _MATMUL_T}, shape=_matmul_shape)
def matmul(a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False):
    """product = op(a) @ op(b), op = transpose when asked (no conjugation);
    ``grad_a``/``grad_b`` only mark a gradient's MatMul (TF's hint, no effect)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape[1 - transpose_a] != b.shape[transpose_b]:
        raise invalid_argument(f"Matrix size-incompatible: In[0]: {list(a.shape)}, In[1]: {list(b.shape)}")
    a, b = a.T if transpose_a else a, b.T if transpose_b else b
    if (a.shape[0] == 1 or b.shape[1] == 1) and a.dtype == b.dtype == np.float32:
        # TF's order (Eigen's matrix-vector products)
        out = eigen_gemv.vector_product(a, b, transpose_a, transpose_b, eigen_reduce.pool_threads())
        if out is not None:
            return out
    if a.dtype == b.dtype == np.float32 and a.shape[1] and a.shape[0] and b.shape[1] \
            and not _fpenv.active() and eigen_gemm.applies():
        # TF's order (Eigen's contraction over oneDNN's AVX2 kernels)
        out = eigen_gemm.product(a, b, eigen_reduce.pool_threads())
        if out is not None:
            return out
    return gemm.matmul(a, b)


def _batch_matmul_shape(ins, attrs):
    x, y = ins["x"].shape, ins["y"].shape
    name = attrs.get("_op_name")
    if x.ndims is None or y.ndims is None:
        return [(ins["x"].dtype, unknown_shape())]
    for s in (x, y):
        if s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for '{name}' "
                             f"with input shapes: {_dims_str(x)}, {_dims_str(y)}.")
    lx, ly = x.as_list(), y.as_list()
    rx, cx = (lx[-1], lx[-2]) if attrs.get("adj_x") else (lx[-2], lx[-1])
    ry, cy = (ly[-1], ly[-2]) if attrs.get("adj_y") else (ly[-2], ly[-1])
    if cx is not None and ry is not None and cx != ry:
        _inner_mismatch(x, y, cx, ry, name)
    batch = broadcast_shapes(TensorShape(lx[:-2]), TensorShape(ly[:-2]), name)
    return [(ins["x"].dtype, TensorShape(batch.as_list() + [rx, cy]))]


def _adjoint(m):
    m = np.swapaxes(m, -1, -2)
    return np.conj(m) if m.dtype.kind == "c" else m


@register_op("BatchMatMulV2", inputs=("x", "y"), outputs=("output",),
             attrs={"adj_x": False, "adj_y": False, "grad_x": False, "grad_y": False},
             type_attrs={"T": ("x", "y")}, allowed={"T": _MATMUL_T}, shape=_batch_matmul_shape)
def batch_matmul_v2(x, y, adj_x=False, adj_y=False, grad_x=False, grad_y=False):
    """output[..., :, :] = op(x[..., :, :]) @ op(y[..., :, :]), batch dims
    broadcasting; op = adjoint (conjugate transpose) when asked. ``grad_x``/``grad_y``
    only mark a gradient's product (as TF's attrs); they change nothing."""
    x, y = np.asarray(x), np.asarray(y)
    x = _adjoint(x) if adj_x else x
    y = _adjoint(y) if adj_y else y
    if x.shape[-1] != y.shape[-2]:
        raise invalid_argument(f"Matrix size-incompatible: In[0]: {list(x.shape)}, In[1]: {list(y.shape)}")
    if x.dtype == y.dtype == np.float32:  # one row or column: TF's order (Eigen's matrix-vector products)
        out = eigen_gemv.batch_product(x, y, adj_x, adj_y, eigen_reduce.pool_threads())
        if out is not None:
            return out
    if x.dtype == y.dtype and gemm.uses_kernel(x.shape[-2], x.shape[-1], y.shape[-1], x.dtype):
        # large matrices: one product of ref's kernel per batch element (gemm.matmul)
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        xb = np.broadcast_to(x, batch + x.shape[-2:])
        yb = np.broadcast_to(y, batch + y.shape[-2:])
        out = np.empty(batch + (x.shape[-2], y.shape[-1]), x.dtype)
        for i in np.ndindex(*batch):
            gemm.matmul(xb[i], yb[i], out=out[i])
        return out
    return np.matmul(x, y)


# ---------------------------------------------------------------------------
# Adding lists: AddN
# ---------------------------------------------------------------------------

def _add_n_shape(ins, attrs):
    specs = ins["inputs"]
    shape = specs[0].shape
    for s in specs[1:]:
        if not shape.is_compatible_with(s.shape):
            raise ValueError(f"Shapes must be equal rank, but are {shape.ndims} and {s.shape.ndims} for "
                             f"'{attrs.get('_op_name')}' with input shapes: "
                             + ", ".join(_dims_str(t.shape) for t in specs) + "."
                             if shape.ndims != s.shape.ndims else
                             f"Dimensions must be equal: {_dims_str(shape)} vs {_dims_str(s.shape)} for "
                             f"'{attrs.get('_op_name')}'.")
        shape = shape.merge_with(s.shape)
    return [(specs[0].dtype, shape)]


@register_op("AddN", inputs=("inputs",), outputs=("sum",), list_inputs={"inputs": "N"},
             type_attrs={"T": "inputs"}, allowed={"T": _NUM + (dtypes.variant,)}, shape=_add_n_shape)
def add_n(inputs):
    """sum = inputs[0] + ... + inputs[N-1], in TF's order: the first ``N % 8``
    inputs (8 or 9 when that is 0 or 1) left to right, then each further group
    of eight summed left to right and added to the running total. Variant lists
    (TensorList) add element-wise."""
    x0 = inputs[0]
    if x0.__class__ is not np.ndarray and getattr(x0, "is_variant", False):
        total = x0
        for x in inputs[1:]:
            total = total.add(x)
        return total
    xs = inputs
    shape = x0.shape if x0.__class__ is np.ndarray else None
    for x in inputs:
        if x.__class__ is not np.ndarray or x.shape != shape:  # not the common case: look closer
            xs = [np.asarray(x) for x in inputs]
            for x in xs:
                if x.shape != xs[0].shape:
                    raise invalid_argument(f"Inputs to operation AddN must have the same size and shape.  "
                                           f"Input 0: {list(xs[0].shape)} != input: {list(x.shape)}")
            break
    n = len(xs)
    first = n % 8 if n % 8 > 1 else n % 8 + 8
    first = n if n < first else first
    if n == 1:
        return xs[0].copy()
    out = np.add(xs[0], xs[1])  # a new array (a NumPy scalar for 0-d inputs): later sums may go into it
    own = out.__class__ is np.ndarray
    for x in xs[2:first]:
        if own:
            np.add(out, x, out)
        else:
            out = out + x
    group = None  # one scratch array for every group's sum when the inputs are arrays
    for start in _builtins.range(first, n, 8):
        if own:
            group = np.add(xs[start], xs[start + 1], out=group)
            for x in xs[start + 2:start + 8]:
                np.add(group, x, out=group)
            np.add(out, group, out=out)
            continue
        group = xs[start]
        for x in xs[start + 1:start + 8]:
            group = group + x
        out = out + group
    return out


# ---------------------------------------------------------------------------
# Casts, clipping, selection
# ---------------------------------------------------------------------------

def _truncate_toward_zero(src, rounded):
    """``rounded`` moved one ULP toward zero wherever rounding moved away from ``src``."""
    away = np.isfinite(rounded) & (np.absolute(rounded.astype(src.dtype)) > np.absolute(src))
    return np.where(away, np.nextafter(rounded, np.zeros((), rounded.dtype)), rounded)


@register_op("Cast", inputs=("x",), outputs=("y",), attrs={"DstT": REQUIRED, "Truncate": False},
             type_attrs={"SrcT": "x"}, shape=lambda ins, attrs: [(attrs["DstT"], ins["x"].shape)])
def cast(x, DstT, Truncate=False, SrcT=None):
    """y = x converted to ``DstT``: floats to ints truncate toward zero, complex
    to real keeps the real part, anything to bool is ``x != 0``; with
    ``Truncate`` a narrowing float cast drops mantissa bits instead of rounding."""
    x = np.asarray(x)
    dst = dtypes.as_dtype(DstT).np
    if dst == np.bool_:
        return np.not_equal(x, 0) if x.dtype != np.bool_ else x.copy()
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real
    with np.errstate(invalid="ignore", over="ignore"):
        y = x.astype(dst)
    if Truncate and x.dtype.kind == "f" and dst.kind == "f" and dst.itemsize < x.dtype.itemsize:
        y = _truncate_toward_zero(x, y)
    return y


def _clip_shape(ins, attrs):
    t = ins["t"]
    for n in ("clip_value_min", "clip_value_max"):
        s = ins[n].shape
        if s.ndims not in (None, 0) and not s.is_compatible_with(t.shape):
            raise ValueError(f"Shapes must be equal rank, but are {s.ndims} and {t.shape.ndims} for "
                             f"'{attrs.get('_op_name')}' with input shapes: {_dims_str(t.shape)}, "
                             f"{_dims_str(ins['clip_value_min'].shape)}, {_dims_str(ins['clip_value_max'].shape)}.")
    return [(t.dtype, t.shape)]


@register_op("ClipByValue", inputs=("t", "clip_value_min", "clip_value_max"),
             type_attrs={"T": ("t", "clip_value_min", "clip_value_max")}, allowed={"T": dtypes.NUMBERS},
             shape=_clip_shape)
def clip_by_value(t, clip_value_min, clip_value_max):
    """output = max(min(t, clip_value_max), clip_value_min): the bounds are
    scalars or t's shape; NaN stays NaN; min > max gives min. A complex ``t``
    is clipped part by part (real parts by the bounds' real parts, imaginary
    by imaginary), as TF's kernel does."""
    t = np.asarray(t)
    for name, v in (("clip_value_min", clip_value_min), ("clip_value_max", clip_value_max)):
        if np.ndim(v) != 0 and np.shape(v) != t.shape:
            raise invalid_argument(f"{name} and t must have the same shape or {name} must be a scalar. "
                                   f"t shape: {list(t.shape)}, {name} shape: {list(np.shape(v))}")
    if t.dtype.kind == "c":
        lo, hi = np.asarray(clip_value_min), np.asarray(clip_value_max)
        out = np.empty_like(t)
        out.real = np.maximum(np.minimum(t.real, hi.real), lo.real)
        out.imag = np.maximum(np.minimum(t.imag, hi.imag), lo.imag)
        return out
    return np.maximum(np.minimum(t, clip_value_max), clip_value_min)


def _select_shape(ins, attrs):
    c, x, y = ins["condition"].shape, ins["x"].shape, ins["y"].shape
    name = attrs.get("_op_name")
    if not x.is_compatible_with(y):
        raise ValueError(f"Dimensions must be equal, but are {_dims_str(x)} and {_dims_str(y)} for '{name}'.")
    xy = x.merge_with(y)
    if c.ndims is not None and xy.ndims is not None and c.ndims not in (0, xy.ndims):
        if not (c.ndims == 1 and xy.ndims > 1):
            raise ValueError(f"Shape must be rank 0, 1 or {xy.ndims} but is rank {c.ndims} for '{name}' "
                             f"with input shapes: {_dims_str(c)}, {_dims_str(x)}, {_dims_str(y)}.")
    return [(ins["x"].dtype, xy)]


@register_op("Select", inputs=("condition", "x", "y"), type_attrs={"T": ("x", "y")},
             shape=_select_shape)
def select(condition, x, y):
    """output = x where condition else y. ``x`` and ``y`` have one shape;
    ``condition`` has that shape, is a scalar, or is a vector choosing whole
    rows (the first dimension) when ``x`` has rank > 1."""
    if condition.__class__ is np.ndarray and x.__class__ is np.ndarray and y.__class__ is np.ndarray:
        shape = condition.shape
        if x.shape == shape and y.shape == shape:  # the element-wise case
            return np.where(condition, x, y)
    c, t, e = np.asarray(condition), np.asarray(x), np.asarray(y)
    if c.shape == t.shape == e.shape:
        return np.where(c, t, e)
    if t.shape != e.shape:
        raise invalid_argument(f"'then' and 'else' must have the same size.  but received: "
                               f"{list(t.shape)} vs. {list(e.shape)}")
    if c.ndim == 1 and t.ndim > 1:
        if c.shape[0] != t.shape[0]:
            raise invalid_argument(f"Number of batches of 'then' must match size of 'cond', but saw: "
                                   f"{t.shape[0]} vs. {c.shape[0]}")
        c = c.reshape(c.shape + (1,) * (t.ndim - 1))
    elif c.ndim != 0 and c.shape != t.shape:
        raise invalid_argument(f"'cond' and 'then' must have the same size.  but received: "
                               f"{list(c.shape)} vs. {list(t.shape)}")
    return np.where(c, t, e)


def _select_v2_shape(ins, attrs):
    name = attrs.get("_op_name")
    s = broadcast_shapes(ins["t"].shape, ins["e"].shape, name)
    return [(ins["t"].dtype, broadcast_shapes(ins["condition"].shape, s, name))]


@register_op("SelectV2", inputs=("condition", "t", "e"), type_attrs={"T": ("t", "e")},
             shape=_select_v2_shape)
def select_v2(condition, t, e):
    """output = t where condition else e, all three broadcasting."""
    try:
        return np.where(condition, t, e)
    except ValueError:
        raise invalid_argument(f"condition, then and else must be broadcastable: {list(np.shape(condition))}, "
                               f"{list(np.shape(t))}, {list(np.shape(e))}") from None


# ---------------------------------------------------------------------------
# Gradient kernels TF has as ops: (y, dy) -> dx
# ---------------------------------------------------------------------------

def _grad_op(name):
    return register_op(name, inputs=("y", "dy"), outputs=("z",), type_attrs={"T": ("y", "dy")},
                       allowed={"T": _FC}, shape=broadcast_rule("y", "dy"))


def _c(value, like):
    return np.asarray(value, dtype=np.asarray(like).dtype)


@_grad_op("SigmoidGrad")
def sigmoid_grad(y, dy):
    """z = dy * y * (1 - y), with y = sigmoid(x): for real floats of one shape in TF's two
    orders, ``dy * (y * (1 - y))`` on Eigen's packets and ``(dy * y) * (1 - y)`` on the
    last ``n % packet`` elements (:func:`ref.ops.eigen_unary.sigmoid_grad`)."""
    y, dy = np.asarray(y), np.asarray(dy)
    if y.shape == dy.shape and (y.dtype.kind == "f" or _eigen(y)):
        return eigen_unary.sigmoid_grad(y, dy)
    return np.multiply(np.multiply(dy, y), np.subtract(_c(1, y), y))


@_grad_op("TanhGrad")
def tanh_grad(y, dy):
    """z = dy * (1 - y * y), with y = tanh(x)."""
    return np.multiply(dy, np.subtract(_c(1, y), np.multiply(y, y)))


_GRAD_PACKET = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
"""Eigen's AVX packet sizes: TF's gradient functors take their packet form on the
whole packets of the flat tensor and their scalar form on the rest."""


def _no_nan(value, dy):
    """TF's ``mul_no_nan``: +0 where ``dy == 0`` (whatever ``value`` is), else ``value``."""
    return np.where(dy == 0, np.zeros((), value.dtype), value)


def _packets_and_tail(packet_form, scalar_form, y, dy):
    """``packet_form`` on the first whole packets of the flat ``y``/``dy`` (same shape)
    and ``scalar_form`` on the rest, as TF's element-wise CPU kernels for float32/64."""
    y, dy = np.asarray(y), np.asarray(dy)
    lanes = _GRAD_PACKET.get(y.dtype) if y.shape == dy.shape and y.dtype == dy.dtype else None
    if lanes is None:
        return None
    fy, fd = y.reshape(-1), dy.reshape(-1)
    body = fy.size - fy.size % lanes
    out = np.empty(fy.shape, y.dtype)
    with np.errstate(all="ignore"):
        out[:body] = _no_nan(packet_form(fy[:body], fd[:body]), fd[:body])
        out[body:] = _no_nan(scalar_form(fy[body:], fd[body:]), fd[body:])
    return out.reshape(y.shape)


@_grad_op("SqrtGrad")
def sqrt_grad(y, dy):
    """z = 0.5 * dy / y, with y = sqrt(x). float32/64 as TF's functor: ``(0.5 / y) * dy``
    on whole packets, ``(0.5 * dy) / y`` on the rest, 0 where ``dy == 0``."""
    got = _packets_and_tail(lambda y, d: (_c(0.5, y) / y) * d, lambda y, d: (_c(0.5, y) * d) / y, y, dy)
    if got is not None:
        return got
    return np.true_divide(np.multiply(_c(0.5, y), dy), np.conj(y))


@_grad_op("RsqrtGrad")
def rsqrt_grad(y, dy):
    """z = -0.5 * dy * y**3, with y = rsqrt(x). float32/64 as TF's functor:
    ``(-0.5 * (y * y)) * (y * dy)`` on whole packets, ``(-0.5 * (dy * y)) * (y * y)`` on
    the rest, 0 where ``dy == 0``; otherwise ``(-0.5 * dy) * ((y * y) * y)``."""
    got = _packets_and_tail(lambda y, d: (_c(-0.5, y) * (y * y)) * (y * d),
                            lambda y, d: (_c(-0.5, y) * (d * y)) * (y * y), y, dy)
    if got is not None:
        return got
    yc = np.conj(y)
    return np.multiply(np.multiply(_c(-0.5, y), dy), np.multiply(np.multiply(yc, yc), yc))


@_grad_op("ReciprocalGrad")
def reciprocal_grad(y, dy):
    """z = -dy * y * y, with y = 1/x. float32/64 as TF's functor: ``-(y * y) * dy``,
    0 where ``dy == 0``; otherwise ``(-dy * y) * y``."""
    got = _packets_and_tail(lambda y, d: -(y * y) * d, lambda y, d: -(y * y) * d, y, dy)
    if got is not None:
        return got
    yc = np.conj(y)
    return np.multiply(np.multiply(np.negative(dy), yc), yc)


@_grad_op("InvGrad")
def inv_grad(y, dy):
    """z = -dy * y * y (the old name of ReciprocalGrad)."""
    return reciprocal_grad(y, dy)
