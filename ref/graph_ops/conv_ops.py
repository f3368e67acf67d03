"""TF1 ``tf.nn`` convolution and pooling builders over :mod:`ref.ops.conv` and
:mod:`ref.ops.pooling`: ``conv2d``, ``conv2d_transpose``, ``conv1d``,
``depthwise_conv2d`` (and ``_native``), ``max_pool``, ``avg_pool``, with
``tensorflow.compat.v1``'s signatures, argument forms (an int, 1-, 2- or
4-list for strides/ksize/dilations; a list of pairs for explicit padding) and
name scopes.
"""
from __future__ import annotations

import numpy as np
import collections.abc

from ref.graph_ops import array_ops
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.types import dtypes
from ref.types.shapes import dimension_value
from ref.graph_ops.with_space_to_batch import _base_paddings, space_to_batch_call

__all__ = ["conv2d", "conv2d_transpose", "conv1d", "depthwise_conv2d", "depthwise_conv2d_native", "max_pool",
           "avg_pool", "conv2d_backprop_input", "conv2d_backprop_filter",
           "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter", "pool",
           "max_pool_v2", "avg_pool_v2", "max_pool1d", "avg_pool1d", "max_pool2d", "avg_pool2d",
           "max_pool_with_argmax", "separable_conv2d", "conv1d_transpose", "conv_transpose", "conv3d_transpose"]


def _pick(new_name, new, old_name, old):
    """TF's deprecated_argument_lookup: one of two spellings of an argument."""
    if new is not None:
        if old is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return new
    return old


