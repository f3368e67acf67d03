"""Gradients of TF 1.x dataflow control flow (``Switch``, ``Merge``), as TF's
control_flow_grad.py: a Switch's gradient merges its two outputs' gradients;
a Merge's gradient switches its gradient on the cond's predicate. The zeros for
a Switch output that got no gradient sit on the other side of a fresh Switch
(TF's ``control_flow_state.ZerosLike``), so they exist only when that side runs.
"""
from __future__ import annotations

from ref.types import dtypes, errors
from ref.framework.graph import IndexedSlices, colocate_with, control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op
from ref.grad._util import var_handle_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_v1 import (CondContext, get_output_context, is_switch, merge, switch,
                                           switch_ref_or_tensor)
from ref.graph_ops.while_v1 import WhileContext, add_next_and_back_edge, enter_frame as enter, exit_, next_iteration


def wants_zeros(op, index) -> bool:
    """Whether output ``index`` of ``op`` without a gradient gets zeros: a
    variable's handle through a cond's Switch does (its zeros have the
    variable's shape), other resources do not."""
    t = op.outputs[index]
    if t.dtype.base_dtype != dtypes.resource:
        return True
    return is_switch(op) and isinstance(op._get_control_flow_context(), CondContext) and \
        var_handle_op(op.inputs[0]) is not None


def zeros_like_for_output(op, index):
    """Zeros for output ``index`` of ``op``, which got no gradient."""
    val = op.outputs[index]
    ctxt = op._get_control_flow_context() if is_switch(op) else None
    if ctxt is None or not isinstance(ctxt, CondContext):
        return array_ops.zeros_like(val, optimize=False)  # TF: a ZerosLike op, never folded
    switch_val = switch(op.inputs[0], ctxt.pred)[1 - ctxt.branch]
    pivot = apply_op("Identity", input=switch_val, name="Identity")
    if val.dtype.base_dtype == dtypes.resource:
        with control_dependencies([pivot]):
            shape = apply_op("VariableShape", input=switch_val, out_type=dtypes.int32, name="VariableShape")
            return array_ops.zeros(shape, dtype=var_handle_op(op.inputs[0])._get_attr("dtype"))
    zeros_shape = apply_op("Shape", input=switch_val, out_type=dtypes.int32, name="Shape")
    with control_dependencies([pivot]):
        return array_ops.zeros(zeros_shape, dtype=val.dtype.base_dtype)


def _switch_grad(op, *grad):
    op_ctxt = op._get_control_flow_context()
    if isinstance(op_ctxt, CondContext):
        zero_grad = grad[1 - op_ctxt.branch]
        if zero_grad is None:
            if op.inputs[0].dtype == dtypes.resource:
                return _merge([grad[op_ctxt.branch]] * 2, name="cond_resource_grad"), None
            return None, None
        return _merge(list(grad), name="cond_grad"), None
    if isinstance(op_ctxt, WhileContext):
        grad_ctxt = get_default_graph()._get_control_flow_context()
        merge_grad = grad_ctxt.grad_state.switch_map.get(op)
        if merge_grad is not None:  # second visit, from the body side: the gradient Merge's back edge
            if grad[1] is not None:
                if isinstance(merge_grad, IndexedSlices):
                    _slices_back_edge(merge_grad, grad[1])
                else:
                    add_next_and_back_edge(merge_grad, grad[1], enforce_shape_invariant=False)
            return None, None
        if grad[0] is not None:  # first visit, from the Exit side
            merge_grad = _merge([grad[0], grad[0]], name="b_switch")
            grad_ctxt.grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None
    false_grad = switch(grad[0], op.inputs[1])[0]
    true_grad = switch(grad[1], op.inputs[1])[1]
    return merge([false_grad, true_grad])[0], None


def _merge(grads, name):
    """The Merge of two gradients; with an IndexedSlices among them, of their
    components, the dense ones made IndexedSlices first (TF's merge)."""
    if not any(isinstance(g, IndexedSlices) for g in grads):
        return merge(grads, name=name)[0]
    with name_scope(name, "Merge", []):
        slices = []
        for g in grads:
            if not isinstance(g, IndexedSlices):
                shape = apply_op("Shape", input=g, out_type=dtypes.int32, name="Shape")
                g = IndexedSlices(g, math_ops.range(0, shape[0]), shape)
            slices.append(g)
        if any(s.indices.dtype.base_dtype == dtypes.int64 for s in slices):
            slices = [IndexedSlices(s.values, math_ops.cast(s.indices, dtypes.int64), s.dense_shape)
                      if s.indices.dtype.base_dtype == dtypes.int32 else s for s in slices]
        values = merge([s.values for s in slices], name="Merge")[0]
        indices = merge([s.indices for s in slices], name="Merge")[0]
        dense = None
        if all(s.dense_shape is not None for s in slices):
            dense = merge([s.dense_shape for s in slices], name="Merge")[0]
        return IndexedSlices(values, indices, dense)


RegisterGradient("Switch")(_switch_grad)
RegisterGradient("RefSwitch")(_switch_grad)


