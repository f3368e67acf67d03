"""Symbolic differentiation: ``gradients()`` and the rules, by op family.

``ref/grad/math_grad.py``, ``nn_grad.py``, ``array_grad.py``, ``state_grad.py``
and ``control_grad.py`` mirror ``ref/ops``; importing this package registers
every rule.
"""
from ref.grad import (data_grad, array_grad, control_grad, math_grad, nn_grad, state_grad, linalg_grad,  # noqa: F401
                      random_grad, list_grad, complex_grad, control_flow_grad, logging_grad, conv_grad, sparse_grad,
                      lookup_grad, image_grad, tensor_array_grad, ragged_grad, batch_norm_grad, special_grad, trig_grad, fft_grad,
                      linalg_factor_grad, script_grad)
from ref.grad.custom_gradient import custom_gradient, grad_pass_through, recompute_grad
from ref.grad.gradients import AggregationMethod, UnconnectedGradients, gradients, gradients_helper, hessians, stop_gradient
from ref.grad.registry import NoGradient, NotDifferentiable, RegisterGradient, get_rule

__all__ = ["gradients", "gradients_helper", "hessians", "stop_gradient", "AggregationMethod", "UnconnectedGradients",
           "RegisterGradient", "NotDifferentiable", "NoGradient", "get_rule",
           "custom_gradient", "grad_pass_through", "recompute_grad"]
