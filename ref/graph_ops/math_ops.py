"""TF1 math functions (``tf.add``, ``tf.matmul``, ``tf.reduce_mean``, ``tf.cast``,
...) built on the ops of :mod:`ref.ops.math` with ``ref.framework.op_def_library.apply_op``.

Names, signatures and defaults are ``tensorflow.compat.v1``'s, and so are the
ops they create (``tf.add`` builds ``AddV2``, ``tf.div`` floor-divides
integers, ``tf.truediv`` casts int32/int64 to float64 and int8/int16 to
float32 first, ``tf.clip_by_value`` is ``Minimum`` then ``Maximum``). No
implicit dtype promotion: float32 + float64 is a TypeError naming both dtypes;
statically incompatible shapes are a ValueError naming both shapes.
"""
from __future__ import annotations

import builtins as _builtins

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.sparse_tensor import SparseTensor
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops
from ref.graph_ops.clip_ops import clip_by_value as _clip

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "div", "div_no_nan", "floordiv", "floor_div", "mod",
    "floormod", "truncatediv", "realdiv", "pow", "maximum", "minimum", "squared_difference", "square", "sqrt",
    "rsqrt", "exp", "expm1", "asinh", "log", "log1p", "negative", "neg", "abs", "sign", "reciprocal", "floor", "ceil",
    "round", "rint", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "erfc", "is_finite", "is_nan", "is_inf", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not",
    "logical_xor", "matmul", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
    "reduce_all", "reduce_any", "argmax", "argmin", "add_n", "accumulate_n", "cast", "to_float", "to_double",
    "to_int32", "to_int64", "to_bfloat16", "to_complex64", "to_complex128", "arg_max", "arg_min",
    "saturate_cast", "clip_by_value", "cumsum", "cumprod", "range", "count_nonzero", "scalar_mul", "tensordot",
    "sub", "mul",
]


def _a():
    return array_ops


def _bin(op_type, x, y, name):
    """One binary op on x and y converted as TF converts them."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        return apply_op(op_type, x=x, y=y, name=name)
    with name_scope(name, op_type, [x, y]) as scope:  # constants named "Maximum/y", as TF's
        x, y = _pair(x, y)
        return apply_op(op_type, x=x, y=y, name=scope)


def _pair(x, y):
    """x and y as Tensors, Python values taking the other's dtype (TF's rule)."""
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_to_tensor(x, dtype_hint=y.dtype.base_dtype, name="x")
    else:
        x = convert_to_tensor(x, name="x")
    y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
    return x, y


# ---------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------

def add(x, y, name=None):
    """x + y element-wise, broadcasting (``AddV2``)."""
    with name_scope(name, "Add", [x, y]) as scope:
        x, y = _pair(x, y)
        op = "Add" if x.dtype.base_dtype == dtypes.string else "AddV2"
        return apply_op(op, x=x, y=y, name=scope)


def subtract(x, y, name=None):
    """x - y element-wise (``Sub``)."""
    return _bin("Sub", x, y, name)


def multiply(x, y, name=None):
    """x * y element-wise (``Mul``)."""
    return _bin("Mul", x, y, name)


sub = subtract
mul = multiply


def realdiv(x, y, name=None):
    """x / y for floating-point and complex tensors (``RealDiv``)."""
    return _bin("RealDiv", x, y, name)


_TRUEDIV_TO = {dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32, dtypes.int16: dtypes.float32,
               dtypes.uint16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64}


def truediv(x, y, name=None):
    """x / y with Python 3 semantics: integers are cast to floats first
    (8/16-bit to float32, 32/64-bit to float64), then ``RealDiv``."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x, y = _pair(x, y)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x.dtype.base_dtype.name!r} != "
                            f"{y.dtype.base_dtype.name!r}.")
        to = _TRUEDIV_TO.get(x.dtype.base_dtype)
        if to is not None:
            x, y = cast(x, to), cast(y, to)
        return apply_op("RealDiv", x=x, y=y, name=scope)


def divide(x, y, name=None):
    """x / y (Python 3 division: :func:`truediv`)."""
    if name is not None:
        return truediv(x, y, name=name)
    return truediv(x, y)


