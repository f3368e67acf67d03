"""``tf.train.AdagradDAOptimizer``: Adagrad Dual Averaging's TF1 class. The
formula, the ``(Sparse)ApplyAdagradDA`` kernels and the pure ``init`` / ``step``
are in :mod:`ref.ops.training.adagrad_da` (importable from here too)."""
from __future__ import annotations

from ref.framework.graph import colocate_with, device
from ref.framework.op_def_library import apply_op
from ref.ops.training.adagrad_da import (DEFAULTS, AdagradDAState, adagrad_da_update, apply_adagrad_da,  # noqa: F401
                                         check_initial_value, init, sparse_adagrad_da_update,
                                         sparse_apply_adagrad_da, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot


class AdagradDAOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.AdagradDAOptimizer(learning_rate, global_step,
    initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name='AdagradDA')``:
    ``(Sparse)ApplyAdagradDA`` (:mod:`ref.ops.training.adagrad_da`).
    ``global_step`` (required) is the step counter; the kernels see
    ``global_step + 1``, read before the update. Pass the same ``global_step`` to
    ``minimize`` so that it advances. Slots ``gradient_accumulator``
    (``<var>/AdagradDA``, zeros) and ``gradient_squared_accumulator``
    (``<var>/AdagradDA_1``, the initial value)."""
    _kernel = "AdagradDA"
    _slot_specs = (Slot("gradient_accumulator", "gradient_accumulator", value=0.0),
                   Slot("gradient_squared_accumulator", "gradient_squared_accumulator",
                        value="_initial_gradient_squared_accumulator_value"))
    _hyperparameters = (Hyperparameter("lr", "_learning_rate", "learning_rate"),
                        Hyperparameter("l1", "_l1_regularization_strength", None),  # TF casts the Python values
                        Hyperparameter("l2", "_l2_regularization_strength", None))
    _call_callables = False

    def __init__(self, learning_rate, global_step,
                 initial_gradient_squared_accumulator_value=DEFAULTS["initial_gradient_squared_accumulator_value"],
                 l1_regularization_strength=DEFAULTS["l1_regularization_strength"],
                 l2_regularization_strength=DEFAULTS["l2_regularization_strength"], use_locking=False,
                 name="AdagradDA"):
        check_initial_value(initial_gradient_squared_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = initial_gradient_squared_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _prepare(self):
        super()._prepare()
        with colocate_with(self._tensors["lr"].op):
            step = apply_op("Identity", input=self._global_step)
            self._global_step_on_worker = apply_op("AddV2", x=step, y=1, name="add")  # TF: step + 1

    def _kernel_args(self, var, dtype):
        """The declared inputs and ``global_step``: ``global_step + 1`` read on the variable's device."""
        with device(var.device):
            global_step = apply_op("Identity", input=self._global_step_on_worker)
        return dict(super()._kernel_args(var, dtype), global_step=global_step)
