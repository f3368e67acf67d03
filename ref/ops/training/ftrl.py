"""FTRL-Proximal (McMahan et al., 2013, "Ad Click Prediction: a View from the
Trenches", Algorithm 1): TF's ``ApplyFtrl``, ``ApplyFtrlV2`` (with L2
shrinkage) and their sparse twins -- one parametrised kernel.

The documentation (TF's API reference, "tf.compat.v1.train.FtrlOptimizer") states,
with ``\\hat{g} = g + 2 L2_shrinkage w``::

    w_{t+1} = argmin_w(\\hat{g}_{1:t} w + L1 ||w||_1 + L2 ||w||_2^2)
    in the absence of L1 regularization, it is equivalent to
    w_{t+1} = w_t - lr_t / (beta + 2 L2 lr_t) * g_t
                  - 2 L2_shrinkage lr_t / (beta + 2 L2 lr_t) * w_t

(TF 1.x docs, "Training" adds: learning_rate_power=-0.5 behaves like
Adagrad, 0.0 like gradient descent.) The paper's per-coordinate form, with
n = accum, z = linear, p = -lr_power (the paper has p = 1/2)::

    sigma = (sqrt(n + g^2) - sqrt(n)) / alpha;  z += g - sigma * w;  n += g^2
    w = 0 if |z| <= l1 else -(z - sign(z) l1) / (sqrt(n) / alpha + 2 l2)

TF's dense kernel (training_ops.cc, ``ApplyFtrl``/``ApplyFtrlV2`` and the
``MultiplyLinearByLr`` variants), ``pw(a) = sqrt(a)`` when ``lr_power == -0.5``
(exactly; TF special-cases it) and ``a ** -lr_power`` otherwise::

    gs = grad + 2 * l2_shrinkage * var            (V2; ApplyFtrl: gs = grad)
    new_accum = accum + grad * grad               (the accumulator never sees the shrinkage)
    linear += gs - (pw(new_accum) - pw(accum)) / lr * var
    var = |linear| > l1 ? (l1 * sign(linear) - linear) / (pw(new_accum) / lr + 2 * l2) : 0
    accum = new_accum
    multiply_linear_by_lr: linear += gs * lr - (pw(new_accum) - pw(accum)) * var;
        l1 -> l1 * lr;  denominator pw(new_accum) + 2 * l2 * lr

TF's sparse kernels (``SparseApplyFtrl``), row by row in index order, clamp
instead of select -- ``var = (clip(linear, -l1, l1) - linear) / denominator`` --
and, when a row has a single element, a scalar path that computes
``sigma = (pow(new_accum, -lr_power) - pow(accum, -lr_power)) / lr`` with
``pow`` even at -0.5 and ``linear = (linear + gs) - sigma * var``. Only the
sparse kernels reject ``lr <= 0``, negative ``l1``/``l2``/``l2_shrinkage`` and
positive ``lr_power`` at run time (as TF).

TF's float32 ``pow`` (``lr_power != -0.5``) is Eigen's vectorised
``generic_pow``, which differs from libm's ``powf`` by 1 ULP on about a quarter
of inputs; ``ref`` calls ``powf``. FTRL's ``linear - sigma * var`` cancels, so
those ULPs grow in ``linear`` and ``var`` (tests compare such rows to within
1e-5 of the array's largest magnitude; ``-0.5`` rows and float64 are bit-exact).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.registry import invalid_argument
from ref.ops.training._apply import (check_dense, check_sparse, declare, dense_loop, run_dense, run_sparse, scalars,
                                     sparse_loop, where)
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper, tree_map, zeros
from ref.types import dtypes

DEFAULTS: dict[str, Any] = dict(learning_rate_power=-0.5, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0, beta=None)
"""``tf.train.FtrlOptimizer``'s defaults (TF's API reference), also :func:`init` / :func:`step`'s."""

DENSE, SPARSE_ROWS, SPARSE_SCALAR = 0, 1, 2
"""Which of TF's expression orders: dense functor, sparse Eigen rows, sparse scalar path."""


