"""Gradients through ``cond`` (If) and ``while_loop`` (While).

Both differentiate a body by re-tracing its ops inside a gradient function
graph (:func:`ref.framework.func_graph.copy_ops`) and calling ``gradients`` there. The
If gradient is an If over the two branch gradients.

The While gradient is itself a While (so it is differentiable again: second
and higher derivatives through ``while_loop``). It runs ``k = n, ..., 1`` over
the ``n`` forward iterations, carrying the gradients of the loop variables and
the sums of the gradients of the tensors the body captures; step ``k``
re-traces the body on the loop variables of iteration ``k - 1`` and applies
``gradients`` with the carried gradients as ``grad_ys``. Where those forward
values come from:

* a While built with ``accumulate`` (every ``while_loop`` whose loop variables
  have fully defined shapes) kept them: its history outputs hold iteration
  ``k``'s values at row ``k`` -- TF's accumulators. The backward loop gathers
  row ``k - 1``; ``n`` is the history's length. Forward once, backward once:
  O(n) body steps. The history is a differentiable output like any other, so
  a gradient reaching it (the next derivative's) joins the carried gradient at
  its row.
* otherwise (a loop variable whose shape changes across iterations) a counting
  While finds ``n`` and each backward step recomputes iteration ``k - 1``'s
  values from the initial ones with an inner While: the same values,
  O(n^2) body steps.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.func_graph import FuncGraph, copy_ops
from ref.framework.graph import get_default_graph
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.grad._util import var_handle_op as _var_handle_op
from ref.grad.registry import RegisterGradient
from ref.graph_ops.array_ops import zeros_like
from ref.grad.gradients import gradients
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import can_accumulate


def _zeros(t):
    return zeros_like(t)


def _differentiable(t):
    d = t.dtype.base_dtype
    return d.is_floating or d.is_complex or d == dtypes.variant  # a variant: a TensorList (TensorArray)


def _variable_handle(t):
    """True when ``t`` is a float resource variable's handle: its gradient is the
    gradient of the variable's value."""
    op = _var_handle_op(t)
    return op is not None and (op._get_attr("dtype").is_floating or op._get_attr("dtype").is_complex)


def _handle_dtype(t):
    return _var_handle_op(t)._get_attr("dtype")


def _wrt(t):
    """Whether a function input gets a gradient: a float value or a variable's handle."""
    return _differentiable(t) or _variable_handle(t)


def _grad_graph(name, src, n_args_before, all_args, out_grads_specs, outer, wrt_positions):
    """A FuncGraph taking ``all_args`` values then output grads, returning the
    gradient of ``src``'s outputs w.r.t. the args at ``wrt_positions`` (zeros for
    the other args, so both branches of an If agree on their outputs)."""
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
            if g is None and all_args[i].dtype.base_dtype == dtypes.resource and _variable_handle(all_args[i]):
                value = apply_op("ReadVariableOp", resource=a, dtype=_handle_dtype(all_args[i]))
                value.set_shape(_var_handle_op(all_args[i])._get_attr("shape"))  # the variable's shape
                g = _zeros(value)
            elif g is None:
                g = _zeros(_readable(a))
            results.append(g)
    return fg, results


def _as_slices(g):
    """A gradient as IndexedSlices with a dense shape (a dense one: every row)."""
    if isinstance(g, IndexedSlices):
        if g.dense_shape is None:
            return None
        return g
    shape = array_ops.shape(g)
    return IndexedSlices(g, math_ops.range(0, shape[0]), shape)


