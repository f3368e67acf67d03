"""Adam (Kingma & Ba, 2015): TF's ``ApplyAdam``.

The seed (001_05ea92376fdb369e.txt, "class tf.train.AdamOptimizer",
``__init__``) states the update::

    t <- t + 1
    lr_t <- learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)

    m_t <- beta1 * m_{t-1} + (1 - beta1) * g
    v_t <- beta2 * v_{t-1} + (1 - beta2) * g * g
    variable <- variable - lr_t * m_t / (sqrt(v_t) + epsilon)

TF's kernel (training_ops.cc, ``ApplyAdamNonCuda``), with ``beta1_power`` =
beta1^t and ``beta2_power`` = beta2^t supplied by the caller::

    alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
    m += (grad - m) * (1 - beta1)
    v += (grad * grad - v) * (1 - beta2)
    var -= (m * alpha) / (sqrt(v) + epsilon)
    use_nesterov: var -= ((grad * (1 - beta1) + beta1 * m) * alpha) / (sqrt(v) + epsilon)

Where they differ: the moment updates are rearranged (``m + (g - m)(1 - b1)``
rounds differently from ``b1 m + (1 - b1) g``), and ``epsilon`` is the paper's
"epsilon hat" (the formula just before its Section 2.1), added to the
un-corrected ``sqrt(v_t)``; Algorithm 1 of the paper adds epsilon to
``sqrt(v_t / (1 - beta2^t))``, which differs by a relative ~epsilon.
TF has no sparse Adam kernel: its Python optimizer builds the sparse update
from scatter ops.
"""
from __future__ import annotations

import numpy as np

from ref import dtypes
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import check_dense, declare, run_dense, scalars

DEFAULTS = dict(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08)


@njit(inline="always")
def adam_update(var, m, v, grad, alpha, beta1, beta2, epsilon, use_nesterov, T):
    """One element of TF's ApplyAdam (``alpha`` already bias-corrected)."""
    one = T(1)
    m = m + (grad - m) * (one - beta1)
    v = v + (grad * grad - v) * (one - beta2)
    if use_nesterov:
        var = var - ((grad * (one - beta1) + beta1 * m) * alpha) / (np.sqrt(v) + epsilon)
    else:
        var = var - (m * alpha) / (np.sqrt(v) + epsilon)
    return var, m, v


@njit_sized
def _adam_loop(var, m, v, grad, alpha, beta1, beta2, epsilon, use_nesterov, T):
    for i in prange(var.size):
        var[i], m[i], v[i] = adam_update(
            var[i], m[i], v[i], grad[i], alpha, beta1, beta2, epsilon, use_nesterov, T)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, out=None):
    """TF's ApplyAdam: returns new ``(var, m, v)`` (or fills ``out``)."""
    var = np.asarray(var)
    beta1_power, beta2_power, lr, beta1, beta2, epsilon = scalars(
        var.dtype, beta1_power=beta1_power, beta2_power=beta2_power, lr=lr, beta1=beta1,
        beta2=beta2, epsilon=epsilon)
    check_dense(var, grad, m=m, v=v)
    T = var.dtype.type
    alpha = lr * np.sqrt(T(1) - beta2_power) / (T(1) - beta1_power)
    return run_dense(_adam_loop, adam_update, (var, m, v), grad,
                     (alpha, beta1, beta2, epsilon, bool(use_nesterov)), out)


