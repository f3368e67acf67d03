"""Gradients of ``ref/ops/trig.py`` and of ``EuclideanNorm`` (the bitwise ops have none, as in TF) (TF's math_grad.py
formulas, each building the nodes TF builds):

* d sinh(x) = cosh(x), d cosh(x) = sinh(x)
* d asin(x) = 1 / sqrt(1 - x^2), d acos(x) = -1 / sqrt(1 - x^2), d atan(x) = 1 / (1 + x^2)
* d asinh(x) = 1 / cosh(y), d acosh(x) = 1 / sinh(y), d atanh(x) = 1 / (1 - x^2)  (y the output)
* atan2(y, x): dy = x / (x^2 + y^2), dx = -y / (x^2 + y^2)
* xlogy(x, y): dx = xlogy(x != 0, y), dy = xdivy(x, y)
* xdivy(x, y): dx = xdivy(x != 0, y), dy = xdivy(-x, y^2)
* xlog1py(x, y): dx = xlog1py(x != 0, y), dy = xdivy(x, y + 1)
* mul_no_nan(x, y): dx = mul_no_nan(grad, y), dy = mul_no_nan(x, grad)
* euclidean_norm(x) = n: dx = x / (n / grad)
"""
from __future__ import annotations

from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import apply_op, constant
from ref.grad._util import reduce_gradient_args, shapes_equal_and_known
from ref.grad.math_grad import _reduced_shape
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops


def _cj(t):
    return apply_op("Conj", input=t) if t.dtype.is_complex else t


def _raw(op_type, x):
    return apply_op(op_type, x=x)


@RegisterGradient("Sinh")
def _sinh_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _raw("Cosh", _cj(op.inputs[0]))


@RegisterGradient("Cosh")
def _cosh_grad(op, grad):
    with control_dependencies([grad]):
        return grad * _raw("Sinh", _cj(op.inputs[0]))


@RegisterGradient("Asinh")
def _asinh_grad(op, grad):
    with control_dependencies([grad]):
        return grad / _raw("Cosh", _cj(op.outputs[0]))


@RegisterGradient("Acosh")
def _acosh_grad(op, grad):
    with control_dependencies([grad]):
        return grad / _raw("Sinh", _cj(op.outputs[0]))


def _one_minus_square(op, grad):
    x = _cj(op.inputs[0])
    x2 = math_ops.square(x)
    one = constant(1, dtype=grad.dtype)
    return math_ops.subtract(one, x2)


@RegisterGradient("Atanh")
def _atanh_grad(op, grad):
    with control_dependencies([grad]):
        return grad * math_ops.reciprocal(_one_minus_square(op, grad))


@RegisterGradient("Asin")
def _asin_grad(op, grad):
    with control_dependencies([grad]):
        return grad * math_ops.reciprocal(math_ops.sqrt(_one_minus_square(op, grad)))


@RegisterGradient("Acos")
def _acos_grad(op, grad):
    with control_dependencies([grad]):
        inv = math_ops.reciprocal(math_ops.sqrt(_one_minus_square(op, grad)))
        return -grad * inv


@RegisterGradient("Atan")
def _atan_grad(op, grad):
    with control_dependencies([grad]):
        x = _cj(op.inputs[0])
        x2 = math_ops.square(x)
        one = constant(1, dtype=grad.dtype)
        return grad * math_ops.reciprocal(math_ops.add(one, x2))


@RegisterGradient("Atan2")
def _atan2_grad(op, grad):
    y, x = op.inputs
    with control_dependencies([grad]):
        grad_inv = grad / (math_ops.square(y) + math_ops.square(x))
        gy = x * grad_inv
        gx = -y * grad_inv
        return reduce_gradient_args(y, x, gy, gx)


def _x_nonzero(x):
    return math_ops.cast(math_ops.not_equal(x, math_ops.cast(0.0, dtype=x.dtype)), dtype=x.dtype)


def _safe_pair_grad(op, grad, partials):
    """TF's Xlogy/Xdivy/Xlog1py rule: raw BroadcastGradientArgs, then each
    partial times grad summed over its broadcast axes and reshaped."""
    x, y = op.inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = apply_op("BroadcastGradientArgs", s0=sx, s1=sy)
    with control_dependencies([grad]):
        partial_x, partial_y = partials(x, y)
        return (array_ops.reshape(math_ops.reduce_sum(partial_x * grad, rx), sx),
                array_ops.reshape(math_ops.reduce_sum(partial_y * grad, ry), sy))


@RegisterGradient("Xlogy")
def _xlogy_grad(op, grad):
    return _safe_pair_grad(op, grad, lambda x, y: (apply_op("Xlogy", x=_x_nonzero(x), y=y),
                                                   apply_op("Xdivy", x=x, y=y)))


@RegisterGradient("Xlog1py")
def _xlog1py_grad(op, grad):
    return _safe_pair_grad(op, grad, lambda x, y: (apply_op("Xlog1py", x=_x_nonzero(x), y=y),
                                                   apply_op("Xdivy", x=x, y=y + 1.0)))


@RegisterGradient("Xdivy")
def _xdivy_grad(op, grad):
    return _safe_pair_grad(op, grad, lambda x, y: (apply_op("Xdivy", x=_x_nonzero(x), y=y),
                                                   apply_op("Xdivy", x=math_ops.negative(x), y=y ** 2)))


@RegisterGradient("MulNoNan")
def _mul_no_nan_grad(op, grad):
    x, y = op.inputs
    gx = apply_op("MulNoNan", x=grad, y=y)
    gy = apply_op("MulNoNan", x=x, y=grad)
    if shapes_equal_and_known(x, y, grad):
        return gx, gy
    return reduce_gradient_args(x, y, gx, gy)


@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    output = op.outputs[0]
    if not op._get_attr("keep_dims"):
        kept = _reduced_shape(array_ops.shape(op.inputs[0]), op.inputs[1])
        output = array_ops.reshape(output, kept)
        grad = array_ops.reshape(grad, kept)
    return math_ops.truediv(op.inputs[0], output / grad), None



for _t in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "PopulationCount", "LeftShift", "RightShift"):
    NotDifferentiable(_t)  # as TF's bitwise_ops


# -- fake quantization (TF's array_ops.py registers these) ----------------------------

@RegisterGradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op, grad):
    return apply_op("FakeQuantWithMinMaxArgsGradient", gradients=grad, inputs=op.inputs[0], min=op._get_attr("min"),
                    max=op._get_attr("max"), num_bits=op._get_attr("num_bits"),
                    narrow_range=op._get_attr("narrow_range"))


def _fake_quant_vars_grad(grad_op):
    def rule(op, grad):
        return apply_op(grad_op, gradients=grad, inputs=op.inputs[0], min=op.inputs[1], max=op.inputs[2],
                        num_bits=op._get_attr("num_bits"), narrow_range=op._get_attr("narrow_range"))
    return rule


RegisterGradient("FakeQuantWithMinMaxVars")(_fake_quant_vars_grad("FakeQuantWithMinMaxVarsGradient"))
RegisterGradient("FakeQuantWithMinMaxVarsPerChannel")(
    _fake_quant_vars_grad("FakeQuantWithMinMaxVarsPerChannelGradient"))
for _t in ("FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
           "FakeQuantWithMinMaxVarsPerChannelGradient"):
    NotDifferentiable(_t)
