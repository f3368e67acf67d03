"""``tf.train.FtrlOptimizer``: FTRL-Proximal's TF1 class. The formula (the
seed's, TF's kernel forms, the paper's), the ``(Sparse)ApplyFtrl(V2)`` kernels
and the pure ``init`` / ``step`` are in :mod:`ref.ops.training.ftrl` (importable from here too)."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops
from ref.ops.training.ftrl import (DEFAULTS, DENSE, SPARSE_ROWS, SPARSE_SCALAR, FtrlState,  # noqa: F401
                                   apply_ftrl, apply_ftrl_v2, check_ftrl_args, ftrl_update, init, sparse_apply_ftrl,
                                   sparse_apply_ftrl_v2, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot
from ref.types import dtypes


class FtrlOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.FtrlOptimizer(learning_rate,
    learning_rate_power=-0.5, initial_accumulator_value=0.1,
    l1_regularization_strength=0.0, l2_regularization_strength=0.0,
    use_locking=False, name='Ftrl', accum_name=None, linear_name=None,
    l2_shrinkage_regularization_strength=0.0, beta=None)``: ``(Sparse)ApplyFtrl``
    (:mod:`ref.ops.training.ftrl`).

    Slots ``accum`` (``<var>/<accum_name or name>``, the initial value) and
    ``linear`` (``<var>/<linear_name or name>``, zeros). ``beta`` enters as
    TF adds it: the kernels get ``l2 + beta / (2 * max(learning_rate, 1e-36))``
    (computed in the learning rate's dtype). With a positive
    ``l2_shrinkage_regularization_strength`` the ``*FtrlV2`` kernels run."""
    _slot_specs = (Slot("accum", "accum", initializer="_accum_initializer", op_name="_accum_name"),
                   Slot("linear", "linear", op_name="_linear_name"))
    _hyperparameters = (
        Hyperparameter("lr", "_learning_rate", "learning_rate"),
        Hyperparameter("l1", "_l1_regularization_strength", "l1_regularization_strength"),
        Hyperparameter("l2", "_l2_regularization_strength", "adjusted_l2_regularization_strength"),
        Hyperparameter("lr_power", "_learning_rate_power", "learning_rate_power"),
        Hyperparameter("l2_shrinkage", "_l2_shrinkage_regularization_strength", "l2_shrinkage_regularization_strength",
                       when="_shrinkage"))

    def __init__(self, learning_rate, learning_rate_power=DEFAULTS["learning_rate_power"],
                 initial_accumulator_value=DEFAULTS["initial_accumulator_value"],
                 l1_regularization_strength=DEFAULTS["l1_regularization_strength"],
                 l2_regularization_strength=DEFAULTS["l2_regularization_strength"], use_locking=False, name="Ftrl",
                 accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=DEFAULTS["l2_shrinkage_regularization_strength"],
                 beta=DEFAULTS["beta"]):
        super().__init__(use_locking, name)
        check_ftrl_args(learning_rate_power, initial_accumulator_value, l1_regularization_strength,
                        l2_regularization_strength, l2_shrinkage_regularization_strength)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    @property
    def _shrinkage(self):
        """TF runs the ``*FtrlV2`` kernels (with ``l2_shrinkage``) only for a positive strength."""
        return self._l2_shrinkage_regularization_strength > 0.0

    @property
    def _kernel(self):
        return "FtrlV2" if self._shrinkage else "Ftrl"

    def _accum_initializer(self, v):
        """TF's: ``ones(shape) * initial_accumulator_value``."""
        def accum_initializer(shape, dtype=dtypes.float32, partition_info=None):
            return array_ops.ones(shape, dtype=dtype) * self._initial_accumulator_value
        return accum_initializer

    def _prepare(self):
        """TF's order: lr, l1, the adjusted l2 (``l2 + beta / (2 * max(lr, 1e-36))``
        with Python operators: Maximum, mul, truediv, add), beta, l2_shrinkage,
        lr_power; callables are not called."""
        t = self._tensors
        t["lr"] = convert_to_tensor(self._learning_rate, name="learning_rate")
        t["l1"] = convert_to_tensor(self._l1_regularization_strength, name="l1_regularization_strength")
        t["l2"] = self._l2_regularization_strength + self._beta / (2.0 * math_ops.maximum(self._learning_rate, 1e-36))
        t["beta"] = convert_to_tensor(self._beta, name="beta")
        t["l2_shrinkage"] = convert_to_tensor(self._l2_shrinkage_regularization_strength,
                                              name="l2_shrinkage_regularization_strength")
        t["lr_power"] = convert_to_tensor(self._learning_rate_power, name="learning_rate_power")
