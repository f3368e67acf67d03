"""``tf.train.GradientDescentOptimizer``: gradient descent's TF1 class. The
formula, the ``ApplyGradientDescent`` kernel and the pure ``init`` / ``step``
are in :mod:`ref.ops.training.gradient_descent` (importable from here too)."""
from __future__ import annotations

from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op
from ref.ops.training.gradient_descent import (DEFAULTS, GradientDescentState, apply_gradient_descent,  # noqa: F401
                                               check_delta, declare_with_delta, gradient_descent_update, init, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, cast


class GradientDescentOptimizer(Optimizer):
    """``variable -= learning_rate * gradient`` (TF's API reference
    ``tf.compat.v1.train.GradientDescentOptimizer(learning_rate, use_locking=False,
    name='GradientDescent')``): ``ApplyGradientDescent``
    (:mod:`ref.ops.training.gradient_descent`). No slots. A sparse gradient is
    applied with ``scatter_sub(var, indices, values * lr)`` -- duplicate indices
    one after another, not summed first (TF's class does the same)."""
    _kernel = "GradientDescent"
    _hyperparameters = (Hyperparameter("alpha", "_learning_rate", "learning_rate"),)
    _dense_grad = "delta"

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_sparse_duplicate_indices(self, grad, var):
        values = grad.values * cast(self._tensors["alpha"], var.dtype)
        return var.scatter_sub(IndexedSlices(values, grad.indices, grad.dense_shape), use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad, var, indices):
        # TF: resource_scatter_add(handle, indices, -grad * self._learning_rate), the raw learning rate
        lr = self._tensors["alpha"] if callable(self._learning_rate) else self._learning_rate
        return apply_op("ResourceScatterAdd", resource=var.handle, indices=indices,
                        updates=-grad * lr)
