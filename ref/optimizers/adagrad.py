"""``tf.train.AdagradOptimizer``: Adagrad's TF1 class. The formula (the paper's,
TF's kernel form), the ``(Sparse)ApplyAdagrad(V2)`` kernels and the pure
``init`` / ``step`` are in :mod:`ref.ops.training.adagrad` (importable from here too)."""
from __future__ import annotations

from ref.graph_ops import array_ops
from ref.graph_ops.init_ops import Constant
from ref.ops.training.adagrad import (DEFAULTS, AdagradState, adagrad_update, adagrad_v2_update,  # noqa: F401
                                      apply_adagrad, apply_adagrad_v2, check_initial_accumulator_value, init,
                                      sparse_adagrad_update, sparse_adagrad_v2_update, sparse_apply_adagrad,
                                      sparse_apply_adagrad_v2, step)
from ref.optimizers.optimizer import Hyperparameter, Optimizer, Slot, cast


class AdagradOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.AdagradOptimizer(learning_rate,
    initial_accumulator_value=0.1, use_locking=False, name='Adagrad')``:
    ``(Sparse)ApplyAdagrad`` (:mod:`ref.ops.training.adagrad`);
    ``initial_accumulator_value`` "must be positive" (ValueError otherwise).
    Slot ``accumulator`` (``<var>/Adagrad``), filled with the initial value."""
    _kernel = "Adagrad"
    _slot_specs = (Slot("accum", "accumulator", initializer="_accumulator_initializer"),)
    _hyperparameters = (Hyperparameter("lr", "_learning_rate", "learning_rate"),)

    def __init__(self, learning_rate, initial_accumulator_value=DEFAULTS["initial_accumulator_value"],
                 use_locking=False, name="Adagrad"):
        check_initial_accumulator_value(initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _accumulator_initializer(self, v):
        """TF's: a Constant initializer, or a fill of ``v``'s run-time shape when its static shape is partial."""
        dtype = v.dtype.base_dtype
        if v.get_shape().is_fully_defined():
            return Constant(self._initial_accumulator_value, dtype=dtype)

        def init(v=v, dtype=dtype):
            return cast(array_ops.fill(array_ops.shape(v), self._initial_accumulator_value), dtype)
        return init