@njit(inline="always")
def ftrl_update(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, sqrt_branch,
                has_shrinkage, multiply_linear_by_lr, form, T):
    """One element of TF's FTRL kernels; returns new (var, accum, linear).
    ``sqrt_branch`` is ``lr_power == -0.5``; the flags select TF's variant."""
    two = T(2)
    gs = grad + two * l2_shrinkage * var if has_shrinkage else grad
    new_accum = accum + grad * grad
    if sqrt_branch:
        pw_new = np.sqrt(new_accum)
    else:
        pw_new = new_accum ** -lr_power
    if form == SPARSE_SCALAR:
        sigma = new_accum ** -lr_power - accum ** -lr_power
        if multiply_linear_by_lr:
            linear = (linear + gs * lr) - sigma * var
        else:
            linear = (linear + gs) - sigma / lr * var
    else:
        pw_old = np.sqrt(accum) if sqrt_branch else accum ** -lr_power
        if multiply_linear_by_lr:
            linear = linear + (gs * lr - (pw_new - pw_old) * var)
        else:
            linear = linear + (gs - (pw_new - pw_old) / lr * var)
    if multiply_linear_by_lr:
        l1 = l1 * lr
        quadratic = pw_new + two * l2 * lr
    else:
        quadratic = pw_new / lr + two * l2
    if form == DENSE:
        pre_shrink = (l1 * T(np.sign(linear)) - linear) / quadratic
        var = where(abs(linear) > l1, pre_shrink, T(0))
    else:
        clipped = where(l1 < linear, l1, linear)
        clipped = where(clipped < -l1, -l1, clipped)
        var = (clipped - linear) / quadratic
    return var, new_accum, linear


# The common variants get copies of the loop whose flags are constants, so the
# branches (and the pow call) fold away and the loop vectorises.
_ftrl_loop = dense_loop(ftrl_update, constants={"form": DENSE}, cases=(
    {"sqrt_branch": True, "has_shrinkage": False, "multiply_linear_by_lr": False},
    {"sqrt_branch": True, "has_shrinkage": True, "multiply_linear_by_lr": False}))
_sparse_ftrl_loop = sparse_loop(ftrl_update)


def _check_hypers(lr, l1, l2, l2_shrinkage, lr_power, has_shrinkage):
    if not lr > 0:
        raise invalid_argument("lr is not a positive scalar: []")
    if not l1 >= 0:
        raise invalid_argument("l1 regularization strength is not a non-negative scalar: []")
    if not l2 >= 0:
        raise invalid_argument("l2 regularization strength is not a non-negative scalar: []")
    if has_shrinkage and not l2_shrinkage >= 0:
        raise invalid_argument("l2 shrinkage regularization strength is not a non-negative scalar: []")
    if not lr_power <= 0:
        raise invalid_argument("lr_power is not a non-positive scalar: []")


def _ftrl(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power, multiply_linear_by_lr, out):
    var = np.asarray(var)
    has_shrinkage = l2_shrinkage is not None
    lr, l1, l2, l2_shrinkage, lr_power = scalars(
        var.dtype, lr=lr, l1=l1, l2=l2, l2_shrinkage=0 if l2_shrinkage is None else l2_shrinkage,
        lr_power=lr_power)
    if indices is None:
        check_dense(var, grad, accum=accum, linear=linear)
    else:
        check_sparse(var, grad, indices, accum=accum, linear=linear)
        _check_hypers(lr, l1, l2, l2_shrinkage, lr_power, has_shrinkage)  # TF checks values for sparse only
    flags = (bool(lr_power == var.dtype.type(-0.5)), has_shrinkage, bool(multiply_linear_by_lr))
    if indices is None:
        return run_dense(_ftrl_loop, ftrl_update, (var, accum, linear), grad,
                         (lr, l1, l2, l2_shrinkage, lr_power, *flags, DENSE), out)
    form = SPARSE_SCALAR if int(np.prod(var.shape[1:], dtype=np.int64)) == 1 else SPARSE_ROWS
    return run_sparse(_sparse_ftrl_loop, ftrl_update, (var, accum, linear), grad, indices,
                      (lr, l1, l2, l2_shrinkage, lr_power, *flags, form), out)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=False,
               multiply_linear_by_lr=False, out=None):
    """TF's ApplyFtrl: returns new ``(var, accum, linear)`` (or fills ``out``)."""
    return _ftrl(var, accum, linear, grad, None, lr, l1, l2, None, lr_power, multiply_linear_by_lr, out)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False,
                  multiply_linear_by_lr=False, out=None):
    """TF's ApplyFtrlV2 (L2 shrinkage): returns new ``(var, accum, linear)``."""
    return _ftrl(var, accum, linear, grad, None, lr, l1, l2, l2_shrinkage, lr_power, multiply_linear_by_lr, out)


def sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, use_locking=False,
                      multiply_linear_by_lr=False, out=None):
    """TF's SparseApplyFtrl: rows ``indices`` updated; returns new ``(var, accum, linear)``."""
    return _ftrl(var, accum, linear, grad, indices, lr, l1, l2, None, lr_power, multiply_linear_by_lr, out)


def sparse_apply_ftrl_v2(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power,
                         use_locking=False, multiply_linear_by_lr=False, out=None):
    """TF's SparseApplyFtrlV2: rows ``indices`` updated; returns new ``(var, accum, linear)``."""
    return _ftrl(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power,
                 multiply_linear_by_lr, out)


