"""Gradient rules for ``ref/ops/math.py`` (TF's math_grad.py formulas)."""
from __future__ import annotations

import numpy as np

from ref.framework.op_def_library import apply_op
from ref.framework.tensor_util import constant_value
from ref.grad._util import binary_grads, kept_dims_shape, reduction_axes, unbroadcast
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import math_ops, array_ops


def _m():
    return math_ops


def _a():
    return array_ops


def _cj(t):
    """conj(t) for a complex tensor: TF's gradients of holomorphic functions
    are ``grad * conj(f'(x))``."""
    return apply_op("Conj", input=t) if t.dtype.is_complex else t


for _t in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
           "LogicalNot", "ArgMax", "ArgMin", "Floor", "Ceil", "Round", "Rint", "Sign", "IsFinite", "IsNan",
           "IsInf", "FloorDiv", "TruncateDiv", "Range", "All", "Any"):
    NotDifferentiable(_t)


@RegisterGradient("AddV2")
def _add_grad(op, grad):
    return binary_grads(op, grad, grad)


RegisterGradient("Add")(_add_grad)


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    return binary_grads(op, grad, _m().negative(grad))


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    x, y = map(_cj, op.inputs)
    m = _m()
    return binary_grads(op, m.multiply(grad, y), m.multiply(x, grad))


@RegisterGradient("RealDiv")
def _real_div_grad(op, grad):
    x, y = map(_cj, op.inputs)
    m = _m()
    return binary_grads(op, m.realdiv(grad, y), m.multiply(grad, m.realdiv(m.realdiv(m.negative(x), y), y)))


@RegisterGradient("Div")
def _div_grad(op, grad):
    x, y = map(_cj, op.inputs)
    m = _m()
    return binary_grads(op, m.div(grad, y), m.multiply(grad, m.div(m.div(m.negative(x), y), y)))


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    x, y = op.inputs
    m = _m()
    return binary_grads(op, m.div_no_nan(grad, y),
                        m.multiply(grad, m.div_no_nan(m.div_no_nan(m.negative(x), y), y)))


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    x, y = op.inputs
    m = _m()
    return binary_grads(op, grad, m.multiply(grad, m.negative(m.floordiv(x, y))))