def _branch_outputs(tg, t_res, eg, e_res):
    """Sets the two branch gradient graphs' outputs so they agree (TF's
    ``_make_output_composite_tensors_match``): where either branch's gradient is
    IndexedSlices, both give IndexedSlices (values, indices, dense shape; int64
    indices where they differ), else dense tensors. Returns the kinds, None or
    "slices", one per result."""
    kinds, t_out, e_out = [], [], []
    for a, b in zip(t_res, e_res):
        if isinstance(a, IndexedSlices) or isinstance(b, IndexedSlices):
            with tg.as_default():
                sa = _as_slices(a)
            with eg.as_default():
                sb = _as_slices(b)
            if sa is not None and sb is not None:
                if sa.indices.dtype.base_dtype != sb.indices.dtype.base_dtype:
                    with tg.as_default():
                        sa = IndexedSlices(sa.values, math_ops.cast(sa.indices, dtypes.int64), sa.dense_shape)
                    with eg.as_default():
                        sb = IndexedSlices(sb.values, math_ops.cast(sb.indices, dtypes.int64), sb.dense_shape)
                if sa.dense_shape.dtype.base_dtype != sb.dense_shape.dtype.base_dtype:
                    with tg.as_default():
                        sa = IndexedSlices(sa.values, sa.indices, math_ops.cast(sa.dense_shape, dtypes.int64))
                    with eg.as_default():
                        sb = IndexedSlices(sb.values, sb.indices, math_ops.cast(sb.dense_shape, dtypes.int64))
                kinds.append("slices")
                t_out += [sa.values, sa.indices, sa.dense_shape]
                e_out += [sb.values, sb.indices, sb.dense_shape]
                continue
        with tg.as_default():
            t_out.append(_dense(a))
        with eg.as_default():
            e_out.append(_dense(b))
        kinds.append(None)
    tg.outputs = [_own(t, tg) for t in t_out]
    eg.outputs = [_own(t, eg) for t in e_out]
    return kinds


def _own(t, g):
    """``t`` as an output of function graph ``g`` (an outer tensor is captured)."""
    t = convert_to_tensor(t) if not hasattr(t, "graph") else t
    return g.capture(t) if t.graph is not g else t


def _dense(d):
    """A gradient as a dense tensor. IndexedSlices (a gather of a captured
    history) become their UnsortedSegmentSum without the unknown-shape warning:
    the dense form is the size of the history, already in memory."""
    if isinstance(d, IndexedSlices):
        return array_ops.unsorted_segment_sum(d.values, d.indices, d.dense_shape[0])
    return convert_to_tensor(d)


def _add(a, b):
    """a + b; AddN for variant lists (TensorArray gradients), which have no Add."""
    return math_ops.add_n([a, b]) if a.dtype.base_dtype == dtypes.variant else math_ops.add(a, b)


def _readable(t):
    """A value tensor for ``t`` (reading the variable if ``t`` is a ref)."""
    if t.dtype.is_ref_dtype:
        return apply_op("Identity", input=t)
    return t


@RegisterGradient("If")
def _if_grad(op, *grads):
    pred = op.inputs[0]
    caps = op.inputs[1:]
    then_g, else_g = op._get_attr("then_branch"), op._get_attr("else_branch")
    n_then = op._get_attr("n_then_inputs")
    grads = [g if g is not None else _zeros(o) for g, o in zip(grads, op.outputs)]
    grads = [convert_to_tensor(g) for g in grads]
    specs = [(g.dtype.base_dtype, o.shape) for g, o in zip(grads, op.outputs)]
    outer = get_default_graph()
    then_pos = [i for i in range(n_then) if _wrt(caps[i])]
    else_pos = [i for i in range(n_then, len(caps)) if _wrt(caps[i])]
    tg, t_res = _grad_graph(op.name + "_then_grad", then_g, 0, caps, specs, outer, then_pos)
    eg, e_res = _grad_graph(op.name + "_else_grad", else_g, n_then, caps, specs, outer, else_pos)
    # An outer tensor both branches capture is two inputs of the If (TF's cond_v2 makes it one):
    # its gradient is the then-branch's at its then position and the else-branch's at its else
    # position, one output (else one dense and one IndexedSlices gradient would be summed dense).
    first, owner, m_t, m_e = {}, [], [], []
    for i, c in enumerate(caps):
        if c in first:
            m_e[first[c]] = e_res[i]
            owner.append(None)
        else:
            first[c] = len(m_t)
            owner.append(len(m_t))
            m_t.append(t_res[i])
            m_e.append(e_res[i])
    kinds = _branch_outputs(tg, m_t, eg, m_e)
    out_specs = [(t.dtype.base_dtype, t.shape.most_specific_compatible_shape(e.shape))
                 for t, e in zip(tg.outputs, eg.outputs)]
    res = apply_op("If", cond=pred, input=list(caps) + grads + list(caps) + grads, then_branch=tg,
                   else_branch=eg, n_then_inputs=len(caps) + len(grads), output_specs=out_specs)
    res, grads_out, i = list(res), [], 0
    for kind in kinds:
        if kind == "slices":
            grads_out.append(IndexedSlices(res[i], res[i + 1], res[i + 2]))
            i += 3
        else:
            grads_out.append(res[i])
            i += 1
    return [None] + [grads_out[k] if k is not None and _wrt(c) else None for k, c in zip(owner, caps)]


