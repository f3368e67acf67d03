"""Gradients of the ragged kernels (``ref/ops/ragged.py``)."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, math_ops


def _rank_without_leading_ones(value):
    """rank(value) not counting leading size-1 dimensions (static when known)."""
    if value.shape.ndims is not None:
        ndims = value.shape.ndims
        for d in value.shape.dims:
            if d.value == 1:
                ndims -= 1
            elif d.value is None:
                ndims = None
                break
            else:
                break
        if ndims is not None:
            return ndims
    shape = array_ops.shape(value)
    ones = math_ops.reduce_sum(math_ops.cumprod(math_ops.cast(math_ops.equal(shape, 1), dtypes.int32)))
    return array_ops.rank(value) - ones


@RegisterGradient("RaggedTensorToTensor")
def _ragged_tensor_to_tensor_grad(op, grad):
    """Each output position takes the gradient of the value it copied: an
    IndexedSlices over the flat values (positions found by converting
    range(nvals) with default -1), the rest summed into the default value."""
    values, default = op.inputs[1], op.inputs[2]
    partitions = list(op.inputs[3:])
    types = op._get_attr("row_partition_types")
    values_shape = array_ops.shape(values)
    ragged_rank = sum(1 for t in types if t not in (b"FIRST_DIM_SIZE", "FIRST_DIM_SIZE"))
    indices = apply_op("RaggedTensorToTensor", shape=array_ops.shape(grad)[:1 + ragged_rank],
                       values=math_ops.range(values_shape[0]), default_value=-1,
                       row_partition_types=list(types), row_partition_tensors=partitions)
    mask = math_ops.not_equal(indices, -1)
    values_grad = IndexedSlices(values=array_ops.boolean_mask(grad, mask),
                                indices=array_ops.boolean_mask(indices, mask), dense_shape=values_shape)
    default_grads = array_ops.boolean_mask(grad, ~mask)
    dims = math_ops.range(array_ops.rank(default_grads) - _rank_without_leading_ones(default))
    default_grad = array_ops.reshape(math_ops.reduce_sum(default_grads, axis=dims), array_ops.shape(default))
    return [None, values_grad, default_grad] + [None] * len(partitions)


@RegisterGradient("RaggedTensorToSparse")
def _ragged_tensor_to_sparse_grad(op, unused_indices_grad, values_grad, unused_shape_grad):
    """The sparse values are the flat values in order: their gradient reshaped;
    none for the row splits."""
    splits = list(op.inputs[:-1])
    return [None] * len(splits) + [array_ops.reshape(values_grad, array_ops.shape(op.inputs[-1]))]


@RegisterGradient("RaggedFillEmptyRows")
def _ragged_fill_empty_rows_grad(op, unused_rowids_grad, values_grad, unused_indicator_grad, unused_map_grad):
    """The filled values' gradients back to the input values; the added ones to default_value."""
    d_values, d_default = apply_op("RaggedFillEmptyRowsGrad", reverse_index_map=op.outputs[3],
                                   grad_values=values_grad)
    return None, d_values, None, d_default