def div(x, y, name=None):
    """x / y with Python 2 semantics: floor division for integers, ``RealDiv``
    for floats (TF1's deprecated ``tf.div``)."""
    with name_scope(name, "div", [x, y]) as scope:
        x, y = _pair(x, y)
        if x.dtype.base_dtype.is_floating or x.dtype.base_dtype.is_complex:
            return apply_op("RealDiv", x=x, y=y, name=scope)
        return apply_op("FloorDiv", x=x, y=y, name=scope)


def div_no_nan(x, y, name=None):
    """x / y, 0 where y is 0 (``DivNoNan``)."""
    with name_scope(name, "div_no_nan", [x, y]) as scope:
        x, y = _pair(x, y)
        return apply_op("DivNoNan", x=x, y=y, name=scope)


def floordiv(x, y, name=None):
    """floor(x / y) element-wise (``FloorDiv``)."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return _bin("FloorDiv", x, y, scope)


def floor_div(x, y, name=None):
    """floor(x / y) element-wise (``FloorDiv``, gen_math_ops naming)."""
    return _bin("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    """x - floor(x / y) * y: the remainder with the sign of y (``FloorMod``)."""
    return _bin("FloorMod", x, y, name)


mod = floormod


def truncatediv(x, y, name=None):
    """x / y rounded toward zero (``TruncateDiv``)."""
    return _bin("TruncateDiv", x, y, name)


def pow(x, y, name=None):  # noqa: A001 - TF's name
    """x ** y element-wise (``Pow``)."""
    with name_scope(name, "Pow", [x]) as scope:
        return _bin("Pow", x, y, scope)


def maximum(x, y, name=None):
    """max(x, y) element-wise (``Maximum``)."""
    return _bin("Maximum", x, y, name)


def minimum(x, y, name=None):
    """min(x, y) element-wise (``Minimum``)."""
    return _bin("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    """(x - y) * (x - y) element-wise (``SquaredDifference``)."""
    return _bin("SquaredDifference", x, y, name)


# ---------------------------------------------------------------------------
# Unary arithmetic
# ---------------------------------------------------------------------------

def _unary(op_type, fname, doc):
    def fn(x, name=None):
        return apply_op(op_type, x=x, name=name)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    return fn


square = _unary("Square", "square", "x * x element-wise (``Square``).")
sqrt = _unary("Sqrt", "sqrt", "sqrt(x) element-wise (``Sqrt``).")
rsqrt = _unary("Rsqrt", "rsqrt", "1 / sqrt(x) element-wise (``Rsqrt``).")
exp = _unary("Exp", "exp", "e ** x element-wise (``Exp``).")
expm1 = _unary("Expm1", "expm1", "e ** x - 1 element-wise (``Expm1``).")
asinh = _unary("Asinh", "asinh", "The inverse hyperbolic sine, element-wise (``Asinh``).")
log = _unary("Log", "log", "ln(x) element-wise (``Log``).")
log1p = _unary("Log1p", "log1p", "ln(1 + x) element-wise (``Log1p``).")
negative = _unary("Neg", "negative", "-x element-wise (``Neg``).")
neg = negative
sign = _unary("Sign", "sign", "-1, 0 or 1 element-wise (``Sign``).")
reciprocal = _unary("Reciprocal", "reciprocal", "1 / x element-wise (``Reciprocal``).")
floor = _unary("Floor", "floor", "The largest integer <= x (``Floor``).")
ceil = _unary("Ceil", "ceil", "The smallest integer >= x (``Ceil``).")
rint = _unary("Rint", "rint", "The nearest integer, halves to even (``Rint``).")
sin = _unary("Sin", "sin", "sin(x) element-wise (``Sin``).")
cos = _unary("Cos", "cos", "cos(x) element-wise (``Cos``).")
tan = _unary("Tan", "tan", "tan(x) element-wise (``Tan``).")
erf = _unary("Erf", "erf", "The error function of x (``Erf``).")
erfc = _unary("Erfc", "erfc", "The complementary error function of x, 1 - erf(x) (``Erfc``).")
is_finite = _unary("IsFinite", "is_finite", "x is neither inf nor NaN (``IsFinite``).")
is_nan = _unary("IsNan", "is_nan", "x is NaN (``IsNan``).")
is_inf = _unary("IsInf", "is_inf", "x is +-inf (``IsInf``).")


def abs(x, name=None):  # noqa: A001 - TF's name
    """|x| element-wise (``Abs``; ``ComplexAbs`` for complex x)."""
    with name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return apply_op("ComplexAbs", x=x, Tout=x.dtype.real_dtype, name=scope)
        return apply_op("Abs", x=x, name=scope)


def round(x, name=None):  # noqa: A001 - TF's name
    """x rounded half to even (``Round``); integers unchanged."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return apply_op("Round", x=x, name=name)


