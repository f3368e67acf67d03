"""RMSProp (Tieleman & Hinton, 2012, Coursera lecture 6e) and its centered
variant (Graves, 2013, eq. 38-45): TF's ``ApplyRMSProp`` /
``ApplyCenteredRMSProp`` and their sparse twins.

The seed (002_05f9b9b98e89c771.txt, "tf.compat.v1.train.RMSPropOptimizer")
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
tests/optimizers/test_kernels_group2.py).
"""
from __future__ import annotations

import numpy as np

from ref import dtypes
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import check_dense, check_sparse, declare, run_dense, run_sparse, scalars

DEFAULTS = dict(decay=0.9, momentum=0.0, epsilon=1e-10, centered=False)


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


@njit_sized
def _rmsprop_loop(var, ms, mom, grad, lr, rho, momentum, epsilon, T):
    for i in prange(var.size):
        var[i], ms[i], mom[i] = rmsprop_update(
            var[i], ms[i], mom[i], grad[i], lr, rho, momentum, epsilon, T)


@njit_sized
def _centered_rmsprop_loop(var, mg, ms, mom, grad, lr, rho, momentum, epsilon, T):
    for i in prange(var.size):
        var[i], mg[i], ms[i], mom[i] = centered_rmsprop_update(
            var[i], mg[i], ms[i], mom[i], grad[i], lr, rho, momentum, epsilon, T)


@njit
def _sparse_rmsprop_loop(var, ms, mom, grad, indices, lr, rho, momentum, epsilon, T):
    for i in range(indices.size):  # in index order: duplicates apply one after another
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], ms[r, j], mom[r, j] = sparse_rmsprop_update(
                var[r, j], ms[r, j], mom[r, j], grad[i, j], lr, rho, momentum, epsilon, T)


@njit
def _sparse_centered_rmsprop_loop(var, mg, ms, mom, grad, indices, lr, rho, momentum, epsilon, T):
    for i in range(indices.size):
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], mg[r, j], ms[r, j], mom[r, j] = sparse_centered_rmsprop_update(
                var[r, j], mg[r, j], ms[r, j], mom[r, j], grad[i, j], lr, rho, momentum, epsilon, T)


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


# -- the Optimizer class: tf.train.RMSPropOptimizer -----------------------------------

from typing import NamedTuple  # noqa: E402

from ref.graph import apply_op, convert_to_tensor  # noqa: E402
from ref.optimizers.optimizer import Optimizer, apply_leaves, cast, hyper, tree_map  # noqa: E402


class RMSPropOptimizer(Optimizer):
    """Seed 002 ``tf.compat.v1.train.RMSPropOptimizer(learning_rate, decay=0.9,
    momentum=0.0, epsilon=1e-10, use_locking=False, centered=False, name='RMSProp')``.
    Slots ``rms`` (``<var>/RMSProp``, initialized to ONES as TF does), ``mg``
    (centered only, zeros) and ``momentum`` (zeros), named in that order
    (``<var>/RMSProp_1``, ``<var>/RMSProp_2``)."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        from ref.api import array_ops
        from ref.init_ops import Ones

        for v in var_list:
            if v.get_shape().is_fully_defined():
                init_rms = Ones(dtype=v.dtype.base_dtype)
            else:
                init_rms = array_ops.ones_like(v)
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(), v.dtype.base_dtype, "rms",
                                                    self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._learning_rate_tensor = convert_to_tensor(c(self._learning_rate), name="learning_rate")
        self._decay_tensor = convert_to_tensor(c(self._decay), name="decay")
        self._momentum_tensor = convert_to_tensor(c(self._momentum), name="momentum")
        self._epsilon_tensor = convert_to_tensor(c(self._epsilon), name="epsilon")

    def _op(self, name):
        return ("Centered" if self._centered else "") + name

    def _args(self, var, dtype):
        args = dict(var=var, ms=self.get_slot(var, "rms"), mom=self.get_slot(var, "momentum"),
                    lr=cast(self._learning_rate_tensor, dtype), rho=cast(self._decay_tensor, dtype),
                    momentum=cast(self._momentum_tensor, dtype), epsilon=cast(self._epsilon_tensor, dtype),
                    use_locking=self._use_locking)
        if self._centered:
            args["mg"] = self.get_slot(var, "mg")
        return args

    def _apply_dense(self, grad, var):
        return apply_op("Apply" + self._op("RMSProp"), grad=grad, **self._args(var, var.dtype)).op

    def _resource_apply_dense(self, grad, var):
        return apply_op("ResourceApply" + self._op("RMSProp"), grad=grad, **self._args(var, grad.dtype))

    def _apply_sparse(self, grad, var):
        return apply_op("SparseApply" + self._op("RMSProp"), grad=grad.values, indices=grad.indices,
                        **self._args(var, var.dtype)).op

    def _resource_apply_sparse(self, grad, var, indices):
        return apply_op("ResourceSparseApply" + self._op("RMSProp"), grad=grad, indices=indices,
                        **self._args(var, grad.dtype))


# -- the pure functional form -------------------------------------------------------------

class RMSPropState(NamedTuple):
    """TF's slots ``rms``, ``momentum`` and (centered only, else None) ``mg``."""
    rms: object
    momentum: object
    mg: object = None


def init(params, learning_rate=None, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False):
    """``rms`` ones (as TF), ``momentum`` and ``mg`` zeros."""
    zeros = lambda p: np.zeros_like(np.asarray(p))  # noqa: E731
    return RMSPropState(tree_map(lambda p: np.ones_like(np.asarray(p)), params), tree_map(zeros, params),
                        tree_map(zeros, params) if centered else None)


def step(params, grads, state, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False):
    """``(new_params, new_state)``: one ``RMSPropOptimizer`` step, bit for bit."""
    def hypers(t):
        return hyper(learning_rate, t), hyper(decay, t), hyper(momentum, t), hyper(epsilon, t)

    if centered:
        def update(var, grad, ms, mom, mg):
            new_var, mg, ms, mom = apply_centered_rms_prop(var, mg, ms, mom, *hypers(var.dtype), grad)
            return new_var, ms, mom, mg

        new_params, ms, mom, mg = apply_leaves(update, params, grads, state.rms, state.momentum, state.mg)
        return new_params, RMSPropState(ms, mom, mg)

    def update(var, grad, ms, mom):
        return apply_rms_prop(var, ms, mom, *hypers(var.dtype), grad)

    new_params, ms, mom = apply_leaves(update, params, grads, state.rms, state.momentum)
    return new_params, RMSPropState(ms, mom, None)
