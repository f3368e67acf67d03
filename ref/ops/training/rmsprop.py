"""RMSProp (Tieleman & Hinton, 2012, Coursera lecture 6e) and its centered
variant (Graves, 2013, eq. 38-45): TF's ``ApplyRMSProp`` /
``ApplyCenteredRMSProp`` and their sparse twins.

The documentation (TF's API reference, "tf.compat.v1.train.RMSPropOptimizer")
gives the defaults ``decay=0.9, momentum=0.0, epsilon=1e-10`` and says that
with ``centered`` "gradients are normalized by the estimated variance of the
gradient; if False, by the uncentered second moment". The update, as the
optimizer's docstring states it::

    mean_square = decay * mean_square{t-1} + (1-decay) * gradient ** 2
    mom = momentum * mom{t-1} + learning_rate * gradient / sqrt(mean_square + epsilon)
    delta = - mom
    centered: mean_grad = decay * mean_grad{t-1} + (1-decay) * gradient
              mom = momentum * mom{t-1} + learning_rate * gradient /
                    sqrt(mean_square - mean_grad ** 2 + epsilon)

TF's dense kernels (training_ops.cc, ``ApplyRMSProp``, ``ApplyCenteredRMSProp``;
``rho`` is ``decay``)::

    ms += (grad * grad - ms) * (1 - rho)
    [mg += (grad - mg) * (1 - rho);  denom = (ms - mg * mg) + epsilon]
    mom = mom * momentum + (grad * lr) / sqrt(ms + epsilon)      [sqrt(denom)]
    var -= mom

TF's sparse kernels (``SparseApplyRMSPropOp``, ``SparseApplyCenteredRMSPropOp``)
use another expression order, row by row in index order::

    ms = ms * rho + grad * grad * (1 - rho)
    [mg = mg * rho + grad * (1 - rho);  denom = ms + epsilon - mg * mg]
    mom = mom * momentum + rsqrt(ms + epsilon) * lr * grad       [rsqrt(denom)]
    var -= mom

Where they differ from Hinton's slide: epsilon sits inside the square root
(Hinton adds it outside or not at all). TF's float32 ``rsqrt`` is Eigen's
vectorised approximation; ``ref`` computes ``1 / sqrt`` (ULP budget measured in
tests/ops/training/test_update_kernels.py).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import (check_dense, check_sparse, declare, dense_loop, run_dense, run_sparse, scalars,
                                     sparse_loop)
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper, tree_map, zeros
from ref.types import dtypes

DEFAULTS: dict[str, Any] = dict(decay=0.9, momentum=0.0, epsilon=1e-10, centered=False)
"""``tf.train.RMSPropOptimizer``'s defaults (TF's API reference), also :func:`init` / :func:`step`'s."""


@njit(inline="always")
def rmsprop_update(var, ms, mom, grad, lr, rho, momentum, epsilon, T):
    """One element of TF's dense ApplyRMSProp."""
    ms = ms + (grad * grad - ms) * (T(1) - rho)
    mom = mom * momentum + (grad * lr) / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


@njit(inline="always")
def centered_rmsprop_update(var, mg, ms, mom, grad, lr, rho, momentum, epsilon, T):
    """One element of TF's dense ApplyCenteredRMSProp."""
    ms = ms + (grad * grad - ms) * (T(1) - rho)
    mg = mg + (grad - mg) * (T(1) - rho)
    denom = (ms - mg * mg) + epsilon
    mom = mom * momentum + (grad * lr) / np.sqrt(denom)
    return var - mom, mg, ms, mom


@njit(inline="always")
def sparse_rmsprop_update(var, ms, mom, grad, lr, rho, momentum, epsilon, T):
    """One element of TF's SparseApplyRMSProp (its own expression order)."""
    ms = ms * rho + grad * grad * (T(1) - rho)
    mom = mom * momentum + T(1) / np.sqrt(ms + epsilon) * lr * grad
    return var - mom, ms, mom


@njit(inline="always")
def sparse_centered_rmsprop_update(var, mg, ms, mom, grad, lr, rho, momentum, epsilon, T):
    """One element of TF's SparseApplyCenteredRMSProp (its own expression order)."""
    ms = ms * rho + grad * grad * (T(1) - rho)
    mg = mg * rho + grad * (T(1) - rho)
    denom = ms + epsilon - mg * mg
    mom = mom * momentum + T(1) / np.sqrt(denom) * lr * grad
    return var - mom, mg, ms, mom


