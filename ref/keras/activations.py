"""``tf.keras.activations``: element-wise functions by name (tf_keras builds
them from the ``tf.nn`` ops; ``relu`` with its options as Keras' backend)."""
from __future__ import annotations

from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import clip_ops, math_ops, nn_ops
from ref.grad import custom_activations

__all__ = ["relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu", "softplus", "softsign", "exponential",
           "hard_sigmoid", "swish", "get", "serialize"]


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """max(x, 0) (``Relu``); ``alpha`` leaks below ``threshold``, ``max_value`` clips above."""
    if alpha == 0 and max_value is None and threshold == 0:
        return nn_ops.relu(x)
    if alpha != 0 and max_value is None and threshold == 0:
        return nn_ops.leaky_relu(x, alpha=alpha)
    x = convert_to_tensor(x)
    negative = nn_ops.relu(-x + threshold) if alpha != 0 else None
    if threshold != 0:
        x = x * math_ops.cast(math_ops.greater(x, threshold), x.dtype)
    elif max_value == 6:
        x = nn_ops.relu6(x)
        max_value = None
    else:
        x = nn_ops.relu(x)
    if max_value is not None:
        x = clip_ops.clip_by_value(x, math_ops.cast(0.0, x.dtype), math_ops.cast(max_value, x.dtype))
    if negative is not None:
        x = x - alpha * negative
    return x


def sigmoid(x):
    return math_ops.sigmoid(x)


def tanh(x):
    return math_ops.tanh(x)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along ``axis``; a rank-1 input is an error, as in Keras."""
    x = convert_to_tensor(x)
    if x.shape.ndims == 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    return nn_ops.softmax(x, axis=axis)


def linear(x):
    return x


def elu(x, alpha=1.0):
    out = nn_ops.elu(x)
    return out if alpha == 1 else math_ops.where(math_ops.greater(x, 0), out, alpha * out)


def selu(x):
    return nn_ops.selu(x)


def softplus(x):
    return nn_ops.softplus(x)


def softsign(x):
    return nn_ops.softsign(x)


def exponential(x):
    return math_ops.exp(x)


def hard_sigmoid(x):
    """``clip(0.2 x + 0.5, 0, 1)`` (Keras' backend: the two coefficients as constants, ``Mul`` then ``Add``)."""
    x = convert_to_tensor(x)
    point_two = constant(0.2, dtype=x.dtype.base_dtype)
    point_five = constant(0.5, dtype=x.dtype.base_dtype)
    x = math_ops.add(math_ops.multiply(x, point_two, name="Mul"), point_five, name="Add")
    return clip_ops.clip_by_value(x, 0.0, 1.0)


def swish(x):
    return custom_activations.swish(x)


_BY_NAME = {f.__name__: f for f in (relu, sigmoid, tanh, softmax, linear, elu, selu, softplus, softsign,
                                    exponential, hard_sigmoid, swish)}


def get(identifier):
    """The activation named ``identifier`` (None: ``linear``), or the callable itself."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown activation function: '{identifier}'. Please ensure you are using a "
                             f"`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")


def serialize(activation):
    return getattr(activation, "__name__", activation)
