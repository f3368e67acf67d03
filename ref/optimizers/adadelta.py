"""``tf.train.AdadeltaOptimizer``: Adadelta's TF1 class. The formula (the seed's,
TF's kernel form, Zeiler's), the ``(Sparse)ApplyAdadelta`` kernels and the
pure ``init`` / ``step`` are in :mod:`ref.ops.training.adadelta` (importable from here too)."""
from __future__ import annotations

from ref.ops.training.adadelta import (DEFAULTS, AdadeltaState, adadelta_update, apply_adadelta, init,  # noqa: F401
                                       sparse_apply_adadelta, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot


class AdadeltaOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.AdadeltaOptimizer(learning_rate=0.001,
    rho=0.95, epsilon=1e-08, use_locking=False, name='Adadelta')``:
    ``(Sparse)ApplyAdadelta`` (:mod:`ref.ops.training.adadelta`). Slots
    ``accum`` (``<var>/Adadelta``) and ``accum_update`` (``<var>/Adadelta_1``), zeros."""
    _kernel = "Adadelta"
    _slot_specs = (Slot("accum", "accum"), Slot("accum_update", "accum_update"))
    _hyperparameters = (Hyperparameter("lr", "_lr", "lr"), Hyperparameter("rho", "_rho", "rho"),
                        Hyperparameter("epsilon", "_epsilon", "epsilon"))

    def __init__(self, learning_rate=DEFAULTS["learning_rate"], rho=DEFAULTS["rho"], epsilon=DEFAULTS["epsilon"],
                 use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon
