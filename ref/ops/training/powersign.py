"""PowerSign (Bello et al., 2017, "Neural Optimizer Search with Reinforcement
Learning"): TF's ``ApplyPowerSign``.

Not described in the seeds; the paper's rule (Section 5), with ``logbase`` =
ln(base) (base e by default) and ``sign_decay`` the weight of the sign
agreement::

    m_t <- beta * m_{t-1} + (1 - beta) * g
    variable <- variable - lr * exp(logbase * sign_decay * sign(g) * sign(m_t)) * g

TF's kernel (training_ops.cc, ``ApplyPowerSign``), the same arithmetic in this
order::

    m = m * beta + grad * (1 - beta)
    sign_gm = sign(grad) * sign(m)
    grad_scale = exp(logbase * sign_decay * sign_gm)
    var -= lr * grad_scale * grad

``sign_gm`` is -1, 0 or 1 (NaN for a NaN input), so ``logbase * sign_decay *
sign_gm`` is exactly ``-ld``, 0 or ``ld``: ``ref`` computes ``exp(ld)`` and
``exp(-ld)`` once per call and selects per element -- the same values as an
element-wise exp, without a libm call per element (which would not vectorise).
TF's float32 ``exp`` is Eigen's vectorised approximation, libm's here (see the
ULP budget in tests/ops/training/test_update_kernels.py). TF has no sparse
PowerSign kernel.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import check_dense, declare, dense_loop, run_dense, scalars, where
from ref.types import dtypes

DEFAULTS = dict(learning_rate=0.1, base=np.e, beta=0.9)
"""``tf.contrib.opt.PowerSignOptimizer``'s defaults (not in the seeds; ``ref`` has no class for it)."""


@njit(inline="always")
def powersign_update(var, m, grad, lr, exp_pos, exp_neg, beta, T):
    """One element of TF's ApplyPowerSign; ``exp_pos``/``exp_neg`` are
    exp(+-logbase * sign_decay), the only values exp(logbase * sign_decay * sign_gm) takes."""
    m = m * beta + grad * (T(1) - beta)
    sign_gm = T(np.sign(grad)) * T(np.sign(m))
    grad_scale = where(sign_gm > T(0), exp_pos, where(sign_gm < T(0), exp_neg, where(sign_gm == T(0), T(1), sign_gm)))
    var = var - lr * grad_scale * grad
    return var, m


_powersign_loop = dense_loop(powersign_update)


def apply_power_sign(var, m, lr, logbase, sign_decay, beta, grad, use_locking=False, out=None):
    """TF's ApplyPowerSign: returns new ``(var, m)`` (or fills ``out``)."""
    var = np.asarray(var)
    lr, logbase, sign_decay, beta = scalars(var.dtype, lr=lr, logbase=logbase, sign_decay=sign_decay, beta=beta)
    check_dense(var, grad, m=m)
    ld = logbase * sign_decay
    return run_dense(_powersign_loop, powersign_update, (var, m), grad, (lr, np.exp(ld), np.exp(-ld), beta), out)


declare("ApplyPowerSign", apply_power_sign,
        inputs=("var", "m", "lr", "logbase", "sign_decay", "beta", "grad"),
        refs=("var", "m"), hypers=("lr", "logbase", "sign_decay", "beta"),
        attrs={"use_locking": False}, allowed=dtypes.FLOATS)
