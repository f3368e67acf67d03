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
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.types.shapes import as_shape
from ref.graph_ops import conv3d_ops, conv_ops
from ref.graph_ops.variables import Variable
from ref.graph_ops.with_space_to_batch import (_base_paddings, batch_to_space_nd, required_space_to_batch_paddings,  # noqa: F401,E501
                                                 space_to_batch_call, space_to_batch_nd)

__all__ = ["space_to_batch_nd", "batch_to_space_nd", "space_to_batch", "batch_to_space",
           "required_space_to_batch_paddings", "convolution"]


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
    return space_to_batch_call(input, base_paddings, dilation_rate, spatial_dims,
                               lambda converted: _plain_conv(converted, filter, m, data_format, scope))


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
