"""Gradient rules for the TensorArrayV3 ops (``ref/ops/tensor_array.py``), as
TF's ``tensor_array_grad.py`` builds them.

The gradient of an array is its gradient array for the running
``tf.gradients`` call (``TensorArrayGradV3`` with ``source`` the call's name
scope, so two calls never share an accumulator): a read's gradient is written
into it, a write's gradient is read out of it, gather and scatter, concat and
split likewise trade places. The float flow carries the ordering: a reader's
gradient is the flow out of its gradient write; a writer receives a flow
gradient and waits on it (``write_barrier``) before reading. Inside a TF 1.x
while loop the flows are loop variables like any float, the forward flow a
gradient reads is saved on the loop's stacks (``control_flow_state``).
"""
from __future__ import annotations

from ref.framework.graph import control_dependencies
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops.control_flow_ops import identity
from ref.graph_ops.tensor_array_ops import TensorArray

for _t in ("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3", "TensorArrayCloseV3"):
    NotDifferentiable(_t)


def _grad_source(op_or_tensor):
    """The name scope of the ``tf.gradients`` call building this gradient
    (TF's ``_GetGradSource``): the name up to its last ``gradients*`` part."""
    tokens = op_or_tensor.name.split("/")
    pos = [i for i, x in enumerate(tokens) if x.startswith("gradients")]
    if not pos:
        raise ValueError(f"Expected op/tensor name to start with gradients (excluding scope), got: "
                         f"{op_or_tensor.name}. This means that a tf.gradients op with this op in its dependency "
                         f"path has a custom name that does not start with 'gradients'. Please make sure all calls "
                         f"to tf.gradients that have non-empty `name` arguments use names that start with "
                         f"'gradients'.")
    return "/".join(tokens[:pos[-1] + 1])


def _grad_array(dtype, handle, flow, source):
    """The gradient array of the forward array ``handle`` for ``source``."""
    return TensorArray(dtype=dtype, handle=handle, flow=flow, colocate_with_first_write_call=False).grad(
        source=source, flow=flow)


def _barrier(op, flow):
    """``flow`` after the forward write ``op`` (its gradient must not run before it)."""
    flow_out = identity(op.outputs[0], "flow_out")
    with control_dependencies([flow_out]):
        return identity(flow, "write_barrier")


@RegisterGradient("TensorArrayReadV3")
def _read_grad(op, grad):
    handle, index, flow = op.inputs
    g = _grad_array(op._get_attr("dtype"), handle, flow, _grad_source(grad))
    return [None, None, g.write(index, grad).flow]


@RegisterGradient("TensorArrayWriteV3")
def _write_grad(op, flow):
    handle, index = op.inputs[0], op.inputs[1]
    source = _grad_source(flow)
    flow = _barrier(op, flow)
    g = _grad_array(op._get_attr("T"), handle, flow, source)
    return [None, None, g.read(index), flow]


@RegisterGradient("TensorArrayGatherV3")
def _gather_grad(op, grad):
    handle, indices, flow = op.inputs
    g = _grad_array(op._get_attr("dtype"), handle, flow, _grad_source(grad))
    return [None, None, g.scatter(indices, grad).flow]


@RegisterGradient("TensorArrayScatterV3")
def _scatter_grad(op, flow):
    handle, indices = op.inputs[0], op.inputs[1]
    source = _grad_source(flow)
    flow = _barrier(op, flow)
    g = _grad_array(op._get_attr("T"), handle, flow, source)
    return [None, None, g.gather(indices), flow]


@RegisterGradient("TensorArrayConcatV3")
def _concat_grad(op, grad, unused_lengths_grad):
    handle, flow = op.inputs
    g = _grad_array(op._get_attr("dtype"), handle, flow, _grad_source(grad))
    return [None, g.split(grad, lengths=op.outputs[1]).flow]


@RegisterGradient("TensorArraySplitV3")
def _split_grad(op, flow):
    handle = op.inputs[0]
    source = _grad_source(flow)
    flow = _barrier(op, flow)
    g = _grad_array(op._get_attr("T"), handle, flow, source)
    return [None, g.concat(), None, flow]
