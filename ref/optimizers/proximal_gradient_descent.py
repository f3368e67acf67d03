"""``tf.train.ProximalGradientDescentOptimizer``: FOBOS's TF1 class. The
formula, the ``(Sparse)ApplyProximalGradientDescent`` kernels and the pure
``init`` / ``step`` are in :mod:`ref.ops.training.proximal_gradient_descent`
(importable from here too)."""
from __future__ import annotations

from ref.ops.training.proximal_gradient_descent import (  # noqa: F401
    DEFAULTS, ProximalGradientDescentState, apply_proximal_gradient_descent, init, proximal_gradient_descent_update,
    proximal_step, proximal_step_scalar_path, sparse_apply_proximal_gradient_descent,
    sparse_proximal_gradient_descent_update, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer


class ProximalGradientDescentOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.ProximalGradientDescentOptimizer(learning_rate,
    l1_regularization_strength=0.0, l2_regularization_strength=0.0,
    use_locking=False, name='ProximalGradientDescent')``:
    ``(Sparse)ApplyProximalGradientDescent``
    (:mod:`ref.ops.training.proximal_gradient_descent`). No slots. (TF passes
    the hyperparameters uncast; ``ref`` casts them to the variable's dtype.)"""
    _kernel = "ProximalGradientDescent"
    _hyperparameters = (Hyperparameter("alpha", "_learning_rate", "learning_rate"),
                        Hyperparameter("l1", "_l1_regularization_strength", "l1_regularization_strength"),
                        Hyperparameter("l2", "_l2_regularization_strength", "l2_regularization_strength"))
    _dense_grad = "delta"
    _call_callables = False

    def __init__(self, learning_rate, l1_regularization_strength=DEFAULTS["l1_regularization_strength"],
                 l2_regularization_strength=DEFAULTS["l2_regularization_strength"], use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
