"""Momentum (Polyak's heavy ball; Nesterov as in Sutskever et al., 2013): TF's
``ApplyMomentum`` and ``SparseApplyMomentum``, and the Keras form
``ApplyKerasMomentum`` / ``SparseApplyKerasMomentum``.

The documentation (TF's API reference, "tf.compat.v1.train.MomentumOptimizer")::

    accumulation = momentum * accumulation + gradient
    variable -= learning_rate * accumulation

and for ``use_nesterov`` "an approximation of the original formula, valid for
high values of momentum": the variable tracks ``theta_t + mu * v_t``, i.e.
``variable -= learning_rate * (gradient + momentum * accumulation)``.

TF's dense kernel (training_ops.cc, ``functor::ApplyMomentum``)::

    accum = accum * momentum + grad
    var -= accum * lr                                   (use_nesterov=False)
    var -= grad * lr + accum * momentum * lr            (use_nesterov=True)

``SparseApplyMomentumOp`` (rows ``indices[i]`` in index order) writes the
Nesterov step as ``lr * grad + (lr * momentum) * accum``, which rounds
differently from the dense ``(accum * momentum) * lr``.

The Keras form keeps the learning rate inside the accumulator (TF's
``functor::ApplyKerasMomentum`` and ``SparseApplyKerasMomentum``, same order)::

    accum = accum * momentum - grad * lr
    var += accum                                        (use_nesterov=False)
    var += accum * momentum - grad * lr                 (use_nesterov=True)

TF registers the Keras kernels only as ``ResourceApplyKerasMomentum`` /
``ResourceSparseApplyKerasMomentum``; ``ref`` exposes the ref-variable names too.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops._jit import njit
from ref.ops.training._apply import (check_dense, check_sparse, declare, dense_loop, run_dense, run_sparse, scalars,
                                     sparse_loop)
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper, tree_map, zeros
from ref.types import dtypes

DEFAULTS = dict(use_nesterov=False)
"""``tf.train.MomentumOptimizer``'s default (TF's API reference), also :func:`init` / :func:`step`'s
(``learning_rate`` and ``momentum`` have none)."""


@njit(inline="always")
def momentum_update(var, accum, grad, lr, momentum, use_nesterov, T):
    """One element of TF's dense ApplyMomentum."""
    accum = accum * momentum + grad
    if use_nesterov:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - accum * lr, accum


@njit(inline="always")
def sparse_momentum_update(var, accum, grad, lr, momentum, use_nesterov, T):
    """One element of TF's SparseApplyMomentum (Nesterov term ordered differently)."""
    accum = accum * momentum + grad
    if use_nesterov:
        return var - (lr * grad + lr * momentum * accum), accum
    return var - lr * accum, accum


@njit(inline="always")
def keras_momentum_update(var, accum, grad, lr, momentum, use_nesterov, T):
    """One element of TF's ApplyKerasMomentum (and SparseApplyKerasMomentum)."""
    accum = accum * momentum - grad * lr
    if use_nesterov:
        return var + (accum * momentum - grad * lr), accum
    return var + accum, accum


_momentum_loop = dense_loop(momentum_update)
_keras_momentum_loop = dense_loop(keras_momentum_update)
_sparse_momentum_loop = sparse_loop(sparse_momentum_update)
_sparse_keras_momentum_loop = sparse_loop(keras_momentum_update)  # TF's sparse Keras kernel: the same order


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, out=None):
    """TF's ApplyMomentum: returns new ``(var, accum)`` (or fills ``out``)."""
    var = np.asarray(var)
    lr, momentum = scalars(var.dtype, lr=lr, momentum=momentum)
    check_dense(var, grad, accum=accum)
    return run_dense(_momentum_loop, momentum_update, (var, accum), grad, (lr, momentum, bool(use_nesterov)), out)


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False,
                          out=None):
    """TF's SparseApplyMomentum: rows ``indices`` updated; returns new ``(var, accum)``."""
    var = np.asarray(var)
    lr, momentum = scalars(var.dtype, lr=lr, momentum=momentum)
    check_sparse(var, grad, indices, accum=accum)
    return run_sparse(_sparse_momentum_loop, sparse_momentum_update, (var, accum), grad, indices,
                      (lr, momentum, bool(use_nesterov)), out)


def apply_keras_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, out=None):
    """TF's (Resource)ApplyKerasMomentum: returns new ``(var, accum)`` (or fills ``out``)."""
    var = np.asarray(var)
    lr, momentum = scalars(var.dtype, lr=lr, momentum=momentum)
    check_dense(var, grad, accum=accum)
    return run_dense(_keras_momentum_loop, keras_momentum_update, (var, accum), grad,
                     (lr, momentum, bool(use_nesterov)), out)


def sparse_apply_keras_momentum(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False,
                                out=None):
    """TF's (Resource)SparseApplyKerasMomentum: rows ``indices`` updated; returns new ``(var, accum)``."""
    var = np.asarray(var)
    lr, momentum = scalars(var.dtype, lr=lr, momentum=momentum)
    check_sparse(var, grad, indices, accum=accum)
    return run_sparse(_sparse_keras_momentum_loop, keras_momentum_update, (var, accum), grad, indices,
                      (lr, momentum, bool(use_nesterov)), out)


_T = dtypes.FLOATS + dtypes.COMPLEX
_ATTRS = {"use_locking": False, "use_nesterov": False}
for _name, _kernel, _sparse in (("ApplyMomentum", apply_momentum, False),
                                ("SparseApplyMomentum", sparse_apply_momentum, True),
                                ("ApplyKerasMomentum", apply_keras_momentum, False),
                                ("SparseApplyKerasMomentum", sparse_apply_keras_momentum, True)):
    declare(_name, _kernel,
            inputs=("var", "accum", "lr", "grad", "indices", "momentum") if _sparse else
            ("var", "accum", "lr", "grad", "momentum"),
            refs=("var", "accum"), hypers=("lr", "momentum"), attrs=_ATTRS, allowed=_T, sparse=_sparse)


# -- the pure functional form -------------------------------------------------------------

class MomentumState(NamedTuple):
    """TF's slot ``momentum`` for every parameter."""
    momentum: object


def init(params: ArrayTree, learning_rate: Hyper | None = None, momentum: Hyper | None = None,
         use_nesterov: bool = DEFAULTS["use_nesterov"]) -> MomentumState:
    """Zero accumulators shaped like ``params`` (a dict or list of NumPy arrays)."""
    return MomentumState(tree_map(zeros, params))


def step(params: ArrayTree, grads: GradTree, state: MomentumState, learning_rate: Hyper, momentum: Hyper,
         use_nesterov: bool = DEFAULTS["use_nesterov"]) -> tuple[ArrayTree, MomentumState]:
    """``(new_params, new_state)``: one ``MomentumOptimizer`` step, bit for bit."""
    def update(var, grad, accum):
        return apply_momentum(var, accum, hyper(learning_rate, var.dtype), grad, hyper(momentum, var.dtype),
                              use_nesterov=use_nesterov)

    new_params, accum = apply_leaves(update, params, grads, state.momentum)
    return new_params, MomentumState(accum)
