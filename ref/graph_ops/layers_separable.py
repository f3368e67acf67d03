"""TF1's depthwise-separable convolution layers (``tf.layers.separable_conv2d``,
``separable_conv1d`` and their classes), as the legacy ``tf_keras`` layers
build them: variables ``depthwise_kernel`` ``[*kernel_size, in, depth_multiplier]``
and ``pointwise_kernel`` ``[1, (1,) in * depth_multiplier, filters]`` (both
``glorot_uniform`` by default, the variable scope's), then ``bias``; the output
is ``tf.nn.separable_conv2d`` (a 1-D layer expands its input and kernels to 2-D
and squeezes the result after the bias), plus bias, then ``activation``.
"""
from __future__ import annotations

from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import array_ops, conv_ops, init_ops, nn_ops
from ref.graph_ops.layers import (_activity, _data_format, _in_channels, _layer_class, _layer_scope, _padding,
                                  _tuple, _variable)

__all__ = ["separable_conv2d", "separable_conv1d", "SeparableConv2D", "SeparableConv1D"]


def _separable(rank, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
               activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
               depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
               depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name, reuse, default_name):
    kernel_size = _tuple(kernel_size, rank, "kernel_size")
    strides = _tuple(strides, rank, "strides")
    dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
    fmt, _ = _data_format(data_format, rank)
    nchw = fmt == "channels_first"
    tf_fmt = "NCHW" if nchw else "NHWC"
    with _layer_scope(name, default_name, [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        dtype = inputs.dtype.base_dtype
        in_channels = _in_channels(inputs, 1 if nchw else -1)
        depthwise = _variable("depthwise_kernel", list(kernel_size) + [in_channels, depth_multiplier], dtype,
                              depthwise_initializer, depthwise_regularizer, depthwise_constraint, trainable)
        pointwise = _variable("pointwise_kernel", [1] * rank + [depth_multiplier * in_channels, filters], dtype,
                              pointwise_initializer, pointwise_regularizer, pointwise_constraint, trainable)
        bias = _variable("bias", [filters], dtype, bias_initializer, bias_regularizer, bias_constraint,
                         trainable) if use_bias else None
        spatial_start = 2 if nchw else 1
        if rank == 1:  # a 2-D convolution over a height-1 image
            strides, dilation_rate = strides * 2, (1,) + dilation_rate
            inputs = array_ops.expand_dims(inputs, spatial_start)
            depthwise = array_ops.expand_dims(depthwise, 0)
            pointwise = array_ops.expand_dims(pointwise, 0)
        full_strides = (1, 1) + strides if nchw else (1,) + strides + (1,)
        outputs = conv_ops.separable_conv2d(inputs, depthwise, pointwise, strides=list(full_strides),
                                            padding=_padding(padding), rate=list(dilation_rate), data_format=tf_fmt)
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias, data_format=tf_fmt)
        if rank == 1:
            outputs = array_ops.squeeze(outputs, [spatial_start])
        if activation is not None:
            outputs = activation(outputs)
        return _activity(outputs, activity_regularizer)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                     depthwise_initializer=None, pointwise_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), depthwise_regularizer=None,
                     pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None):
    """Depthwise-separable 2-D convolution layer: each input channel convolved with
    ``depth_multiplier`` filters, then a 1x1 convolution to ``filters`` channels."""
    return _separable(2, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
                      depth_multiplier, activation, use_bias, depthwise_initializer, pointwise_initializer,
                      bias_initializer, depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                      activity_regularizer, depthwise_constraint, pointwise_constraint, bias_constraint, trainable,
                      name, reuse, "separable_conv2d")


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                     dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                     depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Depthwise-separable 1-D convolution layer (a height-1 :func:`separable_conv2d`)."""
    return _separable(1, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
                      depth_multiplier, activation, use_bias, depthwise_initializer, pointwise_initializer,
                      bias_initializer, depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                      activity_regularizer, depthwise_constraint, pointwise_constraint, bias_constraint, trainable,
                      name, reuse, "separable_conv1d")


SeparableConv2D = _layer_class("SeparableConv2D", separable_conv2d, "separable_conv2d", ("filters", "kernel_size"))
SeparableConv1D = _layer_class("SeparableConv1D", separable_conv1d, "separable_conv1d", ("filters", "kernel_size"))
