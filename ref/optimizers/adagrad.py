"""Adagrad (Duchi, Hazan & Singer, 2011): TF's ``ApplyAdagrad``,
``ApplyAdagradV2`` and their sparse twins.

The seed (002_05f9b9b98e89c771.txt, "tf.compat.v1.train.AdagradOptimizer")
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
in ``var`` (budgets measured in tests/optimizers/test_kernels_group1.py).
"""
from __future__ import annotations

import numpy as np

from ref import dtypes
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import check_dense, check_sparse, declare, run_dense, run_sparse, scalars

DEFAULTS = dict(initial_accumulator_value=0.1, use_locking=False, update_slots=True)


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


@njit_sized
def _adagrad_loop(var, accum, grad, lr, update_slots, T):
    for i in prange(var.size):
        var[i], accum[i] = adagrad_update(var[i], accum[i], grad[i], lr, update_slots, T)


@njit_sized
def _adagrad_v2_loop(var, accum, grad, lr, epsilon, update_slots, T):
    for i in prange(var.size):
        var[i], accum[i] = adagrad_v2_update(var[i], accum[i], grad[i], lr, epsilon, update_slots, T)


@njit
def _sparse_adagrad_loop(var, accum, grad, indices, lr, update_slots, scalar_path, T):
    for i in range(indices.size):  # index order: duplicates apply one after another
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], accum[r, j] = sparse_adagrad_update(
                var[r, j], accum[r, j], grad[i, j], lr, update_slots, scalar_path, T)


@njit
def _sparse_adagrad_v2_loop(var, accum, grad, indices, lr, epsilon, update_slots, T):
    for i in range(indices.size):
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], accum[r, j] = sparse_adagrad_v2_update(
                var[r, j], accum[r, j], grad[i, j], lr, epsilon, update_slots, T)


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


# -- the Optimizer class: tf.train.AdagradOptimizer -----------------------------------

from typing import NamedTuple  # noqa: E402

from ref.graph import apply_op, convert_to_tensor  # noqa: E402
from ref.optimizers.optimizer import Optimizer, apply_leaves, cast, hyper, tree_map  # noqa: E402


class AdagradOptimizer(Optimizer):
    """Seed 002 ``tf.compat.v1.train.AdagradOptimizer(learning_rate,
    initial_accumulator_value=0.1, use_locking=False, name='Adagrad')``;
    ``initial_accumulator_value`` "must be positive" (ValueError otherwise).
    Slot ``accumulator`` (``<var>/Adagrad``), filled with the initial value."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        from ref.api import array_ops
        from ref.init_ops import Constant

        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = Constant(self._initial_accumulator_value, dtype=dtype)
            else:
                def init(v=v, dtype=dtype):
                    return cast(array_ops.fill(array_ops.shape(v), self._initial_accumulator_value), dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype, "accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _args(self, var, dtype):
        return dict(var=var, accum=self.get_slot(var, "accumulator"), lr=cast(self._learning_rate_tensor, dtype),
                    use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return apply_op("ApplyAdagrad", grad=grad, **self._args(var, var.dtype)).op

    def _resource_apply_dense(self, grad, var):
        return apply_op("ResourceApplyAdagrad", grad=grad, **self._args(var, grad.dtype))

    def _apply_sparse(self, grad, var):
        return apply_op("SparseApplyAdagrad", grad=grad.values, indices=grad.indices,
                        **self._args(var, var.dtype)).op

    def _resource_apply_sparse(self, grad, var, indices):
        return apply_op("ResourceSparseApplyAdagrad", grad=grad, indices=indices, **self._args(var, grad.dtype))


# -- the pure functional form -------------------------------------------------------------

class AdagradState(NamedTuple):
    """TF's slot ``accumulator`` for every parameter."""
    accumulator: object


def init(params, learning_rate=None, initial_accumulator_value=0.1):
    """Accumulators filled with ``initial_accumulator_value`` (in each parameter's dtype)."""
    if initial_accumulator_value <= 0.0:
        raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
    return AdagradState(tree_map(lambda p: np.full(np.shape(p), initial_accumulator_value, np.asarray(p).dtype),
                                 params))


def step(params, grads, state, learning_rate, initial_accumulator_value=0.1):
    """``(new_params, new_state)``: one ``AdagradOptimizer`` step, bit for bit."""
    def update(var, grad, accum):
        return apply_adagrad(var, accum, hyper(learning_rate, var.dtype), grad)

    new_params, accum = apply_leaves(update, params, grads, state.accumulator)
    return new_params, AdagradState(accum)
