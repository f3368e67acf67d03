"""Adagrad Dual Averaging (Duchi, Hazan & Singer, 2011, Section 3 "primal-dual
subgradient" form; Xiao, 2010): TF's ``ApplyAdagradDA`` and ``SparseApplyAdagradDA``.

The documentation (TF's API reference, "tf.compat.v1.train.AdagradDAOptimizer")
calls it "Adagrad Dual Averaging algorithm for sparse linear models", which
"takes care of regularization of unseen features in a mini batch by updating
them when they are seen with a closed form update rule", with
``initial_gradient_squared_accumulator_value=0.1`` and non-negative ``l1`` /
``l2``. With ``g`` the sum of all gradients, ``gg`` the sum of their squares
(plus the initial value) and ``t`` the global step, the closed form (TF's own
comment in training_ops.cc)::

    w = sign(-g) * lr * max(|g| - l1 * t, 0) / (l2 * t * lr + sqrt(gg))

TF's dense kernel (``functor::ApplyAdagradDA``), in ``T`` except that
``global_step`` (an int64 input) is first cast to float32, even for float64::

    gradient_accumulator += grad
    gradient_squared_accumulator += grad * grad
    den = l2 * (float(global_step) * lr) + sqrt(gradient_squared_accumulator)
    l1 > 0:  var = lr * -1 * sign(ga) * max(|ga| - float(global_step) * l1, 0) / den
    else:    var = lr * ga * -1 / den

``SparseApplyAdagradDAOp`` (rows ``indices[i]``, in index order) divides
through by ``t * lr`` and converts ``global_step`` to ``T`` directly::

    l1 > 0:  var = -1 * sign(ga) * max(|ga| / t - l1, 0) / (l2 + sqrt(gga) / (t * lr))
    else:    var = -1 * (ga / t) / (l2 + sqrt(gga) / (t * lr))

and for single-element rows (``inner_dim == 1``) computes in C++ double:
``ga += g`` and ``gga += g * g`` in double then rounded to ``T``, and
``var = sgn(-ga) * lr * max(|ga| - t * l1, 0) / (t * l2 * lr + sqrtT(gga))``
(``sqrtT``: the square root in ``T``, since ``gga`` is a ``T``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops import registry
from ref.ops._jit import njit
from ref.ops.training._apply import (check_dense, check_sparse, dense_loop, dense_rule, gpu_dense, run_dense,
                                     run_sparse, scalars, shape_str, sparse_loop, sparse_rule)
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, filled, hyper, tree_map, zeros
from ref.types import dtypes

DEFAULTS = dict(initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0,
                l2_regularization_strength=0.0)
"""``tf.train.AdagradDAOptimizer``'s defaults (TF's API reference), also :func:`init` / :func:`step`'s."""


@njit(inline="always")
def adagrad_da_update(var, ga, gga, grad, lr, l1, l2, step, T):
    """One element of TF's dense ApplyAdagradDA; ``step`` is float32(global_step) as ``T``."""
    ga = ga + grad
    gga = gga + grad * grad
    den = l2 * (step * lr) + np.sqrt(gga)
    if l1 > T(0):
        var = lr * T(-1) * np.sign(ga) * np.maximum(np.abs(ga) - step * l1, T(0)) / den
    else:
        var = lr * ga * T(-1) / den
    return var, ga, gga


@njit(inline="always")
def sparse_adagrad_da_update(var, ga, gga, grad, lr, l1, l2, global_step, scalar_path, T):
    """One element of TF's SparseApplyAdagradDA; ``global_step`` is the int64 step."""
    if scalar_path:
        g = np.float64(grad)
        ga = T(np.float64(ga) + g)
        gga = T(np.float64(gga) + g * g)
        step = np.float64(global_step)
        den = step * np.float64(l2) * np.float64(lr) + np.float64(np.sqrt(gga))
        if l1 > T(0):
            num = np.float64(np.sign(-ga)) * np.float64(lr) * max(np.float64(np.abs(ga)) - step * np.float64(l1),
                                                                  0.0)
            return T(num / den), ga, gga
        return T(np.float64(-ga) * np.float64(lr) / den), ga, gga
    ga = ga + grad
    gga = gga + grad * grad
    step = T(global_step)
    den = l2 + np.sqrt(gga) / (step * lr)
    if l1 > T(0):
        return T(-1) * np.sign(ga) * np.maximum(np.abs(ga) / step - l1, T(0)) / den, ga, gga
    return T(-1) * (ga / step) / den, ga, gga


_adagrad_da_loop = dense_loop(adagrad_da_update)
_sparse_adagrad_da_loop = sparse_loop(sparse_adagrad_da_update)


def _check_accumulators(var, gradient_accumulator, gradient_squared_accumulator):
    """TF names both accumulators ``accum`` in its message."""
    for a in (gradient_accumulator, gradient_squared_accumulator):
        if np.shape(a) != var.shape:
            raise registry.invalid_argument(
                f"var and accum do not have the same shape{shape_str(var.shape)} {shape_str(np.shape(a))}")


