"""Gradients of TF 1.x dataflow control flow (``Switch``, ``Merge``), as TF's
control_flow_grad.py: a Switch's gradient merges its two outputs' gradients;
a Merge's gradient switches its gradient on the cond's predicate. The zeros for
a Switch output that got no gradient sit on the other side of a fresh Switch
(TF's ``control_flow_state.ZerosLike``), so they exist only when that side runs.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import IndexedSlices, control_dependencies, name_scope
from ref.framework.op_def_library import apply_op
from ref.grad._util import var_handle_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_v1 import (CondContext, get_output_context, is_switch, merge, switch,
                                           _switch_ref_or_tensor)


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
        return array_ops.zeros_like(val, optimize=False)  # TF: a ZerosLike op, even for a static shape
    switch_val = switch(op.inputs[0], ctxt.pred)[1 - ctxt.branch]
    pivot = apply_op("Identity", input=switch_val, name="Identity")
    if val.dtype.base_dtype == dtypes.resource:
        with control_dependencies([pivot]):
            shape = apply_op("VariableShape", input=switch_val, out_type=dtypes.int32, name="VariableShape")
            return array_ops.zeros(shape, dtype=var_handle_op(op.inputs[0]).get_attr("dtype"))
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
    if op_ctxt is not None:
        raise NotImplementedError(f"Gradient of {op.name}: Switch of a while loop is differentiated by "
                                  "the loop's gradient")
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
        return _switch_ref_or_tensor(grad, op_ctxt.pred, name="cond_grad")
    if op_ctxt is not None:
        raise NotImplementedError(f"Gradient of {op.name}: Merge of a while loop is differentiated by "
                                  "the loop's gradient")
    cond = [math_ops.equal(op.outputs[1], i) for i in range(len(op.inputs))]
    return [_switch_ref_or_tensor(grad, cond[i])[1] for i in range(len(op.inputs))]


RegisterGradient("Merge")(_merge_grad)
RegisterGradient("RefMerge")(_merge_grad)

NotDifferentiable("LoopCond")


@RegisterGradient("RefIdentity")
def _ref_identity_grad(op, grad):
    return grad


@RegisterGradient("Exit")
def _exit_grad(op, grad):
    """A loop built with ``back_prop=False`` passes no gradient (TF's _ExitGrad)."""
    ctxt = op._get_control_flow_context()
    if ctxt is None or not ctxt.back_prop:
        return None
    raise NotImplementedError(f"Gradient of TF 1.x while loop '{ctxt.name}' (Exit '{op.name}'): the dataflow "
                              "loop gradient is not written yet; ref's tf.while_loop with back_prop=True builds a "
                              "functional While, which is differentiable")


RegisterGradient("RefExit")(_exit_grad)
