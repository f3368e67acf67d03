"""``tf.batch_gather`` (TF1, deprecated in favour of ``gather(batch_dims=)``):
TF's ``array_ops._batch_gather`` graph -- the batch dimensions folded into flat
indices (``index + sum_d range(dim_d) * prod(later dims)``), one ``GatherV2``
on the params reshaped to ``[prod(batch + gathered dims), *outer]``, reshaped
back to ``indices.shape + outer``."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops

__all__ = ["batch_gather"]


def batch_gather(params, indices, name=None):
    """``result[i..., j] = params[i..., indices[i..., j]]`` over the leading
    ``rank(indices) - 1`` batch dimensions."""
    with name_scope(name, "BatchGather", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        return _batch_gather(params, indices, indices.shape.ndims - 1)


def _batch_gather(params, indices, batch_dims):
    indices_ndims = indices.shape.ndims
    if batch_dims < 0 or batch_dims >= indices_ndims:
        raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`indices`) = "
                         f"{indices_ndims}")
    if params.shape.ndims is not None and batch_dims >= params.shape.ndims:
        raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`params`) = "
                         f"{params.shape.ndims}")
    indices_shape = array_ops.shape(indices)
    params_shape = array_ops.shape(params)
    batch_indices = indices
    dtype = indices.dtype.base_dtype
    accum_dim_value = array_ops.ones((), dtype=dtype)
    casted_params_shape = apply_op("Cast", x=params_shape, DstT=dtype)  # gen_math_ops.cast: always an op
    for dim in range(batch_dims, 0, -1):
        dim_value = casted_params_shape[dim - 1]
        accum_dim_value *= casted_params_shape[dim]
        start = array_ops.zeros((), dtype=dtype)
        step = array_ops.ones((), dtype=dtype)
        dim_indices = apply_op("Range", start=start, limit=dim_value, delta=step)
        dim_indices *= accum_dim_value
        dim_shape = array_ops.stack([1] * (dim - 1) + [dim_value] + [1] * (indices_ndims - dim), axis=0)
        batch_indices += array_ops.reshape(dim_indices, dim_shape)
    flat_indices = array_ops.reshape(batch_indices, [-1])
    outer_shape = params_shape[batch_dims + 1:]
    flat_inner_shape = apply_op("Prod", input=params_shape[:batch_dims + 1], axis=[0], keep_dims=False)
    flat_params = array_ops.reshape(params, array_ops.concat([[flat_inner_shape], outer_shape], axis=0))
    flat_result = array_ops.gather(flat_params, flat_indices)
    result = array_ops.reshape(flat_result, array_ops.concat([indices_shape, outer_shape], axis=0))
    final_shape = indices.shape[:batch_dims].merge_with(params.shape[:batch_dims])
    final_shape = final_shape.concatenate(indices.shape[batch_dims:])
    final_shape = final_shape.concatenate(params.shape[batch_dims + 1:])
    result.set_shape(final_shape)
    return result
