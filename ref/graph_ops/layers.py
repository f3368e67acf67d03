"""TF1 functional layers (``tf.layers.dense``, ``conv2d``, ``conv2d_transpose``, ``max_pooling2d``,
``average_pooling2d``, ``dropout``, ``flatten``, ``batch_normalization``)
built from the ``tf.nn`` ops, as TF 1.x's ``tf.layers`` builds them:

* each call opens ``variable_scope(name, default_name=<layer>)``: unnamed
  layers are uniquified (``dense``, ``dense_1``, ...), and the variables are
  ``<scope>/kernel``, ``<scope>/bias``, ``<scope>/gamma``, ... ; ``reuse=True``
  (or a reusing outer scope) shares them;
* kernels default to ``glorot_uniform_initializer()`` (the variable scope's
  default), biases to zeros, so ``tf.set_random_seed`` gives TF's initial
  weights bit for bit;
* ``training`` is a Python bool or a boolean tensor (then both branches are
  built under ``tf.cond``); batch normalization adds its moving-average
  updates (``AssignMovingAvg``: ``assign_sub(v, (v - batch_stat) * (1 -
  momentum))``) to ``GraphKeys.UPDATE_OPS``; ``activity_regularizer`` losses
  go to ``GraphKeys.REGULARIZATION_LOSSES``.

TF 2.21 no longer ships ``tf.compat.v1.layers`` under Keras 3; this follows
the legacy ``tf_keras`` layers (``fused=None`` batch norm uses
``FusedBatchNormV3`` for 4-D inputs normalized over the channel axis).
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from ref.types import dtypes
from ref.types.shapes import dimension_value
from ref.framework.graph import (GraphKeys, Tensor, add_to_collection, add_to_collections, get_collection,
                                 name_scope, colocate_with)
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, control_flow_ops, conv_ops, init_ops, math_ops, nn_ops, normalization_ops, \
    space_batch_ops, state_ops
from ref.graph_ops.variable_scope import VariableScope, get_variable, variable_scope
from ref.graph_ops import normalization_layer

__all__ = ["dense", "conv2d", "conv1d", "conv2d_transpose", "Conv2DTranspose", "max_pooling2d", "average_pooling2d", "max_pooling1d", "average_pooling1d",
           "dropout", "flatten", "batch_normalization", "Layer", "Dense", "Conv2D", "Conv1D", "BatchNormalization",
           "MaxPooling2D", "AveragePooling2D", "MaxPooling1D", "AveragePooling1D", "Dropout", "Flatten"]


_OPENED = threading.local()  # the variable scope a builder opened last (read by Layer objects)


@contextlib.contextmanager
def _layer_scope(name, default_name, values, reuse):
    if isinstance(name, VariableScope):
        # A layer object's later call (TF's base Layer.__call__): its variable scope
        # without a new name scope, then the name scope of its first call re-entered
        # absolutely -- "proj/BiasAdd_1" wherever the call is (a while loop, a scope)
        with variable_scope(name, reuse=reuse, auxiliary_name_scope=False) as scope, \
                name_scope(scope.original_name_scope):
            _OPENED.scope = scope
            yield scope
        return
    with variable_scope(name, default_name=default_name, values=values, reuse=reuse) as scope:
        _OPENED.scope = scope
        yield scope


def _tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: {value}")
    return value


def _padding(padding):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or "
                         f"\"causal\", only for `Conv1D). Received: {padding}")
    return p.upper()


def _data_format(data_format, n=2):
    fmt = "channels_last" if data_format is None else data_format.lower()
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         f"Received: {data_format}")
    if n == 1:
        return fmt, "NWC" if fmt == "channels_last" else "NCW"
    return fmt, "NHWC" if fmt == "channels_last" else "NCHW"


def _smart_cond(training, true_fn, false_fn):
    """Python bools (and constant tensors) pick a branch; other tensors build tf.cond."""
    if isinstance(training, Tensor):
        value = constant_value(training)
        if value is None:
            return control_flow_ops.cond(training, true_fn, false_fn)
        training = bool(value)
    return true_fn() if training else false_fn()


def _activity(outputs, activity_regularizer):
    """The activity regularizer's loss of ``outputs``, divided by the batch size
    (``shape(outputs)[0]`` cast to the loss's dtype), as TF's Keras-based layers
    make it batch-agnostic, into REGULARIZATION_LOSSES."""
    if activity_regularizer is not None:
        with name_scope("ActivityRegularizer"):
            loss = activity_regularizer(outputs)
            if loss is not None:
                loss = convert_to_tensor(loss)
                batch_size = math_ops.cast(array_ops.shape(outputs)[0], loss.dtype)
                loss = math_ops.truediv(loss, batch_size)
        if loss is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return outputs


def _variable(name, shape, dtype, initializer, regularizer, constraint, trainable):
    """A layer's weight (kernel, bias, gamma, beta): ``get_variable`` with the
    layer's initializer and regularizer, and its constraint (if any) attached.
    As TF's (Keras-based) layers, the regularizer's loss is built for a new
    variable only, in ``<name>/Regularizer`` and not colocated with it (a bare
    ``get_variable(regularizer=)`` colocates)."""
    existing = set(get_collection(GraphKeys.GLOBAL_VARIABLES))
    var = get_variable(name, shape, dtype=dtype, initializer=initializer, trainable=trainable, constraint=constraint)
    if regularizer is not None and var not in existing:
        with name_scope(name + "/Regularizer"):
            loss = regularizer(var)
        if loss is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var


def _in_channels(inputs, axis):
    """The static size of ``inputs``' channel ``axis``; ValueError (TF's) when unknown."""
    channels = dimension_value(inputs.shape[axis]) if inputs.shape.ndims else None
    if channels is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    return channels


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
          reuse=None):
    """outputs = activation(inputs . kernel + bias): kernel [last dim, units];
    inputs of rank > 2 are contracted over their last dimension."""
    with _layer_scope(name, "dense", [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        dtype = inputs.dtype.base_dtype
        last = dimension_value(inputs.shape[-1]) if inputs.shape.ndims else None
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {inputs.shape}")
        kernel = _variable("kernel", [last, units], dtype, kernel_initializer, kernel_regularizer, kernel_constraint,
                           trainable)
        bias = _variable("bias", [units], dtype, bias_initializer, bias_regularizer, bias_constraint,
                         trainable) if use_bias else None
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:  # Keras' Dense: tensordot over the last axis, static shape set
            outputs = math_ops.tensordot(inputs, kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [units])
        else:
            outputs = math_ops.matmul(inputs, kernel)
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias)
        if activation is not None:
            outputs = activation(outputs)
        return _activity(outputs, activity_regularizer)


def _conv(rank, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
          kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
          kernel_constraint, bias_constraint, trainable, name, reuse, default_name):
    kernel_size = _tuple(kernel_size, rank, "kernel_size")
    strides = _tuple(strides, rank, "strides")
    dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
    fmt, tf_fmt = _data_format(data_format, rank)
    with _layer_scope(name, default_name, [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        dtype = inputs.dtype.base_dtype
        in_channels = _in_channels(inputs, -1 if fmt == "channels_last" else 1)
        kernel = _variable("kernel", list(kernel_size) + [in_channels, filters], dtype, kernel_initializer,
                           kernel_regularizer, kernel_constraint, trainable)
        bias = _variable("bias", [filters], dtype, bias_initializer, bias_regularizer, bias_constraint,
                         trainable) if use_bias else None
        if any(d != 1 for d in dilation_rate):  # Keras: tf.nn.convolution, dilated through SpaceToBatchND
            outputs = space_batch_ops.convolution(inputs, kernel, _padding(padding), strides=list(strides),
                                                  dilation_rate=list(dilation_rate), data_format=tf_fmt,
                                                  name="Conv2D" if rank == 2 else "Conv1D")
        elif rank == 2:
            outputs = conv_ops.conv2d(inputs, kernel, list(strides), _padding(padding), data_format=tf_fmt,
                                      dilations=list(dilation_rate), name="Conv2D")
        else:
            outputs = conv_ops.conv1d(inputs, kernel, list(strides), _padding(padding), data_format=tf_fmt,
                                      dilations=list(dilation_rate), name="Conv1D")
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias, data_format="NCHW" if fmt == "channels_first" else "NHWC")
        if activation is not None:
            outputs = activation(outputs)
        return _activity(outputs, activity_regularizer)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """2-D convolution layer: kernel [kh, kw, in_channels, filters] (``Conv2D``)
    plus bias, then ``activation``; padding "valid" or "same"."""
    return _conv(2, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                 kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, trainable, name, reuse, "conv2d")


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
           activation=None, use_bias=True, kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """1-D convolution layer: kernel [k, in_channels, filters] (``tf.nn.conv1d``)."""
    return _conv(1, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                 kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, trainable, name, reuse, "conv1d")


def _deconv_output_length(length, kernel, padding, stride):
    """The transposed convolution's output length (Keras' ``deconv_output_length``
    without output_padding): ``length * stride`` for "same", plus
    ``max(kernel - stride, 0)`` for "valid"; None stays None."""
    if length is None:
        return None
    if padding == "VALID":
        return length * stride + max(kernel - stride, 0)
    return length * stride


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None):
    """Transposed 2-D convolution ("deconvolution") layer: kernel
    [kh, kw, filters, in_channels] (``tf.nn.conv2d_transpose``, i.e.
    ``Conv2DBackpropInput``) plus bias, then ``activation``; the output's
    spatial size is ``in * stride`` ("same") or ``in * stride + max(k - stride,
    0)`` ("valid")."""
    kernel_size = _tuple(kernel_size, 2, "kernel_size")
    strides = _tuple(strides, 2, "strides")
    fmt, tf_fmt = _data_format(data_format)
    pad = _padding(padding)
    with _layer_scope(name, "conv2d_transpose", [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        if inputs.shape.ndims is not None and inputs.shape.ndims != 4:
            raise ValueError(f"Inputs should have rank 4. Received input shape: {inputs.shape}")
        dtype = inputs.dtype.base_dtype
        c_axis, (h_axis, w_axis) = (-1, (1, 2)) if fmt == "channels_last" else (1, (2, 3))
        in_channels = _in_channels(inputs, c_axis)
        kernel = _variable("kernel", list(kernel_size) + [filters, in_channels], dtype, kernel_initializer,
                           kernel_regularizer, kernel_constraint, trainable)
        bias = _variable("bias", [filters], dtype, bias_initializer, bias_regularizer, bias_constraint,
                         trainable) if use_bias else None
        # tf_keras' Conv2DTranspose.call, then backend.conv2d_transpose on a machine without a GPU
        inputs_shape = array_ops.shape(inputs)
        batch_size = inputs_shape[0]
        static = inputs.shape.as_list() if inputs.shape.ndims is not None else [None] * 4
        height = static[h_axis] if static[h_axis] is not None else inputs_shape[h_axis]
        width = static[w_axis] if static[w_axis] is not None else inputs_shape[w_axis]
        out_h = _deconv_output_length(height, kernel_size[0], pad, strides[0])
        out_w = _deconv_output_length(width, kernel_size[1], pad, strides[1])
        dims = (batch_size, out_h, out_w, filters) if fmt == "channels_last" else (batch_size, filters, out_h, out_w)
        output_shape = array_ops.stack(list(dims))
        x = inputs
        if fmt == "channels_first":  # no NCHW kernels without a GPU: NHWC in between, as Keras' backend
            x = array_ops.transpose(x, (0, 2, 3, 1))
            output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
        if output_shape[0] is None:  # (indexing a tensor builds a slice, as in TF)
            output_shape = (array_ops.shape(x)[0],) + tuple(output_shape[1:])
        if isinstance(output_shape, (tuple, list)):
            output_shape = array_ops.stack(list(output_shape))
        outputs = conv_ops.conv2d_transpose(x, kernel, output_shape, (1,) + strides + (1,), padding=pad,
                                            data_format="NHWC")
        if fmt == "channels_first":
            outputs = array_ops.transpose(outputs, (0, 3, 1, 2))
        if inputs.shape.ndims:
            static_dims = [None if d is None else _deconv_output_length(d, k, pad, st)
                           for d, k, st in ((static[h_axis], kernel_size[0], strides[0]),
                                            (static[w_axis], kernel_size[1], strides[1]))]
            outputs.set_shape([static[0]] + static_dims + [filters] if fmt == "channels_last"
                              else [static[0], filters] + static_dims)
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias, data_format=tf_fmt)
        if activation is not None:
            outputs = activation(outputs)
        return _activity(outputs, activity_regularizer)


def _keras_pool(kind, x, pool_size, strides, padding, fmt):
    """Keras' backend pool2d (what its 1-D pooling layers call) on a CPU: channels_first input is transposed to NHWC, pooled,
    and transposed back (TF has no NCHW pooling kernel on the CPU)."""
    if fmt == "channels_first":
        x = array_ops.transpose(x, (0, 2, 3, 1))
    fn = conv_ops.max_pool if kind == "max" else conv_ops.avg_pool
    y = fn(x, [1, *pool_size, 1], [1, *strides, 1], _padding(padding), data_format="NHWC",
           name="MaxPool" if kind == "max" else "AvgPool")
    return array_ops.transpose(y, (0, 3, 1, 2)) if fmt == "channels_first" else y


def _pool2d(kind, inputs, pool_size, strides, padding, data_format, name, default_name):
    pool_size = _tuple(pool_size, 2, "pool_size")
    strides = _tuple(strides, 2, "strides")
    fmt, tf_fmt = _data_format(data_format)
    with name_scope(None, default_name) if name is None else name_scope(name):
        ksize = [1, 1, *pool_size] if tf_fmt == "NCHW" else [1, *pool_size, 1]
        st = [1, 1, *strides] if tf_fmt == "NCHW" else [1, *strides, 1]
        fn = conv_ops.max_pool if kind == "max" else conv_ops.avg_pool
        return fn(inputs, ksize, st, _padding(padding), data_format=tf_fmt,
                  name="MaxPool" if kind == "max" else "AvgPool")


def _pool1d(kind, inputs, pool_size, strides, padding, data_format, name, default_name):
    fmt, _ = _data_format(data_format, 1)
    with name_scope(None, default_name) if name is None else name_scope(name):
        axis = 2 if fmt == "channels_last" else 3  # Keras pads a width-1 axis after the steps
        x = array_ops.expand_dims(inputs, axis)
        pool = _tuple(pool_size, 1, "pool_size")[0]
        stride = _tuple(strides, 1, "strides")[0]
        return array_ops.squeeze(_keras_pool(kind, x, (pool, 1), (stride, 1), padding, fmt), [axis])


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Max over pool_size windows moved by strides (``MaxPool``)."""
    return _pool2d("max", inputs, pool_size, strides, padding, data_format, name, "max_pooling2d")


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Mean over pool_size windows moved by strides, padding not counted (``AvgPool``)."""
    return _pool2d("avg", inputs, pool_size, strides, padding, data_format, name, "average_pooling2d")


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """1-D max pooling over [batch, steps, channels] (a height-1 MaxPool)."""
    return _pool1d("max", inputs, pool_size, strides, padding, data_format, name, "max_pooling1d")


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """1-D average pooling over [batch, steps, channels] (a height-1 AvgPool)."""
    return _pool1d("avg", inputs, pool_size, strides, padding, data_format, name, "average_pooling1d")


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``tf.nn.dropout(inputs, rate=rate)`` when ``training``, else the inputs
    (an Identity)."""
    with name_scope(name, "dropout", [inputs]):
        inputs = convert_to_tensor(inputs, name="inputs")
        if isinstance(rate, (int, float)) and rate == 0:
            return control_flow_ops.identity(inputs)
        def dropped():
            return nn_ops.dropout(inputs, noise_shape=_noise_shape(inputs, noise_shape), seed=seed, rate=rate)

        return _smart_cond(training, dropped, lambda: control_flow_ops.identity(inputs))


