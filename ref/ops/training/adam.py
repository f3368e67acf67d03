"""Adam (Kingma & Ba, 2015): TF's ``ApplyAdam``.

The documentation (TF 1.x docs, "Training", "class tf.train.AdamOptimizer",
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

from typing import NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import check_dense, declare, dense_loop, run_dense, scalars
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper, tree_map, zeros
from ref.types import dtypes

DEFAULTS = dict(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08)
"""``tf.train.AdamOptimizer``'s defaults (TF's API reference), also those of :func:`init` / :func:`step`."""


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


_adam_loop = dense_loop(adam_update)


def adam_alpha(lr, beta1_power, beta2_power, T):
    """TF's bias-corrected step size ``lr * sqrt(1 - beta2_power) / (1 - beta1_power)``
    (also computed on the device by ref.ops.gpu_training, from this function)."""
    return lr * np.sqrt(T(1) - beta2_power) / (T(1) - beta1_power)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, out=None):
    """TF's ApplyAdam: returns new ``(var, m, v)`` (or fills ``out``)."""
    var = np.asarray(var)
    beta1_power, beta2_power, lr, beta1, beta2, epsilon = scalars(
        var.dtype, beta1_power=beta1_power, beta2_power=beta2_power, lr=lr, beta1=beta1,
        beta2=beta2, epsilon=epsilon)
    check_dense(var, grad, m=m, v=v)
    T = var.dtype.type
    alpha = adam_alpha(lr, beta1_power, beta2_power, T)
    return run_dense(_adam_loop, adam_update, (var, m, v), grad,
                     (alpha, beta1, beta2, epsilon, bool(use_nesterov)), out)


_FLOATS_COMPLEX = dtypes.FLOATS + dtypes.COMPLEX
declare("ApplyAdam", apply_adam,
        inputs=("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
        refs=("var", "m", "v"), hypers=("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"),
        attrs={"use_locking": False, "use_nesterov": False}, allowed=_FLOATS_COMPLEX)


# -- the pure functional form -------------------------------------------------------------

class AdamState(NamedTuple):
    """TF's slots ``m`` and ``v`` for every parameter, and the non-slot scalars
    ``beta1_power`` / ``beta2_power`` (in the dtype of ``beta1`` / ``beta2``:
    float32 for Python floats, as TF's variables)."""
    m: object
    v: object
    beta1_power: object
    beta2_power: object


def init(params: ArrayTree, learning_rate: Hyper = DEFAULTS["learning_rate"],
         beta1: Hyper = DEFAULTS["beta1"], beta2: Hyper = DEFAULTS["beta2"],
         epsilon: Hyper = DEFAULTS["epsilon"]) -> AdamState:
    """Zero moments, ``beta1_power = beta1`` and ``beta2_power = beta2``."""
    return AdamState(tree_map(zeros, params), tree_map(zeros, params), hyper(beta1), hyper(beta2))


def step(params: ArrayTree, grads: GradTree, state: AdamState,
         learning_rate: Hyper = DEFAULTS["learning_rate"], beta1: Hyper = DEFAULTS["beta1"],
         beta2: Hyper = DEFAULTS["beta2"],
         epsilon: Hyper = DEFAULTS["epsilon"]) -> tuple[ArrayTree, AdamState]:
    """``(new_params, new_state)``: one ``AdamOptimizer`` step (dense ``ApplyAdam``
    per parameter, then ``beta_power *= beta``), bit for bit."""
    def update(var, grad, m, v):
        t = var.dtype
        return apply_adam(var, m, v, hyper(state.beta1_power, t), hyper(state.beta2_power, t),
                          hyper(learning_rate, t), hyper(beta1, t), hyper(beta2, t), hyper(epsilon, t), grad)

    new_params, m, v = apply_leaves(update, params, grads, state.m, state.v)
    b1, b2 = np.asarray(state.beta1_power), np.asarray(state.beta2_power)
    return new_params, AdamState(m, v, (b1 * hyper(beta1, b1.dtype))[()], (b2 * hyper(beta2, b2.dtype))[()])
