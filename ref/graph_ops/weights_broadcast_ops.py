"""The weight-broadcast checks that losses and metrics put in front of their
arithmetic (TF's ``weights_broadcast_ops``), built on ``tf.Assert``.

Weights broadcast to values when they are a scalar, or have the values' rank
with every dimension either 1 or the values' dimension. Static shapes are
checked at graph construction (ValueError); otherwise an ``Assert`` op checks
at run time (InvalidArgumentError). Both messages start with
``weights can not be broadcast to values.``
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import cond, no_op
from ref.graph_ops.logging_ops import Assert
from ref.graph_ops.sets_impl import set_difference

__all__ = ["assert_broadcastable", "broadcast_weights"]

_BROADCAST_ERROR = "weights can not be broadcast to values."


def _has_valid_dims(weights_shape, values_shape):
    """True when every weights dimension is 1 or the values' (TF: the set
    difference of the weights' dimensions and {values dim, 1} per axis is empty)."""
    with name_scope(None, "has_invalid_dims", (weights_shape, values_shape)) as scope:
        values_shape_2d = array_ops.expand_dims(values_shape, -1)
        valid_dims = array_ops.concat((values_shape_2d, array_ops.ones_like(values_shape_2d)), axis=1)
        weights_shape_2d = array_ops.expand_dims(weights_shape, -1)
        invalid_dims = set_difference(weights_shape_2d, valid_dims)
        num_invalid_dims = array_ops.size(invalid_dims.values, name="num_invalid_dims")
        return math_ops.equal(0, num_invalid_dims, name=scope)


def _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank, values_shape):
    with name_scope(None, "has_valid_nonscalar_shape", (weights_rank, weights_shape, values_rank, values_shape)) \
            as scope:
        is_same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
        return cond(is_same_rank, lambda: _has_valid_dims(weights_shape, values_shape), lambda: is_same_rank,
                    name=scope)


def assert_broadcastable(weights, values):
    """An op that fails unless ``weights`` broadcast to ``values`` (a no-op when
    the static shapes already settle it; ValueError when they rule it out)."""
    with name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        with name_scope(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        w_rank, v_rank = constant_value(weights_rank), constant_value(values_rank)
        if w_rank is not None and v_rank is not None:
            if w_rank == 0:
                return no_op(name="static_scalar_check_success")
            if w_rank != v_rank:
                raise ValueError(f"{_BROADCAST_ERROR} values.rank={v_rank}. weights.rank={w_rank}. "
                                 f"values.shape={values.shape}. weights.shape={weights.shape}.")
            w_dims, v_dims = constant_value(weights_shape), constant_value(values_shape)
            if w_dims is not None and v_dims is not None:
                for i, (w, v) in enumerate(zip(w_dims.tolist(), v_dims.tolist())):
                    if w not in (1, v):
                        raise ValueError(f"{_BROADCAST_ERROR} Mismatch at dim {i}. values.shape={v_dims.tolist()}, "
                                         f"weights.shape={w_dims.tolist()}.")
                return no_op(name="static_dims_check_success")
        is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")
        is_valid = cond(is_scalar, lambda: is_scalar,
                        lambda: _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank, values_shape),
                        name="is_valid_shape")
        data = (_BROADCAST_ERROR, "weights.shape=", weights.name, weights_shape, "values.shape=", values.name,
                values_shape, "is_scalar=", is_scalar)
        return Assert(is_valid, data, name=scope)


def broadcast_weights(weights, values):
    """``weights`` broadcast to the shape of ``values`` (checked as above)."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if (weights.shape.is_fully_defined() and values.shape.is_fully_defined()
                and weights.shape.is_compatible_with(values.shape)):
            return weights
        with control_dependencies((assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)
