"""The gradient of ``EagerPyFunc`` (``tf.py_function``), TF's ``_EagerPyFuncGrad``:
another EagerPyFunc on the output gradients, run after the forward op (a
control input on its outputs), returning one gradient per forward input.
TF replays the forward call's GradientTape (its ``tape_cache``); ref keeps the
forward call's inputs instead (``ref.ops.script.RECORDED``, kept once a
gradient is asked for, as TF starts taping then) and differentiates the
function again on them: called on constants in the (scratch) graph its ops
run in, then :func:`ref.grad.gradients` with the output gradients. An input the
result does not depend on gets TF's zero (a scalar of its dtype; TF's TypeError
for an integer one)."""
from __future__ import annotations

import numpy as np

from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import apply_op, constant
from ref.grad.gradients import gradients
from ref.grad.registry import RegisterGradient
from ref.graph_ops.array_ops import zeros_like
from ref.ops import script
from ref.types import errors, nest


def _differentiate(token, in_dtypes):
    """The gradient's Python function: dy (one per forward output) -> one gradient per forward input."""

    def grad_fn(*dy):
        func = script.callback(token)
        args = script.take_recorded(token)
        if func is None or args is None:
            raise errors.InternalError(None, None, f"The forward EagerPyFunc {token} has not run: no inputs to "
                                                   "differentiate at")
        xs = [constant(np.asarray(a)) for a in args]
        ys = func(*xs)
        ys = nest.flatten(ys) if nest.is_nested(ys) else [ys]
        grads = gradients(ys, xs, grad_ys=[constant(np.asarray(d)) for d in dy])
        return [_zero(d) if g is None else g for g, d in zip(grads, in_dtypes)]
    return grad_fn


def _zero(dtype):
    """TF's stand-in for a None gradient: ``constant(0.0, dtype)``, which an integer dtype refuses."""
    if not (dtype.is_floating or dtype.is_complex):
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    return np.zeros((), dtype.as_numpy_dtype)


@RegisterGradient("EagerPyFunc")
def _eager_py_func_grad(op, *dy):
    token = op._get_attr("token")
    token = token.decode() if isinstance(token, bytes) else token
    script.RECORDING.add(token)  # the forward op keeps its inputs from now on
    in_dtypes = [t.dtype.base_dtype for t in op.inputs]
    dy = [zeros_like(t) if g is None else g for t, g in zip(op.outputs, dy)]
    grad_token = script.register_callback(_differentiate(token, in_dtypes))
    with control_dependencies(op.outputs):
        out = apply_op("EagerPyFunc", input=dy, token=grad_token, is_async=False, Tout=in_dtypes)
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    return out if in_dtypes else []
