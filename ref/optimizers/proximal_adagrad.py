"""``tf.train.ProximalAdagradOptimizer``: proximal Adagrad's TF1 class. The
formula, the ``(Sparse)ApplyProximalAdagrad`` kernels and the pure ``init`` /
``step`` are in :mod:`ref.ops.training.proximal_adagrad` (importable from here too)."""
from __future__ import annotations

from ref.ops.training.adagrad import check_initial_accumulator_value
from ref.ops.training.proximal_adagrad import (DEFAULTS, ProximalAdagradState, apply_proximal_adagrad,  # noqa: F401
                                               init, proximal_adagrad_update, sparse_apply_proximal_adagrad,
                                               sparse_proximal_adagrad_update, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot


class ProximalAdagradOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.ProximalAdagradOptimizer(learning_rate,
    initial_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name='ProximalAdagrad')``:
    ``(Sparse)ApplyProximalAdagrad`` (:mod:`ref.ops.training.proximal_adagrad`).
    Slot ``accumulator`` (``<var>/ProximalAdagrad``). TF passes the
    hyperparameter tensors uncast (a float64 variable then fails to build);
    ``ref`` casts them to the variable's dtype like the other optimizers."""
    _kernel = "ProximalAdagrad"
    _slot_specs = (Slot("accum", "accumulator", value="_initial_accumulator_value"),)
    _hyperparameters = (Hyperparameter("lr", "_learning_rate", "learning_rate"),
                        Hyperparameter("l1", "_l1_regularization_strength", "l1_regularization_strength"),
                        Hyperparameter("l2", "_l2_regularization_strength", "l2_regularization_strength"))
    _call_callables = False

    def __init__(self, learning_rate, initial_accumulator_value=DEFAULTS["initial_accumulator_value"],
                 l1_regularization_strength=DEFAULTS["l1_regularization_strength"],
                 l2_regularization_strength=DEFAULTS["l2_regularization_strength"], use_locking=False,
                 name="ProximalAdagrad"):
        check_initial_accumulator_value(initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
