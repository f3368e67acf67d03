"""Adagrad (Duchi, Hazan & Singer, 2011): TF's ``ApplyAdagrad``,
``ApplyAdagradV2`` and their sparse twins.

The documentation (TF's API reference, "tf.compat.v1.train.AdagradOptimizer")
cites "Adaptive Subgradient Methods for Online Learning and Stochastic
Optimization :Duchi et al., 2011" and gives ``initial_accumulator_value=0.1``
("Starting value for the accumulators, must be positive"). The diagonal
update of the paper (Section 1, "diagonal matrix" form)::

    accum <- accum + g * g
    var   <- var - lr * g / sqrt(accum)

TF's dense kernels (training_ops.cc, ``functor::ApplyAdagrad`` / ``ApplyAdagradV2``)::

    if update_slots: accum += grad * grad
    ApplyAdagrad:    var -= grad * lr * rsqrt(accum)
    ApplyAdagradV2:  var -= grad * lr / (sqrt(accum) + epsilon)

The sparse kernels (``SparseApplyAdagradOp`` / ``SparseApplyAdagradV2Op``) update
rows ``indices[i]`` in index order (duplicates one after another) with
``var -= lr * grad * rsqrt(accum)`` (V2: ``lr * grad / (sqrt(accum) + epsilon)``);
when rows have a single element (``inner_dim == 1``) SparseApplyAdagrad divides
instead: ``var -= lr * grad / sqrt(accum)``.

``update_slots=False`` leaves ``accum`` unchanged (Keras' Adagrad uses it).
``ref`` computes ``rsqrt(x)`` as ``1 / sqrt(x)`` (correctly rounded twice); TF's
float32 ``rsqrt`` is Eigen's vectorised approximation, up to 2 ULP away, which
near cancellation (``var`` close to its update) shows as a larger ULP distance
in ``var`` (budgets measured in tests/ops/training/test_update_kernels.py).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import (check_dense, check_sparse, declare, dense_loop, run_dense, run_sparse, scalars,
                                     sparse_loop)
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, filled, hyper, tree_map
from ref.types import dtypes

DEFAULTS = dict(initial_accumulator_value=0.1)
"""``tf.train.AdagradOptimizer``'s default (TF's API reference), also :func:`init` / :func:`step`'s."""


@njit(inline="always")
def adagrad_update(var, accum, grad, lr, update_slots, T):
    """One element of TF's dense ApplyAdagrad."""
    if update_slots:
        accum = accum + grad * grad
    return var - grad * lr * (T(1) / np.sqrt(accum)), accum


@njit(inline="always")
def adagrad_v2_update(var, accum, grad, lr, epsilon, update_slots, T):
    """One element of TF's dense ApplyAdagradV2."""
    if update_slots:
        accum = accum + grad * grad
    return var - grad * lr / (np.sqrt(accum) + epsilon), accum


@njit(inline="always")
def sparse_adagrad_update(var, accum, grad, lr, update_slots, scalar_path, T):
    """One element of TF's SparseApplyAdagrad (``scalar_path``: its ``inner_dim == 1`` branch)."""
    if update_slots:
        accum = accum + grad * grad
    if scalar_path:
        return var - lr * grad / np.sqrt(accum), accum
    return var - lr * grad * (T(1) / np.sqrt(accum)), accum


@njit(inline="always")
def sparse_adagrad_v2_update(var, accum, grad, lr, epsilon, update_slots, T):
    """One element of TF's SparseApplyAdagradV2 (both branches alike)."""
    if update_slots:
        accum = accum + grad * grad
    return var - lr * grad / (np.sqrt(accum) + epsilon), accum


_adagrad_loop = dense_loop(adagrad_update)
_adagrad_v2_loop = dense_loop(adagrad_v2_update)
_sparse_adagrad_loop = sparse_loop(sparse_adagrad_update)
_sparse_adagrad_v2_loop = sparse_loop(sparse_adagrad_v2_update)


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, out=None):
    """TF's ApplyAdagrad: returns new ``(var, accum)`` (or fills ``out``)."""
    var = np.asarray(var)
    (lr,) = scalars(var.dtype, lr=lr)
    check_dense(var, grad, accum=accum)
    return run_dense(_adagrad_loop, adagrad_update, (var, accum), grad, (lr, bool(update_slots)), out)


