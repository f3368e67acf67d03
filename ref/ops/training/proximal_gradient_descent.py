"""Proximal gradient descent (FOBOS): TF's ``ApplyProximalGradientDescent`` and
``SparseApplyProximalGradientDescent``.

The documentation (TF's API reference,
"tf.compat.v1.train.ProximalGradientDescentOptimizer") names the algorithm and
its reference, "Efficient Learning using Forward-Backward Splitting: Duchi et
al., 2009", with ``l1_regularization_strength`` and
``l2_regularization_strength`` "greater than or equal to zero". FOBOS takes a
gradient step, then the closed-form proximal step of
``l1 |w| + l2/2 w^2`` (Duchi & Singer 2009, eq. 3 and Section 5)::

    v = w - lr * g
    w = sign(v) * max(|v| - lr * l1, 0) / (1 + lr * l2)

TF's dense kernel (training_ops.cc, ``functor::ApplyProximalGradientDescent``),
all in ``T``::

    prox_var = var - delta * alpha
    l1 > 0:  var = sign(prox_var) * max(|prox_var| - alpha * l1, 0) / (1 + l2 * alpha)
    else:    var = prox_var / (1 + l2 * alpha)

TF's sparse kernel (``SparseApplyProximalGradientDescentOp``) applies the same
expression to each row ``indices[i]`` in index order (duplicates apply one
after another) -- except when rows have a single element (``inner_dim == 1``):
that path computes the denominator as the C++ double ``1.0 + l2 * alpha`` and
divides in double before rounding to ``T``, which for float32 can differ from
the dense result by an ULP.

For ``l1 == 0`` TF's kernel skips the shrinkage, as the formula does.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import check_sparse, declare, dense_loop, run_dense, run_sparse, scalars, sparse_loop
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper
from ref.ops.training.gradient_descent import check_delta, declare_with_delta
from ref.types import dtypes

DEFAULTS = dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0)
"""``tf.train.ProximalGradientDescentOptimizer``'s defaults (TF's API reference), also :func:`init` / :func:`step`'s."""


@njit(inline="always")
def proximal_step(prox, lr, l1, l2, T):
    """FOBOS shrinkage of ``prox = var - lr * g`` in ``T`` (TF's Eigen path)."""
    if l1 > T(0):
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, T(0)) / (T(1) + l2 * lr)
    return prox / (T(1) + l2 * lr)


@njit(inline="always")
def proximal_step_scalar_path(prox, lr, l1, l2, T):
    """The same in TF's ``inner_dim == 1`` sparse path: denominator and division in double."""
    den = np.float64(1.0) + np.float64(l2 * lr)
    if l1 > T(0):
        return T(np.float64(np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, T(0))) / den)
    return T(np.float64(prox) / den)


@njit(inline="always")
def proximal_gradient_descent_update(var, delta, alpha, l1, l2, T):
    """One element of TF's dense ApplyProximalGradientDescent."""
    return (proximal_step(var - delta * alpha, alpha, l1, l2, T),)


@njit(inline="always")
def sparse_proximal_gradient_descent_update(var, grad, alpha, l1, l2, scalar_path, T):
    """One element of TF's SparseApplyProximalGradientDescent."""
    if scalar_path:
        return (proximal_step_scalar_path(var - alpha * grad, alpha, l1, l2, T),)
    return (proximal_step(var - grad * alpha, alpha, l1, l2, T),)


_proximal_gradient_descent_loop = dense_loop(proximal_gradient_descent_update)
_sparse_proximal_gradient_descent_loop = sparse_loop(sparse_proximal_gradient_descent_update)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False, out=None):
    """TF's ApplyProximalGradientDescent: returns ``(new_var,)`` (or fills ``out``)."""
    var = np.asarray(var)
    alpha, l1, l2 = scalars(var.dtype, alpha=alpha, l1=l1, l2=l2)
    check_delta(var, delta)
    return run_dense(_proximal_gradient_descent_loop, proximal_gradient_descent_update, (var,), delta,
                     (alpha, l1, l2), out)


def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices, use_locking=False, out=None):
    """TF's SparseApplyProximalGradientDescent: rows ``indices`` updated; returns ``(new_var,)``."""
    var = np.asarray(var)
    alpha, l1, l2 = scalars(var.dtype, alpha=alpha, l1=l1, l2=l2)
    check_sparse(var, grad, indices)
    scalar_path = int(np.prod(var.shape[1:])) == 1  # TF's inner_dim == 1 branch
    return run_sparse(_sparse_proximal_gradient_descent_loop, sparse_proximal_gradient_descent_update,
                      (var,), grad, indices, (alpha, l1, l2, scalar_path), out)


_T = (dtypes.float32, dtypes.float64)  # TF registers CPU kernels for these only
declare_with_delta("ApplyProximalGradientDescent", apply_proximal_gradient_descent,
                   ("var", "alpha", "l1", "l2", "delta"), ("alpha", "l1", "l2"), _T)
declare("SparseApplyProximalGradientDescent", sparse_apply_proximal_gradient_descent,
        inputs=("var", "alpha", "l1", "l2", "grad", "indices"), refs=("var",), hypers=("alpha", "l1", "l2"),
        attrs={"use_locking": False}, allowed=_T, sparse=True)


# -- the pure functional form -------------------------------------------------------------

class ProximalGradientDescentState(NamedTuple):
    """Proximal gradient descent keeps no state."""


def init(params: ArrayTree, learning_rate: Hyper | None = None,
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"]) -> ProximalGradientDescentState:
    """The (empty) state."""
    return ProximalGradientDescentState()


def step(params: ArrayTree, grads: GradTree, state: ProximalGradientDescentState, learning_rate: Hyper,
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"],
         ) -> tuple[ArrayTree, ProximalGradientDescentState]:
    """``(new_params, state)``: one ``ProximalGradientDescentOptimizer`` step, bit for bit."""
    def update(var, grad):
        t = var.dtype
        return apply_proximal_gradient_descent(var, hyper(learning_rate, t), hyper(l1_regularization_strength, t),
                                               hyper(l2_regularization_strength, t), grad)

    (new_params,) = apply_leaves(update, params, grads)
    return new_params, state
