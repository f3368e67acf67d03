"""Keras' ``BatchNormalization`` in graph mode (tf_keras' v1 layer): the
fused kernel (``FusedBatchNormV3``) for 4-D inputs normalized over axis 1 or
3 unless ``fused=False``, the moments otherwise; with no ``training`` given
it follows the learning phase (a ``tf.cond``); the moving averages are
updated by ``AssignMovingAvg`` ops listed in the layer's ``updates`` (run
them with the train op)."""
from __future__ import annotations

from ref.types import dtypes
from ref.types.shapes import dimension_value
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.framework.graph import Tensor
from ref.graph_ops import normalization_layer, normalization_ops
from ref.graph_ops.normalization_layer import smart_cond
from ref.keras import backend, initializers, regularizers
from ref.keras.engine import InputSpec, Layer

__all__ = ["BatchNormalization"]


def _static(training):
    if isinstance(training, Tensor):
        value = constant_value(training)
        return None if value is None else bool(value)
    return bool(training)


class BatchNormalization(Layer):
    """Normalizes over ``axis`` with the batch's moments while training, the moving ones otherwise."""

    _expects_training = True
    _checkpointed_lists = ("axis",)  # Keras tracks the axis list: a node in the checkpoint's object graph

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 fused=None, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, int) else list(axis)
        self.momentum, self.epsilon, self.center, self.scale = momentum, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.fused = fused
        self.supports_masking = True

    def build(self, input_shape):
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        axes = [a % ndims for a in axes]
        if len(axes) != 1:
            raise ValueError("ref.keras BatchNormalization normalizes over a single axis")
        self._ax = axes[0]
        depth = dimension_value(input_shape[self._ax])
        if depth is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {input_shape}.")
        can_fuse = ndims == 4 and self._ax in (1, 3)
        if self.fused is None:
            self.fused = can_fuse
        elif self.fused and not can_fuse:
            raise ValueError(f"Passing `fused=True` is only supported when axis is 1 or 3 for input rank 4. "
                             f"Got axis={self.axis}")
        self.input_spec = InputSpec(ndim=ndims, axes={self._ax: depth})
        self._depth = depth
        dtype = dtypes.as_dtype(self.dtype)
        param_dtype = dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype
        self._param_dtype = param_dtype
        self.gamma = self.add_weight("gamma", shape=[depth], dtype=param_dtype, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                     trainable=True) if self.scale else None
        self.beta = self.add_weight("beta", shape=[depth], dtype=param_dtype, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                    trainable=True) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", shape=[depth], dtype=param_dtype,
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape=[depth], dtype=param_dtype,
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def call(self, inputs, training=None):
        if training is None:
            training = backend.learning_phase()
        if isinstance(training, int):
            training = bool(training)
        if not self.trainable:
            training = False
        if self.fused:
            return self._fused(inputs, training)
        v = {"gamma": self.gamma, "beta": self.beta, "moving_mean": self.moving_mean,
             "moving_variance": self.moving_variance}
        outputs, updates = normalization_layer.unfused(inputs, v, self._ax, self.epsilon, self.momentum, training,
                                                       _static(training))
        self.add_update(list(updates))
        return outputs

    def _fused(self, inputs, training):
        fmt = "NCHW" if self._ax == 1 else "NHWC"
        gamma = self.gamma if self.scale else constant(1.0, dtype=self._param_dtype, shape=[self._depth])
        beta = self.beta if self.center else constant(0.0, dtype=self._param_dtype, shape=[self._depth])

        def run(is_training):
            return lambda: normalization_ops.fused_batch_norm(
                inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance, epsilon=self.epsilon,
                data_format=fmt, is_training=is_training)

        output, mean, variance = smart_cond(training, run(True), run(False))
        value = _static(training)
        if value is False:
            return output
        momentum = convert_to_tensor(self.momentum) if value else smart_cond(
            training, lambda: convert_to_tensor(float(self.momentum)), lambda: convert_to_tensor(1.0))
        self.add_update([normalization_layer.assign_moving_average(self.moving_mean, mean, momentum),
                         normalization_layer.assign_moving_average(self.moving_variance, variance, momentum)])
        return output
