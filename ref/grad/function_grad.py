"""Gradients of TF1 graph-function calls (``Defun``; TF's ``gradients_util``).

A call whose function has a ``python_grad_func`` gets it as its rule. Otherwise
the gradient is a ``SymbolicGradient`` node (``f`` names the function; inputs:
the call's inputs, then the gradients of its outputs, zeros where none
arrives). ref builds, with the node, the function graph its kernel runs: a call
of the function's ``grad_func`` when it has one, else the function's body
differentiated by ``gradients``.
"""
from __future__ import annotations

from ref.protos import attr_value_pb2
from ref.types import dtypes
from ref.framework.func_graph import FuncGraph, copy_ops
from ref.framework.op_def_library import apply_op
from ref.graph_ops.array_ops import zeros_like


def function_of(op):
    """The Defun function ``op`` calls, or None."""
    return op.graph._defun_of_op.get(op.name)


def function_rule(op, gradients):
    """The gradient rule of call ``op``: ``rule(op, *out_grads)`` (``gradients`` is
    ``ref.grad.gradients``, for the body's own gradient)."""
    fn = function_of(op)
    if fn.python_grad_func is not None:
        return fn.python_grad_func

    def rule(op, *out_grads):
        grads = [g if g is not None else zeros_like(t) for t, g in zip(op.outputs, out_grads)]
        ins = list(op.inputs)
        grad_fg = _gradient_graph(fn, op, grads, gradients)
        f = attr_value_pb2.AttrValue()
        f.func.name = op.type
        for k, v in op.node_def.attr.items():
            f.func.attr[k].CopyFrom(v)
        res = apply_op("SymbolicGradient", input=ins + grads + grad_fg.external_captures,
                       Tin=[t.dtype.base_dtype for t in ins + grads + grad_fg.external_captures],
                       Tout=[t.dtype.base_dtype for t in ins], f=f, _grad_graph=grad_fg)
        return res if isinstance(res, list) else [res]

    return rule


def _gradient_graph(fn, op, grads, gradients):
    """A function graph: (the call's inputs, the output gradients) -> the input gradients."""
    fg = FuncGraph(f"{op.type}_grad", op.graph)
    with fg.as_default():
        xs = [fg.add_argument(t.dtype.base_dtype, t.shape, f"x{i}") for i, t in enumerate(op.inputs)]
        dys = [fg.add_argument(g.dtype.base_dtype, g.shape, f"dy{i}") for i, g in enumerate(grads)]
        if fn._grad_func is not None:
            res = fn._grad_func(*(xs + dys))
            outs = list(res) if isinstance(res, (list, tuple)) else [res]
        else:
            body = fn.graph
            tmap = copy_ops(body, dict(zip(body.inputs, xs)))
            ys = [tmap[t] for t in body.outputs]
            pairs = [(y, dy) for y, dy in zip(ys, dys) if y.dtype.base_dtype.is_floating or y.dtype.is_complex]
            got = gradients([y for y, _ in pairs], xs, grad_ys=[dy for _, dy in pairs]) if pairs else [None] * len(xs)
            outs = [g if g is not None else zeros_like(x) for g, x in zip(got, xs)]
            outs = [apply_op("Identity", input=g) if g.dtype == dtypes.resource else g for g in outs]
    fg.outputs = outs
    return fg