def _while_op(name, specs, init, outer, build_cond, build_body, maximum_iterations=None, accumulate=False):
    """A While over loop variables with (dtype, shape) ``specs`` and initial values
    ``init``; ``build_cond(args)`` / ``build_body(args)`` run inside fresh function
    graphs (outer tensors they use are captured) and return the predicate / the
    next loop variables. Returns the While's outputs."""
    graphs = []
    for suffix, build in (("_cond", build_cond), ("_body", build_body)):
        fg = FuncGraph(name + suffix, outer)
        with fg.as_default():
            args = [fg.add_argument(d, sh, f"arg{i}") for i, (d, sh) in enumerate(specs)]
            outs = build(args)
            fg.outputs = [convert_to_tensor(o) for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
        graphs.append(fg)
    cond_g, body_g = graphs
    res = apply_op("While", input=list(init) + cond_g.external_captures + body_g.external_captures,
                   cond=cond_g, body=body_g, n_loop_vars=len(specs), n_cond_captures=len(cond_g.captures),
                   maximum_iterations=maximum_iterations, output_specs=list(specs), accumulate=accumulate,
                   name=name)
    return list(res)[:len(specs)]


def _trace(fg, values, replaced=None):
    """The outputs of function graph ``fg`` re-traced in the default graph on ``values``
    (one per ``fg.inputs``; outer tensors are captured); ``replaced`` maps
    tensors of ``fg`` to values that stand in for them (their ops are not re-run)."""
    mapping = {ph: convert_to_tensor(v) for ph, v in zip(fg.inputs, values)}
    mapping.update(replaced or {})
    tmap = copy_ops(fg, mapping)
    return [tmap[o] if o in tmap else o for o in fg.outputs]


@RegisterGradient("While")
def _while_grad(op, *grads):
    n = op._get_attr("n_loop_vars")
    n_cond = op._get_attr("n_cond_captures")
    cond, body = op._get_attr("cond"), op._get_attr("body")
    inputs = list(op.inputs)
    init, cond_caps, body_caps = inputs[:n], inputs[n:n + n_cond], inputs[n + n_cond:]
    outer = get_default_graph()
    specs = [(t.dtype.base_dtype, s) for t, (_, s) in zip(init, op._get_attr("output_specs"))]
    i32 = (dtypes.int32, [])
    out_grads = [convert_to_tensor(g if g is not None else _zeros(o)) for g, o in zip(grads[:n], op.outputs[:n])]

    if op._get_attr("accumulate"):
        # Iteration k's loop variables are row k of the history outputs; a
        # gradient reaching the history (a higher derivative's) joins at its row.
        history = list(op.outputs[n:2 * n])
        hist_grads = {j: _dense(g) for j, g in enumerate(grads[n:2 * n])
                      if g is not None and _differentiable(init[j]) and init[j].dtype != dtypes.variant}
        trips = array_ops.shape(history[0], out_type=dtypes.int32)[0]

        def state_at(km1):
            return [array_ops.gather(h, km1) for h in history]

        def history_grad(j, km1):
            return array_ops.gather(hist_grads[j], km1) if j in hist_grads else None

        # Random draws recorded as loop variables (control_flow_ops): iteration
        # k's draw is the variable's value at the start of iteration k + 1.
        recorded = getattr(body, "recorded_draws", [])
        draws = [(t, array_ops.concat([history[j][1:], array_ops.expand_dims(op.outputs[j], 0)], 0))
                 for j, t in recorded]

        def draws_at(km1):
            return {t: array_ops.gather(d, km1) for t, d in draws}
    else:
        # A counting While finds the trip count; each backward step recomputes
        # iteration k - 1 from the initial values with an inner While.
        def count_cond(args):
            return _trace(cond, args[1:] + cond_caps)[0]

        def count_body(args):
            return [math_ops.add(args[0], 1)] + _trace(body, args[1:] + body_caps)

        trips = _while_op(op.name + "_grad_count", [i32] + specs, [convert_to_tensor(0)] + init, outer,
                          count_cond, count_body, op._get_attr("maximum_iterations"))[0]

        def state_at(km1):
            return _while_op(op.name + "_grad_recompute", [i32] + specs, [convert_to_tensor(0)] + init,
                             get_default_graph(), lambda a: math_ops.less(a[0], km1),
                             lambda a: [math_ops.add(a[0], 1)] + _trace(body, a[1:] + body_caps))[1:]

        def history_grad(j, km1):
            return None

        def draws_at(km1):
            return {}

    g_init, g_caps = _backward_loop(op.name + "_grad", body, body_caps, out_grads, specs, trips, outer, state_at,
                                    history_grad, draws_at)
    return ([g if _differentiable(t) else None for g, t in zip(g_init, init)] + [None] * n_cond +
            [g_caps.get(j) for j in range(len(body_caps))])


def _backward_loop(name, body, body_caps, out_grads, specs, trips, outer, state_at, history_grad, draws_at):
    """The backward While over ``k = trips, ..., 1``; returns (the initial
    values' gradients, {capture position: its gradient}).

    It carries the loop variables' gradients and the sums of the differentiable
    captures' gradients. Step ``k`` re-traces one body step on ``state_at(k - 1)``
    (iteration ``k - 1``'s loop variables) and differentiates it w.r.t. fresh
    identities of that state and of the captures, with the carried gradients as
    ``grad_ys`` (the state's own dependence on the initial values and captures
    stays in the graph for higher derivatives); ``history_grad(j, k - 1)`` adds
    to loop variable ``j``'s gradient; ``draws_at(k - 1)`` gives the random
    draws iteration ``k - 1`` made (by body tensor), reused, not redrawn."""
    n = len(out_grads)
    diff_caps = [j for j, c in enumerate(body_caps) if _wrt(c)]
    cap_values = [_readable(c) for c in body_caps]
    # a variable's handle: its gradient accumulates in the shape of the variable's value
    acc_like = [apply_op("ReadVariableOp", resource=c, dtype=_handle_dtype(c)) if _variable_handle(c) else v
                for c, v in zip(body_caps, cap_values)]
    acc_init = [_zeros(acc_like[j]) for j in diff_caps]
    back_specs = [(dtypes.int32, [])] + [(g.dtype.base_dtype, sh) for g, (_, sh) in zip(out_grads, specs)] + \
        [(a.dtype.base_dtype, a.shape) for a in acc_init]

    def back_cond(args):
        return math_ops.greater(args[0], 0)

    def back_body(args):
        k, gs, accs = args[0], args[1:n + 1], args[n + 1:]
        km1 = math_ops.subtract(k, 1)
        state_in = [apply_op("Identity", input=t) for t in state_at(km1)]
        fg = get_default_graph()
        caps_in = [apply_op("Identity", input=fg.capture(cap_values[j])) if j in diff_caps else body_caps[j]
                   for j in range(len(body_caps))]
        outs = _trace(body, state_in + caps_in, draws_at(km1))
        pairs = [(o, g) for o, g in zip(outs, gs) if _differentiable(o)]
        wrt = state_in + [caps_in[j] for j in diff_caps]
        got = gradients([o for o, _ in pairs], wrt, grad_ys=[g for _, g in pairs]) if pairs \
            else [None] * len(wrt)
        new_gs = []
        for j, (d, st) in enumerate(zip(got[:n], state_in)):
            d = convert_to_tensor(d) if d is not None else _zeros(st)
            extra = history_grad(j, km1)
            new_gs.append(d if extra is None else _add(d, extra))
        new_accs = [_add(a, _dense(d)) if d is not None else a for a, d in zip(accs, got[n:])]
        return [km1] + new_gs + new_accs

    res = _while_op(name, back_specs, [trips] + out_grads + acc_init, outer, back_cond, back_body,
                    accumulate=can_accumulate(back_specs))
    return res[1:n + 1], dict(zip(diff_caps, res[n + 1:]))
