"""``tf.train.AdamOptimizer``: Adam's TF1 class. The formula (the seed's, TF's
kernel form, the paper's), the ``ApplyAdam`` kernel and the pure ``init`` /
``step`` are in :mod:`ref.ops.training.adam` (importable from here too)."""
from __future__ import annotations

from ref.framework.graph import colocate_with, control_dependencies, get_default_graph
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import control_flow_ops, state_ops, math_ops
from ref.ops.training.adam import DEFAULTS, AdamState, adam_update, apply_adam, init, step  # noqa: F401
from ref.optimizers.optimizer import Hyperparameter, NonSlot, Optimizer, Slot


class AdamOptimizer(Optimizer):
    """TF's API reference ``tf.compat.v1.train.AdamOptimizer(learning_rate=0.001, beta1=0.9,
    beta2=0.999, epsilon=1e-08, use_locking=False, name='Adam')``: ``ApplyAdam``
    (:mod:`ref.ops.training.adam`).

    Slots ``m`` (``<var>/Adam``) and ``v`` (``<var>/Adam_1``), zeros; non-slot
    variables ``beta1_power`` and ``beta2_power`` (beta1^t and beta2^t, created
    from ``beta1`` / ``beta2`` next to the variable whose name sorts first,
    multiplied by beta1 / beta2 after every step's updates).

    Sparse gradients use no kernel (TF has none): ``m = m * beta1`` then
    ``scatter_add(m, indices, g * (1 - beta1))``, likewise ``v`` with
    ``(g * g) * (1 - beta2)``, then ``var -= lr_t * m / (sqrt(v) + epsilon)``
    on the whole variable, with ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``.
    """
    _kernel = "Adam"
    _slot_specs = (Slot("m", "m"), Slot("v", "v"))
    _non_slot_specs = (NonSlot("beta1_power", "_beta1"), NonSlot("beta2_power", "_beta2"))
    _hyperparameters = (Hyperparameter("lr", "_lr", "learning_rate"), Hyperparameter("beta1", "_beta1", "beta1"),
                        Hyperparameter("beta2", "_beta2", "beta2"), Hyperparameter("epsilon", "_epsilon", "epsilon"))

    def __init__(self, learning_rate=DEFAULTS["learning_rate"], beta1=DEFAULTS["beta1"], beta2=DEFAULTS["beta2"],
                 epsilon=DEFAULTS["epsilon"], use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self):
        graph = get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        a = self._kernel_args(var, var.dtype)
        lr = a["lr"] * math_ops.sqrt(1 - a["beta2_power"]) / (1 - a["beta1_power"])
        m, v = a["m"], a["v"]
        # m_t = beta1 * m + (1 - beta1) * g_t
        m_scaled_g_values = grad * (1 - a["beta1"])
        m_t = state_ops.assign(m, m * a["beta1"], use_locking=self._use_locking)
        with control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        # v_t = beta2 * v + (1 - beta2) * (g_t * g_t)
        v_scaled_g_values = (grad * grad) * (1 - a["beta2"])
        v_t = state_ops.assign(v, v * a["beta2"], use_locking=self._use_locking)
        with control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + a["epsilon"]), use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, v: state_ops.scatter_add(x, i, v, use_locking=self._use_locking))

    def _resource_scatter_add(self, x, i, v):
        with control_dependencies([apply_op("ResourceScatterAdd", resource=x.handle, indices=i, updates=v)]):
            return x.value()

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse_shared(grad, var, indices, self._resource_scatter_add)

    def _finish(self, update_ops, name_scope):
        with control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with colocate_with(beta1_power.op):
                update_beta1 = state_ops.assign(beta1_power, beta1_power * self._tensors["beta1"],
                                                use_locking=self._use_locking)
                update_beta2 = state_ops.assign(beta2_power, beta2_power * self._tensors["beta2"],
                                                use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops + [update_beta1, update_beta2], name=name_scope)
