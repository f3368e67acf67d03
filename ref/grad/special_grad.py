"""Gradients of the special functions (Lgamma, Digamma, Zeta, Polygamma, Igamma, Igammac,
Betainc, the Bessel I0/I0e/I1/I1e, NextAfter), of
SegmentMean/Max/Min/Prod and of Roll, building TF's graphs (TF's ``math_grad`` and
``manip_grad``)."""
from __future__ import annotations

import numpy as np

from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import apply_op, constant
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, math_ops, math_special, math_trig, special_math_ops


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op, grad):
    """Each row gets its segment's gradient divided by the segment's row count."""
    a = array_ops
    data_rank = a.rank(op.inputs[0])
    ids_shape = a.shape(op.inputs[1])
    remaining = a.ones(a.expand_dims(data_rank - 1, 0), dtype=ids_shape.dtype)
    ones = a.ones(a.concat([ids_shape, remaining], 0), dtype=grad.dtype)
    scaled = math_ops.divide(grad, a.segment_sum(ones, op.inputs[1]))
    return a.gather(scaled, op.inputs[1]), None


def _segment_min_or_max_grad(op, grad):
    """The gradient goes to the entries equal to their segment's result, split
    equally among ties (TF's ``_SegmentMinOrMaxGrad``)."""
    a, m = array_ops, math_ops
    data, ids = op.inputs
    zeros = a.zeros_like(data, dtype=data.dtype)
    is_selected = m.equal(data, a.gather(op.outputs[0], ids))
    num_selected = a.segment_sum(m.cast(is_selected, grad.dtype), ids)
    gathered = a.gather(m.divide(grad, num_selected), ids)
    return a.where_v2(is_selected, gathered, zeros), None


RegisterGradient("SegmentMax")(_segment_min_or_max_grad)
RegisterGradient("SegmentMin")(_segment_min_or_max_grad)


@RegisterGradient("SegmentProd")
def _segment_prod_grad(op, grad):
    """d prod / d x_j = the product of the segment's other entries: the product
    over x_j without zeros, the product of the non-zero entries for the one zero
    of a segment, 0 in a segment with two zeros (TF's ``_SegmentProdGrad``)."""
    a, m = array_ops, math_ops
    data, ids = op.inputs
    is_zero = m.equal(data, 0)
    num_zeros = a.segment_sum(m.cast(is_zero, dtype="int32"), ids)
    grad = a.where_v2(m.greater(num_zeros, 1), a.zeros_like(grad), grad)
    non_zero_data = a.where_v2(is_zero, a.ones_like(data), data)
    non_zero_prod = math_special.segment_prod(non_zero_data, ids)
    gathered_prod = a.gather(op.outputs[0], ids)
    gathered_non_zero_prod = a.gather(non_zero_prod, ids)
    partial = a.where_v2(is_zero, gathered_non_zero_prod, gathered_prod / non_zero_data)
    return a.gather(grad, ids) * partial, None


@RegisterGradient("Lgamma")
def _lgamma_grad(op, grad):
    """d/dx log|Gamma(x)| = digamma(x)."""
    with control_dependencies([grad]):
        return grad * math_special.digamma(op.inputs[0])


@RegisterGradient("Digamma")
def _digamma_grad(op, grad):
    """d/dx digamma(x) = polygamma(1, x)."""
    x = op.inputs[0]
    with control_dependencies([grad]):
        return grad * math_special.polygamma(constant(1, dtype=x.dtype), x)


def _second_argument_grad(op, grad, partial):
    """(None, the gradient of the second input): TF differentiates Zeta and
    Polygamma only in their second argument, summed over its broadcast axes."""
    first, second = op.inputs
    s1, s2 = array_ops.shape(first), array_ops.shape(second)
    _, r2 = apply_op("BroadcastGradientArgs", s0=s1, s1=s2)
    with control_dependencies([grad]):
        d = partial(first, second)
        return None, array_ops.reshape(math_ops.reduce_sum(d * grad, r2), s2)


@RegisterGradient("Zeta")
def _zeta_grad(op, grad):
    """d/dq zeta(x, q) = -x zeta(x + 1, q); no gradient for x."""
    return _second_argument_grad(op, grad, lambda x, q: -x * math_special.zeta(x + 1, q))


@RegisterGradient("Polygamma")
def _polygamma_grad(op, grad):
    """d/dx polygamma(n, x) = polygamma(n + 1, x); no gradient for n."""
    return _second_argument_grad(op, grad, lambda n, x: math_special.polygamma(n + 1, x))


@RegisterGradient("Roll")
def _roll_grad(op, grad):
    """The gradient rolled back: ``roll(grad, -shift, axis)``."""
    return math_special.roll(grad, -op.inputs[1], op.inputs[2]), None, None


