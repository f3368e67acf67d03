"""Activations TF builds as a ``custom_gradient`` in graph mode (``tf.nn.swish``,
``tf.nn.silu``): the forward ops outside any name scope, an ``IdentityN`` over
the output and the inputs carrying ``_gradient_op_type``, and TF's hand-written
gradient (the sigmoid recomputed after ``dy``). ``ref.graph_ops.nn_ops.swish``
is the same function from plain ops (for code below the gradient layer)."""
from __future__ import annotations

from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import math_ops
from ref.grad.custom_gradient import custom_gradient

__all__ = ["swish", "silu"]


@custom_gradient
def _swish_impl(features, beta):
    def grad(dy):
        # TF recomputes the sigmoid after dy (a control dependency), so the forward
        # pass need not keep it alive
        with control_dependencies([dy]):
            sigmoid_features = math_ops.sigmoid(beta * features)
        activation_grad = sigmoid_features * (1.0 + (beta * features) * (1.0 - sigmoid_features))
        beta_grad = math_ops.reduce_sum(dy * math_ops.square(features) * sigmoid_features *
                                        (1.0 - sigmoid_features))
        return dy * activation_grad, beta_grad

    return features * math_ops.sigmoid(beta * features), grad


def swish(features, beta=1.0):
    """``features * sigmoid(beta * features)`` (SiLU / Swish), with TF's custom gradient
    (also w.r.t. ``beta``)."""
    features = convert_to_tensor(features, name="features")
    beta = math_ops.cast(convert_to_tensor(beta, name="beta"), features.dtype)
    return _swish_impl(features, beta)


silu = swish
