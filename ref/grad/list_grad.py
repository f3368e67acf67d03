"""Gradient rules for the TensorList ops (``ref/ops/list_ops.py``): TF's
list_ops gradients. A list's gradient is a list (a ``variant``); unset
elements of a gradient list are zeros."""
from __future__ import annotations

from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops
from ref.graph_ops import tensor_array_ops as L
from ref.types.shapes import dimension_value

for _t in ("TensorListLength", "TensorListElementShape", "TensorListReserve", "EmptyTensorList",
           "OptionalNone", "OptionalHasValue"):  # (Optionals: ref/ops/optional_ops.py, no float input)
    NotDifferentiable(_t)


def _element_shape_of(t):
    """``shape(t)[1:]``: the element shape of a stacked tensor."""
    return array_ops.slice(array_ops.shape(t), [1], [-1])


@RegisterGradient("TensorListPushBack")
def _push_back_grad(op, dresult):
    dlist, item = L.tensor_list_pop_back(dresult, op._get_attr("element_dtype"), array_ops.shape(op.inputs[1]))
    return dlist, item


@RegisterGradient("TensorListPopBack")
def _pop_back_grad(op, dlist, delement):
    if dlist is None:
        dlist = L.empty_tensor_list(L.tensor_list_element_shape(op.outputs[0]), delement.dtype)
    if delement is None:
        delement = array_ops.zeros_like(op.outputs[1])
    return L.tensor_list_push_back(dlist, delement), None


@RegisterGradient("TensorListStack")
def _stack_grad(op, dtensor):
    return L.tensor_list_from_tensor(dtensor, dtensor.shape[1:]), None


@RegisterGradient("TensorListConcatV2")
def _concat_grad(op, dtensor, unused_dlengths):
    return L.tensor_list_split(dtensor, L.tensor_list_element_shape(op.inputs[0]), op.outputs[1]), None, None


@RegisterGradient("TensorListSplit")
def _split_grad(op, dlist):
    tensor, _, lengths = op.inputs
    element_shape = array_ops.concat([[-1], _element_shape_of(tensor)], axis=0)
    return L.tensor_list_concat(dlist, tensor.dtype, element_shape, leading_dims=lengths), None, None


@RegisterGradient("TensorListFromTensor")
def _from_tensor_grad(op, dlist):
    t = op.inputs[0]
    n = dimension_value(t.shape[0]) if t.shape.ndims else None
    if dlist is None:
        dlist = L.empty_tensor_list(L.tensor_list_element_shape(op.outputs[0]), t.dtype)
    return L.tensor_list_stack(dlist, t.dtype, -1 if n is None else n, _element_shape_of(t)), None


@RegisterGradient("TensorListGetItem")
def _get_item_grad(op, ditem):
    reserved = L.tensor_list_reserve(L.tensor_list_element_shape(op.inputs[0]), L.tensor_list_length(op.inputs[0]),
                                     ditem.dtype)
    return L.tensor_list_set_item(reserved, op.inputs[1], ditem), None, None


@RegisterGradient("TensorListSetItem")
def _set_item_grad(op, dlist):
    input_list, index, item = op.inputs
    list_grad = L.tensor_list_set_item(dlist, index, array_ops.zeros_like(item))
    item_grad = L.tensor_list_get_item(dlist, index, item.dtype, array_ops.shape(item))
    if op._get_attr("resize_if_index_out_of_bounds"):
        list_grad = L.tensor_list_resize(list_grad, L.tensor_list_length(input_list))
    return list_grad, None, item_grad


@RegisterGradient("TensorListResize")
def _resize_grad(op, dlist):
    return L.tensor_list_resize(dlist, L.tensor_list_length(op.inputs[0])), None


@RegisterGradient("TensorListGather")
def _gather_grad(op, dtensor):
    input_list, indices, _ = op.inputs
    dlist = L.tensor_list_reserve(L.tensor_list_element_shape(input_list), L.tensor_list_length(input_list),
                                  dtensor.dtype)
    return L.tensor_list_scatter(dtensor, indices, input_handle=dlist), None, None


@RegisterGradient("TensorListScatterV2")
def _scatter_grad(op, dlist):
    tensor, indices = op.inputs[0], op.inputs[1]
    return L.tensor_list_gather(dlist, indices, tensor.dtype, _element_shape_of(tensor)), None, None, None


@RegisterGradient("TensorListScatterIntoExistingList")
def _scatter_into_grad(op, dlist):
    _, tensor, indices = op.inputs
    dtensor = L.tensor_list_gather(dlist, indices, tensor.dtype, _element_shape_of(tensor))
    return L.tensor_list_scatter(array_ops.zeros_like(tensor), indices, input_handle=dlist), dtensor, None

