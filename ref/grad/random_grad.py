"""Gradient rules for ``ref/ops/random.py``: ``RandomGamma`` w.r.t. ``alpha``
(TF's random_grad.py), by implicit reparameterization (Figurnov et al., 2018):
d sample / d alpha = -(dCDF/dalpha) / pdf, the ``RandomGammaGrad`` kernel."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import apply_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops


def _add_leading_unit_dimensions(x, num_dimensions):
    """x reshaped to [1] * num_dimensions + shape(x)."""
    ones = array_ops.fill(array_ops.reshape(num_dimensions, [1]), 1)
    return array_ops.reshape(x, array_ops.concat([ones, array_ops.shape(x)], 0))


@RegisterGradient("RandomGamma")
def _random_gamma_grad(op, grad):
    """d alpha = sum over the sample dimensions of grad * RandomGammaGrad(alpha, sample);
    no gradient for ``shape``."""
    shape, alpha = op.inputs
    sample = op.outputs[0]
    with control_dependencies([grad]):
        num_sample_dimensions = array_ops.shape(shape)[0]
        alpha_broadcastable = _add_leading_unit_dimensions(alpha, num_sample_dimensions)
        partial_a = apply_op("RandomGammaGrad", alpha=alpha_broadcastable, sample=sample)
        axes = math_ops.range(num_sample_dimensions, dtype=dtypes.int32)
        return None, math_ops.reduce_sum(math_ops.multiply(grad, partial_a), axes)


for _t in ("RandomPoissonV2", "StatelessRandomGetKeyCounter", "StatelessRandomUniformV2", "StatelessRandomNormalV2",
           "StatelessTruncatedNormalV2", "StatelessRandomUniform", "StatelessRandomNormal",
           "StatelessTruncatedNormal", "StatelessMultinomial", "StatelessRandomPoisson", "StatelessRandomUniformInt",
           "StatelessRandomUniformFullInt", "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2"):
    NotDifferentiable(_t)
