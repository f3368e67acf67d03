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


def _grad_shapes(ins, attrs):
    return [(d, s) for d, s in attrs["output_specs"]]


@register_op("WhileGrad", inputs=("input", "grads"), list_inputs={"input": None, "grads": None},
             attrs={"cond": REQUIRED, "body": REQUIRED, "body_grad": REQUIRED, "n_loop_vars": REQUIRED,
                    "n_cond_captures": 0, "maximum_iterations": None, "output_specs": REQUIRED},
             outputs=("*output",), shape=_grad_shapes, ctx=True, stateful=True, raw_inputs=("input",))
def while_grad(input, grads, cond, body, body_grad, n_loop_vars, n_cond_captures=0, maximum_iterations=None,
               output_specs=None, ctx=None):
    """Backpropagates through a While: re-runs the forward loop recording every
    iteration's loop variables, then applies ``body_grad`` to them in reverse,
    summing the gradients of the tensors the body captured."""
    n = n_loop_vars
    loop_vars = list(input[:n])
    cond_caps = list(input[n:n + n_cond_captures])
    body_caps = list(input[n + n_cond_captures:])
    states = []
    i = 0
    while maximum_iterations is None or i < maximum_iterations:
        (pred,) = ctx.run_subgraph(cond, loop_vars + cond_caps)
        if not bool(np.asarray(pred)):
            break
        states.append(loop_vars)
        loop_vars = list(ctx.run_subgraph(body, loop_vars + body_caps))
        i += 1
    g = list(grads)
    cap_grads = [np.zeros(np.shape(_value(ctx, c)), dtype=d.np) for c, (d, _) in
                 zip(body_caps, output_specs[n + n_cond_captures:])]
    for state in reversed(states):
        res = ctx.run_subgraph(body_grad, list(state) + body_caps + g)
        g = list(res[:n])
        cap_grads = [acc + r for acc, r in zip(cap_grads, res[n:])]
    cond_grads = [np.zeros(np.shape(_value(ctx, c)), dtype=d.np) for c, (d, _) in
                  zip(cond_caps, output_specs[n:n + n_cond_captures])]
    return tuple(g + cond_grads + cap_grads)


def _value(ctx, v):
    """A captured value (a variable reference is read from the session)."""
    key = getattr(v, "key", None)
    if key is not None and not isinstance(v, np.ndarray):
        return ctx.session._store.read(key, ctx.op)
    return v
