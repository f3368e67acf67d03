"""``tf.repeat``: each element of ``input`` repeated along ``axis``, like
``np.repeat``, built as TF's ``array_ops.repeat_with_axis`` builds it. One
repeat count for all: ``expand_dims`` after ``axis``, tile that new dimension,
reshape. A count per element: tile every element ``max(repeats)`` times, keep
the first ``repeats[i]`` of each (``sequence_mask`` + ``boolean_mask``), and
reshape when ``axis`` is not the first. Without ``axis`` the input is flattened
first, as NumPy does."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops

__all__ = ["repeat"]


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's name
    """``input`` with each element repeated ``repeats`` times along ``axis``
    (flattened first when ``axis`` is None)."""
    if axis is None:
        input = array_ops.reshape(input, [-1])
        axis = 0
    return repeat_with_axis(input, repeats, axis, name)


def _int_tensor(value, name):
    t = convert_to_tensor(value, name=name, dtype_hint=dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: {name}) must be of type integer. Received `tensor` = {t} "
                        f"of dtype: {t.dtype.name}")
    return apply_op("Cast", x=t, DstT=dtypes.int32, name="Cast")


def _positive_axis(axis, ndims):
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    if ndims is not None:
        if 0 <= axis < ndims:
            return axis
        if -ndims <= axis < 0:
            return axis + ndims
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    if axis < 0:
        raise ValueError(f"axis={axis} may only be negative if rank(data) is statically known.")
    return axis


def _with_nonzero_rank(data):
    if data.shape.ndims is not None:
        return array_ops.stack([data]) if data.shape.ndims == 0 else data
    data_shape, data_ndims = array_ops.shape(data), array_ops.rank(data)
    return array_ops.reshape(data, array_ops.concat([[1], data_shape], axis=0)[-data_ndims:])


def _tile_one_dimension(data, axis, multiple):
    if data.shape.ndims is not None:
        multiples = [1] * data.shape.ndims
        multiples[axis] = multiple
    else:
        ones_value = array_ops.ones(array_ops.rank(data), dtypes.int32)
        multiples = array_ops.concat([ones_value[:axis], [multiple], ones_value[axis + 1:]], axis=0)
    return array_ops.tile(data, multiples)


def _all_dimensions(x):
    if x.shape.ndims is not None:
        return constant(np.arange(x.shape.ndims), dtype=dtypes.int32)
    return apply_op("Range", start=0, limit=array_ops.rank(x), delta=1)


def repeat_with_axis(data, repeats, axis, name=None):
    """``data`` with element ``i`` along ``axis`` repeated ``repeats[i]`` times
    (``repeats`` a scalar or a vector as long as that dimension)."""
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type {type(axis).__name__}")
    with name_scope(name, "Repeat", [data, repeats]):
        data = convert_to_tensor(data, name="data")
        repeats = _int_tensor(repeats, "repeats")
        repeats.shape.with_rank_at_most(1)
        data = _with_nonzero_rank(data)
        data_shape = array_ops.shape(data, out_type=repeats.dtype)
        axis = _positive_axis(axis, data.shape.ndims)
        if repeats.shape.num_elements() == 1:
            repeats = array_ops.reshape(repeats, [])
            expanded = array_ops.expand_dims(data, axis + 1)
            tiled = _tile_one_dimension(expanded, axis + 1, repeats)
            result_shape = array_ops.concat([data_shape[:axis], [repeats * data_shape[axis]], data_shape[axis + 1:]],
                                            axis=0)
            return array_ops.reshape(tiled, result_shape)
        if repeats.shape.ndims == 1:
            data.shape.dims[axis].assert_is_compatible_with(repeats.shape[0])
        repeats = array_ops.broadcast_to(repeats, [data_shape[axis]])
        repeats_original = repeats
        if repeats.shape.ndims != axis + 1:
            repeats_shape, repeats_ndims = array_ops.shape(repeats), array_ops.rank(repeats)
            broadcast_shape = array_ops.concat([data_shape[:axis + 1 - repeats_ndims], repeats_shape], axis=0)
            repeats = array_ops.broadcast_to(repeats, broadcast_shape)
            repeats.set_shape([None] * (axis + 1))
        max_repeat = apply_op("Max", input=repeats, axis=_all_dimensions(repeats))
        max_repeat = apply_op("Maximum", x=convert_to_tensor(0, name="zero", dtype=max_repeat.dtype), y=max_repeat)
        mask = array_ops.sequence_mask(repeats, max_repeat)
        expanded = array_ops.expand_dims(data, axis + 1)
        tiled = _tile_one_dimension(expanded, axis + 1, max_repeat)
        masked = array_ops.boolean_mask(tiled, mask)
        if axis == 0:
            result = masked
        else:
            repeated_dim_size = apply_op("Sum", input=repeats_original,
                                         axis=apply_op("Range", start=0, limit=array_ops.rank(repeats_original),
                                                       delta=1))
            result_shape = array_ops.concat([data_shape[:axis], [repeated_dim_size], data_shape[axis + 1:]], axis=0)
            result = array_ops.reshape(masked, result_shape)
        if data.shape.ndims is not None:
            new_axis_size = 0 if repeats.shape[0] == 0 else None
            result.set_shape(data.shape[:axis].concatenate([new_axis_size]).concatenate(data.shape[axis + 1:]))
        return result

