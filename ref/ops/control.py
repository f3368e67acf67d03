"""Functional control flow: ``While`` and ``If`` ops whose bodies are function
graphs (:mod:`ref.framework.func_graph`) run by the Session.

``While`` inputs are the loop variables followed by the tensors captured by
``cond`` and ``body``; the attrs hold the two graphs and how many captures each
takes. ``If`` runs only the taken branch, so ops inside the other branch never
execute (TF's ``cond`` semantics).

A ``While`` built with ``accumulate=True`` has one more output per loop
variable: its *history*, the values it held at the start of each iteration,
stacked (``[trips] + shape``). They are the forward values TF's gradient keeps
in accumulators (stacks in TF 1.x, TensorLists in ``while_v2``); the While
gradient reads iteration ``k``'s state from them instead of recomputing it. The
kernel stacks them only when something in the running plan reads them, so a
loop nobody differentiates pays nothing.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape


def _if_shape(ins, attrs):
    return [(d, s) for d, s in attrs["output_specs"]]


def _while_shape(ins, attrs):
    specs = [(d, TensorShape(s)) for d, s in attrs["output_specs"]]
    if attrs.get("accumulate"):
        specs += [(d, TensorShape([None]).concatenate(s)) for d, s in specs]
    return specs


@register_op("While", inputs=("input",), list_inputs={"input": None},
             attrs={"cond": REQUIRED, "body": REQUIRED, "n_loop_vars": REQUIRED, "n_cond_captures": 0,
                    "maximum_iterations": None, "parallel_iterations": 10, "output_specs": REQUIRED,
                    "accumulate": False},
             outputs=("*output",), shape=_while_shape, ctx=True, stateful=True, raw_inputs=("input",))
def while_(input, cond, body, n_loop_vars, n_cond_captures=0, maximum_iterations=None,
           parallel_iterations=10, output_specs=None, accumulate=False, ctx=None):
    """Runs ``body`` while ``cond`` holds (at most ``maximum_iterations`` times);
    with ``accumulate``, also returns each loop variable's history."""
    loop_vars = list(input[:n_loop_vars])
    cond_caps = list(input[n_loop_vars:n_loop_vars + n_cond_captures])
    body_caps = list(input[n_loop_vars + n_cond_captures:])
    record = accumulate and any(ctx.output_needed(n_loop_vars + j) for j in range(n_loop_vars))
    history = []
    i = 0
    while maximum_iterations is None or i < maximum_iterations:
        (pred,) = ctx.run_subgraph(cond, loop_vars + cond_caps)
        if not bool(np.asarray(pred)):
            break
        if record:
            history.append(loop_vars)
        loop_vars = list(ctx.run_subgraph(body, loop_vars + body_caps))
        i += 1
    if not accumulate:
        return tuple(loop_vars)
    if not record:  # nobody reads the history: its outputs stay empty
        return tuple(loop_vars) + (None,) * n_loop_vars
    stacks = []
    for j, (dtype, shape) in enumerate(output_specs):
        if dtype == dtypes.variant:  # TensorLists: a vector of list objects
            stack = np.empty(len(history), dtype=object)
            for k, h in enumerate(history):
                stack[k] = h[j]
            stacks.append(stack)
            continue
        np_dtype = dtype.as_numpy_dtype
        if history:
            stacks.append(np.stack([np.asarray(h[j], np_dtype) for h in history]))
        else:  # no iteration ran
            stacks.append(np.zeros((0,) + tuple(TensorShape(shape).as_list()), np_dtype))
    return tuple(loop_vars) + tuple(stacks)


@register_op("If", inputs=("cond", "input"), list_inputs={"input": None},
             attrs={"then_branch": REQUIRED, "else_branch": REQUIRED, "n_then_inputs": REQUIRED,
                    "output_specs": REQUIRED},
             outputs=("*output",), shape=_if_shape, ctx=True, stateful=True, raw_inputs=("input",))
def if_(cond, input, then_branch, else_branch, n_then_inputs, output_specs=None, ctx=None):
    """Runs ``then_branch`` if ``cond`` else ``else_branch``; returns its outputs."""
    if bool(np.asarray(cond)):
        return tuple(ctx.run_subgraph(then_branch, list(input[:n_then_inputs])))
    return tuple(ctx.run_subgraph(else_branch, list(input[n_then_inputs:])))

