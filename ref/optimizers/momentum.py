"""``tf.train.MomentumOptimizer``: momentum's TF1 class. The formula (the seed's,
TF's kernel forms), the ``(Sparse)Apply(Keras)Momentum`` kernels and the pure
``init`` / ``step`` are in :mod:`ref.ops.training.momentum` (importable from here too)."""
from __future__ import annotations

from ref.ops.training.momentum import (DEFAULTS, MomentumState, apply_keras_momentum, apply_momentum,  # noqa: F401
                                       init, keras_momentum_update, momentum_update, sparse_apply_keras_momentum,
                                       sparse_apply_momentum, sparse_momentum_update, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot


class MomentumOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.MomentumOptimizer(learning_rate, momentum,
    use_locking=False, name='Momentum', use_nesterov=False)``: ``accumulation =
    momentum * accumulation + gradient; variable -= learning_rate * accumulation``
    (``(Sparse)ApplyMomentum``, :mod:`ref.ops.training.momentum`).
    Slot ``momentum`` (variable ``<var>/Momentum``), zeros."""
    _kernel = "Momentum"
    _slot_specs = (Slot("accum", "momentum"),)
    _hyperparameters = (Hyperparameter("lr", "_learning_rate", "learning_rate"),
                        Hyperparameter("momentum", "_momentum", "momentum"))
    _kernel_attrs = ("use_nesterov",)

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=DEFAULTS["use_nesterov"]):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov
