"""AddSign (Bello et al., 2017, "Neural Optimizer Search with Reinforcement
Learning"): TF's ``ApplyAddSign``.

Not described in the seeds; the paper's rule (Section 5), with ``m`` a moving
average of gradients and ``sign_decay`` the (possibly decayed) weight of the
sign agreement::

    m_t <- beta * m_{t-1} + (1 - beta) * g
    variable <- variable - lr * (alpha + sign_decay * sign(g) * sign(m_t)) * g

TF's kernel (training_ops.cc, ``ApplyAddSign``), the same arithmetic in this
order::

    m = m * beta + grad * (1 - beta)
    sign_gm = sign(grad) * sign(m)
    var -= lr * (alpha + sign_decay * sign_gm) * grad

TF has no sparse AddSign kernel.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import check_dense, declare, dense_loop, run_dense, scalars
from ref.types import dtypes

DEFAULTS = dict(learning_rate=0.1, alpha=1.0, beta=0.9)
"""``tf.contrib.opt.AddSignOptimizer``'s defaults (not in the seeds; ``ref`` has no class for it)."""


@njit(inline="always")
def addsign_update(var, m, grad, lr, alpha, sign_decay, beta, T):
    """One element of TF's ApplyAddSign."""
    m = m * beta + grad * (T(1) - beta)
    sign_gm = T(np.sign(grad)) * T(np.sign(m))
    var = var - lr * (alpha + sign_decay * sign_gm) * grad
    return var, m


_addsign_loop = dense_loop(addsign_update)


def apply_add_sign(var, m, lr, alpha, sign_decay, beta, grad, use_locking=False, out=None):
    """TF's ApplyAddSign: returns new ``(var, m)`` (or fills ``out``)."""
    var = np.asarray(var)
    params = scalars(var.dtype, lr=lr, alpha=alpha, sign_decay=sign_decay, beta=beta)
    check_dense(var, grad, m=m)
    return run_dense(_addsign_loop, addsign_update, (var, m), grad, tuple(params), out)


declare("ApplyAddSign", apply_add_sign,
        inputs=("var", "m", "lr", "alpha", "sign_decay", "beta", "grad"),
        refs=("var", "m"), hypers=("lr", "alpha", "sign_decay", "beta"),
        attrs={"use_locking": False}, allowed=dtypes.FLOATS)
