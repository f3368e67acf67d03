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
from ref.framework.function import function_of
from ref.framework.graph import get_default_graph
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops.array_ops import zeros_like
from ref.grad.registry import RegisterGradient


def function_rule(op, gradients):
    """The gradient rule of call ``op``: ``rule(op, *out_grads)`` (``gradients`` is
    ``ref.grad.gradients``, for the body's own gradient)."""
    fn = function_of(op)
    if fn.python_grad_func is not None:
        def python_rule(op, *out_grads):  # TF: a trainable output no gradient reaches gets zeros
            return fn.python_grad_func(op, *[
                zeros_like(t) if g is None and (t.dtype.base_dtype.is_floating or t.dtype.base_dtype.is_complex)
                else g for t, g in zip(op.outputs, out_grads)])
        return python_rule

    def rule(op, *out_grads):
        grads = [g if g is not None else zeros_like(t) for t, g in zip(op.outputs, out_grads)]
        f = attr_value_pb2.AttrValue()
        f.func.name = op.type
        for k, v in op.node_def.attr.items():
            f.func.attr[k].CopyFrom(v)
        return _symbolic_gradient(fn, list(op.inputs) + grads, [t.dtype.base_dtype for t in op.inputs], f,
                                  None, gradients)

    return rule


GRADIENTS = []  # ref.grad.gradients.gradients, registered by that module


def _lookup(name):
    g = get_default_graph()
    while g is not None:
        fn = g._get_function(name)  # ref.framework.function's library of the graph
        if fn is not None:
            return fn
        g = g.outer_graph if g._building_function else None
    return None


def symbolic_gradient(input, Tout, f, name=None): 
    """TF's ``functional_ops.symbolic_gradient``: the gradients of function ``f``
    (a name, a NameAttrList or a Defun) with respect to its inputs, given its
    inputs followed by the gradients of its outputs."""
    if isinstance(f, str):
        name_, f_attr = f, attr_value_pb2.AttrValue()
        f_attr.func.name = f
    elif hasattr(f, "definition"):
        name_, f_attr = f.name, attr_value_pb2.AttrValue()
        f_attr.func.name = f.name
    else:
        name_, f_attr = f.name, attr_value_pb2.AttrValue()
        f_attr.func.CopyFrom(f)
    input = [convert_to_tensor(t) for t in input]
    return _symbolic_gradient(_lookup(name_), input, [dtypes.as_dtype(d) for d in Tout], f_attr, name,
                              GRADIENTS[0])


def _symbolic_gradient(fn, inputs, tout, f_attr, name, gradients):
    n = len(tout)
    grad_fg = None
    if fn is not None:
        grad_fg = _gradient_graph(fn, inputs[:n], inputs[n:], gradients)
    extra = grad_fg.external_captures if grad_fg is not None else []
    res = apply_op("SymbolicGradient", input=inputs + extra, Tin=[t.dtype.base_dtype for t in inputs + extra],
                   Tout=tout, f=f_attr, _grad_graph=grad_fg, name=name)
    return res if isinstance(res, list) else [res]


def _gradient_graph(fn, xs_in, grads, gradients):
    """A function graph: (the function's inputs, its output gradients) -> the input gradients."""
    fg = FuncGraph(f"{fn.name}_grad", get_default_graph())
    with fg.as_default():
        xs = [fg.add_argument(t.dtype.base_dtype, t.shape, f"x{i}") for i, t in enumerate(xs_in)]
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
    fg.outputs = outs
    return fg


class _Traced:
    """A PartitionedCall's function as ``_gradient_graph`` reads a Defun: its graph, no grad_func."""

    _grad_func = None

    def __init__(self, fg):
        self.graph, self.name = fg, fg.name.replace("/", "_")


def _call_grad(op, *out_grads):
    """PartitionedCall / StatefulPartitionedCall: a SymbolicGradient of ``f`` (its body differentiated)."""
    grads = [g if g is not None else zeros_like(t) for t, g in zip(op.outputs, out_grads)]
    fg = op._attrs["f"]
    f = attr_value_pb2.AttrValue()
    f.func.name = _Traced(fg).name
    return _symbolic_gradient(_Traced(fg), list(op.inputs) + grads, [t.dtype.base_dtype for t in op.inputs], f,
                              None, GRADIENTS[0])


RegisterGradient("PartitionedCall")(_call_grad)
RegisterGradient("StatefulPartitionedCall")(_call_grad)