def _noise_shape(inputs, noise_shape):
    """Keras's Dropout noise shape: each None entry read from the input's run-time
    shape (one ``Shape``, sliced per None), the list converted to one tensor."""
    if noise_shape is None:
        return None
    dynamic = array_ops.shape(inputs)
    return convert_to_tensor([dynamic[i] if d is None else d for i, d in enumerate(noise_shape)])


def flatten(inputs, name=None, data_format="channels_last"):
    """inputs reshaped to [batch, -1] (channels_first moves the channels last first)."""
    fmt, _ = _data_format(data_format)
    with name_scope(name, "flatten", [inputs]):
        inputs = convert_to_tensor(inputs, name="inputs")
        rank = inputs.shape.ndims
        if fmt == "channels_first" and rank is not None and rank > 1:
            inputs = array_ops.transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return array_ops.expand_dims(inputs, 1)
        # Keras's Flatten: a Const shape when it can, -1 for the batch.
        batch = dimension_value(inputs.shape[0]) if rank else None
        rest = inputs.shape[1:]
        if rest.is_fully_defined():
            shape = constant(np.array([-1, int(np.prod(rest.as_list(), dtype=np.int64))], np.int32))
        elif batch is not None:
            shape = constant(np.array([int(batch), -1], np.int32))
        else:
            shape = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, shape)