def tanh(x, name=None):
    """tanh(x) element-wise (``Tanh``)."""
    with name_scope(name, "Tanh", [x]) as scope:
        return apply_op("Tanh", x=x, name=scope)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) element-wise (``Sigmoid``)."""
    with name_scope(name, "Sigmoid", [x]) as scope:
        return apply_op("Sigmoid", x=x, name=scope)


# ---------------------------------------------------------------------------
# Comparisons and logic
# ---------------------------------------------------------------------------

def equal(x, y, name=None):
    """x == y element-wise (``Equal``)."""
    return _bin("Equal", x, y, name)


def not_equal(x, y, name=None):
    """x != y element-wise (``NotEqual``)."""
    return _bin("NotEqual", x, y, name)


def less(x, y, name=None):
    """x < y element-wise (``Less``)."""
    return _bin("Less", x, y, name)


def less_equal(x, y, name=None):
    """x <= y element-wise (``LessEqual``)."""
    return _bin("LessEqual", x, y, name)


def greater(x, y, name=None):
    """x > y element-wise (``Greater``)."""
    return _bin("Greater", x, y, name)


def greater_equal(x, y, name=None):
    """x >= y element-wise (``GreaterEqual``)."""
    return _bin("GreaterEqual", x, y, name)


def _bools(x, y):
    x = convert_to_tensor(x, dtype=dtypes.bool, name="x")
    y = convert_to_tensor(y, dtype=dtypes.bool, name="y")
    for t in (x, y):
        if t.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"Expected bool, got {t.dtype.name}")
    return x, y


def logical_and(x, y, name=None):
    """x AND y element-wise (``LogicalAnd``)."""
    x, y = _bools(x, y)
    return _bin("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    """x OR y element-wise (``LogicalOr``)."""
    x, y = _bools(x, y)
    return _bin("LogicalOr", x, y, name)


def logical_not(x, name=None):
    """NOT x element-wise (``LogicalNot``)."""
    x = convert_to_tensor(x, dtype=dtypes.bool, name="x")
    return apply_op("LogicalNot", x=x, name=name)


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y = (x OR y) AND NOT (x AND y), as TF builds it."""
    x, y = _bools(x, y)
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# ---------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------

def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """op(a) @ op(b): ``MatMul`` for matrices, ``BatchMatMulV2`` (batch dims
    broadcasting) for rank > 2 or an unknown rank. The ``*_is_sparse`` hints change nothing;
    ``grad_a``/``grad_b`` mark a gradient's product (TF's attrs)."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of transpose_b and adjoint_b can be True.")
        a = convert_to_tensor(a, name="a")  # TF's names; b takes a's dtype, never the reverse
        b = convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        if output_type is not None and dtypes.as_dtype(output_type) != a.dtype.base_dtype:
            raise NotImplementedError("ref's matmul computes in its inputs' dtype (output_type must match it)")
        ra, rb = a.shape.ndims, b.shape.ndims
        # TF: a batch product unless both ranks are known to be <= 2 (or a sparse hint is given)
        batched = (ra is not None and ra > 2) or (rb is not None and rb > 2) or (
            (ra is None or rb is None) and not (a_is_sparse or b_is_sparse))
        if batched:
            # BatchMatMulV2 has adjoints only: a transposed complex batch is
            # conjugated first (TF's matmul; no op for real ones).
            if transpose_a:
                a, adjoint_a = _conj_complex(a), True
            if transpose_b:
                b, adjoint_b = _conj_complex(b), True
            return apply_op("BatchMatMulV2", x=a, y=b, adj_x=bool(adjoint_a), adj_y=bool(adjoint_b), grad_x=bool(grad_a),
                            grad_y=bool(grad_b), name=scope)
        # MatMul has transposes only: an adjoint is a conjugate, transposed (TF's matmul).
        if adjoint_a:
            a, transpose_a = _conj_complex(a), True
        if adjoint_b:
            b, transpose_b = _conj_complex(b), True
        return apply_op("MatMul", a=a, b=b, transpose_a=bool(transpose_a), transpose_b=bool(transpose_b),
                        grad_a=bool(grad_a), grad_b=bool(grad_b), name=scope)


def _conj_complex(x):
    """``Conj`` (in a ``Conj`` scope) of a complex tensor; a real one unchanged."""
    if not x.dtype.is_complex:
        return x
    with name_scope(None, "Conj", [x]) as scope:
        return apply_op("Conj", input=x, name=scope)



def _tensordot_axes(a, axes):
    """(a's axes, b's axes) of a ``tensordot``: lists, or tensors when ``axes``
    is an int and a's rank is unknown, or ``axes`` is a tensor."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        n = a.shape.ndims
        if n is not None:
            if axes > n:
                raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  "
                                 f"Received {axes}, vs tensor dimensions {n}.")
            return list(_builtins.range(n - axes, n)), list(_builtins.range(axes))
        r = _a().rank(a)
        return range(r - axes, r, dtype=dtypes.int32), range(axes, dtype=dtypes.int32)
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        return a_axes, b_axes
    axes = convert_to_tensor(axes, name="axes", dtype=dtypes.int32)
    return axes[0], axes[1]


