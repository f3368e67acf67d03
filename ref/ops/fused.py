"""Two ops in one pass, as TF's grappler remapper fuses them on CPU: a compiled
plan (``ref.session.interpreter.compile_plan``) runs these in place of

* ``BiasAdd`` followed by the ``Relu`` that alone reads it:
  ``activations = max(value + bias, 0)``, the sum never stored;
* ``ReluGrad`` and the ``BiasAddGrad`` of its result:
  ``backprops = gradients * (features > 0)`` and
  ``bias_grad[c] = sum over rows of backprops[:, c]``, in one sweep of the rows.

Each gives the bits of the two kernels one after the other (``ref.ops.nn``):
the same IEEE operations in the same order -- ``max`` as NumPy's (a NaN passes,
-0 becomes +0), ``gradients * 1`` or ``gradients * 0`` (so ``inf * 0`` is
NaN, as TF's), and the bias gradient summed row after row from the first row,
as NumPy's ``add.reduce(axis=0)`` sums a C-contiguous matrix of two or more
columns (a NaN's sign and payload aside: which of two NaNs a sum passes on
is the compiler's choice of operand order, and TF promises no NaN bits). Anything else (other dtypes or layouts, one column, a small input
while Numba is not loaded) runs the two kernels themselves.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import njit, numpy_tier, run_numpy_form

_FAST = (np.dtype(np.float32), np.dtype(np.float64))


@njit(nogil=True)
def _bias_relu_rows(value, bias, out, zero):
    """out[i, j] = max(value[i, j] + bias[j], 0) (NumPy's max: NaN kept, +0 for -0)."""
    for i in range(value.shape[0]):
        for j in range(value.shape[1]):
            x = value[i, j] + bias[j]
            out[i, j] = x if not x <= zero else zero
    return out


@njit(nogil=True)
def _relu_bias_grad_rows(gradients, features, backprops, bias_grad, one, zero):
    """backprops = gradients * (features > 0); bias_grad = its rows summed in order."""
    for i in range(gradients.shape[0]):
        for j in range(gradients.shape[1]):
            g = gradients[i, j] * (one if features[i, j] > zero else zero)
            backprops[i, j] = g
            if i == 0:
                bias_grad[j] = g
            else:
                bias_grad[j] += g
    return backprops, bias_grad


def _matrix(x, channels):
    """``x`` as a C-contiguous [rows, channels] view, or None."""
    if x.__class__ is not np.ndarray or x.dtype not in _FAST or not x.flags.c_contiguous or x.ndim < 2 \
            or x.shape[-1] != channels or not x.size:
        return None
    return x.reshape(-1, channels)


def _fused_or_form(kernel, size, fused, unfused):
    """``fused()``; ``unfused()`` (the two kernels, the fused kernel's exact NumPy
    form) for a small input while Numba has not built ``kernel``."""
    if numpy_tier(kernel, size):
        return run_numpy_form(kernel, unfused)
    return fused()


def bias_relu(bias_add, relu, value, bias, data_format="NHWC"):
    """``relu(bias_add(value, bias, data_format))`` in one pass where it can be
    (``bias_add`` and ``relu``: the two ops' kernels, run as they are otherwise)."""
    def unfused():
        return relu(bias_add(value, bias, data_format=data_format))

    v = None
    if value.__class__ is np.ndarray and bias.__class__ is np.ndarray and bias.ndim == 1 \
            and (data_format == "NHWC" or value.ndim == 2) and bias.dtype == value.dtype:
        v = _matrix(value, bias.shape[0])
    if v is None:
        return unfused()

    def fused():
        out = np.empty(value.shape, value.dtype)
        _bias_relu_rows(v, bias, out.reshape(v.shape), value.dtype.type(0))
        return out

    return _fused_or_form(_bias_relu_rows, v.size, fused, unfused)


def relu_bias_grads(relu_grad, bias_add_grad, gradients, features, data_format="NHWC"):
    """``(relu_grad(gradients, features), bias_add_grad(that, data_format))`` in
    one sweep where it can be; ``bias_add_grad`` is called with the first result
    otherwise (so its own errors are its own)."""
    def unfused():
        backprops = relu_grad(gradients, features)
        return backprops, bias_add_grad(backprops, data_format=data_format)

    g = f = None
    if gradients.__class__ is np.ndarray and gradients.ndim == 2 and gradients.shape[1] > 1 \
            and features.__class__ is np.ndarray and features.shape == gradients.shape \
            and features.dtype == gradients.dtype:
        g, f = _matrix(gradients, gradients.shape[1]), _matrix(features, gradients.shape[1])
    if g is None or f is None:
        return unfused()

    def fused():
        backprops, bias_grad = np.empty(g.shape, g.dtype), np.empty(g.shape[1], g.dtype)
        t = g.dtype.type
        _relu_bias_grad_rows(g, f, backprops, bias_grad, t(1), t(0))
        return backprops, bias_grad

    return _fused_or_form(_relu_bias_grad_rows, g.size, fused, unfused)