_moving_average_update = normalization_layer.assign_moving_average


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization over ``axis`` (channels): with ``training`` the
    batch's mean and variance, else the moving averages. Variables gamma,
    beta (trainable), moving_mean, moving_variance (not trainable); the
    moving-average updates go to ``GraphKeys.UPDATE_OPS`` -- run them with the
    train op (``tf.control_dependencies(tf.get_collection(UPDATE_OPS))``).
    The fused path (4-D input, channel axis 1 or last) updates the moving
    variance with the Bessel-corrected batch variance, the other path with
    the biased one, as TF's two paths do."""
    with _layer_scope(name, "batch_normalization", [inputs], reuse):
        inputs = convert_to_tensor(inputs, name="inputs")
        ndims = inputs.shape.ndims
        if ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={inputs.shape}")
        axes = [axis] if isinstance(axis, int) else list(axis)
        axes = [a % ndims for a in axes]
        if len(axes) != 1:
            raise ValueError("batch_normalization in ref normalizes over a single axis")
        ax = axes[0]
        depth = dimension_value(inputs.shape[ax])
        if depth is None:
            raise ValueError(f"Axis {axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {inputs.shape}.")
        dtype = inputs.dtype.base_dtype
        param_dtype = dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype
        _check_batch_norm_options(ax, renorm, renorm_clipping, virtual_batch_size, adjustment)
        if virtual_batch_size is None:
            param_shape = [depth]
        else:  # ghost batches: [1, 1 (the virtual batches), ..., depth, ...]
            param_shape = [depth if i == ax else 1 for i in range(ndims)]
            param_shape.insert(1, 1)
        v = {"gamma": _variable("gamma", param_shape, param_dtype, gamma_initializer, gamma_regularizer,
                                gamma_constraint, trainable) if scale else None,
             "beta": _variable("beta", param_shape, param_dtype, beta_initializer, beta_regularizer,
                               beta_constraint, trainable) if center else None}
        for key, init in (("moving_mean", moving_mean_initializer), ("moving_variance", moving_variance_initializer)):
            v[key] = get_variable(key, param_shape, dtype=param_dtype, initializer=init, trainable=False)
        if renorm:  # the stddev trackers start at sqrt of the moving variance's initial value
            def stddev_init(*args, **kwargs):
                return math_ops.sqrt(moving_variance_initializer(*args, **kwargs))

            for key, init, near in (("moving_stddev", stddev_init, "moving_variance"),
                                    ("renorm_mean", moving_mean_initializer, "moving_mean"),
                                    ("renorm_stddev", stddev_init, "moving_stddev")):
                with colocate_with(v[near].op):  # TF: colocate_vars_with
                    v[key] = get_variable(key, param_shape, dtype=param_dtype, initializer=init, trainable=False)
        extended = renorm or virtual_batch_size is not None or adjustment is not None
        use_fused = False if extended else fused if fused is not None else (ndims == 4 and ax in (1, 3))
        if use_fused and not (ndims == 4 and ax in (1, 3)):
            raise ValueError(f"Passing `fused=True` is only supported when axis is 1 or 3 for input rank 4. "
                             f"Got axis={axis}")
        if use_fused:
            return _fused(inputs, v["gamma"], v["beta"], v["moving_mean"], v["moving_variance"], ax, epsilon,
                          momentum, training, depth, param_dtype)
        outputs, updates = normalization_layer.unfused(
            inputs, v, ax, epsilon, momentum, training, _static(training), virtual_batch_size=virtual_batch_size,
            adjustment=adjustment, renorm=renorm, renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum)
        _add_updates(updates)
        return outputs


