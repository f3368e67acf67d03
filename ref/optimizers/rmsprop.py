"""``tf.train.RMSPropOptimizer``: RMSProp's TF1 class. The formula (the seed's,
TF's kernel forms, Hinton's and Graves'), the ``(Sparse)Apply(Centered)RMSProp``
kernels and the pure ``init`` / ``step`` are in :mod:`ref.ops.training.rmsprop`
(importable from here too)."""
from __future__ import annotations

from ref.graph_ops import array_ops
from ref.graph_ops.init_ops import Ones
from ref.ops.training.rmsprop import (DEFAULTS, RMSPropState, apply_centered_rms_prop, apply_rms_prop,  # noqa: F401
                                      centered_rmsprop_update, init, rmsprop_update, sparse_apply_centered_rms_prop,
                                      sparse_apply_rms_prop, sparse_centered_rmsprop_update, sparse_rmsprop_update,
                                      step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot


class RMSPropOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.RMSPropOptimizer(learning_rate, decay=0.9,
    momentum=0.0, epsilon=1e-10, use_locking=False, centered=False, name='RMSProp')``:
    ``(Sparse)ApplyRMSProp``, centered ``(Sparse)ApplyCenteredRMSProp``
    (:mod:`ref.ops.training.rmsprop`). Slots ``rms`` (``<var>/RMSProp``,
    initialized to ONES as TF does), ``mg`` (centered only, zeros) and
    ``momentum`` (zeros), named in that order (``<var>/RMSProp_1``, ``<var>/RMSProp_2``)."""
    _slot_specs = (Slot("ms", "rms", initializer="_rms_initializer"), Slot("mg", "mg", when="_centered"),
                   Slot("mom", "momentum"))
    _hyperparameters = (Hyperparameter("lr", "_learning_rate", "learning_rate"),
                        Hyperparameter("rho", "_decay", "decay"),
                        Hyperparameter("momentum", "_momentum", "momentum"),
                        Hyperparameter("epsilon", "_epsilon", "epsilon"))

    def __init__(self, learning_rate, decay=DEFAULTS["decay"], momentum=DEFAULTS["momentum"],
                 epsilon=DEFAULTS["epsilon"], use_locking=False, centered=DEFAULTS["centered"], name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    @property
    def _kernel(self):
        return "CenteredRMSProp" if self._centered else "RMSProp"

    def _rms_initializer(self, v):
        """TF's: Ones, or ``ones_like(v)`` when ``v``'s static shape is partial."""
        return Ones(dtype=v.dtype.base_dtype) if v.get_shape().is_fully_defined() else array_ops.ones_like(v)