def apply_adagrad_v2(var, accum, lr, epsilon, grad, use_locking=False, update_slots=True, out=None):
    """TF's ApplyAdagradV2: returns new ``(var, accum)`` (or fills ``out``)."""
    var = np.asarray(var)
    lr, epsilon = scalars(var.dtype, lr=lr, epsilon=epsilon)
    check_dense(var, grad, accum=accum)
    return run_dense(_adagrad_v2_loop, adagrad_v2_update, (var, accum), grad,
                     (lr, epsilon, bool(update_slots)), out)


def sparse_apply_adagrad(var, accum, lr, grad, indices, use_locking=False, update_slots=True, out=None):
    """TF's SparseApplyAdagrad: rows ``indices`` updated; returns new ``(var, accum)``."""
    var = np.asarray(var)
    (lr,) = scalars(var.dtype, lr=lr)
    check_sparse(var, grad, indices, accum=accum)
    scalar_path = int(np.prod(var.shape[1:])) == 1  # TF's inner_dim == 1 branch
    return run_sparse(_sparse_adagrad_loop, sparse_adagrad_update, (var, accum), grad, indices,
                      (lr, bool(update_slots), scalar_path), out)


def sparse_apply_adagrad_v2(var, accum, lr, epsilon, grad, indices, use_locking=False, update_slots=True,
                            out=None):
    """TF's SparseApplyAdagradV2: rows ``indices`` updated; returns new ``(var, accum)``."""
    var = np.asarray(var)
    lr, epsilon = scalars(var.dtype, lr=lr, epsilon=epsilon)
    check_sparse(var, grad, indices, accum=accum)
    return run_sparse(_sparse_adagrad_v2_loop, sparse_adagrad_v2_update, (var, accum), grad, indices,
                      (lr, epsilon, bool(update_slots)), out)


_T = dtypes.FLOATS + dtypes.COMPLEX
_ATTRS = {"use_locking": False, "update_slots": True}
declare("ApplyAdagrad", apply_adagrad, inputs=("var", "accum", "lr", "grad"), refs=("var", "accum"),
        hypers=("lr",), attrs=_ATTRS, allowed=_T)
declare("ApplyAdagradV2", apply_adagrad_v2, inputs=("var", "accum", "lr", "epsilon", "grad"),
        refs=("var", "accum"), hypers=("lr", "epsilon"), attrs=_ATTRS, allowed=_T)
declare("SparseApplyAdagrad", sparse_apply_adagrad, inputs=("var", "accum", "lr", "grad", "indices"),
        refs=("var", "accum"), hypers=("lr",), attrs=_ATTRS, allowed=_T, sparse=True)
declare("SparseApplyAdagradV2", sparse_apply_adagrad_v2,
        inputs=("var", "accum", "lr", "epsilon", "grad", "indices"), refs=("var", "accum"),
        hypers=("lr", "epsilon"), attrs=_ATTRS, allowed=_T, sparse=True)


# -- the pure functional form -------------------------------------------------------------

class AdagradState(NamedTuple):
    """TF's slot ``accumulator`` for every parameter."""
    accumulator: object


def check_initial_accumulator_value(initial_accumulator_value):
    """TF's constructor check (also ProximalAdagrad's)."""
    if initial_accumulator_value <= 0.0:
        raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)


def init(params: ArrayTree, learning_rate: Hyper | None = None,
         initial_accumulator_value: Hyper = DEFAULTS["initial_accumulator_value"]) -> AdagradState:
    """Accumulators filled with ``initial_accumulator_value`` (in each parameter's dtype)."""
    check_initial_accumulator_value(initial_accumulator_value)
    return AdagradState(tree_map(filled(initial_accumulator_value), params))


def step(params: ArrayTree, grads: GradTree, state: AdagradState, learning_rate: Hyper,
         initial_accumulator_value: Hyper = DEFAULTS["initial_accumulator_value"]) -> tuple[ArrayTree, AdagradState]:
    """``(new_params, new_state)``: one ``AdagradOptimizer`` step, bit for bit."""
    def update(var, grad, accum):
        return apply_adagrad(var, accum, hyper(learning_rate, var.dtype), grad)

    new_params, accum = apply_leaves(update, params, grads, state.accumulator)
    return new_params, AdagradState(accum)