_FLOATS_COMPLEX = dtypes.FLOATS + dtypes.COMPLEX
declare("ApplyAdam", apply_adam,
        inputs=("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
        refs=("var", "m", "v"), hypers=("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"),
        attrs={"use_locking": False, "use_nesterov": False}, allowed=_FLOATS_COMPLEX)


# -- the Optimizer class: tf.train.AdamOptimizer ---------------------------------------

from typing import NamedTuple  # noqa: E402

from ref.graph import apply_op, colocate_with, control_dependencies, convert_to_tensor  # noqa: E402
from ref.optimizers.optimizer import Optimizer, apply_leaves, cast, hyper, tree_map  # noqa: E402


class AdamOptimizer(Optimizer):
    """Seed 002 ``tf.compat.v1.train.AdamOptimizer(learning_rate=0.001, beta1=0.9,
    beta2=0.999, epsilon=1e-08, use_locking=False, name='Adam')``.

    Slots ``m`` (``<var>/Adam``) and ``v`` (``<var>/Adam_1``), zeros; non-slot
    variables ``beta1_power`` and ``beta2_power`` (beta1^t and beta2^t, created
    from ``beta1`` / ``beta2`` next to the variable whose name sorts first,
    multiplied by beta1 / beta2 after every step's updates).

    Sparse gradients use no kernel (TF has none): ``m = m * beta1`` then
    ``scatter_add(m, indices, g * (1 - beta1))``, likewise ``v`` with
    ``(g * g) * (1 - beta2)``, then ``var -= lr_t * m / (sqrt(v) + epsilon)``
    on the whole variable, with ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False,
                 name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self):
        from ref.graph import get_default_graph

        graph = get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power", colocate_with=first_var)
        self._create_non_slot_variable(initial_value=self._beta2, name="beta2_power", colocate_with=first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._lr_t = convert_to_tensor(c(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(c(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(c(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(c(self._epsilon), name="epsilon")

    def _args(self, var, dtype):
        beta1_power, beta2_power = self._get_beta_accumulators()
        return dict(var=var, m=self.get_slot(var, "m"), v=self.get_slot(var, "v"),
                    beta1_power=cast(beta1_power, dtype), beta2_power=cast(beta2_power, dtype),
                    lr=cast(self._lr_t, dtype), beta1=cast(self._beta1_t, dtype), beta2=cast(self._beta2_t, dtype),
                    epsilon=cast(self._epsilon_t, dtype), use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return apply_op("ApplyAdam", grad=grad, **self._args(var, var.dtype)).op

    def _resource_apply_dense(self, grad, var):
        return apply_op("ResourceApplyAdam", grad=grad, **self._args(var, grad.dtype))

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        from ref.api import state_ops

        a = self._args(var, var.dtype)
        one = lambda t: convert_to_tensor(1, dtype=t.dtype)  # noqa: E731
        lr = apply_op("RealDiv", x=apply_op("Mul", x=a["lr"], y=apply_op(
            "Sqrt", x=apply_op("Sub", x=one(a["beta2_power"]), y=a["beta2_power"]))),
            y=apply_op("Sub", x=one(a["beta1_power"]), y=a["beta1_power"]))
        m, v = a["m"], a["v"]
        # m_t = beta1 * m + (1 - beta1) * g_t
        m_scaled_g_values = apply_op("Mul", x=grad, y=apply_op("Sub", x=one(a["beta1"]), y=a["beta1"]))
        m_t = state_ops.assign(m, apply_op("Mul", x=m, y=a["beta1"]), use_locking=self._use_locking)
        with control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        # v_t = beta2 * v + (1 - beta2) * (g_t * g_t)
        v_scaled_g_values = apply_op("Mul", x=apply_op("Mul", x=grad, y=grad),
                                     y=apply_op("Sub", x=one(a["beta2"]), y=a["beta2"]))
        v_t = state_ops.assign(v, apply_op("Mul", x=v, y=a["beta2"]), use_locking=self._use_locking)
        with control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = apply_op("Sqrt", x=v_t)
        step = apply_op("RealDiv", x=apply_op("Mul", x=lr, y=m_t),
                        y=apply_op("AddV2", x=v_sqrt, y=a["epsilon"]))
        var_update = state_ops.assign_sub(var, step, use_locking=self._use_locking)
        from ref.api.control_flow_ops import group

        return group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        from ref.api import state_ops

        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, v: state_ops.scatter_add(x, i, v, use_locking=self._use_locking))

    def _resource_scatter_add(self, x, i, v):
        with control_dependencies([apply_op("ResourceScatterAdd", resource=x.handle, indices=i, updates=v)]):
            return x.value()

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse_shared(grad, var, indices, self._resource_scatter_add)

    def _finish(self, update_ops, name_scope):
        from ref.api.control_flow_ops import group
        from ref.api.state_ops import assign

        with control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with colocate_with(beta1_power.op):
                update_beta1 = assign(beta1_power, apply_op("Mul", x=beta1_power, y=self._beta1_t),
                                      use_locking=self._use_locking)
                update_beta2 = assign(beta2_power, apply_op("Mul", x=beta2_power, y=self._beta2_t),
                                      use_locking=self._use_locking)
        return group(*update_ops + [update_beta1, update_beta2], name=name_scope)


# -- the pure functional form -------------------------------------------------------------

class AdamState(NamedTuple):
    """TF's slots ``m`` and ``v`` for every parameter, and the non-slot scalars
    ``beta1_power`` / ``beta2_power`` (in the dtype of ``beta1`` / ``beta2``:
    float32 for Python floats, as TF's variables)."""
    m: object
    v: object
    beta1_power: object
    beta2_power: object


def init(params, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08):
    """Zero moments, ``beta1_power = beta1`` and ``beta2_power = beta2``."""
    zeros = lambda p: np.zeros_like(np.asarray(p))  # noqa: E731
    return AdamState(tree_map(zeros, params), tree_map(zeros, params), hyper(beta1), hyper(beta2))


def step(params, grads, state, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08):
    """``(new_params, new_state)``: one ``AdamOptimizer`` step (dense ``ApplyAdam``
    per parameter, then ``beta_power *= beta``), bit for bit."""
    def update(var, grad, m, v):
        t = var.dtype
        return apply_adam(var, m, v, hyper(state.beta1_power, t), hyper(state.beta2_power, t),
                          hyper(learning_rate, t), hyper(beta1, t), hyper(beta2, t), hyper(epsilon, t), grad)

    new_params, m, v = apply_leaves(update, params, grads, state.m, state.v)
    b1, b2 = np.asarray(state.beta1_power), np.asarray(state.beta2_power)
    return new_params, AdamState(m, v, (b1 * hyper(beta1, b1.dtype))[()], (b2 * hyper(beta2, b2.dtype))[()])