def _tensordot_reshape(a, axes, flipped=False):
    """``a`` as a matrix (contracted axes last, or first when ``flipped``), its
    free dims (a list or a tensor) and their static values (or None)."""
    a_ = _a()
    if a.shape.is_fully_defined() and isinstance(axes, (list, tuple)):
        shape_a = a.shape.as_list()
        axes = [i if i >= 0 else i + len(shape_a) for i in axes]
        free = [i for i in _builtins.range(len(shape_a)) if i not in axes]
        free_dims = [shape_a[i] for i in free]
        prod_free = int(np.prod([shape_a[i] for i in free]))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        perm = list(axes) + free if flipped else free + list(axes)
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        if perm != list(_builtins.range(len(shape_a))):
            a = a_.transpose(a, perm)
        if a.shape.as_list() != new_shape:
            a = a_.reshape(a, new_shape)
        return a, free_dims, free_dims
    if a.shape.ndims is not None and isinstance(axes, (list, tuple)):
        shape_a = a.shape.as_list()
        axes = [i if i >= 0 else i + len(shape_a) for i in axes]
        free = [i for i in _builtins.range(len(shape_a)) if i not in axes]
        free_static = [shape_a[i] for i in free]
        axes = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        free = convert_to_tensor(free, dtype=dtypes.int32, name="free")
        shape_a = a_.shape(a)
    else:
        free_static = None
        shape_a = a_.shape(a)
        rank_a = a_.rank(a)
        axes = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        axes = a_.where(axes >= 0, axes, axes + rank_a)
        free, _ = a_.setdiff1d(range(rank_a), axes, dtypes.int32)
    free_dims = a_.gather(shape_a, free)
    axes_dims = a_.gather(shape_a, axes)
    prod_free = reduce_prod(free_dims)
    prod_axes = reduce_prod(axes_dims)
    if flipped:
        perm, new_shape = a_.concat([axes, free], 0), a_.stack([prod_axes, prod_free])
    else:
        perm, new_shape = a_.concat([free, axes], 0), a_.stack([prod_free, prod_axes])
    return a_.reshape(a_.transpose(a, perm), new_shape), free_dims, free_static


def tensordot(a, b, axes, name=None):
    """sum over a's ``axes[0]`` and b's ``axes[1]`` of a * b (an int ``axes``
    means a's last and b's first ``axes`` dims): transpose, reshape to
    matrices, ``MatMul``, reshape back -- with constants where the shapes are
    static, else from ``Shape``/``Gather``/``Prod`` (TF's graph either way)."""
    a_ = _a()
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_mat, a_free, a_static = _tensordot_reshape(a, a_axes)
        b_mat, b_free, b_static = _tensordot_reshape(b, b_axes, True)
        prod = matmul(a_mat, b_mat)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if prod.shape.is_fully_defined() and prod.shape.as_list() == a_free + b_free:
                return prod
            return a_.reshape(prod, a_free + b_free, name=scope)
        a_free = convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = convert_to_tensor(b_free, dtype=dtypes.int32)
        out = a_.reshape(prod, a_.concat([a_free, b_free], 0), name=scope)
        if a_static is not None and b_static is not None:
            out.set_shape(a_static + b_static)
        return out


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _reduction_dims(x, axis):
    """The ``axis`` input of a reduction: all dims when None (a constant when
    the rank is known and positive, else ``range(0, Rank(x))``, as TF)."""
    if axis is not None:
        return axis
    ndims = getattr(getattr(x, "shape", None), "ndims", None)  # a list or NumPy array: TF's Rank path
    if ndims:  # TF's fast path; a scalar (rank 0) takes the Range path too
        return constant(np.arange(ndims, dtype=np.int32), name="Const")
    return range(0, _a().rank(x))