def _check_batch_norm_options(ax, renorm, renorm_clipping, virtual_batch_size, adjustment):
    """TF's ValueErrors for option combinations its layer refuses (with
    ``fused=True`` TF1's layer quietly takes the non-fused path for renorm,
    ghost batches and adjustment)."""
    if renorm and set(renorm_clipping or {}) - {"rmax", "rmin", "dmax"}:
        raise ValueError(f"Received invalid keys for `renorm_clipping` argument: {renorm_clipping}. "
                         f"Supported values: ['rmax', 'rmin', 'dmax'].")
    if virtual_batch_size is not None:
        if virtual_batch_size <= 0:
            raise ValueError(f"`virtual_batch_size` must be a positive integer that divides the true batch size "
                             f"of the input tensor. Received: virtual_batch_size={virtual_batch_size}")
        if ax == 0:
            raise ValueError(f"When using `virtual_batch_size`, the batch dimension must be 0 and thus axis cannot "
                             f"include 0. Received axis={[ax]}")
        if adjustment is not None:
            raise ValueError("When using `virtual_batch_size`, adjustment cannot be specified")


def _add_updates(updates):
    """The update ops (Operations, as TF's layer puts them: fetching one gives None)."""
    for u in updates:
        add_to_collections([GraphKeys.UPDATE_OPS], u.op if isinstance(u, Tensor) else u)


