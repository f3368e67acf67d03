"""What TF's ``_WithSpaceToBatch`` builds around an op with a dilation rate above 1
(nn_ops.py: ``with_space_to_batch``, used by ``tf.nn.convolution``,
``tf.nn.depthwise_conv2d`` and ``tf.nn.separable_conv2d``): the input padded
and split into ``rate`` blocks moved into the batch (``SpaceToBatchND``), the
op run VALID with rate 1, the blocks moved back and the extra padding cropped
(``BatchToSpaceND``); paddings and crops are constants when the spatial shape
is static. Also ``tf.space_to_batch_nd``, ``tf.batch_to_space_nd`` and
``tf.required_space_to_batch_paddings``. Kernels: ``ref/ops/space_depth.py``."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops

__all__ = ["space_to_batch_nd", "batch_to_space_nd", "required_space_to_batch_paddings", "space_to_batch_call"]


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """``SpaceToBatchND``: the spatial dims after the batch padded by ``paddings``
    and split into ``block_shape`` blocks that move into the batch."""
    return apply_op("SpaceToBatchND", input=input, block_shape=block_shape, paddings=paddings, name=name)


def batch_to_space_nd(input, block_shape, crops, name=None):
    """``BatchToSpaceND``: the inverse of :func:`space_to_batch_nd`, then ``crops`` removed."""
    return apply_op("BatchToSpaceND", input=input, block_shape=block_shape, crops=crops, name=name)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make ``input_shape`` plus ``base_paddings`` a
    multiple of ``block_shape``: the extra padding goes at the end and is
    cropped again. Constants when every input is, else ops (TF's expression for
    both)."""
    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        block_shape.shape.assert_is_fully_defined()
        block_shape.shape.assert_has_rank(1)
        m = block_shape.shape.as_list()[0]
        if m == 0:
            return array_ops.zeros([0, 2], dtypes.int32), array_ops.zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([m])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([m, 2])
        else:
            base_paddings = array_ops.zeros([m, 2], dtypes.int32)
        consts = [constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(c is not None for c in consts):
            block_shape, input_shape, base_paddings = consts
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = array_ops.stack([[pad_start[i], pad_end[i]] for i in range(m)], name="paddings")
        crops = array_ops.stack([[0, pad_end_extra[i]] for i in range(m)], name="crops")
        return paddings, crops


def _base_paddings(filter_shape, m, rate):
    """The SAME padding a filter of ``filter_shape`` dilated by ``rate`` needs, split
    start/end as the dilated convolution pads it."""
    extra = (filter_shape[:m] - 1) * rate
    start = extra // 2
    end = extra - start
    return array_ops.stack([[start[i], end[i]] for i in range(m)])


def _adjust(orig, fill_value, spatial_dims):
    """``orig`` [M, ...] spread over the dims before each spatial dim (TF's
    ``_with_space_to_batch_adjust``): rows of ``fill_value`` for the others."""
    fill_dims = orig.shape.as_list()[1:] if hasattr(orig, "op") else list(np.shape(orig))[1:]
    dtype = orig.dtype.np if hasattr(orig, "op") else np.asarray(orig).dtype
    const = constant_value(orig) if hasattr(orig, "op") else np.asarray(orig)
    source = const if const is not None else orig
    parts, prev, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - prev] + fill_dims, fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(source[start_i:i + 1])
        prev = spatial_dims[i]
        i += 1
    return np.concatenate(parts) if const is not None else array_ops.concat(parts, 0)



def space_to_batch_call(input, base_paddings, dilation_rate, spatial_dims, op):
    """``op(converted)`` between SpaceToBatchND and BatchToSpaceND (TF's
    ``_with_space_to_batch_call``): the input's spatial shape (static, else read
    with ``Shape``), ``base_paddings`` (None: read from the filter by the caller
    first) extended to multiples of ``dilation_rate``, spread over the dims."""
    dims = input.shape.as_list() if input.shape.ndims is not None else None
    spatial = None if dims is None else [dims[i] for i in spatial_dims]
    if spatial is None or None in spatial:
        shape = array_ops.shape(input)
        spatial = array_ops.stack([shape[i] for i in spatial_dims])
    if callable(base_paddings):
        base_paddings = base_paddings()
    paddings, crops = required_space_to_batch_paddings(input_shape=spatial, base_paddings=base_paddings,
                                                       block_shape=dilation_rate)
    block = _adjust(dilation_rate, 1, spatial_dims)
    paddings = _adjust(paddings, 0, spatial_dims)
    crops = _adjust(crops, 0, spatial_dims)
    converted = space_to_batch_nd(input=input, block_shape=block, paddings=paddings)
    return batch_to_space_nd(input=op(converted), block_shape=block, crops=crops)