def _may_reduce_to_scalar(keepdims, axis, out):
    """A full reduction (no axis, no keepdims) is a scalar even when the input's
    rank is unknown: TF sets the static shape to ``[]`` (so gradients fold
    shapes to constants)."""
    if not keepdims and axis is None and not out.shape.is_fully_defined():
        out.set_shape([])
    return out


def _keep(keepdims, keep_dims, reduction_indices, axis):
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keepdims = keep_dims
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
        axis = reduction_indices
    return bool(keepdims) if keepdims is not None else False, axis


def _reducer(op_type, fname, doc, bool_input=False):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        keep, axis = _keep(keepdims, keep_dims, reduction_indices, axis)
        # converted inside the op's scope, as TF (a resource variable's read is "Sum/ReadVariableOp")
        out = apply_op(op_type, input=input_tensor, axis=_reduction_dims(input_tensor, axis), keep_dims=keep,
                       name=name)
        return _may_reduce_to_scalar(keep, axis, out)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    return fn


reduce_sum = _reducer("Sum", "reduce_sum", "The sum over ``axis`` (all dims when None) (``Sum``).")
reduce_max = _reducer("Max", "reduce_max", "The maximum over ``axis`` (``Max``).")
reduce_min = _reducer("Min", "reduce_min", "The minimum over ``axis`` (``Min``).")
reduce_prod = _reducer("Prod", "reduce_prod", "The product over ``axis`` (``Prod``).")
reduce_all = _reducer("All", "reduce_all", "Logical AND over ``axis`` (``All``).", bool_input=True)
reduce_any = _reducer("Any", "reduce_any", "Logical OR over ``axis`` (``Any``).", bool_input=True)
reduce_mean = _reducer("Mean", "reduce_mean", "The mean over ``axis`` (``Mean``; integer inputs divide "
                                              "truncating, as TF).")


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002 - TF's name
    """The number of non-zero elements over ``axis``: ``reduce_sum(cast(x != 0, dtype))``."""
    if input is not None:
        input_tensor = input
    keep, axis = _keep(keepdims, keep_dims, reduction_indices, axis)
    with name_scope(name, "count_nonzero", [input_tensor]):
        # TF's graph: input converted as "input", a bool input is its own
        # predicate, else NotEqual to a scalar ``zeros([])``; summed in int64.
        x = convert_to_tensor(input_tensor, name="input")
        if x.dtype.base_dtype == dtypes.bool:
            predicate = x
        else:
            predicate = not_equal(x, array_ops.zeros([], dtype=x.dtype.base_dtype))
        return cast(reduce_sum(cast(predicate, dtypes.int64), axis=axis, keepdims=keep), dtype)


