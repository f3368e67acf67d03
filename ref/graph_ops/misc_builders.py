"""Small TF1 builders made of existing ops, each building TF's nodes:
``tf.nn.relu_layer``, ``tf.math.polyval``, ``tf.parallel_stack``,
``tf.timestamp`` and ``tf.bitcast``."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops, nn_ops
from ref.types.shapes import TensorShape

__all__ = ["relu_layer", "polyval", "parallel_stack", "timestamp", "bitcast"]


def bitcast(input, type, name=None):
    """The bytes of ``input`` read as ``type`` (``Bitcast``): a wider input gains a last
    dimension of the size ratio, a narrower one loses its last dimension (that ratio)."""
    return apply_op("Bitcast", input=input, type=type, name=name)


def relu_layer(x, weights, biases, name=None):
    """relu(x @ weights + biases)."""
    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        xw_plus_b = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
        return nn_ops.relu(xw_plus_b, name=scope)


def polyval(coeffs, x, name=None):
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule
    (``p = c + p * x`` per coefficient); zeros for no coefficients."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name, "polyval", list(coeffs) + [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if len(coeffs) < 1:
            return array_ops.zeros_like(x, name=scope)
        coeffs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


def parallel_stack(values, name="parallel_stack"):
    """``values`` stacked along a new first dimension (``ParallelConcat`` of each
    value with a leading 1; the output shape must be known when the graph is built)."""
    with name_scope(name):
        value_t = convert_to_tensor(values[0])
        output_shape = TensorShape([len(values)]).concatenate(value_t.shape)
        return apply_op("ParallelConcat", values=[array_ops.expand_dims(v, 0) for v in values], shape=output_shape)


def timestamp(name=None):
    """Seconds since the Unix epoch when the op runs (float64, ``Timestamp``)."""
    return apply_op("Timestamp", name=name)
