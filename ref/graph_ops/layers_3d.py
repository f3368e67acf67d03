"""TF1 3-D layers (``tf.layers.conv3d`` / ``Conv3D``, ``conv3d_transpose`` /
``Conv3DTranspose``, ``max_pooling3d`` /
``MaxPooling3D``, ``average_pooling3d`` / ``AveragePooling3D``) as TF's
Keras-based legacy layers build them: a ``kernel`` [kd, kh, kw, in, filters]
and a ``bias`` under the layer's variable scope, one ``Conv3D`` op named
``<scope>/Conv3D``, then ``BiasAdd`` and the activation; pooling is one
``MaxPool3D`` / ``AvgPool3D`` in the layer's name scope, channels_first
inputs transposed to NDHWC around it (TF's 3-D pooling takes NDHWC only).
"""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import array_ops, conv3d_ops, conv_ops, init_ops, nn_ops
from ref.graph_ops.layers import (_activity, _data_format, _in_channels, _layer_class, _layer_scope, _padding,
                                  _tuple, _variable)

__all__ = ["conv3d", "conv3d_transpose", "max_pooling3d", "average_pooling3d", "Conv3D", "Conv3DTranspose",
           "MaxPooling3D", "AveragePooling3D"]


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """3-D convolution layer: kernel [kd, kh, kw, in_channels, filters]
    (``Conv3D``) plus bias, then ``activation``; padding "valid" or "same"."""
    kernel_size = _tuple(kernel_size, 3, "kernel_size")
    strides = _tuple(strides, 3, "strides")
    dilation_rate = _tuple(dilation_rate, 3, "dilation_rate")
    fmt, _ = _data_format(data_format)
    last = fmt == "channels_last"
    with _layer_scope(name, "conv3d", [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        dtype = inputs.dtype.base_dtype
        kernel = _variable("kernel", list(kernel_size) + [_in_channels(inputs, -1 if last else 1), filters], dtype,
                           kernel_initializer, kernel_regularizer, kernel_constraint, trainable)
        bias = _variable("bias", [filters], dtype, bias_initializer, bias_regularizer, bias_constraint,
                         trainable) if use_bias else None
        wrap = (lambda v: [1, *v, 1]) if last else (lambda v: [1, 1, *v])
        with name_scope("Conv3D") as scope:
            outputs = conv3d_ops.conv3d(inputs, kernel, wrap(strides), _padding(padding),
                                        data_format="NDHWC" if last else "NCDHW", dilations=wrap(dilation_rate),
                                        name=scope)
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias, data_format="NHWC" if last else "NCHW")
        if activation is not None:
            outputs = activation(outputs)
        return _activity(outputs, activity_regularizer)


def _deconv_length(length, kernel, padding, stride):
    """tf_keras' ``conv_utils.deconv_output_length`` without output_padding: ``length *
    stride`` ("same"), plus ``max(kernel - stride, 0)`` ("valid"); on a tensor length
    each is a ``mul`` (and an ``add``, even of 0) in the graph, as Keras writes it."""
    if length is None:
        return None
    return length * stride + max(kernel - stride, 0) if padding == "VALID" else length * stride


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None):
    """Transposed 3-D convolution layer: kernel [kd, kh, kw, filters, in_channels]
    plus bias, then ``activation``. As tf_keras' ``Conv3DTranspose.call``: the
    output's depth, height and width come from the *dynamic* ``tf.shape`` of the
    input (``in * stride``, "valid" adding ``max(k - stride, 0)``), stacked with
    the batch size and ``filters`` into the ``output_shape`` of one
    ``tf.nn.conv3d_transpose`` (``Conv3DBackpropInputV2``); the static shape is
    set from the input's static shape afterwards."""
    kernel_size = _tuple(kernel_size, 3, "kernel_size")
    strides = _tuple(strides, 3, "strides")
    fmt, _ = _data_format(data_format)
    last = fmt == "channels_last"
    pad = _padding(padding)
    with _layer_scope(name, "conv3d_transpose", [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        if inputs.shape.ndims is not None and inputs.shape.ndims != 5:
            raise ValueError(f"Inputs should have rank 5. Received input shape: {inputs.shape}")
        dtype = inputs.dtype.base_dtype
        kernel = _variable("kernel", list(kernel_size) + [filters, _in_channels(inputs, -1 if last else 1)], dtype,
                           kernel_initializer, kernel_regularizer, kernel_constraint, trainable)
        bias = _variable("bias", [filters], dtype, bias_initializer, bias_regularizer, bias_constraint,
                         trainable) if use_bias else None
        inputs_shape = array_ops.shape(inputs)
        axes = (1, 2, 3) if last else (2, 3, 4)
        batch_size = inputs_shape[0]
        lengths = [inputs_shape[a] for a in axes]
        out = [_deconv_length(n, k, pad, st) for n, k, st in zip(lengths, kernel_size, strides)]
        dims = [batch_size, *out, filters] if last else [batch_size, filters, *out]
        stride5 = (1, *strides, 1) if last else (1, 1, *strides)
        outputs = conv_ops.conv3d_transpose(inputs, kernel, array_ops.stack(dims), stride5,
                                            data_format="NDHWC" if last else "NCDHW", padding=pad)
        if inputs.shape.ndims:
            static = inputs.shape.as_list()
            spatial = [_deconv_length(static[a], k, pad, st) for a, k, st in zip(axes, kernel_size, strides)]
            outputs.set_shape([static[0], *spatial, filters] if last else [static[0], filters, *spatial])
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias, data_format="NHWC" if last else "NCHW")
        if activation is not None:
            outputs = activation(outputs)
        return _activity(outputs, activity_regularizer)


def _pool3d(fn, inputs, pool_size, strides, padding, data_format, name, default_name):
    pool_size = _tuple(pool_size, 3, "pool_size")
    strides = _tuple(strides, 3, "strides")
    fmt, _ = _data_format(data_format)
    with name_scope(None, default_name) if name is None else name_scope(name):
        if fmt == "channels_first":
            inputs = array_ops.transpose(inputs, (0, 2, 3, 4, 1))
        outputs = fn(inputs, ksize=[1, *pool_size, 1], strides=[1, *strides, 1], padding=_padding(padding))
        if fmt == "channels_first":
            outputs = array_ops.transpose(outputs, (0, 4, 1, 2, 3))
        return outputs


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Max over pool_size windows of [batch, depth, height, width, channels] (``MaxPool3D``)."""
    return _pool3d(conv3d_ops.max_pool3d, inputs, pool_size, strides, padding, data_format, name, "max_pooling3d")


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Mean over pool_size windows, padding not counted (``AvgPool3D``)."""
    return _pool3d(conv3d_ops.avg_pool3d, inputs, pool_size, strides, padding, data_format, name,
                   "average_pooling3d")


Conv3D = _layer_class("Conv3D", conv3d, "conv3d", ("filters", "kernel_size"))
Conv3DTranspose = _layer_class("Conv3DTranspose", conv3d_transpose, "conv3d_transpose", ("filters", "kernel_size"))
MaxPooling3D = _layer_class("MaxPooling3D", max_pooling3d, "max_pooling3d", ("pool_size", "strides"), False)
AveragePooling3D = _layer_class("AveragePooling3D", average_pooling3d, "average_pooling3d",
                                ("pool_size", "strides"), False)
