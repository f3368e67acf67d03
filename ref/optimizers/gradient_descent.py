"""Gradient descent: TF's ``ApplyGradientDescent``.

The seed (002_05f9b9b98e89c771.txt, "tf.compat.v1.train.GradientDescentOptimizer")
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

import numpy as np

from ref import dtypes, registry
from ref.ops._jit import njit, njit_sized, prange
from ref.optimizers._apply import dense_rule, gpu_dense, run_dense, scalars, shape_str

DEFAULTS = dict(use_locking=False)


@njit(inline="always")
def gradient_descent_update(var, delta, alpha, T):
    """One element of TF's ApplyGradientDescent."""
    return (var - delta * alpha,)


@njit_sized
def _gradient_descent_loop(var, delta, alpha, T):
    for i in prange(var.size):
        var[i] = var[i] - delta[i] * alpha


def check_delta(var, delta):
    """TF's check, with TF's name for the gradient (``delta``)."""
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


# -- the Optimizer class: tf.train.GradientDescentOptimizer --------------------------

from typing import NamedTuple  # noqa: E402

from ref.graph import IndexedSlices, apply_op, convert_to_tensor  # noqa: E402
from ref.optimizers.optimizer import Optimizer, apply_leaves, cast, hyper  # noqa: E402


class GradientDescentOptimizer(Optimizer):
    """``variable -= learning_rate * gradient`` (seed 002
    ``tf.compat.v1.train.GradientDescentOptimizer(learning_rate, use_locking=False,
    name='GradientDescent')``). No slots. A sparse gradient is applied with
    ``scatter_sub(var, indices, values * lr)`` -- duplicate indices one after
    another, not summed first (TF's class does the same)."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_dense(self, grad, var):
        return apply_op("ApplyGradientDescent", var=var, alpha=cast(self._learning_rate_tensor, var.dtype),
                        delta=grad, use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad, var):
        return apply_op("ResourceApplyGradientDescent", var=var, alpha=cast(self._learning_rate_tensor, grad.dtype),
                        delta=grad, use_locking=self._use_locking)

    def _apply_sparse_duplicate_indices(self, grad, var):
        values = apply_op("Mul", x=grad.values, y=cast(self._learning_rate_tensor, var.dtype))
        return var.scatter_sub(IndexedSlices(values, grad.indices, grad.dense_shape), use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad, var, indices):
        # TF: resource_scatter_add(handle, indices, -grad * self._learning_rate), the raw learning rate
        lr = self._learning_rate_tensor if callable(self._learning_rate) else self._learning_rate
        return apply_op("ResourceScatterAdd", resource=var.handle, indices=indices,
                        updates=apply_op("Mul", x=apply_op("Neg", x=grad), y=lr))


# -- the pure functional form -------------------------------------------------------------

class GradientDescentState(NamedTuple):
    """Gradient descent keeps no state."""


def init(params, learning_rate=None):
    """The (empty) state for ``params`` (a dict or list of NumPy arrays)."""
    return GradientDescentState()


def step(params, grads, state, learning_rate):
    """``(new_params, state)``: one ``GradientDescentOptimizer`` step, bit for bit."""
    def update(var, grad):
        return apply_gradient_descent(var, hyper(learning_rate, var.dtype), grad)

    (new_params,) = apply_leaves(update, params, grads)
    return new_params, state