def _fused(inputs, gamma, beta, moving_mean, moving_variance, ax, epsilon, momentum, training, depth, param_dtype):
    """The fused path; without scale or center the layer feeds constant ones and
    zeros, made as TF's Keras layer makes them: ``constant(0.0, shape)`` for the
    offset first ("Const"), then ``constant(1.0, shape)`` for the scale."""
    fmt = "NCHW" if ax == 1 else "NHWC"
    b = beta if beta is not None else constant(0.0, dtype=param_dtype, shape=[depth])
    g = gamma if gamma is not None else constant(1.0, dtype=param_dtype, shape=[depth])

    def train():
        return normalization_ops.fused_batch_norm(inputs, g, b, mean=moving_mean, variance=moving_variance,
                                                  epsilon=epsilon, data_format=fmt, is_training=True)

    def infer():
        return normalization_ops.fused_batch_norm(inputs, g, b, mean=moving_mean, variance=moving_variance,
                                                  epsilon=epsilon, data_format=fmt, is_training=False)

    training_value = _static(training)
    if training_value is False:
        return infer()[0]
    output, mean, variance = train() if training_value else control_flow_ops.cond(training, train, infer)
    m = convert_to_tensor(momentum) if training_value else _smart_momentum(training, momentum)
    _add_updates([_moving_average_update(moving_mean, mean, m),
                  _moving_average_update(moving_variance, variance, m)])
    return output