_REFS = ("var", "accum", "linear")
_ATTRS = {"use_locking": False, "multiply_linear_by_lr": False}
for _name, _kernel, _sparse, _hypers in (
        ("ApplyFtrl", apply_ftrl, False, ("lr", "l1", "l2", "lr_power")),
        ("ApplyFtrlV2", apply_ftrl_v2, False, ("lr", "l1", "l2", "l2_shrinkage", "lr_power")),
        ("SparseApplyFtrl", sparse_apply_ftrl, True, ("lr", "l1", "l2", "lr_power")),
        ("SparseApplyFtrlV2", sparse_apply_ftrl_v2, True, ("lr", "l1", "l2", "l2_shrinkage", "lr_power"))):
    declare(_name, _kernel, inputs=(*_REFS, "grad", *(("indices",) if _sparse else ()), *_hypers),
            refs=_REFS, hypers=_hypers, attrs=dict(_ATTRS), allowed=dtypes.FLOATS, sparse=_sparse)


def check_ftrl_args(learning_rate_power, initial_accumulator_value, l1_regularization_strength,
                     l2_regularization_strength, l2_shrinkage_regularization_strength):
    """TF's constructor checks and messages."""
    if initial_accumulator_value < 0.0:
        raise ValueError("initial_accumulator_value %f needs to be positive or zero" % initial_accumulator_value)
    if learning_rate_power > 0.0:
        raise ValueError("learning_rate_power %f needs to be negative or zero" % learning_rate_power)
    if l1_regularization_strength < 0.0:
        raise ValueError("l1_regularization_strength %f needs to be positive or zero" % l1_regularization_strength)
    if l2_regularization_strength < 0.0:
        raise ValueError("l2_regularization_strength %f needs to be positive or zero" % l2_regularization_strength)
    if l2_shrinkage_regularization_strength < 0.0:
        raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive or zero"
                         % l2_shrinkage_regularization_strength)


# -- the pure functional form -------------------------------------------------------------

class FtrlState(NamedTuple):
    """TF's slots ``accum`` and ``linear`` for every parameter."""
    accum: object
    linear: object


def init(params: ArrayTree, learning_rate: Hyper | None = None,
         learning_rate_power: Hyper = DEFAULTS["learning_rate_power"],
         initial_accumulator_value: Hyper = DEFAULTS["initial_accumulator_value"],
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"],
         l2_shrinkage_regularization_strength: float = DEFAULTS["l2_shrinkage_regularization_strength"],
         beta: Hyper | None = DEFAULTS["beta"]) -> FtrlState:
    """``accum`` at ``initial_accumulator_value`` (``ones * value`` in the parameter's dtype), ``linear`` zeros."""
    check_ftrl_args(learning_rate_power, initial_accumulator_value, l1_regularization_strength,
                     l2_regularization_strength, l2_shrinkage_regularization_strength)

    def accum(p):
        p = np.asarray(p)
        return np.ones_like(p) * p.dtype.type(initial_accumulator_value)

    return FtrlState(tree_map(accum, params), tree_map(zeros, params))


def step(params: ArrayTree, grads: GradTree, state: FtrlState, learning_rate: Hyper,
         learning_rate_power: Hyper = DEFAULTS["learning_rate_power"],
         initial_accumulator_value: Hyper = DEFAULTS["initial_accumulator_value"],
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"],
         l2_shrinkage_regularization_strength: float = DEFAULTS["l2_shrinkage_regularization_strength"],
         beta: Hyper | None = DEFAULTS["beta"]) -> tuple[ArrayTree, FtrlState]:
    """``(new_params, new_state)``: one ``FtrlOptimizer`` step, bit for bit."""
    lr = hyper(learning_rate)
    t0 = np.asarray(lr).dtype.type
    floor = np.maximum(lr, t0(1e-36))
    adjusted_l2 = t0(hyper(l2_regularization_strength, np.asarray(lr).dtype)
                     + t0(hyper(0.0 if beta is None else beta, np.asarray(lr).dtype)) / (t0(2.0) * floor))
    shrink = l2_shrinkage_regularization_strength > 0.0

    def update(var, grad, accum, linear):
        t = var.dtype
        common = (hyper(lr, t), hyper(l1_regularization_strength, t), hyper(adjusted_l2, t))
        if shrink:
            return apply_ftrl_v2(var, accum, linear, grad, *common, hyper(l2_shrinkage_regularization_strength, t),
                                 hyper(learning_rate_power, t))
        return apply_ftrl(var, accum, linear, grad, *common, hyper(learning_rate_power, t))

    new_params, accum, linear = apply_leaves(update, params, grads, state.accum, state.linear)
    return new_params, FtrlState(accum, linear)
