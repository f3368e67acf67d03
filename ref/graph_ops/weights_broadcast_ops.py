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

__all__ = ["assert_broadcastable", "broadcast_weights"]

_BROADCAST_ERROR = "weights can not be broadcast to values."


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

        def valid_dims():
            ok = math_ops.logical_or(math_ops.equal(weights_shape, 1), math_ops.equal(weights_shape, values_shape))
            return math_ops.reduce_all(ok)

        def same_rank_and_dims():
            same = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
            return cond(same, valid_dims, lambda: same)

        is_valid = cond(is_scalar, lambda: is_scalar, same_rank_and_dims, name="is_valid_shape")
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