def _static(training):
    if isinstance(training, Tensor):
        value = constant_value(training)
        return None if value is None else bool(value)
    return bool(training)


def _smart_momentum(training, momentum):
    """momentum when training, 1 (no update) otherwise, for a tensor ``training``."""
    return control_flow_ops.cond(training, lambda: convert_to_tensor(float(momentum)),
                                 lambda: convert_to_tensor(1.0))


# ---------------------------------------------------------------------------
# Layer objects (tf.layers.Dense, ...): one set of variables, reused per call
# ---------------------------------------------------------------------------

class Layer:
    """A TF1 layer object over one of the functions above: the first call
    creates the variables in the scope ``name`` (uniquified from the layer's
    base name when None), later calls reuse them. ``variables``,
    ``trainable_variables`` and ``updates`` list what the calls created."""

    _base, _positional, _variables, _training = "layer", (), True, False

    def __init__(self, *args, name=None, trainable=True, **config):
        if len(args) > len(self._positional):
            raise TypeError(f"{type(self).__name__} takes at most {len(self._positional)} positional arguments")
        config.update(zip(self._positional, args))
        self._name, self.trainable, self._config = name, trainable, config
        self._scope = None
        self.variables, self.updates = [], []
        self.built = False

    @property
    def name(self):
        if isinstance(self._scope, str):  # a layer without variables: its name scope
            return self._scope.rstrip("/")
        return self._scope.name if self._scope is not None else self._name

    @property
    def trainable_variables(self):
        trainable = get_collection(GraphKeys.TRAINABLE_VARIABLES)
        return [v for v in self.variables if any(v is t for t in trainable)]

    @property
    def non_trainable_variables(self):
        return [v for v in self.variables if not any(v is t for t in self.trainable_variables)]

    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables

    @property
    def weights(self):
        return list(self.variables)

    def _build(self, inputs, **config):
        raise NotImplementedError

    def __call__(self, inputs, training=False, **kwargs):
        config = dict(self._config, **kwargs)
        if self._training:
            config["training"] = training
        if not self._variables:
            # TF opens the layer's name scope once; every call re-enters it absolutely
            # ("max_pooling2d/MaxPool_1" for the second call, wherever it is)
            if self._scope is None:
                with name_scope(self._name, self._base) as opened:
                    self._scope = opened
            return self._build(inputs, name=self._scope, **config)
        config["trainable"] = self.trainable
        before_vars = get_collection(GraphKeys.GLOBAL_VARIABLES)
        before_updates = get_collection(GraphKeys.UPDATE_OPS)
        if self._scope is None:
            out = self._build(inputs, name=self._name, **config)
            self._scope = _OPENED.scope
        else:
            out = self._build(inputs, name=self._scope, reuse=True, **config)
        self.built = True
        self.variables += [v for v in get_collection(GraphKeys.GLOBAL_VARIABLES)
                           if not any(v is b for b in before_vars)]
        self.updates += [u for u in get_collection(GraphKeys.UPDATE_OPS) if not any(u is b for b in before_updates)]
        return out

    apply = __call__


