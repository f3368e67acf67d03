"""Proximal Adagrad (FOBOS with Adagrad's learning rate): TF's
``ApplyProximalAdagrad`` and ``SparseApplyProximalAdagrad``.

The documentation (TF's API reference, "tf.compat.v1.train.ProximalAdagradOptimizer")
cites Duchi et al., 2011 (Adagrad) and "Efficient Learning using
Forward-Backward Splitting: Duchi et al., 2009" (FOBOS), with
``initial_accumulator_value=0.1`` and non-negative ``l1`` / ``l2``. Adagrad's
per-coordinate step size ``lr / sqrt(accum)`` inside FOBOS's proximal step::

    accum <- accum + g * g
    lr_t  = lr / sqrt(accum)
    v     = w - lr_t * g
    w     = sign(v) * max(|v| - lr_t * l1, 0) / (1 + lr_t * l2)

TF's dense kernel (training_ops.cc, ``functor::ApplyProximalAdagrad``), in ``T``::

    accum += grad * grad
    learning_rate = lr * rsqrt(accum)
    prox_var = var - grad * learning_rate
    l1 > 0:  var = sign(prox_var) * max(|prox_var| - learning_rate * l1, 0) / (1 + l2 * learning_rate)
    else:    var = prox_var / (1 + l2 * learning_rate)

``SparseApplyProximalAdagradOp`` applies the same to rows ``indices[i]`` in
index order; for single-element rows (``inner_dim == 1``) it computes
``learning_rate = lr / sqrt(accum)`` and the denominator ``1.0 + l2 *
learning_rate`` and the division in C++ double, rounding the result to ``T``.
TF's CPU kernels reject ``lr <= 0``, ``l1 < 0``, ``l2 < 0``.
``ref``'s ``rsqrt`` is ``1 / sqrt``; TF's float32 ``rsqrt`` is an approximation
(see adagrad.py).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops import registry
from ref.ops._jit import njit
from ref.ops.training._apply import (check_dense, check_sparse, declare, dense_loop, run_dense, run_sparse, scalars,
                                     shape_str, sparse_loop)
from ref.ops.training.adagrad import check_initial_accumulator_value
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, filled, hyper, tree_map
from ref.ops.training.proximal_gradient_descent import proximal_step, proximal_step_scalar_path
from ref.types import dtypes

DEFAULTS = dict(initial_accumulator_value=0.1, l1_regularization_strength=0.0, l2_regularization_strength=0.0)
"""``tf.train.ProximalAdagradOptimizer``'s defaults (TF's API reference), also :func:`init` / :func:`step`'s."""


@njit(inline="always")
def proximal_adagrad_update(var, accum, grad, lr, l1, l2, T):
    """One element of TF's ApplyProximalAdagrad (also its sparse multi-element rows)."""
    accum = accum + grad * grad
    learning_rate = lr * (T(1) / np.sqrt(accum))
    return proximal_step(var - grad * learning_rate, learning_rate, l1, l2, T), accum


@njit(inline="always")
def sparse_proximal_adagrad_update(var, accum, grad, lr, l1, l2, scalar_path, T):
    """One element of TF's SparseApplyProximalAdagrad."""
    if not scalar_path:
        return proximal_adagrad_update(var, accum, grad, lr, l1, l2, T)
    accum = accum + grad * grad
    learning_rate = lr / np.sqrt(accum)
    return proximal_step_scalar_path(var - learning_rate * grad, learning_rate, l1, l2, T), accum


_proximal_adagrad_loop = dense_loop(proximal_adagrad_update)
_sparse_proximal_adagrad_loop = sparse_loop(sparse_proximal_adagrad_update)


def _hypers(dtype, lr, l1, l2):
    """TF's CPU checks: lr > 0, l1 >= 0, l2 >= 0 (the message shows the shape)."""
    lr_a, l1_a, l2_a = (np.asarray(x) for x in (lr, l1, l2))
    lr, l1, l2 = scalars(dtype, lr=lr, l1=l1, l2=l2)
    if not lr > 0:
        raise registry.invalid_argument(f"lr is not a positive scalar: {shape_str(lr_a.shape)}")
    if not l1 >= 0:
        raise registry.invalid_argument(
            f"l1 regularization strength is not a non-negative scalar: {shape_str(l1_a.shape)}")
    if not l2 >= 0:
        raise registry.invalid_argument(
            f"l2 regularization strength is not a non-negative scalar: {shape_str(l2_a.shape)}")
    return lr, l1, l2


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False, out=None):
    """TF's ApplyProximalAdagrad: returns new ``(var, accum)`` (or fills ``out``)."""
    var = np.asarray(var)
    check_dense(var, grad, accum=accum)
    params = _hypers(var.dtype, lr, l1, l2)
    return run_dense(_proximal_adagrad_loop, proximal_adagrad_update, (var, accum), grad, params, out)


def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False, out=None):
    """TF's SparseApplyProximalAdagrad: rows ``indices`` updated; returns new ``(var, accum)``."""
    var = np.asarray(var)
    params = _hypers(var.dtype, lr, l1, l2)  # TF checks these before the indices
    check_sparse(var, grad, indices, accum=accum)
    scalar_path = int(np.prod(var.shape[1:])) == 1  # TF's inner_dim == 1 branch
    return run_sparse(_sparse_proximal_adagrad_loop, sparse_proximal_adagrad_update, (var, accum), grad,
                      indices, (*params, scalar_path), out)


_T = (dtypes.float32, dtypes.float64)  # TF registers CPU kernels for these only
declare("ApplyProximalAdagrad", apply_proximal_adagrad, inputs=("var", "accum", "lr", "l1", "l2", "grad"),
        refs=("var", "accum"), hypers=("lr", "l1", "l2"), attrs={"use_locking": False}, allowed=_T)
declare("SparseApplyProximalAdagrad", sparse_apply_proximal_adagrad,
        inputs=("var", "accum", "lr", "l1", "l2", "grad", "indices"), refs=("var", "accum"),
        hypers=("lr", "l1", "l2"), attrs={"use_locking": False}, allowed=_T, sparse=True)


# -- the pure functional form -------------------------------------------------------------

class ProximalAdagradState(NamedTuple):
    """TF's slot ``accumulator`` for every parameter."""
    accumulator: object


def init(params: ArrayTree, learning_rate: Hyper | None = None,
         initial_accumulator_value: Hyper = DEFAULTS["initial_accumulator_value"],
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"]) -> ProximalAdagradState:
    """Accumulators filled with ``initial_accumulator_value``."""
    check_initial_accumulator_value(initial_accumulator_value)
    return ProximalAdagradState(tree_map(filled(initial_accumulator_value), params))


def step(params: ArrayTree, grads: GradTree, state: ProximalAdagradState, learning_rate: Hyper,
         initial_accumulator_value: Hyper = DEFAULTS["initial_accumulator_value"],
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"],
         ) -> tuple[ArrayTree, ProximalAdagradState]:
    """``(new_params, new_state)``: one ``ProximalAdagradOptimizer`` step, bit for bit."""
    def update(var, grad, accum):
        t = var.dtype
        return apply_proximal_adagrad(var, accum, hyper(learning_rate, t), hyper(l1_regularization_strength, t),
                                      hyper(l2_regularization_strength, t), grad)

    new_params, accum = apply_leaves(update, params, grads, state.accumulator)
    return new_params, ProximalAdagradState(accum)
