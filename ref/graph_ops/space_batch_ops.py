"""TF1 builders that move space into the batch and back (``tf.space_to_batch_nd``,
``tf.batch_to_space_nd``, the v1 ``tf.space_to_batch`` / ``tf.batch_to_space``,
``tf.required_space_to_batch_paddings``) and ``tf.nn.convolution`` with a
``dilation_rate`` above 1, which TF builds as they do (nn_ops' ``Convolution``
over ``_WithSpaceToBatch``): the dilation rate and (SAME) the base paddings as
constants, ``SpaceToBatchND``, a plain VALID convolution, ``BatchToSpaceND``.
Kernels: ``ref/ops/space_depth.py``."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.types.shapes import as_shape
from ref.graph_ops import array_ops, conv3d_ops, conv_ops
from ref.graph_ops.variables import Variable

__all__ = ["space_to_batch_nd", "batch_to_space_nd", "space_to_batch", "batch_to_space",
           "required_space_to_batch_paddings", "convolution"]


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """``SpaceToBatchND``: the spatial dims after the batch padded by ``paddings``
    and split into ``block_shape`` blocks that move into the batch."""
    return apply_op("SpaceToBatchND", input=input, block_shape=block_shape, paddings=paddings, name=name)


def batch_to_space_nd(input, block_shape, crops, name=None):
    """``BatchToSpaceND``: the inverse of :func:`space_to_batch_nd`, then ``crops`` removed."""
    return apply_op("BatchToSpaceND", input=input, block_shape=block_shape, crops=crops, name=name)


def _block_size(block_size, block_shape):
    if block_shape is not None:
        if block_size is not None:
            raise ValueError("Cannot specify both 'block_shape' and 'block_size'")
        return block_shape
    return block_size


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):
    """``tf.space_to_batch`` (v1): :func:`space_to_batch_nd` of a 4-D input with a
    square ``block_size`` (an int64 block shape, as TF passes it)."""
    size = _block_size(block_size, block_shape)
    result = space_to_batch_nd(input, np.array([size, size], dtype=np.int64), paddings, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def batch_to_space(input, crops, block_size, name=None, block_shape=None):
    """``tf.batch_to_space`` (v1): :func:`batch_to_space_nd` with a square ``block_size``."""
    size = _block_size(block_size, block_shape)
    result = batch_to_space_nd(input, np.array([size, size], dtype=np.int64), crops, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


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


def _plain_conv(inp, filter, m, data_format, name):
    """The VALID stride-1 convolution between SpaceToBatchND and BatchToSpaceND
    (TF's ``_NonAtrousConvolution``)."""
    if m == 1:
        return conv_ops.conv1d(value=inp, filters=filter, stride=1, padding="VALID",
                               data_format=data_format or "NWC", name=name)
    if m == 2:
        fmt = data_format or "NHWC"
        return conv_ops.conv2d(inp, filter, [1, 1, 1, 1], "VALID", data_format=fmt, name=name)
    fmt = data_format or "NDHWC"
    return conv3d_ops.conv3d(inp, filter, [1] * 5, "VALID", data_format=fmt, name=name)


def _dilated(input, filter, padding, strides, rate, data_format, scope):
    """TF's ``Convolution`` with a dilation above 1, inside the op's name scope."""
    m = len(rate)
    if any(int(s) != 1 for s in strides):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={list(strides)} and dilation_rate={list(rate)}")
    input_shape = as_shape(input.shape)
    first = 2 if data_format is not None and data_format.startswith("NC") else 1
    spatial_dims = list(range(first, first + m))
    dilation_rate = convert_to_tensor(np.array(rate, np.int32), dtypes.int32, name="dilation_rate")
    const_rate = np.array(rate, np.int32)
    if padding == "SAME":
        filter_shape = as_shape(filter.shape)
        if not filter_shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {filter_shape} to a Tensor.")
        const_filter = constant_value(convert_to_tensor(filter_shape.as_list(), dtypes.int32, name="filter_shape"))
        base_paddings = _base_paddings(const_filter, m, const_rate)
    elif padding == "VALID":
        base_paddings = np.zeros([m, 2], np.int32)
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    dims = input_shape.as_list() if input_shape.ndims is not None else None
    spatial = None if dims is None else [dims[i] for i in spatial_dims]
    if spatial is None or None in spatial:
        shape = array_ops.shape(input)
        spatial = array_ops.stack([shape[i] for i in spatial_dims])
    paddings, crops = required_space_to_batch_paddings(input_shape=spatial, base_paddings=base_paddings,
                                                       block_shape=dilation_rate)
    block = _adjust(dilation_rate, 1, spatial_dims)
    paddings = _adjust(paddings, 0, spatial_dims)
    crops = _adjust(crops, 0, spatial_dims)
    converted = space_to_batch_nd(input=input, block_shape=block, paddings=paddings)
    result = _plain_conv(converted, filter, m, data_format, scope)
    return batch_to_space_nd(input=result, block_shape=block, crops=crops)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None, data_format=None,
                filters=None, dilations=None):
    """``tf.nn.convolution``: N-D convolution for N = 1, 2 or 3 by the filter's
    rank; with a ``dilation_rate`` above 1, TF's SpaceToBatchND / VALID
    convolution / BatchToSpaceND graph (strides must then be 1)."""
    filter = conv_ops._pick("filters", filters, "filter", filter)
    dilation_rate = conv_ops._pick("dilations", dilations, "dilation_rate", dilation_rate)
    # TF (convolution_internal): a non-tensor filter, then input, converted in a scope of their own
    if not isinstance(filter, (Tensor, Variable)):
        with name_scope("convolution_internal", None, [filter, input]):
            filter = convert_to_tensor(filter, name="filters")
    if not isinstance(input, (Tensor, Variable)):
        with name_scope("convolution_internal", None, [filter, input]):
            input = convert_to_tensor(input, name="input")
    filter = convert_to_tensor(filter, name="filter")
    rank = filter.shape.ndims
    if rank in (3, 4, 5) and dilation_rate is not None:
        m = rank - 2
        channel = 1 if data_format is not None and data_format.startswith("NC") else m + 1
        full = conv_ops.get_sequence(dilation_rate, m, channel, "dilations")
        rate = full[2:] if channel == 1 else full[1:-1]
        if any(r != 1 for r in rate):
            if any(r < 1 for r in rate):
                raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate={rate}")
            full_strides = conv_ops.get_sequence(strides, m, channel, "strides")
            stride = full_strides[2:] if channel == 1 else full_strides[1:-1]
            with name_scope(name, "convolution", [input, filter]) as scope:
                input = convert_to_tensor(input, name="input")
                return _dilated(input, filter, padding, stride, rate, data_format, scope)
    return conv_ops.convolution(input, filter, padding, strides=strides, dilation_rate=dilation_rate, name=name,
                                data_format=data_format)
