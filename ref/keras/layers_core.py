"""Keras' core layers in graph mode: ``Dense``, ``Activation``, ``Reshape``,
``Flatten``, ``Dropout``, ``Lambda``, ``Embedding``, ``LeakyReLU``, ``ReLU``,
and the merge layers ``Concatenate`` / ``Add`` (with ``concatenate`` /
``add``). Each builds the ops tf_keras' ``call`` builds, in the layer's
name scope."""
from __future__ import annotations

import numbers

import numpy as np

from ref.types import dtypes
from ref.types.shapes import dimension_value
from ref.framework.op_def_library import constant
from ref.graph_ops import array_ops, control_flow_ops, embedding_ops, math_ops, nn_ops
from ref.graph_ops.normalization_layer import smart_cond
from ref.keras import activations, backend, initializers, regularizers
from ref.keras.engine import InputSpec, Layer

__all__ = ["Dense", "Activation", "Reshape", "Flatten", "Dropout", "Lambda", "Embedding", "Masking", "LeakyReLU", "ReLU",
           "Concatenate", "Add", "concatenate", "add", "Permute", "RepeatVector"]


class Dense(Layer):
    """``activation(inputs . kernel + bias)``: ``MatMul`` for rank 2, ``Tensordot`` over the last axis above."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: "
                             f"units={units}")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last = dimension_value(input_shape[-1]) if input_shape.ndims else None
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", shape=[last, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank == 2 or rank is None:
            outputs = math_ops.matmul(inputs, self.kernel)
        else:
            outputs = math_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        return self.activation(outputs) if self.activation is not None else outputs


class Activation(Layer):
    """``activation(inputs)``."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Reshape(Layer):
    """``reshape(inputs, (batch,) + target_shape)`` (one -1 allowed in ``target_shape``)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def _output_shape(self, input_shape):
        dims = input_shape.as_list()
        out = list(self.target_shape)
        if -1 in out and all(d is not None for d in dims[1:]):
            known = int(np.prod([d for d in out if d != -1]))
            out[out.index(-1)] = int(np.prod(dims[1:])) // known
        return [dims[0]] + [None if d == -1 else d for d in out]

    def call(self, inputs):
        result = array_ops.reshape(inputs, (array_ops.shape(inputs)[0],) + self.target_shape)
        result.set_shape(self._output_shape(inputs.shape))
        return result


class Flatten(Layer):
    """``inputs`` reshaped to [batch, -1] (a Const shape when the other dims are known)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or backend.image_data_format()
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = inputs.shape.ndims
        if self.data_format == "channels_first" and rank and rank > 1:
            inputs = array_ops.transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return array_ops.expand_dims(inputs, axis=1)
        batch = dimension_value(inputs.shape[0])
        rest = inputs.shape[1:]
        if rest.is_fully_defined():
            shape = constant(np.array([-1, int(np.prod(rest.as_list(), dtype=np.int64))], np.int32))
        elif batch is not None:
            shape = constant(np.array([int(batch), -1], np.int32))
        else:
            shape = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, shape)


class Dropout(Layer):
    """``tf.nn.dropout`` while training, an Identity otherwise; with no
    ``training`` given, a ``tf.cond`` on the learning phase."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value between 0 and 1.")
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.supports_masking = True

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        concrete = array_ops.shape(inputs)
        return [concrete[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=None):
        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return control_flow_ops.identity(inputs)
        if training is None:
            training = backend.learning_phase()

        def dropped():
            return nn_ops.dropout(inputs, noise_shape=self._noise_shape(inputs), seed=self.seed, rate=self.rate)

        return smart_cond(training, dropped, lambda: control_flow_ops.identity(inputs))


class Lambda(Layer):
    """``function(inputs, **arguments)`` as a layer."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, dict(arguments or {})

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)


class Embedding(Layer):
    """Rows of ``embeddings`` [input_dim, output_dim] gathered by integer ids
    (float ids are cast to int32 first)."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 activity_regularizer=None, embeddings_constraint=None, mask_zero=False, input_length=None,
                 **kwargs):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError(f"Both `input_dim` and `output_dim` should be positive, Received input_dim = "
                             f"{input_dim} and output_dim = {output_dim}")
        kwargs.setdefault("dtype", backend.floatx())
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get("random_uniform" if embeddings_initializer == "uniform"
                                                       else embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self.embeddings_constraint, self.mask_zero = embeddings_constraint, mask_zero

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs):
        if inputs.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            inputs = math_ops.cast(inputs, dtypes.int32)
        return embedding_ops.embedding_lookup(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        """``ids != 0`` with ``mask_zero`` (id 0 is padding), else None."""
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)


class Masking(Layer):
    """Zeroes the time steps whose features all equal ``mask_value``, and masks them for the layers after
    (Keras: ``any(inputs != mask_value)`` over the last axis, the output and the mask made together)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def call(self, inputs):
        keep = math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        outputs = inputs * math_ops.cast(keep, inputs.dtype.base_dtype)
        backend.set_keras_mask(outputs, array_ops.squeeze(keep, axis=-1))
        return outputs

    def compute_mask(self, inputs, mask=None):
        return math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def get_config(self):
        return dict(super().get_config(), mask_value=self.mask_value)


class LeakyReLU(Layer):
    """``max(x, alpha * x)`` (``LeakyRelu``), alpha 0.3 by default."""

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError("The alpha value of a Leaky ReLU layer cannot be None, Expecting a float. Received: "
                             f"{alpha}")
        self.alpha = float(alpha)

    def call(self, inputs):
        return activations.relu(inputs, alpha=self.alpha)


class ReLU(Layer):
    """Keras' ``relu(x, negative_slope, max_value, threshold)``."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)


class _Merge(Layer):
    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"A merge layer should be called on a list of at least 2 inputs. Got "
                             f"{len(inputs) if isinstance(inputs, (list, tuple)) else 1} inputs.")


class Concatenate(_Merge):
    """``concat(inputs, axis)`` (a negative axis counted from the first input's rank)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        self._check(inputs)
        axis = self.axis
        if axis < 0:
            rank = inputs[0].shape.ndims
            axis = axis % rank if rank else 0
        return array_ops.concat(list(inputs), axis)


class Add(_Merge):
    """The element-wise sum of the inputs (``add``, ``add_1``, ... in the layer's scope)."""

    def call(self, inputs):
        self._check(inputs)
        output = inputs[0]
        for x in inputs[1:]:
            output += x
        return output


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


class Permute(Layer):
    """The non-batch axes reordered: ``transpose(inputs, (0,) + dims)`` (dims count from 1)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")

    def call(self, inputs):
        return array_ops.transpose(inputs, perm=(0,) + self.dims)


class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features] (ExpandDims, then Tile by ``stack([1, n, 1])``)."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        x = array_ops.expand_dims(inputs, 1)
        return array_ops.tile(x, array_ops.stack([1, self.n, 1]))
