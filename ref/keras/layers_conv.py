"""Keras' convolution, pooling and padding layers in graph mode: ``Conv1D``,
``Conv2D``, ``Conv2DTranspose``, ``MaxPooling1D/2D``, ``AveragePooling1D/2D``,
``GlobalAveragePooling2D``, ``GlobalMaxPooling2D``, ``ZeroPadding2D``."""
from __future__ import annotations

from ref.types.shapes import dimension_value
from ref.graph_ops import array_ops, conv_ops, math_ops, nn_ops
from ref.keras import activations, backend, initializers, regularizers
from ref.keras.engine import InputSpec, Layer

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "MaxPooling1D", "MaxPooling2D", "AveragePooling1D",
           "AveragePooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling2D", "ZeroPadding2D",
           "GlobalAveragePooling1D", "GlobalMaxPooling1D", "GlobalAvgPool1D", "GlobalMaxPool1D",
           "MaxPool1D", "MaxPool2D", "AvgPool1D", "AvgPool2D", "GlobalAvgPool2D", "GlobalMaxPool2D",
           "Convolution1D", "Convolution2D", "Convolution2DTranspose"]


def _tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: {value}")
    return value


def _padding(padding):
    p = padding.lower()
    if p not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or "
                         f"\"causal\", only for `Conv1D). Received: {padding}")
    return p


def _format(data_format):
    fmt = (data_format or backend.image_data_format()).lower()
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         f"Received: {data_format}")
    return fmt


def _conv_length(length, k, padding, stride, dilation=1):
    if length is None:
        return None
    k = k + (k - 1) * (dilation - 1)
    length = length - k + 1 if padding == "valid" else length
    return (length + stride - 1) // stride


class _Conv(Layer):
    _rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        n = self._rank
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, n, "kernel_size")
        self.strides = _tuple(strides, n, "strides")
        self.padding = _padding(padding)
        self.data_format = _format(data_format)
        self.dilation_rate = _tuple(dilation_rate, n, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(min_ndim=n + 2)

    @property
    def _channel_axis(self):
        return -1 if self.data_format == "channels_last" else 1

    @property
    def _tf_format(self):
        last = self.data_format == "channels_last"
        return ("NWC" if last else "NCW") if self._rank == 1 else ("NHWC" if last else "NCHW")

    def _kernel_shape(self, in_channels):
        return list(self.kernel_size) + [in_channels, self.filters]

    def build(self, input_shape):
        in_channels = dimension_value(input_shape[self._channel_axis])
        if in_channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. The input_shape received is "
                             f"{input_shape}, where axis {self._channel_axis} (0-based) is the channel dimension, "
                             "which found to be `None`.")
        self.input_spec = InputSpec(min_ndim=self._rank + 2, axes={self._channel_axis: in_channels})
        self.kernel = self.add_weight("kernel", shape=self._kernel_shape(in_channels),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", shape=[self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def _output_shape(self, input_shape):
        dims = input_shape.as_list()
        spatial = dims[1:-1] if self.data_format == "channels_last" else dims[2:]
        out = [_conv_length(d, k, self.padding, s, r)
               for d, k, s, r in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]
        return [dims[0]] + out + [self.filters] if self.data_format == "channels_last" \
            else [dims[0], self.filters] + out

    def _convolve(self, inputs):
        pad = self.padding.upper()
        if self._rank == 2:
            return conv_ops.conv2d(inputs, self.kernel, list(self.strides), pad, data_format=self._tf_format,
                                   dilations=list(self.dilation_rate), name="Conv2D")
        return conv_ops.conv1d(inputs, self.kernel, list(self.strides), pad, data_format=self._tf_format,
                               dilations=list(self.dilation_rate), name="Conv1D")

    def call(self, inputs):
        input_shape = inputs.shape
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias,
                                      data_format="NCHW" if self.data_format == "channels_first" else "NHWC")
        if input_shape.ndims:
            outputs.set_shape(self._output_shape(input_shape))
        return self.activation(outputs) if self.activation is not None else outputs