@RegisterGradient("Erfinv")
def _erfinv_grad(op, grad):
    """d erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2)."""
    root_pi_over_two = constant(np.sqrt(np.pi) / 2, dtype=grad.dtype)
    with control_dependencies([grad]):
        return grad * root_pi_over_two * math_ops.exp(math_ops.square(op.outputs[0]))


@RegisterGradient("Ndtri")
def _ndtri_grad(op, grad):
    """d ndtri(x) = sqrt(2 pi) * exp(ndtri(x)^2 / 2)."""
    root_two_pi = constant(np.sqrt(2 * np.pi), dtype=grad.dtype)
    with control_dependencies([grad]):
        return grad * root_two_pi * math_ops.exp(math_ops.square(op.outputs[0]) / 2.)


def _sum_to(t, reduce_axes, shape):
    return array_ops.reshape(math_ops.reduce_sum(t, reduce_axes), shape)


@RegisterGradient("Igamma")
def _igamma_grad(op, grad):
    """dP/da = IgammaGradA(a, x); dP/dx = exp(-x + (a - 1) log x - lgamma(a))."""
    a, x = op.inputs
    sa, sx = array_ops.shape(a), array_ops.shape(x)
    ra, rx = apply_op("BroadcastGradientArgs", s0=sa, s1=sx)
    with control_dependencies([grad]):
        partial_a = apply_op("IgammaGradA", a=a, x=x)
        partial_x = math_ops.exp(-x + (a - 1) * math_ops.log(x) - math_special.lgamma(a))
        return _sum_to(partial_a * grad, ra, sa), _sum_to(partial_x * grad, rx, sx)


@RegisterGradient("Igammac")
def _igammac_grad(op, grad):
    """Q = 1 - P: the negated gradients of Igamma."""
    grad_a, grad_x = _igamma_grad(op, grad)
    return -grad_a, -grad_x


@RegisterGradient("Betainc")
def _betainc_grad(op, grad):
    """dI_x(a, b)/dx = (1 - x)^(b - 1) x^(a - 1) / B(a, b); none for a and b (TF's)."""
    a, b, x = op.inputs
    sa, sx = array_ops.shape(a), array_ops.shape(x)
    _, rx = apply_op("BroadcastGradientArgs", s0=sa, s1=sx)
    log_beta = apply_op("Lgamma", x=a) + apply_op("Lgamma", x=b) - apply_op("Lgamma", x=a + b)
    partial_x = math_ops.exp(math_trig.xlog1py(b - 1, -x) + math_trig.xlogy(a - 1, x) - log_beta)
    return None, None, _sum_to(partial_x * grad, rx, sx)


@RegisterGradient("BesselI0")
def _bessel_i0_grad(op, grad):
    """dI0/dx = I1(x)."""
    with control_dependencies([grad]):
        return grad * special_math_ops.bessel_i1(op.inputs[0])


@RegisterGradient("BesselI0e")
def _bessel_i0e_grad(op, grad):
    """d/dx exp(-|x|) I0(x) = I1e(x) - sign(x) I0e(x)."""
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return grad * (special_math_ops.bessel_i1e(x) - math_ops.sign(x) * y)


@RegisterGradient("BesselI1")
def _bessel_i1_grad(op, grad):
    """dI1/dx = I0(x) - I1(x) / x; 1 at x = 0 (TF's where_v2)."""
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        dy_dx = array_ops.where_v2(math_ops.equal(x, 0.), math_ops.cast(1., x.dtype),
                                   special_math_ops.bessel_i0(x) - math_ops.div(y, x))
        return grad * dy_dx


@RegisterGradient("BesselI1e")
def _bessel_i1e_grad(op, grad):
    """d/dx exp(-|x|) I1(x) = I0e(x) - I1e(x) (sign(x) + 1/x); 1/2 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        dy_dx = array_ops.where_v2(math_ops.equal(x, 0.), math_ops.cast(0.5, x.dtype),
                                   special_math_ops.bessel_i0e(x) - y * (math_ops.sign(x) + math_ops.reciprocal(x)))
        return grad * dy_dx


@RegisterGradient("NextAfter")
def _next_after_grad(op, grad):
    """Passes the gradient to x1 (ones), none to x2 (zeros), TF's shapes."""
    x1, x2 = op.inputs
    s1, s2 = array_ops.shape(x1), array_ops.shape(x2)
    r1, r2 = apply_op("BroadcastGradientArgs", s0=s1, s1=s2)
    with control_dependencies([grad]):
        p1 = array_ops.ones(s1, dtype=x1.dtype)
        p2 = array_ops.zeros(s2, dtype=x2.dtype)
        return _sum_to(p1 * grad, r1, s1), _sum_to(p2 * grad, r2, s2)
