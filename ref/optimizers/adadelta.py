"""Adadelta (Zeiler, 2012): TF's ``ApplyAdadelta`` and ``SparseApplyAdadelta``.

The seed (002_05f9b9b98e89c771.txt, "tf.compat.v1.train.AdadeltaOptimizer")
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
there). Budgets are measured in tests/optimizers/test_kernels_group1.py.
"""
from __future__ import annotations

import numpy as np

from ref import dtypes
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import check_dense, check_sparse, declare, run_dense, run_sparse, scalars

DEFAULTS = dict(learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking=False)


@njit(inline="always")
def adadelta_update(var, accum, accum_update, grad, lr, rho, epsilon, T):
    """One element of TF's ApplyAdadelta (and of SparseApplyAdadelta)."""
    one_minus_rho = T(1) - rho
    accum = accum * rho + grad * grad * one_minus_rho
    update = np.sqrt(accum_update + epsilon) * (T(1) / np.sqrt(accum + epsilon)) * grad
    var = var - update * lr
    accum_update = accum_update * rho + update * update * one_minus_rho
    return var, accum, accum_update


@njit_sized
def _adadelta_loop(var, accum, accum_update, grad, lr, rho, epsilon, T):
    for i in prange(var.size):
        var[i], accum[i], accum_update[i] = adadelta_update(
            var[i], accum[i], accum_update[i], grad[i], lr, rho, epsilon, T)


@njit
def _sparse_adadelta_loop(var, accum, accum_update, grad, indices, lr, rho, epsilon, T):
    for i in range(indices.size):  # index order: duplicates apply one after another
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], accum[r, j], accum_update[r, j] = adadelta_update(
                var[r, j], accum[r, j], accum_update[r, j], grad[i, j], lr, rho, epsilon, T)


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


# -- the Optimizer class: tf.train.AdadeltaOptimizer ----------------------------------

from typing import NamedTuple  # noqa: E402

from ref.graph import apply_op, convert_to_tensor  # noqa: E402
from ref.optimizers.optimizer import Optimizer, apply_leaves, cast, hyper, tree_map  # noqa: E402


class AdadeltaOptimizer(Optimizer):
    """Seed 002 ``tf.compat.v1.train.AdadeltaOptimizer(learning_rate=0.001,
    rho=0.95, epsilon=1e-08, use_locking=False, name='Adadelta')``. Slots
    ``accum`` (``<var>/Adadelta``) and ``accum_update`` (``<var>/Adadelta_1``), zeros."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _args(self, var, dtype):
        return dict(var=var, accum=self.get_slot(var, "accum"), accum_update=self.get_slot(var, "accum_update"),
                    lr=cast(self._lr_t, dtype), rho=cast(self._rho_t, dtype), epsilon=cast(self._epsilon_t, dtype),
                    use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return apply_op("ApplyAdadelta", grad=grad, **self._args(var, var.dtype)).op

    def _resource_apply_dense(self, grad, var):
        return apply_op("ResourceApplyAdadelta", grad=grad, **self._args(var, grad.dtype))

    def _apply_sparse(self, grad, var):
        return apply_op("SparseApplyAdadelta", grad=grad.values, indices=grad.indices,
                        **self._args(var, var.dtype)).op

    def _resource_apply_sparse(self, grad, var, indices):
        return apply_op("ResourceSparseApplyAdadelta", grad=grad, indices=indices, **self._args(var, grad.dtype))


# -- the pure functional form -------------------------------------------------------------

class AdadeltaState(NamedTuple):
    """TF's slots ``accum`` and ``accum_update`` for every parameter."""
    accum: object
    accum_update: object


def init(params, learning_rate=0.001, rho=0.95, epsilon=1e-08):
    """Zero accumulators shaped like ``params``."""
    zeros = lambda p: np.zeros_like(np.asarray(p))  # noqa: E731
    return AdadeltaState(tree_map(zeros, params), tree_map(zeros, params))


def step(params, grads, state, learning_rate=0.001, rho=0.95, epsilon=1e-08):
    """``(new_params, new_state)``: one ``AdadeltaOptimizer`` step, bit for bit."""
    def update(var, grad, accum, accum_update):
        t = var.dtype
        return apply_adadelta(var, accum, accum_update, hyper(learning_rate, t), hyper(rho, t),
                              hyper(epsilon, t), grad)

    new_params, accum, accum_update = apply_leaves(update, params, grads, state.accum, state.accum_update)
    return new_params, AdadeltaState(accum, accum_update)
