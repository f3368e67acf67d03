"""Gradient rules for ``ref/ops/math.py`` (TF's math_grad.py formulas)."""
from __future__ import annotations

import numpy as np

from ref.framework.op_def_library import apply_op
from ref.framework.tensor_util import constant_value
from ref.grad._util import (binary_grads, kept_dims_shape, reduction_axes, unbroadcast, reduce_gradient_args,
                            shapes_equal_and_known)
from ref.types import dtypes
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.graph import colocate_with, control_dependencies, device
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import math_ops, array_ops
from ref.graph_ops.math_extras import cumulative_logsumexp


def _m():
    return math_ops


def _a():
    return array_ops


def _cj(t):
    """conj(t) for a complex tensor: TF's gradients of holomorphic functions
    are ``grad * conj(f'(x))``."""
    return apply_op("Conj", input=t) if t.dtype.is_complex else t


for _t in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
           "LogicalNot", "ArgMax", "ArgMin", "Floor", "Ceil", "Round", "Rint", "IsFinite", "IsNan",
           "IsInf", "FloorDiv", "TruncateDiv", "Range", "All", "Any", "Bucketize"):
    NotDifferentiable(_t)


@RegisterGradient("AddV2")
def _add_grad(op, grad):
    x, y = op.inputs
    if shapes_equal_and_known(x, y, grad):
        return grad, grad
    return binary_grads(op, grad, grad)


RegisterGradient("Add")(_add_grad)


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    x, y = op.inputs
    if shapes_equal_and_known(x, y, grad):
        return grad, _m().negative(grad)
    return binary_grads(op, grad, _m().negative(grad))


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    x, y = op.inputs
    if shapes_equal_and_known(x, y, grad) and grad.dtype.base_dtype in (dtypes.int32, dtypes.float32):
        return apply_op("Mul", x=grad, y=y), apply_op("Mul", x=grad, y=x)
    return binary_grads(op, apply_op("Mul", x=grad, y=_cj(y)), apply_op("Mul", x=_cj(x), y=grad))


@RegisterGradient("RealDiv")
def _real_div_grad(op, grad):
    x, y = map(_cj, op.inputs)
    m = _m()
    return binary_grads(op, m.realdiv(grad, y), grad * m.realdiv(m.realdiv(-x, y), y))


@RegisterGradient("Div")
def _div_grad(op, grad):
    x, y = map(_cj, op.inputs)
    m = _m()
    return binary_grads(op, m.div(grad, y), m.multiply(grad, m.div(m.div(m.negative(x), y), y)))


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    x, y = op.inputs
    m = _m()
    return binary_grads(op, m.div_no_nan(grad, y), grad * m.div_no_nan(m.div_no_nan(-x, y), y))


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    x, y = op.inputs
    m = _m()
    x, y = _cj(x), _cj(y)
    return binary_grads(op, grad, grad * m.negative(m.floor_div(x, y)))