def get_sequence(value, n, channel_index, name):
    """strides/ksize/dilations as the op's full list (TF's ``_get_sequence``):
    None -> ones; an int or 1-list -> that value on every spatial dim; an
    n-list -> the spatial dims; an (n+2)-list -> as given."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, int) or (hasattr(value, "__index__") and not isinstance(value, (list, tuple))):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")
    if channel_index == 1:
        return [1, 1] + value
    return [1] + value + [1]


def convert_padding(padding, expected_length=4):
    """(padding, explicit_paddings): a string SAME/VALID, or a list of
    (before, after) pairs per dimension -> "EXPLICIT" and the flat list."""
    explicit = []
    if padding == "EXPLICIT":
        raise ValueError('"EXPLICIT" is not a valid value for `padding`. To use explicit padding, `padding` '
                         'must be a list.')
    if isinstance(padding, (list, tuple)):
        for i, dim in enumerate(padding):
            if not isinstance(dim, (list, tuple)) or len(dim) != 2:
                raise ValueError(f"When `padding` is a list, each element of `padding` must be a list/tuple of "
                                 f"size 2. Received: padding={padding} with element at index {i} of size "
                                 f"{len(dim) if isinstance(dim, (list, tuple)) else dim}")
            explicit.extend(int(p) for p in dim)
        if len(padding) != expected_length:
            raise ValueError(f"When padding is a list, it must be of size {expected_length}. Received: "
                             f"padding={padding} of size {len(padding)}")
        padding = "EXPLICIT"
    elif isinstance(padding, str):
        padding = padding.upper()
    return padding, explicit


def _fmt(data_format):
    return "NHWC" if data_format is None else data_format


def _channel_index(data_format):
    return 1 if data_format.startswith("NC") else 3


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
           dilations=[1, 1, 1, 1], name=None, filters=None):  # noqa: B006 (TF's signature)
    """2-D convolution of a 4-D ``input`` with ``filter`` [height, width, in, out]
    (``Conv2D``): output[b, i, j, k] = sum_{di, dj, q} input[b, strides[1] * i + di,
    strides[2] * j + dj, q] * filter[di, dj, q, k]. ``padding``: "SAME", "VALID" or
    a list of 4 (before, after) pairs."""
    filter = _pick("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    data_format = _fmt(data_format)
    c = _channel_index(data_format)
    return apply_op("Conv2D", input=input, filter=filter, strides=get_sequence(strides, 2, c, "strides"),
                    padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
                    data_format=data_format, dilations=get_sequence(dilations, 2, c, "dilations"), name=name)


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,
                          data_format="NHWC", dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of conv2d with respect to its input (``Conv2DBackpropInput``)."""
    padding, explicit = convert_padding(padding)
    return apply_op("Conv2DBackpropInput", input_sizes=input_sizes, filter=filter, out_backprop=out_backprop,
                    strides=list(strides), padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=explicit, data_format=data_format, dilations=list(dilations), name=name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True,
                           data_format="NHWC", dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of conv2d with respect to its filter (``Conv2DBackpropFilter``)."""
    padding, explicit = convert_padding(padding)
    return apply_op("Conv2DBackpropFilter", input=input, filter_sizes=filter_sizes, out_backprop=out_backprop,
                    strides=list(strides), padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=explicit, data_format=data_format, dilations=list(dilations), name=name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):
    """The transpose of conv2d (the gradient of conv2d with respect to its
    input, ``Conv2DBackpropInput``): ``value`` [batch, h, w, in_channels] with
    ``filter`` [height, width, output_channels, in_channels] gives
    ``output_shape``."""
    value = _pick("input", input, "value", value)
    filter = _pick("filters", filters, "filter", filter)
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as name:
        # TF converts the arguments as the op's inputs, in the op def's order
        # (input_sizes, filter, out_backprop): "conv2d_transpose/input_sizes" is the
        # Pack of a list holding tensors
        output_shape_ = convert_to_tensor(output_shape, name="input_sizes")
        filter = convert_to_tensor(filter, name="filter")
        value = convert_to_tensor(value, name="out_backprop")
        axis = 3 if data_format == "NHWC" else 1
        if value.shape.ndims is not None and filter.shape.ndims is not None and \
                not value.shape[axis:axis + 1].is_compatible_with(filter.shape[3:4]):
            raise ValueError(f"input channels does not match filter's input channels, {value.shape[axis]} != "
                             f"{filter.shape[3]}")
        if output_shape_.shape.ndims is not None and not output_shape_.shape.is_compatible_with([4]):
            raise ValueError(f"output_shape must have shape (4,), got {output_shape_.shape}")
        if isinstance(output_shape, (list, tuple)) and filter.shape.ndims is not None and \
                dimension_value(filter.shape[2]) is not None and int(output_shape[axis]) != dimension_value(filter.shape[2]):
            raise ValueError(f"output_shape does not match filter's output channels, {output_shape[axis]} != "
                             f"{filter.shape[2]}")
        padding, explicit = convert_padding(padding)
        c = _channel_index(data_format)
        return apply_op("Conv2DBackpropInput", input_sizes=output_shape_, filter=filter, out_backprop=value,
                        strides=get_sequence(strides, 2, c, "strides"), padding=padding,
                        explicit_paddings=explicit, data_format=data_format,
                        dilations=get_sequence(dilations, 2, c, "dilations"), name=name)


def conv2d_transpose_v2(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                        name=None):
    """TF2's ``tf.nn.conv2d_transpose(input, filters, output_shape, strides, ...)``."""
    data_format = "NHWC" if data_format is None else data_format
    return conv2d_transpose(input, filters, output_shape, strides, padding=padding, data_format=data_format,
                            name=name, dilations=dilations)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None,
                     name=None):
    """The transpose of conv1d: ``input`` [batch, width, in] (NWC) and ``filters`` [width,
    out, in] as a height-1 ``Conv2DBackpropInput`` (ExpandDims, Concat of the output
    shape, the backprop, Squeeze, as TF builds it)."""
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as name:
        if data_format is None or data_format == "NWC":
            data_format, spatial_start_dim, channel_index = "NHWC", 1, 2
        elif data_format == "NCW":
            data_format, spatial_start_dim, channel_index = "NCHW", 2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        strides = [1] + get_sequence(strides, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        input = array_ops.expand_dims(input, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        output_shape = output_shape if isinstance(output_shape, Tensor) else list(output_shape)
        output_shape = array_ops.concat([output_shape[:spatial_start_dim], [1], output_shape[spatial_start_dim:]], 0)
        result = apply_op("Conv2DBackpropInput", input_sizes=output_shape, filter=filters, out_backprop=input,
                          strides=strides, padding=padding, data_format=data_format, dilations=dilations, name=name)
        return array_ops.squeeze(result, [spatial_start_dim])


def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME", data_format="NDHWC",
                     name=None, input=None, filters=None, dilations=None):
    """The transpose of conv3d (TF1's ``tf.nn.conv3d_transpose``: ``value``/``input`` and
    ``filter``/``filters`` are each other's aliases); see :func:`conv3d_transpose_v2`."""
    filter = _pick("filters", filters, "filter", filter)
    value = _pick("input", input, "value", value)
    return conv3d_transpose_v2(value, filter, output_shape, strides, padding=padding, data_format=data_format,
                               dilations=dilations, name=name)


def conv3d_transpose_v2(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC", dilations=None,
                        name=None):
    """TF2's ``tf.nn.conv3d_transpose``: ``input`` [batch, depth, height, width, in] (NDHWC)
    and ``filters`` [depth, height, width, out, in] as ``Conv3DBackpropInputV2`` of
    ``output_shape``; ``strides``/``dilations`` an int or a 1-, 3- or 5-list."""
    with name_scope(name, "conv3d_transpose", [input, filters, output_shape]) as name:
        data_format = "NDHWC" if data_format is None else data_format
        channel_index = 1 if data_format.startswith("NC") else 4
        return apply_op("Conv3DBackpropInputV2", input_sizes=output_shape, filter=filters, out_backprop=input,
                        strides=get_sequence(strides, 3, channel_index, "strides"), padding=padding,
                        data_format=data_format, dilations=get_sequence(dilations, 3, channel_index, "dilations"),
                        name=name)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None,
                   name=None):
    """``tf.nn.conv_transpose``: conv1d_transpose or conv2d_transpose_v2 by the length of
    ``output_shape`` (3, 4 or 5)."""
    with name_scope(name, "conv_transpose", [input, filters, output_shape]) as name:
        if isinstance(output_shape, Tensor):
            n = dimension_value(output_shape.shape[0]) - 2
        elif isinstance(output_shape, collections.abc.Sized):
            n = len(output_shape) - 2
        else:
            raise ValueError(f"`output_shape` must be a tensor or sized collection. Received: "
                             f"output_shape={output_shape}")
        if not 1 <= n <= 3:
            raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={output_shape} "
                             f"of length {n + 2}.")
        op = (conv1d_transpose, conv2d_transpose_v2, conv3d_transpose_v2)[n - 1]
        return op(input, filters, output_shape, strides, padding=padding, data_format=data_format,
                  dilations=dilations, name=name)


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None,
           name=None, input=None, dilations=None):
    """1-D convolution of ``value`` [batch, width, in] (NWC) or [batch, in, width]
    (NCW) with ``filters`` [width, in, out]: a Conv2D over a height-1 image
    (ExpandDims, Conv2D, Squeeze, as TF 2.x builds it: the Conv2D takes the
    scope's name, the Squeeze is ``<scope>/Squeeze``)."""
    value = _pick("input", input, "value", value)
    with name_scope(name, "conv1d", [value, filters]) as name:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start_dim, channel_index = "NHWC", -3, 2
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start_dim, channel_index = "NCHW", -2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        stride = [1] + get_sequence(stride, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        value = array_ops.expand_dims(value, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        padding, explicit = convert_padding(padding, 3)
        if explicit:
            explicit = [0, 0] + explicit
            padding_ = "EXPLICIT"
        else:
            padding_ = padding
        result = apply_op("Conv2D", input=value, filter=filters, strides=stride, padding=padding_,
                          use_cudnn_on_gpu=True if use_cudnn_on_gpu is None else use_cudnn_on_gpu,
                          explicit_paddings=explicit, data_format=data_format, dilations=dilations, name=name)
        return array_ops.squeeze(result, [spatial_start_dim])


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC", dilations=[1, 1, 1, 1],
                            name=None):  # noqa: B006
    """Depthwise 2-D convolution (``DepthwiseConv2dNative``): filter [h, w, in,
    multiplier]; output channel q * multiplier + m is input channel q convolved
    with filter[:, :, q, m]."""
    padding, explicit = convert_padding(padding)
    return apply_op("DepthwiseConv2dNative", input=input, filter=filter, strides=list(strides), padding=padding,
                    explicit_paddings=explicit, data_format=data_format, dilations=list(dilations), name=name)


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                           data_format="NHWC", dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of depthwise_conv2d_native with respect to its input."""
    padding, explicit = convert_padding(padding)
    return apply_op("DepthwiseConv2dNativeBackpropInput", input_sizes=input_sizes, filter=filter,
                    out_backprop=out_backprop, strides=list(strides), padding=padding, explicit_paddings=explicit,
                    data_format=data_format, dilations=list(dilations), name=name)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                            data_format="NHWC", dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of depthwise_conv2d_native with respect to its filter."""
    padding, explicit = convert_padding(padding)
    return apply_op("DepthwiseConv2dNativeBackpropFilter", input=input, filter_sizes=filter_sizes,
                    out_backprop=out_backprop, strides=list(strides), padding=padding, explicit_paddings=explicit,
                    data_format=data_format, dilations=list(dilations), name=name)


def _with_space_to_batch(input, filter, rate, padding, conv):
    """TF's ``with_space_to_batch`` as ``depthwise_conv2d`` and ``separable_conv2d``
    call it: the filter's ``Shape`` (a constant when static) and the
    ``dilation_rate`` constant first; with every rate 1, ``conv(input, padding)``;
    else ``conv(converted, "VALID")`` between SpaceToBatchND and BatchToSpaceND
    over dims 1 and 2 (TF passes no data format here), SAME's base paddings read
    from the filter's spatial shape."""
    filter_shape = array_ops.shape(filter)
    rate_t = convert_to_tensor(rate, dtype=dtypes.int32, name="dilation_rate")
    value = constant_value(rate_t)
    if value is not None and np.any(value < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={value}")
    if value is not None and bool(np.all(value == 1)):
        return conv(input, padding)
    padding, _ = convert_padding(padding)
    if padding == "SAME":
        shape_value = constant_value(filter_shape)
        rate_v = value if value is not None else rate_t
        if shape_value is not None:
            base = _base_paddings(shape_value, 2, rate_v)
        else:  # read from the filter after the input's spatial shape, as TF
            def base():
                return _base_paddings(array_ops.shape(filter), 2, rate_v)
    elif padding == "VALID":
        base = np.zeros([2, 2], np.int32)
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    return space_to_batch_call(input, base, rate_t, [1, 2], lambda converted: conv(converted, "VALID"))


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None, dilations=None):
    """Depthwise 2-D convolution under the name scope "depthwise": TF's graph,
    the native op inside ``with_space_to_batch`` (SpaceToBatchND / native op /
    BatchToSpaceND for a ``rate`` above 1)."""
    rate = _pick("dilations", dilations, "rate", rate)
    with name_scope(name, "depthwise", [input, filter]) as name:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        rate = [1, 1] if rate is None else [int(r) for r in rate]
        if len(rate) != 2:
            raise ValueError(f"rate must be of length 2, got {rate}")
        if any(r != 1 for r in rate) and any(int(s) != 1 for s in strides):
            raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
        data_format = _fmt(data_format)
        return _with_space_to_batch(input, filter, rate, padding, lambda x, pad: depthwise_conv2d_native(
            x, filter, strides, pad, data_format=data_format, name=name))


def convolution(input, filter, padding, strides=None, dilation_rate=None, name=None, data_format=None,
                filters=None, dilations=None):
    """N-D convolution for N = 1, 2 or 3 (conv1d / conv2d / Conv3D by the filter's rank)."""
    filter = _pick("filters", filters, "filter", filter)
    dilation_rate = _pick("dilations", dilations, "dilation_rate", dilation_rate)
    filter = convert_to_tensor(filter, name="filter")
    rank = filter.shape.ndims
    if rank == 3:
        fmt = None if data_format is None else ("NCHW" if data_format.startswith("NC") else "NHWC")
        return conv1d(input, filter, strides if strides is not None else 1, padding, data_format=fmt,
                      dilations=dilation_rate, name=name or "convolution")
    if rank == 4:
        with name_scope(name, "convolution", [input, filter]) as scope:
            return conv2d(input, filter, strides, padding, data_format=_fmt(data_format), dilations=dilation_rate,
                          name=scope)
    if rank == 5:
        with name_scope(name, "convolution", [input, filter]) as scope:
            fmt = data_format or "NDHWC"
            c = 1 if fmt.startswith("NC") else 4
            return apply_op("Conv3D", input=input, filter=filter, strides=get_sequence(strides, 3, c, "strides"),
                            padding=padding, data_format=fmt,
                            dilations=get_sequence(dilation_rate, 3, c, "dilations"), name=scope)
    raise ValueError(f"convolution supports 1-D, 2-D and 3-D filters (rank 3, 4 or 5), got rank {rank}")


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Max over ``ksize`` windows moved by ``strides`` (``MaxPool``)."""
    value = _pick("input", input, "value", value)
    with name_scope(name, "MaxPool", [value]) as name:
        padding, explicit = convert_padding(padding)
        data_format = _fmt(data_format)
        c = _channel_index(data_format)
        return apply_op("MaxPool", input=value, ksize=get_sequence(ksize, 2, c, "ksize"),
                        strides=get_sequence(strides, 2, c, "strides"), padding=padding,
                        explicit_paddings=explicit, data_format=data_format, name=name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Mean over ``ksize`` windows moved by ``strides``, padding not counted (``AvgPool``)."""
    value = _pick("input", input, "value", value)
    with name_scope(name, "AvgPool", [value]) as name:
        data_format = _fmt(data_format)
        c = _channel_index(data_format)
        return apply_op("AvgPool", value=value, ksize=get_sequence(ksize, 2, c, "ksize"),
                        strides=get_sequence(strides, 2, c, "strides"), padding=padding.upper(),
                        data_format=data_format, name=name)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,
         data_format=None, dilations=None):
    """N-D (N = 1, 2, 3) max or average pooling (``pooling_type`` "MAX" or
    "AVG") as TF builds it: under the scope "<type>_pool", the input converted,
    the ``dilation_rate`` constant of TF's space-to-batch wrapper, then the
    pooling op named after the scope (1-D: a height-1 2-D pool between
    ExpandDims and Squeeze). A dilation above 1 is not supported in ref."""
    dilation_rate = _pick("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        n = len(window_shape)
        if n < 1 or n > 3:
            raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape} of "
                             f"length {n}")
        input.shape.with_rank(n + 2)
        rate = np.array([1] * n if dilation_rate is None else dilation_rate, dtype=np.int32)
        if len(rate) != n:
            raise ValueError(f"`len(dilation_rate)` should be {n}. Received: dilation_rate={list(rate)} of length "
                             f"{len(rate)}")
        if np.any(rate < 1):
            raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate={rate}")
        stride = np.array([1] * n if strides is None else strides, dtype=np.int32)
        if padding == "SAME" and np.any(rate > 1):
            raise ValueError(f"pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                             f"padding={padding} and dilation_rate={rate}")
        if np.any(stride > window_shape):
            raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                             f"implementations. Received: strides={stride} and window_shape={window_shape}")
        if pooling_type not in ("MAX", "AVG"):
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        if np.any(rate > 1):
            raise ValueError("pool: dilation_rate other than 1 is not supported in ref")
        convert_to_tensor(rate, dtype=dtypes.int32, name="dilation_rate")  # TF's with_space_to_batch
        channels_first = data_format is not None and data_format.startswith("NC")
        window = ([1, 1] + list(window_shape)) if channels_first else ([1] + list(window_shape) + [1])
        step = ([1, 1] + stride.tolist()) if channels_first else ([1] + stride.tolist() + [1])
        first = 2 if channels_first else 1
        if n == 1:
            if data_format not in (None, "NWC", "NCW"):
                raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: data_format={data_format}")
            fmt = "NCHW" if channels_first else "NHWC"
            x = array_ops.expand_dims(input, first)
            fn = max_pool if pooling_type == "MAX" else avg_pool
            out = fn(x, [1] + window, [1] + step, padding, data_format=fmt, name=scope)
            return array_ops.squeeze(out, [first])
        if n == 2:
            fn = max_pool if pooling_type == "MAX" else avg_pool
            return fn(input, window, step, padding, data_format=_fmt(data_format), name=scope)
        op = "MaxPool3D" if pooling_type == "MAX" else "AvgPool3D"
        return apply_op(op, input=input, ksize=window, strides=step, padding=padding,
                        data_format=data_format or "NDHWC", name=scope)


