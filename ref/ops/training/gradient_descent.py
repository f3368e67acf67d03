"""Gradient descent: TF's ``ApplyGradientDescent``.

The documentation (TF's API reference, "tf.compat.v1.train.GradientDescentOptimizer")
describes an "Optimizer that implements the gradient descent algorithm" with
``learning_rate`` "The learning rate to use"; the update is the textbook one::

    variable <- variable - learning_rate * gradient

TF's kernel (training_ops.cc, ``functor::ApplyGradientDescent``; ``alpha`` is
the learning rate, ``delta`` the gradient)::

    var -= delta * alpha

One rounding for the product, one for the difference: the kernel, the seed and
the float64 oracle agree to the last bit in float64 and within 1 ULP of the
rounded oracle in float32.
TF has no sparse gradient-descent kernel: the Python optimizer applies an
IndexedSlices gradient with ``scatter_sub(var, indices, lr * values)``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.ops import registry
from ref.ops._jit import njit
from ref.ops.training._apply import dense_loop, dense_rule, gpu_dense, run_dense, scalars, shape_str
from ref.ops.training.functional import ArrayTree, GradTree, Hyper, apply_leaves, hyper
from ref.types import dtypes

DEFAULTS: dict[str, float] = {}
"""``tf.train.GradientDescentOptimizer`` has no hyperparameter defaults (``learning_rate`` is required)."""


@njit(inline="always")
def gradient_descent_update(var, delta, alpha, T):
    """One element of TF's ApplyGradientDescent."""
    return (var - delta * alpha,)


_gradient_descent_loop = dense_loop(gradient_descent_update)


def check_delta(var, delta):
    """TF's check, with TF's name for the gradient (``delta``)."""
    if delta.__class__ is not np.ndarray:
        delta = np.asarray(delta)
    if delta.shape != var.shape:
        raise registry.invalid_argument(
            f"var and delta do not have the same shape{shape_str(var.shape)} {shape_str(delta.shape)}")
    if delta.dtype != var.dtype:
        raise registry.invalid_argument(f"delta has dtype {delta.dtype}, var has {var.dtype}")


def apply_gradient_descent(var, alpha, delta, use_locking=False, out=None):
    """TF's ApplyGradientDescent: returns ``(new_var,)`` (or fills ``out=(var_buf,)``).

    With ``out=(var,)`` the update is in place, one read of ``var`` and
    ``delta`` and one write of ``var`` per element (memory bandwidth).
    """
    var, delta = np.asarray(var), np.asarray(delta)
    (alpha,) = scalars(var.dtype, alpha=alpha)
    check_delta(var, delta)
    return run_dense(_gradient_descent_loop, gradient_descent_update, (var,), delta, (alpha,), out)


def declare_with_delta(name, kernel, inputs, hypers, allowed):
    """Registers ``name`` and ``Resource<name>`` for a dense op whose gradient TF
    calls ``delta``: the shared dense shape rule with ``delta`` in ``grad``'s place."""

    def rule_for(resource):
        base = dense_rule(("var", "delta"), hypers, resource=resource)  # names delta in messages
        return lambda ins, attrs: base({**ins, "grad": ins["delta"]}, attrs)

    registry.register_op(
        name, inputs=inputs, outputs=("out",), attrs={"use_locking": False},
        type_attrs={"T": inputs}, allowed={"T": allowed}, shape=rule_for(False),
        refs=("var",), ref_outputs={"out": "var"}, gpu=gpu_dense(kernel))(kernel)
    registry.register_op(
        "Resource" + name, inputs=inputs, outputs=(), attrs={"use_locking": False},
        type_attrs={"T": inputs[1:]}, allowed={"T": allowed}, shape=rule_for(True),
        refs=("var",), gpu=gpu_dense(kernel))(kernel)


declare_with_delta("ApplyGradientDescent", apply_gradient_descent, ("var", "alpha", "delta"), ("alpha",),
                   dtypes.FLOATS + dtypes.COMPLEX)


# -- the pure functional form -------------------------------------------------------------

class GradientDescentState(NamedTuple):
    """Gradient descent keeps no state."""


def init(params: ArrayTree, learning_rate: Hyper | None = None) -> GradientDescentState:
    """The (empty) state for ``params`` (a dict or list of NumPy arrays)."""
    return GradientDescentState()


def step(params: ArrayTree, grads: GradTree, state: GradientDescentState,
         learning_rate: Hyper) -> tuple[ArrayTree, GradientDescentState]:
    """``(new_params, state)``: one ``GradientDescentOptimizer`` step, bit for bit."""
    def update(var, grad):
        return apply_gradient_descent(var, hyper(learning_rate, var.dtype), grad)

    (new_params,) = apply_leaves(update, params, grads)
    return new_params, state