def _global_step(global_step):
    a = np.asarray(global_step)
    if a.ndim != 0:
        raise registry.invalid_argument(f"global_step is not a scalar: {shape_str(a.shape)}")
    return np.int64(a[()])


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step,
                     use_locking=False, out=None):
    """TF's ApplyAdagradDA: returns new ``(var, gradient_accumulator,
    gradient_squared_accumulator)`` (or fills ``out``)."""
    var = np.asarray(var)
    _check_accumulators(var, gradient_accumulator, gradient_squared_accumulator)
    check_dense(var, grad, gradient_accumulator=gradient_accumulator,
                gradient_squared_accumulator=gradient_squared_accumulator)
    lr, l1, l2 = scalars(var.dtype, lr=lr, l1=l1, l2=l2)
    step = var.dtype.type(np.float32(_global_step(global_step)))  # TF: static_cast<float>(global_step)
    return run_dense(_adagrad_da_loop, adagrad_da_update, (var, gradient_accumulator, gradient_squared_accumulator),
                     grad, (lr, l1, l2, step), out)


def sparse_apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr, l1, l2,
                            global_step, use_locking=False, out=None):
    """TF's SparseApplyAdagradDA: rows ``indices`` updated; returns the new
    ``(var, gradient_accumulator, gradient_squared_accumulator)``."""
    var = np.asarray(var)
    _check_accumulators(var, gradient_accumulator, gradient_squared_accumulator)
    lr, l1, l2 = scalars(var.dtype, lr=lr, l1=l1, l2=l2)
    step = _global_step(global_step)
    check_sparse(var, grad, indices)
    scalar_path = int(np.prod(var.shape[1:])) == 1  # TF's inner_dim == 1 branch
    return run_sparse(_sparse_adagrad_da_loop, sparse_adagrad_da_update,
                      (var, gradient_accumulator, gradient_squared_accumulator), grad, indices,
                      (lr, l1, l2, step, scalar_path), out)


def _declare(name, kernel, inputs, sparse):
    """Like ``_apply.declare``, but ``global_step`` is int64, outside ``T``."""
    refs = ("var", "gradient_accumulator", "gradient_squared_accumulator")
    hypers = ("lr", "l1", "l2", "global_step")
    rule = sparse_rule if sparse else dense_rule
    floats = tuple(i for i in inputs if i not in ("indices", "global_step"))
    extra = {"Tindices": ("indices",)} if sparse else {}
    idx_allowed = {"Tindices": (dtypes.int32, dtypes.int64)} if sparse else {}
    allowed = {"T": (dtypes.float32, dtypes.float64), **idx_allowed}  # TF's CPU kernels
    attrs = {"use_locking": False}
    registry.register_op(
        name, inputs=inputs, outputs=("out",), attrs=attrs, type_attrs={"T": floats, **extra},
        allowed=allowed, shape=rule(refs, hypers), refs=refs, ref_outputs={"out": "var"},
        gpu=None if sparse else gpu_dense(kernel))(kernel)
    registry.register_op(
        "Resource" + name, inputs=inputs, outputs=(), attrs=attrs,
        type_attrs={"T": tuple(i for i in floats if i not in refs), **extra}, allowed=allowed,
        shape=rule(refs, hypers, resource=True), refs=refs, gpu=None if sparse else gpu_dense(kernel))(kernel)


_declare("ApplyAdagradDA", apply_adagrad_da,
         ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1", "l2", "global_step"),
         sparse=False)
_declare("SparseApplyAdagradDA", sparse_apply_adagrad_da,
         ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "indices", "lr", "l1", "l2",
          "global_step"), sparse=True)


# -- the pure functional form -------------------------------------------------------------

class AdagradDAState(NamedTuple):
    """TF's slots ``gradient_accumulator`` and ``gradient_squared_accumulator``,
    and the global step (an int64 the graph path keeps in ``global_step``)."""
    gradient_accumulator: object
    gradient_squared_accumulator: object
    global_step: np.int64


def check_initial_value(initial_gradient_squared_accumulator_value):
    """TF's constructor check."""
    if initial_gradient_squared_accumulator_value <= 0.0:
        raise ValueError("initial_gradient_squared_accumulator_value must be positive: %s"
                         % initial_gradient_squared_accumulator_value)


def init(params: ArrayTree, learning_rate: Hyper | None = None,
         initial_gradient_squared_accumulator_value: Hyper = DEFAULTS["initial_gradient_squared_accumulator_value"],
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"],
         global_step: int = 0) -> AdagradDAState:
    """Zero gradient sums, squared sums at the initial value, ``global_step``."""
    check_initial_value(initial_gradient_squared_accumulator_value)
    return AdagradDAState(tree_map(zeros, params),
                          tree_map(filled(initial_gradient_squared_accumulator_value), params),
                          np.int64(global_step))


def step(params: ArrayTree, grads: GradTree, state: AdagradDAState, learning_rate: Hyper,
         initial_gradient_squared_accumulator_value: Hyper = DEFAULTS["initial_gradient_squared_accumulator_value"],
         l1_regularization_strength: Hyper = DEFAULTS["l1_regularization_strength"],
         l2_regularization_strength: Hyper = DEFAULTS["l2_regularization_strength"],
         ) -> tuple[ArrayTree, AdagradDAState]:
    """``(new_params, new_state)``: one ``AdagradDAOptimizer`` step with
    ``minimize(global_step=...)``, bit for bit (the kernel sees ``global_step + 1``)."""
    t_step = np.int64(state.global_step) + np.int64(1)

    def update(var, grad, ga, gga):
        t = var.dtype
        return apply_adagrad_da(var, ga, gga, grad, hyper(learning_rate, t), hyper(l1_regularization_strength, t),
                                hyper(l2_regularization_strength, t), t_step)

    new_params, ga, gga = apply_leaves(update, params, grads, state.gradient_accumulator,
                                       state.gradient_squared_accumulator)
    return new_params, AdagradDAState(ga, gga, t_step)
