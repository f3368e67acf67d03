"""AdaMax (Kingma & Ba, 2015, Section 7.1): TF's ``ApplyAdaMax``.

Not described in the seeds; the formula is the paper's Section 7.1 (Adam with
the infinity norm), with ``beta1_power`` = beta1^t supplied by the caller::

    m_t <- beta1 * m_{t-1} + (1 - beta1) * g
    u_t <- max(beta2 * u_{t-1}, |g|)
    theta <- theta - (lr / (1 - beta1^t)) * m_t / u_t

TF's kernel (training_ops.cc, ``ApplyAdaMaxNonCuda``; ``v`` is the paper's u)::

    m += (grad - m) * (1 - beta1)
    v = max(beta2 * v, |grad|)
    var -= lr / (1 - beta1_power) * (m / (v + epsilon))

Where they differ: TF rearranges the ``m`` update and adds ``epsilon`` to u_t
(the paper divides by u_t alone). TF has no sparse AdaMax kernel.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import check_dense, declare, dense_loop, run_dense, scalars, where
from ref.types import dtypes

DEFAULTS = dict(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-07)
"""``tf.contrib.opt.AdaMaxOptimizer``'s defaults (not in the seeds; ``ref`` has no class for it)."""


@njit(inline="always")
def adamax_update(var, m, v, grad, lr_t, beta1, beta2, epsilon, T):
    """One element of TF's ApplyAdaMax (``lr_t = lr / (1 - beta1_power)``)."""
    m = m + (grad - m) * (T(1) - beta1)
    decayed = beta2 * v
    g_abs = abs(grad)
    v = where(decayed < g_abs, g_abs, decayed)  # Eigen's cwiseMax: the first unless the second is larger
    var = var - lr_t * (m / (v + epsilon))
    return var, m, v


_adamax_loop = dense_loop(adamax_update)


def apply_ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad, use_locking=False, out=None):
    """TF's ApplyAdaMax: returns new ``(var, m, v)`` (or fills ``out``)."""
    var = np.asarray(var)
    beta1_power, lr, beta1, beta2, epsilon = scalars(
        var.dtype, beta1_power=beta1_power, lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon)
    check_dense(var, grad, m=m, v=v)
    lr_t = lr / (var.dtype.type(1) - beta1_power)
    return run_dense(_adamax_loop, adamax_update, (var, m, v), grad, (lr_t, beta1, beta2, epsilon), out)


declare("ApplyAdaMax", apply_ada_max,
        inputs=("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"),
        refs=("var", "m", "v"), hypers=("beta1_power", "lr", "beta1", "beta2", "epsilon"),
        attrs={"use_locking": False}, allowed=(dtypes.float16, dtypes.float32, dtypes.float64))