def _pool1d(op_type, input, ksize, strides, padding, data_format, name, default):
    if data_format is None or data_format == "NWC":
        data_format, expanding_dim, c = "NHWC", 1, 2
    elif data_format == "NCW":
        data_format, expanding_dim, c = "NCHW", 2, 1
    else:
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    with name_scope(name, default, [input]) as name:
        ksize = [1] + get_sequence(ksize, 1, c, "ksize")
        strides = [1] + get_sequence(strides, 1, c, "strides")
        padding, explicit = convert_padding(padding, 3)
        if explicit:
            explicit = [0, 0] + explicit
        x = array_ops.expand_dims(input, expanding_dim)
        extra = {"explicit_paddings": explicit} if op_type == "MaxPool" else {}
        arg = "input" if op_type == "MaxPool" else "value"
        # TF: the pooling op takes the scope's name ("MaxPool1d"), its Squeeze is "MaxPool1d/Squeeze"
        out = apply_op(op_type, ksize=ksize, strides=strides, padding=padding, data_format=data_format,
                       **{arg: x}, **extra, name=name)
        return array_ops.squeeze(out, [expanding_dim])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """1-D max pooling of [batch, width, channels] (NWC) or NCW: a height-1 MaxPool."""
    return _pool1d("MaxPool", input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """1-D average pooling: a height-1 AvgPool."""
    return _pool1d("AvgPool", input, ksize, strides, padding, data_format, name, "AvgPool1D")


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """TF2's max_pool2d: max_pool with an int, 2- or 4-list ksize/strides."""
    return max_pool(input, ksize, strides, padding, data_format=data_format, name=name or "MaxPool2d")


def avg_pool2d(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """``tf.compat.v1.nn.avg_pool2d``: TF1 exports it as ``avg_pool`` itself (its
    arguments, ``value`` or ``input``; name scope "AvgPool")."""
    return avg_pool(value, ksize, strides, padding, data_format=data_format, name=name, input=input)


def _rank_of(input, data_format):
    input = convert_to_tensor(input)
    n = input.shape.ndims
    if n is None:
        n = len(data_format) if data_format else None
    if n is None:
        raise ValueError("The input must have a rank or a data format must be given")
    return input, n - 2


def _pool3d_op(op_type, input, ksize, strides, padding, data_format, name):
    c = 1 if data_format and data_format.startswith("NC") else 4
    return apply_op(op_type, input=input, ksize=get_sequence(ksize, 3, c, "ksize"),
                    strides=get_sequence(strides, 3, c, "strides"), padding=padding,
                    data_format=data_format or "NDHWC", name=name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """TF2's max_pool: 1-D or 2-D by the input's rank."""
    input, n = _rank_of(input, data_format)
    if n == 1:
        return max_pool1d(input, ksize, strides, padding, data_format or "NWC", name=name)
    if n == 2:  # TF dispatches to max_pool2d (name scope "MaxPool2d")
        return max_pool2d(input, ksize, strides, padding, data_format=data_format or "NHWC", name=name)
    if n == 3:  # TF calls the generated op directly: no name scope
        return _pool3d_op("MaxPool3D", input, ksize, strides, padding, data_format, name)
    raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={input.shape} of rank {n + 2}.")


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """TF2's avg_pool: 1-D or 2-D by the input's rank."""
    input, n = _rank_of(input, data_format)
    if n == 1:
        return avg_pool1d(input, ksize, strides, padding, data_format or "NWC", name=name)
    if n == 2:
        return avg_pool(input, ksize, strides, padding, data_format=data_format or "NHWC", name=name)
    if n == 3:  # TF calls the generated op directly: no name scope
        return _pool3d_op("AvgPool3D", input, ksize, strides, padding, data_format, name)
    raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={input.shape} of rank {n + 2}.")


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None, name=None,
                         output_dtype=None, include_batch_in_index=False):  # noqa: N803 (TF's argument name)
    """(output, argmax) of MaxPool over NHWC input; argmax flattens
    ((b * height + y) * width + x) * channels + c (b only with
    ``include_batch_in_index``)."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    Targmax = _pick("output_dtype", output_dtype, "Targmax", Targmax)
    return apply_op("MaxPoolWithArgmax", input=input, ksize=get_sequence(ksize, 2, 3, "ksize"),
                    strides=get_sequence(strides, 2, 3, "strides"), padding=padding,
                    Targmax=Targmax if Targmax is not None else "int64",
                    include_batch_in_index=include_batch_in_index, name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,
                     data_format=None, dilations=None):
    """A depthwise convolution (filter [h, w, in, multiplier]) followed by a
    1x1 convolution (pointwise_filter [1, 1, in * multiplier, out], VALID)."""
    rate = _pick("dilations", dilations, "rate", rate)
    with name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as name:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pf = pointwise_filter.shape
        if pf.ndims is not None and (pf.as_list()[0] != 1 or pf.as_list()[1] != 1) and pf.as_list()[0] is not None:
            raise ValueError(f"Pointwise filter must have height and width 1, got {pf}")
        data_format = _fmt(data_format)
        rate = [1, 1] if rate is None else [int(r) for r in rate]
        c = _channel_index(data_format)
        depthwise = _with_space_to_batch(input, depthwise_filter, rate, padding, lambda x, pad: depthwise_conv2d_native(
            x, depthwise_filter, get_sequence(strides, 2, c, "strides"), pad, data_format=data_format,
            name="depthwise"))
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID", data_format=data_format, name=name)
