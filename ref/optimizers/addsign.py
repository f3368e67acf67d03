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

from ref import dtypes
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import check_dense, declare, run_dense, scalars

DEFAULTS = dict(learning_rate=0.1, alpha=1.0, beta=0.9)


@njit(inline="always")
def addsign_update(var, m, grad, lr, alpha, sign_decay, beta, T):
    """One element of TF's ApplyAddSign."""
    m = m * beta + grad * (T(1) - beta)
    sign_gm = T(np.sign(grad)) * T(np.sign(m))
    var = var - lr * (alpha + sign_decay * sign_gm) * grad
    return var, m


@njit_sized
def _addsign_loop(var, m, grad, lr, alpha, sign_decay, beta, T):
    for i in prange(var.size):
        var[i], m[i] = addsign_update(var[i], m[i], grad[i], lr, alpha, sign_decay, beta, T)


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
