"""Gradients through ``cond`` (If) and ``while_loop`` (While).

Both differentiate a body by re-tracing its ops inside a gradient function
graph (:func:`ref.func_graph.copy_ops`) and calling ``gradients`` there. The
If gradient is an If over the two branch gradients; the While gradient is a
``WhileGrad`` op that re-runs the forward loop to recover every iteration's
loop variables (TF keeps them in accumulators; recomputing gives the same
values) and applies the body gradient to them in reverse order.
"""
from __future__ import annotations

from ref import dtypes
from ref.func_graph import FuncGraph, copy_ops
from ref.graph import apply_op, get_default_graph
from ref.grad.registry import RegisterGradient


def _zeros(t):
    from ref.api.array_ops import zeros_like

    return zeros_like(t)


def _differentiable(t):
    d = t.dtype.base_dtype
    return d.is_floating or d.is_complex


def _grad_graph(name, src, n_args_before, all_args, out_grads_specs, outer, wrt_positions):
    """A FuncGraph taking ``all_args`` values then output grads, returning the
    gradient of ``src``'s outputs w.r.t. the args at ``wrt_positions`` (zeros for
    the other args, so both branches of an If agree on their outputs)."""
    from ref.grad.gradients import gradients

    fg = FuncGraph(name, outer)
    with fg.as_default():
        args = [fg.add_argument(t.dtype.base_dtype if t.dtype.base_dtype != dtypes.resource else t.dtype,
                                t.shape, f"arg{i}") for i, t in enumerate(all_args)]
        grads_in = [fg.add_argument(d, s, f"grad{i}") for i, (d, s) in enumerate(out_grads_specs)]
        mapping = {src.inputs[i]: args[n_args_before + i] for i in range(len(src.inputs))}
        tmap = copy_ops(src, mapping)
        outs = [tmap[o] for o in src.outputs]
        pairs = [(o, g) for o, g in zip(outs, grads_in) if _differentiable(o)]
        wrt = [args[p] for p in wrt_positions]
        if pairs:
            gs = gradients([o for o, _ in pairs], wrt, grad_ys=[g for _, g in pairs])
        else:
            gs = [None] * len(wrt)
        results = []
        by_pos = dict(zip(wrt_positions, gs))
        for i, a in enumerate(args):
            g = by_pos.get(i)
            if g is None:
                g = _zeros(_readable(a))
            else:
                from ref.graph import convert_to_tensor

                g = convert_to_tensor(g)
            results.append(g)
        fg.outputs = results
    return fg


def _readable(t):
    """A value tensor for ``t`` (reading the variable if ``t`` is a ref)."""
    if t.dtype.is_ref_dtype:
        return apply_op("Identity", input=t)
    return t


@RegisterGradient("If")
def _if_grad(op, *grads):
    pred = op.inputs[0]
    caps = op.inputs[1:]
    then_g, else_g = op.get_attr("then_branch"), op.get_attr("else_branch")
    n_then = op.get_attr("n_then_inputs")
    grads = [g if g is not None else _zeros(o) for g, o in zip(grads, op.outputs)]
    from ref.graph import convert_to_tensor

    grads = [convert_to_tensor(g) for g in grads]
    specs = [(g.dtype.base_dtype, o.shape) for g, o in zip(grads, op.outputs)]
    outer = get_default_graph()
    then_pos = [i for i in range(n_then) if _differentiable(caps[i])]
    else_pos = [i for i in range(n_then, len(caps)) if _differentiable(caps[i])]
    tg = _grad_graph(op.name + "_then_grad", then_g, 0, caps, specs, outer, then_pos)
    eg = _grad_graph(op.name + "_else_grad", else_g, n_then, caps, specs, outer, else_pos)
    out_specs = [(t.dtype.base_dtype, t.shape) for t in tg.outputs]
    res = apply_op("If", cond=pred, input=list(caps) + grads + list(caps) + grads, then_branch=tg,
                   else_branch=eg, n_then_inputs=len(caps) + len(grads), output_specs=out_specs)
    res = list(res)
    return [None] + [r if _differentiable(c) else None for r, c in zip(res, caps)]


@RegisterGradient("While")
def _while_grad(op, *grads):
    n = op.get_attr("n_loop_vars")
    n_cond = op.get_attr("n_cond_captures")
    body = op.get_attr("body")
    inputs = op.inputs
    loop_vars = inputs[:n]
    body_caps = inputs[n + n_cond:]
    from ref.graph import convert_to_tensor

    grads = [convert_to_tensor(g if g is not None else _zeros(o)) for g, o in zip(grads, op.outputs[:n])]
    specs = [(g.dtype.base_dtype, o.shape) for g, o in zip(grads, op.outputs[:n])]
    all_args = list(body.inputs)  # loop-var placeholders, then body-capture placeholders
    wrt = [i for i, t in enumerate(all_args) if _differentiable(t)]
    bg = _grad_graph(op.name + "_body_grad", body, 0, all_args, specs, get_default_graph(), wrt)
    out_specs = [(t.dtype.base_dtype, t.shape) for t in inputs]
    res = apply_op("WhileGrad", input=list(inputs), grads=grads, cond=op.get_attr("cond"), body=body,
                   body_grad=bg, n_loop_vars=n, n_cond_captures=n_cond,
                   maximum_iterations=op.get_attr("maximum_iterations"), output_specs=out_specs)
    res = list(res)
    return [r if _differentiable(t) else None for r, t in zip(res, inputs)]