def _select_max_min(op, grad, compare):
    x, y = op.inputs
    a = _a()
    mask = compare(x, y)  # ties go to x, as TF
    zeros = a.zeros_like(grad)
    return binary_grads(op, a.where_v2(mask, grad, zeros), a.where_v2(mask, zeros, grad))


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    return _select_max_min(op, grad, _m().greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    return _select_max_min(op, grad, _m().less_equal)


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    m, a = _m(), _a()
    gx = m.multiply(grad, m.multiply(y, m.pow(x, m.subtract(y, m.cast(1, y.dtype)))))
    safe_x = a.where_v2(m.greater(x, m.cast(0, x.dtype)), x, a.ones_like(x))
    log_x = a.where_v2(m.greater(x, m.cast(0, x.dtype)), m.log(safe_x), a.zeros_like(x))
    gy = m.multiply(grad, m.multiply(z, log_x))
    return binary_grads(op, gx, gy)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    m = _m()
    x_grad = m.multiply(m.multiply(m.cast(2, grad.dtype), grad), m.subtract(x, y))
    return binary_grads(op, x_grad, m.negative(x_grad))


@RegisterGradient("Square")
def _square_grad(op, grad):
    x = _cj(op.inputs[0])
    m = _m()
    return m.multiply(grad, m.multiply(x, m.cast(2, x.dtype)))


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
    return _m().multiply(grad, _cj(op.outputs[0]))


@RegisterGradient("Expm1")
def _expm1_grad(op, grad):
    return _m().multiply(grad, _m().exp(op.inputs[0]))


@RegisterGradient("Asinh")
def _asinh_grad(op, grad):
    """d asinh(x) / dx = 1 / sqrt(x ** 2 + 1) (TF writes it 1 / cosh(y))."""
    m = _m()
    x = _cj(op.inputs[0])
    return m.multiply(grad, m.rsqrt(m.add(m.square(x), m.cast(1, x.dtype))))


@RegisterGradient("Log")
def _log_grad(op, grad):
    return _m().multiply(grad, _m().reciprocal(_cj(op.inputs[0])))


@RegisterGradient("Log1p")
def _log1p_grad(op, grad):
    m = _m()
    x = op.inputs[0]
    return m.multiply(grad, m.reciprocal(m.add(m.cast(1, x.dtype), x)))


@RegisterGradient("Neg")
def _neg_grad(op, grad):
    return _m().negative(grad)


@RegisterGradient("Abs")
def _abs_grad(op, grad):
    return _m().multiply(grad, _m().sign(op.inputs[0]))


@RegisterGradient("Sin")
def _sin_grad(op, grad):
    return _m().multiply(grad, _m().cos(op.inputs[0]))


@RegisterGradient("Cos")
def _cos_grad(op, grad):
    return _m().negative(_m().multiply(grad, _m().sin(op.inputs[0])))


@RegisterGradient("Tan")
def _tan_grad(op, grad):
    m = _m()
    sec = m.reciprocal(m.cos(op.inputs[0]))
    return m.multiply(grad, m.square(sec))


@RegisterGradient("Tanh")
def _tanh_grad(op, grad):
    return apply_op("TanhGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op, grad):
    return apply_op("SigmoidGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Erf")
def _erf_grad(op, grad):
    m = _m()
    x = op.inputs[0]
    two_over_root_pi = m.cast(2.0 / np.sqrt(np.pi), x.dtype)
    return m.multiply(grad, m.multiply(two_over_root_pi, m.exp(m.negative(m.square(x)))))


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
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    mm = _m().matmul
    if not ta and not tb:
        return mm(grad, b, transpose_b=True), mm(a, grad, transpose_a=True)
    if not ta and tb:
        return mm(grad, b), mm(grad, a, transpose_a=True)
    if ta and not tb:
        return mm(b, grad, transpose_b=True), mm(a, grad)
    return mm(b, grad, transpose_a=True, transpose_b=True), mm(grad, a, transpose_a=True, transpose_b=True)


@RegisterGradient("BatchMatMulV2")
def _batch_matmul_grad(op, grad):
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    mm = _m().matmul
    if not adj_x and not adj_y:
        gx, gy = mm(grad, y, adjoint_b=True), mm(x, grad, adjoint_a=True)
    elif not adj_x and adj_y:
        gx, gy = mm(grad, y), mm(grad, x, adjoint_a=True)
    elif adj_x and not adj_y:
        gx, gy = mm(y, grad, adjoint_b=True), mm(x, grad)
    else:
        gx, gy = mm(y, grad, adjoint_a=True, adjoint_b=True), mm(grad, x, adjoint_a=True, adjoint_b=True)
    return unbroadcast(gx, x), unbroadcast(gy, y)


# -- reductions ----------------------------------------------------------------------

def _broadcast_back(op, grad):
    """``grad`` of a reduction's output, reshaped to keep dims and tiled to the input."""
    a, m = _a(), _m()
    x = op.inputs[0]
    kept = kept_dims_shape(op)
    g = a.reshape(grad, kept)
    if x.shape.is_fully_defined() and isinstance(kept, np.ndarray):
        multiples = np.array(x.shape.as_list(), np.int32) // np.maximum(kept, 1)
        return a.tile(g, multiples)
    return a.tile(g, m.floordiv(a.shape(x), kept))


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    return _broadcast_back(op, grad), None


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    m, a = _m(), _a()
    x, y = op.inputs[0], op.outputs[0]
    g = _broadcast_back(op, grad)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        factor = max(x.shape.num_elements(), 1) // max(y.shape.num_elements(), 1) if y.shape.num_elements() else 1
        return m.truediv(g, m.cast(factor, g.dtype)) if g.dtype.is_floating or g.dtype.is_complex else g, None
    factor = m.maximum(m.floordiv(a.size(x), m.maximum(a.size(y), 1)), 1)
    return m.realdiv(g, m.cast(factor, g.dtype)), None


def _min_or_max_grad(op, grad):
    m, a = _m(), _a()
    x, y = op.inputs[0], op.outputs[0]
    kept = kept_dims_shape(op)
    y_kept = a.reshape(y, kept)
    indicators = m.cast(m.equal(y_kept, x), grad.dtype)
    num_selected = a.reshape(m.reduce_sum(indicators, op.inputs[1]), kept)
    return m.multiply(m.realdiv(indicators, num_selected), a.reshape(grad, kept)), None


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


@RegisterGradient("Prod")
def _prod_grad(op, grad):
    """TF's zero-safe product gradient: exclusive cumprods from both ends."""
    m, a = _m(), _a()
    x = op.inputs[0]
    axes = reduction_axes(op)
    rank = x.shape.ndims
    if axes is None:
        raise ValueError(f"Prod gradient of '{op.name}' needs statically known axes and rank")
    g = _broadcast_back(op, grad)
    other = [i for i in range(rank) if i not in axes]
    perm = axes + other
    xt = a.transpose(x, perm)
    shape_t = a.shape(xt)
    n_red = 1
    for i in axes:
        n_red = n_red * a.shape(x)[i]
    flat = a.reshape(xt, a.stack([n_red, -1]))
    left = m.cumprod(flat, axis=0, exclusive=True)
    right = m.cumprod(flat, axis=0, exclusive=True, reverse=True)
    y = a.reshape(m.multiply(left, right), shape_t)
    inv = np.argsort(perm).tolist()
    return m.multiply(g, a.transpose(y, inv)), None


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
    a = _a()
    zeros = a.zeros_like(grad)
    return None, unbroadcast(a.where_v2(c, grad, zeros), x), unbroadcast(a.where_v2(c, zeros, grad), y)


@RegisterGradient("ClipByValue")
def _clip_by_value_grad(op, grad):
    x, lo, hi = op.inputs
    m, a = _m(), _a()
    zeros = a.zeros_like(grad)
    below = m.less(x, lo)
    above = m.greater(x, hi)
    gx = a.where_v2(m.logical_or(below, above), zeros, grad)
    glo = unbroadcast(a.where_v2(below, grad, zeros), lo)
    ghi = unbroadcast(a.where_v2(above, grad, zeros), hi)
    return gx, glo, ghi


@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    axis = op.inputs[1]
    return _m().cumsum(grad, axis, exclusive=op.get_attr("exclusive"), reverse=not op.get_attr("reverse")), None


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    """TF's form: cumsum(cumprod(x) * grad, reversed) / x (inputs must be nonzero)."""
    m = _m()
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = m.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = m.cumsum(m.multiply(prod, grad), axis, exclusive=exclusive, reverse=not reverse)
    return m.realdiv(out, x), None
