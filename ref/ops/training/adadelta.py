"""Adadelta (Zeiler, 2012): TF's ``ApplyAdadelta`` and ``SparseApplyAdadelta``.

The documentation (TF's API reference, "tf.compat.v1.train.AdadeltaOptimizer")
cites "ADADELTA - An Adaptive Learning Rate Method: Zeiler, 2012" with
defaults ``learning_rate=0.001, rho=0.95, epsilon=1e-08`` and notes "To match
the exact form in the original paper use 1.0" for the learning rate.
Zeiler's Algorithm 1, with a learning rate in front of the step::

    E[g^2]  <- rho * E[g^2] + (1 - rho) * g^2
    dx       = - sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g
    E[dx^2] <- rho * E[dx^2] + (1 - rho) * dx^2
    x       <- x + lr * dx

TF's kernels (training_ops.cc, ``functor::ApplyAdadelta`` and, row by row in
index order, ``SparseApplyAdadeltaOp`` -- the same expression order)::

    accum = accum * rho + grad * grad * (1 - rho)
    update = sqrt(accum_update + epsilon) * rsqrt(accum + epsilon) * grad
    var -= update * lr
    accum_update = accum_update * rho + update * update * (1 - rho)

(the paper's ``E[dx^2]`` accumulates the update *before* the learning rate).
``ref`` computes ``rsqrt(x)`` as ``1 / sqrt(x)``; TF's float32 ``rsqrt`` is
Eigen's vectorised approximation (up to 2 ULP), which shows up magnified in
``var`` where ``var`` and ``update * lr`` nearly cancel (TF_NOTES.md: ~2000 ULP
there). Budgets are measured in tests/ops/training/test_update_kernels.py.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import (check_dense, check_sparse, declare, dense_loop, run_dense, run_sparse, scalars,
                                     sparse_loop)
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper, tree_map, zeros
from ref.types import dtypes

DEFAULTS = dict(learning_rate=0.001, rho=0.95, epsilon=1e-08)
"""``tf.train.AdadeltaOptimizer``'s defaults (TF's API reference), also :func:`init` / :func:`step`'s."""


@njit(inline="always")
def adadelta_update(var, accum, accum_update, grad, lr, rho, epsilon, T):
    """One element of TF's ApplyAdadelta (and of SparseApplyAdadelta)."""
    one_minus_rho = T(1) - rho
    accum = accum * rho + grad * grad * one_minus_rho
    update = np.sqrt(accum_update + epsilon) * (T(1) / np.sqrt(accum + epsilon)) * grad
    var = var - update * lr
    accum_update = accum_update * rho + update * update * one_minus_rho
    return var, accum, accum_update


_adadelta_loop = dense_loop(adadelta_update)
_sparse_adadelta_loop = sparse_loop(adadelta_update)  # TF's sparse kernel: the same expression order


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False, out=None):
    """TF's ApplyAdadelta: returns new ``(var, accum, accum_update)`` (or fills ``out``)."""
    var = np.asarray(var)
    params = scalars(var.dtype, lr=lr, rho=rho, epsilon=epsilon)
    check_dense(var, grad, accum=accum, accum_update=accum_update)
    return run_dense(_adadelta_loop, adadelta_update, (var, accum, accum_update), grad, tuple(params), out)


def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices, use_locking=False,
                          out=None):
    """TF's SparseApplyAdadelta: rows ``indices`` updated; returns new ``(var, accum, accum_update)``."""
    var = np.asarray(var)
    check_sparse(var, grad, indices, accum_grad=accum, accum_update=accum_update)  # TF's names
    params = scalars(var.dtype, lr=lr, rho=rho, epsilon=epsilon)
    return run_sparse(_sparse_adadelta_loop, adadelta_update, (var, accum, accum_update), grad, indices,
                      tuple(params), out)


_T = dtypes.FLOATS + dtypes.COMPLEX
declare("ApplyAdadelta", apply_adadelta, inputs=("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"),
        refs=("var", "accum", "accum_update"), hypers=("lr", "rho", "epsilon"), attrs={"use_locking": False},
        allowed=_T)
declare("SparseApplyAdadelta", sparse_apply_adadelta,
        inputs=("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad", "indices"),
        refs=("var", "accum", "accum_update"), hypers=("lr", "rho", "epsilon"), attrs={"use_locking": False},
        allowed=_T, sparse=True)


# -- the pure functional form -------------------------------------------------------------

class AdadeltaState(NamedTuple):
    """TF's slots ``accum`` and ``accum_update`` for every parameter."""
    accum: object
    accum_update: object


def init(params: ArrayTree, learning_rate: Hyper = DEFAULTS["learning_rate"], rho: Hyper = DEFAULTS["rho"],
         epsilon: Hyper = DEFAULTS["epsilon"]) -> AdadeltaState:
    """Zero accumulators shaped like ``params``."""
    return AdadeltaState(tree_map(zeros, params), tree_map(zeros, params))


def step(params: ArrayTree, grads: GradTree, state: AdadeltaState,
         learning_rate: Hyper = DEFAULTS["learning_rate"], rho: Hyper = DEFAULTS["rho"],
         epsilon: Hyper = DEFAULTS["epsilon"]) -> tuple[ArrayTree, AdadeltaState]:
    """``(new_params, new_state)``: one ``AdadeltaOptimizer`` step, bit for bit."""
    def update(var, grad, accum, accum_update):
        t = var.dtype
        return apply_adadelta(var, accum, accum_update, hyper(learning_rate, t), hyper(rho, t),
                              hyper(epsilon, t), grad)

    new_params, accum, accum_update = apply_leaves(update, params, grads, state.accum, state.accum_update)
    return new_params, AdadeltaState(accum, accum_update)
