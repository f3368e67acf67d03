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