def _layer_class(cls_name, builder, base, positional, variables=True, training=False):
    def build(self, inputs, **config):
        return builder(inputs, **config)

    doc = (f"``tf.layers.{cls_name}({', '.join(positional)}, ...)``: :func:`{builder.__name__}` as an object"
           f"{' (its variables are created once and shared by every call)' if variables else ''}.")
    return type(cls_name, (Layer,), {"_base": base, "_positional": positional, "_variables": variables,
                                     "_training": training, "_build": build, "__doc__": doc})


Dense = _layer_class("Dense", dense, "dense", ("units",))
Conv2D = _layer_class("Conv2D", conv2d, "conv2d", ("filters", "kernel_size"))
Conv1D = _layer_class("Conv1D", conv1d, "conv1d", ("filters", "kernel_size"))
Conv2DTranspose = _layer_class("Conv2DTranspose", conv2d_transpose, "conv2d_transpose", ("filters", "kernel_size"))
BatchNormalization = _layer_class("BatchNormalization", batch_normalization, "batch_normalization", (),
                                  training=True)
MaxPooling2D = _layer_class("MaxPooling2D", max_pooling2d, "max_pooling2d", ("pool_size", "strides"), False)
AveragePooling2D = _layer_class("AveragePooling2D", average_pooling2d, "average_pooling2d",
                                ("pool_size", "strides"), False)
MaxPooling1D = _layer_class("MaxPooling1D", max_pooling1d, "max_pooling1d", ("pool_size", "strides"), False)
AveragePooling1D = _layer_class("AveragePooling1D", average_pooling1d, "average_pooling1d",
                                ("pool_size", "strides"), False)
Dropout = _layer_class("Dropout", dropout, "dropout", ("rate",), False, training=True)
Flatten = _layer_class("Flatten", flatten, "flatten", (), False)