def _arg(op_type, input, axis, name, dimension, output_type):
    if dimension is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension
    if axis is None:
        axis = 0
    return apply_op(op_type, input=input, dimension=axis, output_type=dtypes.as_dtype(output_type), name=name)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    """The index of the largest value along ``axis`` (0 when None) (``ArgMax``)."""
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    """The index of the smallest value along ``axis`` (0 when None) (``ArgMin``)."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


def add_n(inputs, name=None):
    """inputs[0] + ... + inputs[N-1] (``AddN``; one input gives an ``Identity``)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype and shape")
    # TF converts every input but an IndexedSlices before AddN's scope (a variable's read is not
    # "AddN/ReadVariableOp"); an IndexedSlices densifies in AddN's scope (TF's inputs_<i>)
    inputs = [x if type(x).__name__ == "IndexedSlices" else convert_to_tensor(x) for x in inputs]
    if len(inputs) == 1:  # TF: the input itself; an Identity only when named
        only = convert_to_tensor(inputs[0])
        return apply_op("Identity", input=only, name=name) if name else only
    return apply_op("AddN", inputs=list(inputs), name=name)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of ``inputs`` (``AddN``, as TF 2.x builds TF1's accumulate_n)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [convert_to_tensor(x) for x in inputs]
    if tensor_dtype is not None and any(x.dtype.base_dtype != dtypes.as_dtype(tensor_dtype) for x in inputs):
        raise TypeError(f"tensor_dtype is {dtypes.as_dtype(tensor_dtype).name}, but input is of type "
                        f"{inputs[0].dtype.name}")
    for x in inputs[1:]:
        if not x.shape.is_compatible_with(inputs[0].shape):
            raise ValueError(f"Input tensors must have compatible shapes: {inputs[0].shape} vs {x.shape}")
    return add_n(inputs, name=name)


# ---------------------------------------------------------------------------
# Casts and clipping
# ---------------------------------------------------------------------------

def cast(x, dtype, name=None):
    """x converted to ``dtype`` (``Cast``); x itself when it already has it; a
    SparseTensor or IndexedSlices with its values cast."""
    base = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and x.dtype == base:  # a reference (float32_ref) is cast to its value, as TF
        return x
    handle = getattr(x, "handle", None)  # TF: a resource variable of that dtype comes back unread
    if isinstance(handle, Tensor) and handle.dtype == dtypes.resource and x.dtype.base_dtype == base:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        if isinstance(x, SparseTensor):  # TF: the values cast, indices and shape kept
            return SparseTensor(x.indices, cast(x.values, base, name=scope), x.dense_shape)
        if isinstance(x, IndexedSlices):
            return IndexedSlices(cast(x.values, base, name=scope), x.indices, x.dense_shape)
        x = convert_to_tensor(x, name="x")
        if x.dtype == base:
            return x
        return apply_op("Cast", x=x, DstT=base, Truncate=False, name=scope)


def to_float(x, name="ToFloat"):
    """cast(x, float32)."""
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    """cast(x, float64)."""
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    """cast(x, int32)."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    """cast(x, int64)."""
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    """cast(x, bfloat16)."""
    return cast(x, dtypes.bfloat16, name=name)


def to_complex64(x, name="ToComplex64"):
    """cast(x, complex64)."""
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    """cast(x, complex128)."""
    return cast(x, dtypes.complex128, name=name)


def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """The deprecated raw form of :func:`argmax`: ``dimension`` is required (``ArgMax``)."""
    return _arg("ArgMax", input, None, name, dimension, output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """The deprecated raw form of :func:`argmin`: ``dimension`` is required (``ArgMin``)."""
    return _arg("ArgMin", input, None, name, dimension, output_type)


def saturate_cast(value, dtype, name=None):
    """cast(value, dtype) after clamping to ``dtype``'s range (no wrap-around).

    As TF 2.21 builds it: one ``ClipByValue`` named ``clamp`` whatever the
    types, its limits ``max(in.min, out.min)`` and ``min(in.max, out.max)`` in
    the input's type, each nudged one step towards 0 when that rounding put it
    outside the output's range (float32 -> int32: 2147483520, not 2**31).
    Complex -> complex clamps both parts only where the range shrinks; complex
    -> real takes the real part first."""
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        src = value.dtype.base_dtype
        if src.is_complex:
            if dtype.is_complex:
                lo, hi = src.real_dtype, dtype.real_dtype
                if lo.min < hi.min or lo.max > hi.max:
                    value = apply_op("ClipByValue", t=value,
                                     clip_value_min=convert_to_tensor(_builtins.complex(hi.min, hi.min), dtype=src),
                                     clip_value_max=convert_to_tensor(_builtins.complex(hi.max, hi.max), dtype=src),
                                     name="clamp")
                return cast(value, dtype, name=scope)
            value = apply_op("Real", input=value, Tout=src.real_dtype, name="Real")  # tf.math.real's op
            src = src.real_dtype
        if src.is_bool or dtype.is_bool:
            raise TypeError(f"Cannot find minimum value of {(src if src.is_bool else dtype).name}.")
        np_src, out = src.as_numpy_dtype, dtype.real_dtype
        try:
            promoted = np.promote_types(np_src, out.as_numpy_dtype)
        except TypeError:  # bfloat16 and the like: compare as floats
            promoted = float
        lo = np_src(np.maximum(src.min, out.min))
        if np.array([lo, out.min], dtype=promoted)[0] < np.array([lo, out.min], dtype=promoted)[1]:
            lo = np.nextafter(lo, np_src(0), dtype=np_src)
        hi = np_src(np.minimum(float(src.max), float(out.max)))
        if np.array([hi, out.max], dtype=promoted)[0] > np.array([hi, out.max], dtype=promoted)[1]:
            hi = np.nextafter(hi, np_src(0), dtype=np_src)
        value = apply_op("ClipByValue", t=value, clip_value_min=convert_to_tensor(lo, dtype=src),
                         clip_value_max=convert_to_tensor(hi, dtype=src), name="clamp")
        return cast(value, dtype, name=scope)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``tf.clip_by_value`` (see :mod:`ref.graph_ops.clip_ops`)."""
    return _clip(t, clip_value_min, clip_value_max, name=name)


# ---------------------------------------------------------------------------
# Scans, sequences, scalars
# ---------------------------------------------------------------------------

def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along ``axis`` (``Cumsum``)."""
    with name_scope(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumsum", x=x, axis=axis, exclusive=exclusive, reverse=reverse, name=scope)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along ``axis`` (``Cumprod``)."""
    with name_scope(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumprod", x=x, axis=axis, exclusive=exclusive, reverse=reverse, name=scope)


_RANGE_ORDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """[start, start + delta, ...) up to ``limit`` (``Range``); ``range(n)`` is
    [0, n). Without ``dtype`` the widest of the arguments' dtypes wins."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            # TF converts the non-tensors first, then casts: the constants precede any Cast
            args = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype, name=n)
                    for v, n in ((start, "start"), (limit, "limit"), (delta, "delta"))]
            args = [cast(t, dtype) for t in args]
        else:
            args = [convert_to_tensor(v, name=n) for v, n in ((start, "start"), (limit, "limit"), (delta, "delta"))]
            widest = _builtins.max(args, key=lambda t: _RANGE_ORDER.index(t.dtype.base_dtype)
                                   if t.dtype.base_dtype in _RANGE_ORDER else -1).dtype.base_dtype
            args = [cast(t, widest) for t in args]
        return apply_op("Range", start=args[0], limit=args[1], delta=args[2], name=scope)


def scalar_mul(scalar, x, name=None):
    """scalar * x for a 0-d ``scalar`` (ValueError otherwise)."""
    if not isinstance(x, (Tensor, IndexedSlices)):
        x = convert_to_tensor(x)
    s = convert_to_tensor(scalar, dtype=x.dtype.base_dtype, name="scalar")
    if s.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {s.shape}.")
    # TF: one Mul op named ``name`` (default "Mul"), no scope of its own
    if isinstance(x, IndexedSlices):
        return IndexedSlices(apply_op("Mul", x=s, y=x.values, name=name or "Mul"), x.indices, x.dense_shape)
    return apply_op("Mul", x=s, y=x, name=name or "Mul")


# -- Tensor operators, registered onto the framework's Tensor from here (as TF's
# math_ops does): ``a + b`` is ``add(a, b)`` under the name scope "add". -----------

def _binary(fname, scope_name, reverse=False):
    """Tensor operator: TF names the op after the operator ("add", "mul", "truediv")."""

    def method(self, other):
        fn = globals()[fname]
        with name_scope(None, scope_name, [self, other]) as scope:
            try:
                other_t = convert_to_tensor(other, dtype_hint=self.dtype.base_dtype, name="x" if reverse else "y")
            except TypeError:
                if not isinstance(other, Tensor) and not hasattr(other, "_as_graph_element"):
                    return NotImplemented
                raise
            if reverse:
                return fn(other_t, self, name=scope)
            return fn(self, other_t, name=scope)

    method.__name__ = fname
    return method


for _op_name, _fn in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "truediv"),
                      ("floordiv", "floordiv"), ("mod", "floormod"), ("pow", "pow"), ("matmul", "matmul"),
                      ("and", "logical_and"), ("or", "logical_or"), ("xor", "logical_xor")]:
    _scope = {"floordiv": "floordiv", "mod": "mod"}.get(_op_name, _op_name)
    setattr(Tensor, f"__{_op_name}__", _binary(_fn, _scope))
    setattr(Tensor, f"__r{_op_name}__", _binary(_fn, _scope, reverse=True))
for _op_name, _fn in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(Tensor, f"__{_op_name}__", _binary(_fn, {"lt": "Less", "le": "LessEqual", "gt": "Greater",
                                                     "ge": "GreaterEqual"}[_op_name]))
Tensor.__div__ = Tensor.__truediv__
Tensor.__rdiv__ = Tensor.__rtruediv__
Tensor.__neg__ = lambda self: negative(self)
Tensor.__abs__ = lambda self: abs(self)
Tensor.__invert__ = lambda self: logical_not(self)