def _merge_grad(op, grad, _):
    op_ctxt = get_output_context(op.inputs[0].op)
    if isinstance(op_ctxt, CondContext):
        pred = op_ctxt.pred
        grad_ctxt = get_default_graph()._get_control_flow_context()
        grad_state = grad_ctxt.grad_state if grad_ctxt is not None else None
        if grad_state is not None:
            # A cond inside a loop: its predicate is saved every forward iteration and
            # popped here, before the cond_grad Switch (TF's _MergeGrad).
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_state.grad_context.Exit()
                history_pred = grad_state.AddForwardAccumulator(pred)
                grad_state.grad_context.Enter()
                real_pred = grad_state.AddBackpropAccumulatedValue(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        return switch_ref_or_tensor(grad, pred, name="cond_grad")
    if isinstance(op_ctxt, WhileContext):
        pivot = get_default_graph()._get_control_flow_context().pivot
        if isinstance(grad, IndexedSlices):  # each component switched (TF's switch of a composite)
            with colocate_with(grad.values, ignore_existing=True), name_scope(None, "Switch", []):
                parts = [switch(c, pivot, name="Switch") for c in _slices_components(grad)]
            return tuple(_slices_from(grad, [p[k] for p in parts]) for k in (0, 1))
        return switch_ref_or_tensor(grad, pivot)
    cond = [math_ops.equal(op.outputs[1], i) for i in range(len(op.inputs))]
    return [switch_ref_or_tensor(grad, cond[i])[1] for i in range(len(op.inputs))]


RegisterGradient("Merge")(_merge_grad)
RegisterGradient("RefMerge")(_merge_grad)

NotDifferentiable("LoopCond")


@RegisterGradient("RefIdentity")
def _ref_identity_grad(op, grad):
    return grad


@RegisterGradient("Exit")
def _exit_grad(op, grad):
    """The gradient of a loop's result enters the gradient loop (``b_exit``);
    a loop built with ``back_prop=False`` passes none (TF's _ExitGrad)."""
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop:
        return None
    if op._get_control_flow_context().grad_state:
        raise TypeError("Second-order gradient for while loops not supported.")
    if isinstance(grad, IndexedSlices):  # its components enter the gradient loop
        parts = _slices_components(grad)
        for c in parts:
            grad_ctxt.AddName(c.name)
        grad_ctxt.Enter()
        parts = [enter(c, grad_ctxt.name, is_constant=False, parallel_iterations=grad_ctxt.parallel_iterations)
                 for c in parts]
        grad_ctxt.loop_enters.extend(parts)
        grad_ctxt.Exit()
        return _slices_from(grad, parts)
    grad_ctxt.AddName(grad.name)
    grad_ctxt.Enter()
    result = enter(grad, grad_ctxt.name, is_constant=False, parallel_iterations=grad_ctxt.parallel_iterations,
                   name="b_exit")
    grad_ctxt.loop_enters.append(result)
    grad_ctxt.Exit()
    return result


RegisterGradient("RefExit")(_exit_grad)


@RegisterGradient("NextIteration")
def _next_iteration_grad(_, grad):
    return grad


RegisterGradient("RefNextIteration")(_next_iteration_grad)


@RegisterGradient("Enter")
def _enter_grad(op, grad):
    """A loop variable's gradient leaves the gradient loop (an Exit); a loop
    invariant's is summed over the iterations (``b_acc``)."""
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop or grad_ctxt.grad_state is None:
        return grad
    if op._get_attr("is_constant"):
        if isinstance(grad, IndexedSlices):
            return grad_ctxt.AddBackpropIndexedSlicesAccumulator(op, grad)
        return grad_ctxt.AddBackpropAccumulator(op, grad)
    if isinstance(grad, IndexedSlices):
        parts = [exit_(c) for c in _slices_components(grad)]
        grad_ctxt.loop_exits.extend(parts)
        grad_ctxt.ExitResult(parts)
        return _slices_from(grad, parts)
    result = exit_(grad)
    grad_ctxt.loop_exits.append(result)
    grad_ctxt.ExitResult([result])
    return result


def _slices_components(s):
    """An IndexedSlices' component tensors in TF's order: values, indices, dense_shape."""
    return [s.values, s.indices] + ([s.dense_shape] if s.dense_shape is not None else [])


def _slices_from(like, parts):
    return IndexedSlices(parts[0], parts[1], parts[2] if like.dense_shape is not None else None)


def _shape_str(shape):
    """A shape as TF's C++ shape inference writes it (``[3,?]``)."""
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _slices_back_edge(merge_grad, grad):
    """The back edge of an IndexedSlices gradient Merge: ``grad`` as IndexedSlices
    (a dense one over all its rows), each component through a NextIteration into
    its Merge. TF's graph builder refuses a component whose shape differs."""
    if not isinstance(grad, IndexedSlices):
        shape = apply_op("Shape", input=grad, out_type=dtypes.int32, name="Shape")
        grad = IndexedSlices(grad, math_ops.range(0, shape[0]), shape)
    for m, v in zip(_slices_components(merge_grad), _slices_components(grad)):
        if not m.shape.is_compatible_with(v.shape):
            raise errors.InvalidArgumentError(None, None, f"Cannot update edge, incompatible shapes: "
                                                          f"{_shape_str(v.shape)} and {_shape_str(m.shape)}.")
        m.op._update_input(1, next_iteration(v))


RegisterGradient("RefEnter")(_enter_grad)
for _t in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2", "Stack", "StackPush", "StackPop", "StackClose",
           "ControlTrigger", "DeviceIndex"):
    NotDifferentiable(_t)
