"""Gradient rules for the complex ops (``ref/ops/complex.py``), TF's math_grad
formulas: gradients of complex tensors are conjugate-linear (TF's convention)."""
from __future__ import annotations

from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import apply_op, constant
from ref.grad._util import binary_grads
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops import complex_ops as c


@RegisterGradient("Real")
def _real_grad(op, grad):
    """d real(x) -> complex(grad, 0) (a scalar zero constant, as TF)."""
    return c.complex(grad, constant(0, dtype=grad.dtype))


@RegisterGradient("Imag")
def _imag_grad(op, grad):
    """d imag(x) -> complex(0, grad) (a scalar zero constant, as TF)."""
    return c.complex(constant(0, dtype=grad.dtype), grad)


@RegisterGradient("Complex")
def _complex_grad(op, grad):
    """d complex(x, y) -> (real(grad), imag(grad)), unbroadcast."""
    return binary_grads(op, c.real(grad), c.imag(grad))


@RegisterGradient("Conj")
def _conj_grad(op, grad):
    return c.conj(grad)


@RegisterGradient("Angle")
def _angle_grad(op, grad):
    """d angle(x) -> -complex(grad, 0) / complex(imag(x), real(x))."""
    x = op.inputs[0]
    with control_dependencies([grad]):  # TF builds the rule under a dependency on grad
        re, im = c.real(x), c.imag(x)
        z = math_ops.reciprocal(c.complex(im, re))
        zero = constant(0, dtype=grad.dtype)
        return -c.complex(grad, zero) * z


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    """d |x| -> complex(grad, 0) * x / complex(|x|, 0) (0 where |x| = 0)."""
    y = op.outputs[0]
    return math_ops.div_no_nan(c.complex(grad, array_ops.zeros_like(grad)) * op.inputs[0],
                               c.complex(y, array_ops.zeros_like(y)))
