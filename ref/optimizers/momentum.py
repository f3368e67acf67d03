"""Momentum (Polyak's heavy ball; Nesterov as in Sutskever et al., 2013): TF's
``ApplyMomentum`` and ``SparseApplyMomentum``, and the Keras form
``ApplyKerasMomentum`` / ``SparseApplyKerasMomentum``.

The seed (002_05f9b9b98e89c771.txt, "tf.compat.v1.train.MomentumOptimizer")::

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

import numpy as np

from ref import dtypes
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import check_dense, check_sparse, declare, run_dense, run_sparse, scalars

DEFAULTS = dict(use_locking=False, use_nesterov=False)


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


@njit_sized
def _momentum_loop(var, accum, grad, lr, momentum, use_nesterov, T):
    for i in prange(var.size):
        var[i], accum[i] = momentum_update(var[i], accum[i], grad[i], lr, momentum, use_nesterov, T)


@njit_sized
def _keras_momentum_loop(var, accum, grad, lr, momentum, use_nesterov, T):
    for i in prange(var.size):
        var[i], accum[i] = keras_momentum_update(var[i], accum[i], grad[i], lr, momentum, use_nesterov, T)


@njit
def _sparse_momentum_loop(var, accum, grad, indices, lr, momentum, use_nesterov, T):
    for i in range(indices.size):  # index order: duplicates apply one after another
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], accum[r, j] = sparse_momentum_update(
                var[r, j], accum[r, j], grad[i, j], lr, momentum, use_nesterov, T)


@njit
def _sparse_keras_momentum_loop(var, accum, grad, indices, lr, momentum, use_nesterov, T):
    for i in range(indices.size):
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], accum[r, j] = keras_momentum_update(
                var[r, j], accum[r, j], grad[i, j], lr, momentum, use_nesterov, T)


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


# -- the Optimizer class: tf.train.MomentumOptimizer ---------------------------------

from typing import NamedTuple  # noqa: E402

from ref.graph import apply_op, convert_to_tensor  # noqa: E402
from ref.optimizers.optimizer import Optimizer, apply_leaves, cast, hyper, tree_map  # noqa: E402


class MomentumOptimizer(Optimizer):
    """Seed 002 ``tf.compat.v1.train.MomentumOptimizer(learning_rate, momentum,
    use_locking=False, name='Momentum', use_nesterov=False)``: ``accumulation =
    momentum * accumulation + gradient; variable -= learning_rate * accumulation``.
    Slot ``momentum`` (variable ``<var>/Momentum``), zeros."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")

    def _args(self, var, dtype):
        return dict(var=var, accum=self.get_slot(var, "momentum"), lr=cast(self._learning_rate_tensor, dtype),
                    momentum=cast(self._momentum_tensor, dtype), use_locking=self._use_locking,
                    use_nesterov=self._use_nesterov)

    def _apply_dense(self, grad, var):
        return apply_op("ApplyMomentum", grad=grad, **self._args(var, var.dtype)).op

    def _resource_apply_dense(self, grad, var):
        return apply_op("ResourceApplyMomentum", grad=grad, **self._args(var, grad.dtype))

    def _apply_sparse(self, grad, var):
        return apply_op("SparseApplyMomentum", grad=grad.values, indices=grad.indices,
                        **self._args(var, var.dtype)).op

    def _resource_apply_sparse(self, grad, var, indices):
        return apply_op("ResourceSparseApplyMomentum", grad=grad, indices=indices, **self._args(var, grad.dtype))


# -- the pure functional form -------------------------------------------------------------

class MomentumState(NamedTuple):
    """TF's slot ``momentum`` for every parameter."""
    momentum: object


def init(params, learning_rate=None, momentum=None, use_nesterov=False):
    """Zero accumulators shaped like ``params`` (a dict or list of NumPy arrays)."""
    return MomentumState(tree_map(lambda p: np.zeros_like(np.asarray(p)), params))


def step(params, grads, state, learning_rate, momentum, use_nesterov=False):
    """``(new_params, new_state)``: one ``MomentumOptimizer`` step, bit for bit."""
    def update(var, grad, accum):
        return apply_momentum(var, accum, hyper(learning_rate, var.dtype), grad, hyper(momentum, var.dtype),
                              use_nesterov=use_nesterov)

    new_params, accum = apply_leaves(update, params, grads, state.momentum)
    return new_params, MomentumState(accum)