def _select_max_min(op, grad, compare):
    x, y = op.inputs
    a = _a()
    zeros = a.zeros_like(grad)
    mask = compare(x, y)  # ties go to x, as TF
    return binary_grads(op, a.where_v2(mask, grad, zeros), a.where_v2(mask, zeros, grad))


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    return _select_max_min(op, grad, _m().greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    return _select_max_min(op, grad, _m().less_equal)


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    """grad * (y * x^(y-1), z * log(x)), built as TF's ``_PowGrad`` builds it
    (operators, so ``mul``/``sub`` names; TF1 ``where``, so ``Select``)."""
    x, y = op.inputs
    m, a = _m(), _a()
    cx, cy = _cj(x), _cj(y)
    gx = grad * cy * m.pow(cx, cy - 1)
    mask = m.not_equal(cx, 0) if x.dtype.is_complex else cx > 0
    safe_x = a.where(mask, cx, a.ones_like(x))
    log_x = a.where(mask, m.log(safe_x), a.zeros_like(x))
    gy = grad * _cj(op.outputs[0]) * log_x
    return binary_grads(op, gx, gy)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    with control_dependencies([grad]):
        scalar = convert_to_tensor(2.0, dtype=grad.dtype.base_dtype, name="scalar")  # TF's scalar_mul
        x_grad = apply_op("Mul", x=scalar, y=grad) * (x - y)
    if shapes_equal_and_known(x, y, grad):
        return x_grad, -x_grad
    return binary_grads(op, x_grad, -x_grad)


@RegisterGradient("Square")
def _square_grad(op, grad):
    with control_dependencies([grad]):
        x = _cj(op.inputs[0])
        two = constant(2.0, dtype=x.dtype.base_dtype)
        return _m().multiply(grad, _m().multiply(x, two))


@RegisterGradient("Sqrt")
def _sqrt_grad(op, grad):
    return apply_op("SqrtGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op, grad):
    return apply_op("RsqrtGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op, grad):
    return apply_op("ReciprocalGrad", y=op.outputs[0], dy=grad)


RegisterGradient("Inv")(_reciprocal_grad)


@RegisterGradient("Exp")
def _exp_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _cj(op.outputs[0])


@RegisterGradient("Expm1")
def _expm1_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _m().exp(_cj(op.inputs[0]))


@RegisterGradient("Sign")
def _sign_grad(op, _):
    """Zero wherever it is defined (TF returns zeros_like(x), not None)."""
    return _a().zeros_like(op.inputs[0])


@RegisterGradient("Log")
def _log_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _m().reciprocal(_cj(op.inputs[0]))


@RegisterGradient("Log1p")
def _log1p_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _m().reciprocal(1 + _cj(op.inputs[0]))


@RegisterGradient("Neg")
def _neg_grad(op, grad):
    return _m().negative(grad)


@RegisterGradient("Abs")
def _abs_grad(op, grad):
    return grad * _m().sign(op.inputs[0])


@RegisterGradient("Sin")
def _sin_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _m().cos(_cj(op.inputs[0]))


@RegisterGradient("Cos")
def _cos_grad(op, grad):
    with control_dependencies([grad]):
        return -grad * _m().sin(_cj(op.inputs[0]))


@RegisterGradient("Tan")
def _tan_grad(op, grad):
    m = _m()
    with control_dependencies([grad]):
        sec = m.reciprocal(m.cos(_cj(op.inputs[0])))
        return m.square(sec) * grad


@RegisterGradient("Tanh")
def _tanh_grad(op, grad):
    return apply_op("TanhGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op, grad):
    return apply_op("SigmoidGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Erf")
def _erf_grad(op, grad):
    m = _m()
    two_over_root_pi = constant(2 / np.sqrt(np.pi), dtype=grad.dtype)
    with control_dependencies([grad]):
        return grad * two_over_root_pi * m.exp(-m.square(_cj(op.inputs[0])))


@RegisterGradient("Erfc")
def _erfc_grad(op, grad):
    m = _m()
    minus_two_over_root_pi = constant(-2 / np.sqrt(np.pi), dtype=grad.dtype)
    with control_dependencies([grad]):
        return grad * minus_two_over_root_pi * m.exp(-m.square(_cj(op.inputs[0])))


# -- gradients of gradient kernels (second derivatives) -------------------------

@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    y, dy = op.inputs
    m = _m()
    return m.multiply(m.multiply(grad, m.cast(-2.0, y.dtype)), m.multiply(dy, y)), \
        apply_op("TanhGrad", y=y, dy=grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    y, dy = op.inputs
    m = _m()
    gb = m.multiply(grad, dy)
    return m.subtract(gb, m.multiply(m.multiply(m.cast(2.0, y.dtype), gb), y)), apply_op("SigmoidGrad", y=y, dy=grad)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    a = op.inputs[0]
    y = op.outputs[0]
    m = _m()
    ga = m.realdiv(grad, a)
    return m.multiply(m.negative(ga), y), m.multiply(m.cast(0.5, a.dtype), ga)


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    a, b = op.inputs
    m = _m()
    grad_a = m.multiply(m.multiply(m.multiply(m.cast(-1.5, a.dtype), grad), b), m.square(a))
    return grad_a, apply_op("RsqrtGrad", y=a, dy=grad)


@RegisterGradient("ReciprocalGrad")
def _reciprocal_grad_grad(op, grad):
    a, b = op.inputs
    m = _m()
    return m.multiply(m.multiply(grad, m.cast(-2.0, a.dtype)), m.multiply(b, a)), \
        apply_op("ReciprocalGrad", y=a, dy=grad)


RegisterGradient("InvGrad")(_reciprocal_grad_grad)


# -- matmul ------------------------------------------------------------------------

@RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    a, b = map(_cj, op.inputs)
    ta, tb = op._get_attr("transpose_a"), op._get_attr("transpose_b")

    def mm(x, y, ta=False, tb=False, **mark):
        return apply_op("MatMul", a=x, b=y, transpose_a=ta, transpose_b=tb, **mark)

    if not ta and not tb:
        return mm(grad, b, tb=True, grad_a=True), mm(a, grad, ta=True, grad_b=True)
    if not ta and tb:
        return mm(grad, b, grad_a=True), mm(grad, a, ta=True, grad_b=True)
    if ta and not tb:
        return mm(b, grad, tb=True, grad_a=True), mm(a, grad, grad_b=True)
    return mm(b, grad, True, True, grad_a=True), mm(grad, a, True, True, grad_b=True)


@RegisterGradient("BatchMatMulV2")
def _batch_matmul_grad(op, grad):
    x, y = op.inputs
    adj_x, adj_y = op._get_attr("adj_x"), op._get_attr("adj_y")
    mm = _m().matmul
    if not adj_x and not adj_y:
        gx, gy = mm(grad, y, adjoint_b=True, grad_a=True), mm(x, grad, adjoint_a=True, grad_b=True)
    elif not adj_x and adj_y:
        gx, gy = mm(grad, y, grad_a=True), mm(grad, x, adjoint_a=True, grad_b=True)
    elif adj_x and not adj_y:
        gx, gy = mm(y, grad, adjoint_b=True, grad_a=True), mm(x, grad, grad_b=True)
    else:
        gx, gy = (mm(y, grad, adjoint_a=True, adjoint_b=True, grad_a=True),
                  mm(grad, x, adjoint_a=True, adjoint_b=True, grad_b=True))
    # TF sums over broadcast batch dimensions unless both batch shapes are
    # known and equal (matrices alone: no batch shape to reduce).
    xs, ys = x.shape, y.shape
    may_have_batch = xs.ndims is None or xs.ndims > 2 or ys.ndims is None or ys.ndims > 2
    if not may_have_batch or (xs[:-2].is_fully_defined() and ys[:-2].is_fully_defined()
                              and xs[:-2].as_list() == ys[:-2].as_list()):
        return gx, gy
    a, m = _a(), _m()
    sx, sy = a.shape(x), a.shape(y)
    rx, ry = apply_op("BroadcastGradientArgs", s0=sx[:-2], s1=sy[:-2])
    return a.reshape(m.reduce_sum(gx, rx), sx), a.reshape(m.reduce_sum(gy, ry), sy)


# -- reductions ----------------------------------------------------------------------

def _reduced_shape(input_shape, axes):
    """The reduction's output shape with kept dims (TF's ``math_ops.reduced_shape``):
    a NumPy array when shape and axes are constants, else a ``DynamicStitch``."""
    m, a = _m(), _a()
    shape_value, axes_value = (v if isinstance(v, np.ndarray) else constant_value(v) for v in (input_shape, axes))
    if shape_value is not None and axes_value is not None:
        out = np.array(shape_value, dtype=np.int32)
        out[np.array(axes_value, dtype=np.int32)] = 1
        return out
    rank = a.size(input_shape, out_type=axes.dtype)
    axes = (axes + rank) % rank  # TF's operators: nodes named add, mod
    axes_shape = a.shape(axes)
    return apply_op("DynamicStitch", indices=[m.range(rank), axes],
                    data=[input_shape, a.ones(axes_shape, dtype=input_shape.dtype)])


def _broadcast_back(op, grad):
    """``grad`` of a Sum's output, reshaped to keep dims and tiled to the input
    (TF's ``_SumGrad``: static shapes fold to constants)."""
    a = _a()
    x = op.inputs[0]
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    axes = constant_value(op.inputs[1])
    if dims is not None and axes is not None:
        rank = len(dims)
        if np.array_equal(axes, np.arange(rank)):
            g = a.reshape(grad, [1] * rank)
            known = None not in dims
            return a.tile(g, constant(np.array(dims, np.int32)) if known else a.shape(x))
        if None not in dims:
            # TF folds the shapes once per graph, building (and caching) the
            # Maximum/floordiv nodes of _SafeShapeDiv on the first use.
            cache = op.graph.__dict__.setdefault("_reduced_shape_cache", {})
            key = (tuple(dims), tuple(np.asarray(axes).reshape(-1).tolist()))
            if key not in cache:
                kept = _reduced_shape(np.array(dims, np.int32), np.asarray(axes))
                tuple(dims) // _m().maximum(kept, 1)  # TF's nodes; their value is folded here
                scaling = np.array(dims, np.int64) // np.maximum(kept, 1)
                cache[key] = (tuple(int(d) for d in kept), tuple(int(d) for d in scaling))
            kept, scaling = cache[key]
            return a.tile(a.reshape(grad, kept), scaling)
    input_shape = a.shape(x)
    if not op._get_attr("keep_dims"):
        with colocate_with(input_shape):  # as TF's _SumGrad
            kept = _reduced_shape(input_shape, op.inputs[1])
        grad = a.reshape(grad, kept)
    return a.broadcast_to(grad, input_shape)


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    return _broadcast_back(op, grad), None


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    m, a = _m(), _a()
    x, y = op.inputs[0], op.outputs[0]
    g = _broadcast_back(op, grad)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        factor = int(np.prod(x.shape.as_list())) // max(int(np.prod(y.shape.as_list())), 1)
        factor = constant(factor, dtype=g.dtype.base_dtype)
    else:
        input_shape = a.shape(x)
        rank = a.size(input_shape)
        axes = m.cast(op.inputs[1], rank.dtype)
        axes = (axes + rank) % rank  # TF's operators: add, mod
        factor = m.reduce_prod(a.gather(input_shape, axes))
    return m.truediv(g, m.cast(factor, g.dtype)), None


def _min_or_max_grad(op, grad):
    m, a = _m(), _a()
    x, y = op.inputs[0], op.outputs[0]
    input_shape = a.shape(x)
    if not op._get_attr("keep_dims"):
        kept = _reduced_shape(input_shape, op.inputs[1])
        y = a.reshape(y, kept)
        grad = a.reshape(grad, kept)
    else:
        kept = a.shape(y)
    indicators = m.cast(m.equal(y, x), grad.dtype)
    num_selected = a.reshape(m.reduce_sum(indicators, op.inputs[1]), kept)
    return m.divide(indicators, num_selected) * grad, None


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


@RegisterGradient("Prod")
def _prod_grad(op, grad):
    """TF's zero-safe product gradient, built as TF builds it: the reduced axes
    moved to the front and flattened, exclusive cumprods from both ends, then the
    permutation inverted (shape arithmetic on the CPU, as TF places it)."""
    m, a = _m(), _a()
    x = op.inputs[0]
    input_shape = a.shape(x)
    axes = a.reshape(op.inputs[1], [-1])
    if not op._get_attr("keep_dims"):
        grad = a.reshape(grad, _reduced_shape(input_shape, op.inputs[1]))
    grad = a.broadcast_to(grad, input_shape)
    with device("/cpu:0"):
        rank = a.rank(x)
        axes = m.cast(axes, rank.dtype)
        reduced = (axes + rank) % rank
        other, _ = apply_op("ListDiff", x=m.range(0, rank), y=reduced, out_idx=reduced.dtype)
        perm = a.concat([reduced, other], 0)
        reduced_num = m.reduce_prod(a.gather(input_shape, reduced))
        other_num = m.reduce_prod(a.gather(input_shape, other))
    permuted = a.transpose(x, perm)
    permuted_shape = a.shape(permuted)
    flat = a.reshape(permuted, (reduced_num, other_num))
    left = m.cumprod(flat, axis=0, exclusive=True)
    right = m.cumprod(flat, axis=0, exclusive=True, reverse=True)
    y = a.reshape(_cj(left) * _cj(right), permuted_shape)
    out = grad * a.transpose(y, a.invert_permutation(perm))
    return a.reshape(out, input_shape), None


@RegisterGradient("AddN")
def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


RegisterGradient("AccumulateNV2")(_add_n_grad)


@RegisterGradient("Cast")
def _cast_grad(op, grad):
    src = op.inputs[0].dtype.base_dtype
    dst = op.outputs[0].dtype.base_dtype
    ok = lambda d: d.is_floating or d.is_complex  # noqa: E731
    if ok(src) and ok(dst):
        return _m().cast(grad, src)
    return None


@RegisterGradient("Select")
def _select_grad(op, grad):
    c, x, y = op.inputs
    a = _a()
    zeros = a.zeros_like(x)
    return None, a.where(c, grad, zeros), a.where(c, zeros, grad)


@RegisterGradient("SelectV2")
def _select_v2_grad(op, grad):
    c, x, y = op.inputs
    z = op.outputs[0]
    a = _a()
    zeros = a.zeros([], dtype=grad.dtype.base_dtype)
    gx = a.where_v2(c, grad, zeros)
    gy = a.where_v2(c, zeros, grad)
    return None, reduce_gradient_args(x, z, gx, None)[0], reduce_gradient_args(y, z, gy, None)[0]


@RegisterGradient("ClipByValue")
def _clip_by_value_grad(op, grad):
    """TF's graph: zeros of grad's shape, Select on x < lo / x > hi, and the bounds'
    gradients summed over BroadcastGradientArgs' axes."""
    x, lo, hi = op.inputs
    m, a = _m(), _a()
    sx, sy, sz = a.shape(x), a.shape(lo), a.shape(hi)
    zeros = a.zeros(a.shape(grad), grad.dtype)
    below = m.less(x, lo)
    above = m.greater(x, hi)
    _, ry = apply_op("BroadcastGradientArgs", s0=sx, s1=sy)
    _, rz = apply_op("BroadcastGradientArgs", s0=sx, s1=sz)
    gx = a.where(m.logical_or(below, above), zeros, grad)
    gy = a.where(below, grad, zeros)
    gz = a.where(above, grad, zeros)
    return gx, a.reshape(m.reduce_sum(gy, ry), sy), a.reshape(m.reduce_sum(gz, rz), sz)


@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    axis = op.inputs[1]
    return _m().cumsum(grad, axis, exclusive=op._get_attr("exclusive"), reverse=not op._get_attr("reverse")), None


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    """TF's form: the gradient split into its positive and negative parts, each
    carried in log space by a cumulative logsumexp scanning the other way."""
    m, a = _m(), _a()
    x, axis = op.inputs
    out = op.outputs[0]
    exclusive, reverse = op._get_attr("exclusive"), op._get_attr("reverse")
    log_pos = a.where_v2(m.greater(grad, 0), m.log(grad), grad.dtype.min)
    log_neg = a.where_v2(m.less(grad, 0), m.log(-grad), grad.dtype.min)
    from_pos = m.exp(cumulative_logsumexp(log_pos - out, axis, reverse=not reverse, exclusive=exclusive) + x)
    from_neg = m.exp(cumulative_logsumexp(log_neg - out, axis, reverse=not reverse, exclusive=exclusive) + x)
    return from_pos - from_neg, None


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    """TF's form: div_no_nan(cumsum(cumprod(x) * grad, reversed), x) (zero where x is zero)."""
    m = _m()
    x, axis = op.inputs
    exclusive, reverse = op._get_attr("exclusive"), op._get_attr("reverse")
    prod = m.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = m.cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return m.div_no_nan(out, x), None