_rmsprop_loop = dense_loop(rmsprop_update)
_centered_rmsprop_loop = dense_loop(centered_rmsprop_update)
_sparse_rmsprop_loop = sparse_loop(sparse_rmsprop_update)
_sparse_centered_rmsprop_loop = sparse_loop(sparse_centered_rmsprop_update)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, out=None):
    """TF's ApplyRMSProp: returns new ``(var, ms, mom)`` (or fills ``out``)."""
    var = np.asarray(var)
    params = scalars(var.dtype, lr=lr, rho=rho, momentum=momentum, epsilon=epsilon)
    check_dense(var, grad, ms=ms, mom=mom)
    return run_dense(_rmsprop_loop, rmsprop_update, (var, ms, mom), grad, tuple(params), out)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, out=None):
    """TF's ApplyCenteredRMSProp: returns new ``(var, mg, ms, mom)`` (or fills ``out``)."""
    var = np.asarray(var)
    params = scalars(var.dtype, lr=lr, rho=rho, momentum=momentum, epsilon=epsilon)
    check_dense(var, grad, mg=mg, ms=ms, mom=mom)
    return run_dense(_centered_rmsprop_loop, centered_rmsprop_update, (var, mg, ms, mom), grad,
                     tuple(params), out)


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False, out=None):
    """TF's SparseApplyRMSProp: rows ``indices`` updated; returns new ``(var, ms, mom)``."""
    var = np.asarray(var)
    params = scalars(var.dtype, lr=lr, rho=rho, momentum=momentum, epsilon=epsilon)
    check_sparse(var, grad, indices, ms=ms, mom=mom)
    return run_sparse(_sparse_rmsprop_loop, sparse_rmsprop_update, (var, ms, mom), grad, indices,
                      tuple(params), out)


def sparse_apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices,
                                   use_locking=False, out=None):
    """TF's SparseApplyCenteredRMSProp: returns new ``(var, mg, ms, mom)``."""
    var = np.asarray(var)
    params = scalars(var.dtype, lr=lr, rho=rho, momentum=momentum, epsilon=epsilon)
    check_sparse(var, grad, indices, mg=mg, ms=ms, mom=mom)
    return run_sparse(_sparse_centered_rmsprop_loop, sparse_centered_rmsprop_update, (var, mg, ms, mom),
                      grad, indices, tuple(params), out)


_HYPERS = ("lr", "rho", "momentum", "epsilon")
_DENSE_T = dtypes.FLOATS + dtypes.COMPLEX
_SPARSE_T = (dtypes.float16, dtypes.float32, dtypes.float64) + dtypes.COMPLEX
declare("ApplyRMSProp", apply_rms_prop, inputs=("var", "ms", "mom", *_HYPERS, "grad"),
        refs=("var", "ms", "mom"), hypers=_HYPERS, attrs={"use_locking": False}, allowed=_DENSE_T)
declare("ApplyCenteredRMSProp", apply_centered_rms_prop, inputs=("var", "mg", "ms", "mom", *_HYPERS, "grad"),
        refs=("var", "mg", "ms", "mom"), hypers=_HYPERS, attrs={"use_locking": False}, allowed=_DENSE_T)
declare("SparseApplyRMSProp", sparse_apply_rms_prop, inputs=("var", "ms", "mom", *_HYPERS, "grad", "indices"),
        refs=("var", "ms", "mom"), hypers=_HYPERS, attrs={"use_locking": False}, allowed=_SPARSE_T,
        sparse=True)
declare("SparseApplyCenteredRMSProp", sparse_apply_centered_rms_prop,
        inputs=("var", "mg", "ms", "mom", *_HYPERS, "grad", "indices"),
        refs=("var", "mg", "ms", "mom"), hypers=_HYPERS, attrs={"use_locking": False}, allowed=_SPARSE_T,
        sparse=True)


# -- the pure functional form -------------------------------------------------------------

class RMSPropState(NamedTuple):
    """TF's slots ``rms``, ``momentum`` and (centered only, else None) ``mg``."""
    rms: object
    momentum: object
    mg: object = None


def init(params: ArrayTree, learning_rate: Hyper | None = None, decay: Hyper = DEFAULTS["decay"],
         momentum: Hyper = DEFAULTS["momentum"], epsilon: Hyper = DEFAULTS["epsilon"],
         centered: bool = DEFAULTS["centered"]) -> RMSPropState:
    """``rms`` ones (as TF), ``momentum`` and ``mg`` zeros."""
    return RMSPropState(tree_map(lambda p: np.ones_like(np.asarray(p)), params), tree_map(zeros, params),
                        tree_map(zeros, params) if centered else None)


def step(params: ArrayTree, grads: GradTree, state: RMSPropState, learning_rate: Hyper,
         decay: Hyper = DEFAULTS["decay"], momentum: Hyper = DEFAULTS["momentum"],
         epsilon: Hyper = DEFAULTS["epsilon"],
         centered: bool = DEFAULTS["centered"]) -> tuple[ArrayTree, RMSPropState]:
    """``(new_params, new_state)``: one ``RMSPropOptimizer`` step, bit for bit."""
    def hypers(t):
        return hyper(learning_rate, t), hyper(decay, t), hyper(momentum, t), hyper(epsilon, t)

    if centered:
        def update(var, grad, ms, mom, mg):
            new_var, mg, ms, mom = apply_centered_rms_prop(var, mg, ms, mom, *hypers(var.dtype), grad)
            return new_var, ms, mom, mg

        new_params, ms, mom, mg = apply_leaves(update, params, grads, state.rms, state.momentum, state.mg)
        return new_params, RMSPropState(ms, mom, mg)

    def update(var, grad, ms, mom):  # type: ignore[no-redef]  # the centered form returned above
        return apply_rms_prop(var, ms, mom, *hypers(var.dtype), grad)

    new_params, ms, mom = apply_leaves(update, params, grads, state.rms, state.momentum)
    return new_params, RMSPropState(ms, mom, None)
