"""Functional control flow: ``While`` and ``If`` ops whose bodies are function
graphs (:mod:`ref.func_graph`) run by the Session.

``While`` inputs are the loop variables followed by the tensors captured by
``cond`` and ``body``; the attrs hold the two graphs and how many captures each
takes. ``If`` runs only the taken branch, so ops inside the other branch never
execute (TF's ``cond`` semantics).
"""
from __future__ import annotations

import numpy as np

from ref.registry import REQUIRED, register_op


def _while_shape(ins, attrs):
    return [(d, s) for d, s in attrs["output_specs"]]


@register_op("While", inputs=("input",), list_inputs={"input": None},
             attrs={"cond": REQUIRED, "body": REQUIRED, "n_loop_vars": REQUIRED, "n_cond_captures": 0,
                    "maximum_iterations": None, "parallel_iterations": 10, "output_specs": REQUIRED},
             outputs=("*output",), shape=_while_shape, ctx=True, stateful=True, raw_inputs=("input",))
def while_(input, cond, body, n_loop_vars, n_cond_captures=0, maximum_iterations=None,
           parallel_iterations=10, output_specs=None, ctx=None):
    """Runs ``body`` while ``cond`` holds (at most ``maximum_iterations`` times)."""
    loop_vars = list(input[:n_loop_vars])
    cond_caps = list(input[n_loop_vars:n_loop_vars + n_cond_captures])
    body_caps = list(input[n_loop_vars + n_cond_captures:])
    i = 0
    while maximum_iterations is None or i < maximum_iterations:
        (pred,) = ctx.run_subgraph(cond, loop_vars + cond_caps)
        if not bool(np.asarray(pred)):
            break
        loop_vars = list(ctx.run_subgraph(body, loop_vars + body_caps))
        i += 1
    return tuple(loop_vars)


@register_op("If", inputs=("cond", "input"), list_inputs={"input": None},
             attrs={"then_branch": REQUIRED, "else_branch": REQUIRED, "n_then_inputs": REQUIRED,
                    "output_specs": REQUIRED},
             outputs=("*output",), shape=_while_shape, ctx=True, stateful=True, raw_inputs=("input",))
def if_(cond, input, then_branch, else_branch, n_then_inputs, output_specs=None, ctx=None):
    """Runs ``then_branch`` if ``cond`` else ``else_branch``; returns its outputs."""
    if bool(np.asarray(cond)):
        return tuple(ctx.run_subgraph(then_branch, list(input[:n_then_inputs])))
    return tuple(ctx.run_subgraph(else_branch, list(input[n_then_inputs:])))