class Conv2D(_Conv):
    """2-D convolution (``Conv2D``) plus bias, then ``activation``; kernel [kh, kw, in, filters]."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)


class Conv1D(_Conv):
    """1-D convolution (``tf.nn.conv1d``: ExpandDims, Conv2D, Squeeze) plus bias; kernel [k, in, filters]."""

    _rank = 1


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution (``Conv2DBackpropInput``) plus bias; kernel [kh, kw, filters, in]."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)
        self.input_spec = InputSpec(ndim=4)

    def _kernel_shape(self, in_channels):
        return list(self.kernel_size) + [self.filters, in_channels]

    def _deconv_length(self, length, k, stride):
        if length is None:
            return None
        return length * stride + max(k - stride, 0) if self.padding == "valid" else length * stride

    def call(self, inputs):
        last = self.data_format == "channels_last"
        h_axis, w_axis = (1, 2) if last else (2, 3)
        shape = array_ops.shape(inputs)
        static = inputs.shape.as_list()
        height = static[h_axis] if static[h_axis] is not None else shape[h_axis]
        width = static[w_axis] if static[w_axis] is not None else shape[w_axis]
        out_h = self._deconv_length(height, self.kernel_size[0], self.strides[0])
        out_w = self._deconv_length(width, self.kernel_size[1], self.strides[1])
        batch = shape[0]
        dims = (batch, out_h, out_w, self.filters) if last else (batch, self.filters, out_h, out_w)
        output_shape = array_ops.stack(list(dims))
        x = inputs
        if not last:  # no NCHW kernels without a GPU: NHWC in between, as Keras' backend
            x = array_ops.transpose(x, (0, 2, 3, 1))
            output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
            output_shape = array_ops.stack(list(output_shape))
        output_shape[0]  # noqa: B018  (backend.conv2d_transpose's ``output_shape[0] is None`` builds a slice)
        outputs = conv_ops.conv2d_transpose(x, self.kernel, output_shape, (1,) + self.strides + (1,),
                                            padding=self.padding.upper(), data_format="NHWC")
        if not last:
            outputs = array_ops.transpose(outputs, (0, 3, 1, 2))
        spatial = [self._deconv_length(static[a], k, s)
                   for a, k, s in ((h_axis, self.kernel_size[0], self.strides[0]),
                                   (w_axis, self.kernel_size[1], self.strides[1]))]
        outputs.set_shape([static[0]] + spatial + [self.filters] if last else [static[0], self.filters] + spatial)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format="NHWC" if last else "NCHW")
        return self.activation(outputs) if self.activation is not None else outputs


class _Pooling(Layer):
    _rank, _kind = 2, "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        n = self._rank
        self.pool_size = _tuple(pool_size, n, "pool_size")
        self.strides = _tuple(strides if strides is not None else pool_size, n, "strides")
        self.padding = _padding(padding)
        self.data_format = _format(data_format)
        self.input_spec = InputSpec(ndim=n + 2)

    def _pool(self, x, pool, strides):
        nhwc = self.data_format == "channels_last"
        ksize = [1, *pool, 1] if nhwc else [1, 1, *pool]
        st = [1, *strides, 1] if nhwc else [1, 1, *strides]
        fn = conv_ops.max_pool if self._kind == "max" else conv_ops.avg_pool
        return fn(x, ksize, st, self.padding.upper(), data_format="NHWC" if nhwc else "NCHW",
                  name="MaxPool" if self._kind == "max" else "AvgPool")

    def call(self, inputs):
        if self._rank == 2:
            return self._pool(inputs, self.pool_size, self.strides)
        axis = 2 if self.data_format == "channels_last" else 3
        x = array_ops.expand_dims(inputs, axis)
        return array_ops.squeeze(self._pool(x, self.pool_size + (1,), self.strides + (1,)), [axis])


def _pool_class(name, rank, kind, doc):
    return type(name, (_Pooling,), {"_rank": rank, "_kind": kind, "__doc__": doc})


MaxPooling2D = _pool_class("MaxPooling2D", 2, "max", "Max over ``pool_size`` windows moved by ``strides`` (``MaxPool``).")
AveragePooling2D = _pool_class("AveragePooling2D", 2, "avg", "Mean over ``pool_size`` windows (``AvgPool``).")
MaxPooling1D = _pool_class("MaxPooling1D", 1, "max", "1-D max pooling (ExpandDims, ``MaxPool``, Squeeze).")
AveragePooling1D = _pool_class("AveragePooling1D", 1, "avg", "1-D average pooling (ExpandDims, ``AvgPool``, Squeeze).")


class _GlobalPooling2D(Layer):
    _reduce = staticmethod(math_ops.reduce_mean)

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        axes = [1, 2] if self.data_format == "channels_last" else [2, 3]
        return self._reduce(inputs, axis=axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling2D):
    """The mean over the spatial axes (``Mean``)."""


class GlobalMaxPooling2D(_GlobalPooling2D):
    """The max over the spatial axes (``Max``)."""

    _reduce = staticmethod(math_ops.reduce_max)


class _GlobalPooling1D(Layer):
    _reduce = staticmethod(math_ops.reduce_mean)

    def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        return self._reduce(inputs, axis=1 if self.data_format == "channels_last" else 2, keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalPooling1D):
    """The mean over the steps axis (``Mean``)."""


class GlobalMaxPooling1D(_GlobalPooling1D):
    """The max over the steps axis (``Max``)."""

    _reduce = staticmethod(math_ops.reduce_max)


GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D


class ZeroPadding2D(Layer):
    """Zeros around the spatial axes (``Pad``): an int, (rows, cols) or ((top, bottom), (left, right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _format(data_format)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif all(isinstance(p, int) for p in padding):
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(int(v) for v in p) for p in padding)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        h, w = (list(p) for p in self.padding)
        pattern = [[0, 0], h, w, [0, 0]] if self.data_format == "channels_last" else [[0, 0], [0, 0], h, w]
        return array_ops.pad(inputs, pattern)


MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = MaxPooling1D, MaxPooling2D, AveragePooling1D, AveragePooling2D
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
Convolution1D, Convolution2D, Convolution2DTranspose = Conv1D, Conv2D, Conv2DTranspose
