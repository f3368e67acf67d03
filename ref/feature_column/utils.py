"""Checks and small builders the feature columns share (TF's
``feature_column/utils.py`` and the shape check of ``feature_column_v2.py``):
the messages and error kinds are TF's."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, nest
from ref.framework.graph import name_scope
from ref.graph_ops import array_ops, math_ops, math_special


def dtype_str(dtype):
    """A dtype as TF's ``str`` writes it in messages (``<dtype: 'float32'>``)."""
    return f"<dtype: '{dtype.name}'>" if dtype is not None else "None"


def assert_string_or_int(dtype, prefix):
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype_str(dtype)}.")


def assert_key_is_string(key):
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def check_shape(shape, key):
    """``shape`` as a tuple of positive ints (a bare int is a 1-d shape)."""
    assert shape is not None
    if not nest.is_nested(shape):
        shape = [shape]
    shape = tuple(shape)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return shape


def _shape_matches(value, shape):
    if nest.is_nested(value) != bool(shape):
        return False
    if not shape:
        return True
    if len(value) != shape[0]:
        return False
    return all(_shape_matches(value[i], shape[1:]) for i in range(shape[0]))


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if nest.is_nested(value) else value


def _filled(shape, value):
    if not shape:
        return value
    return tuple(_filled(shape[1:], value) for _ in range(shape[0]))


def check_default_value(shape, default_value, dtype, key):
    """A numeric column's default as a nested tuple of ``shape`` (a scalar is
    repeated); TypeError when it does not fit ``dtype``, ValueError when its
    shape is not ``shape``."""
    if default_value is None:
        return None
    if isinstance(default_value, int):
        return _filled(shape, default_value)
    if isinstance(default_value, float) and dtype.is_floating:
        return _filled(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if nest.is_nested(default_value):
        if not _shape_matches(default_value, shape):
            raise ValueError(f"The shape of default_value must be equal to given shape. default_value: "
                             f"{default_value}, shape: {shape}, key: {key}")
        flat = nest.flatten(default_value)
        if all(isinstance(v, int) for v in flat):
            return _as_tuple(default_value)
        if any(isinstance(v, float) for v in flat) and dtype.is_floating:
            return _as_tuple(default_value)
    raise TypeError(f"default_value must be compatible with dtype. default_value: {default_value}, "
                    f"dtype: {dtype_str(dtype)}, key: {key}")


def sequence_length_from_sparse_tensor(sp_tensor, num_elements=1):
    """Each example's sequence length: 1 + its largest column index, divided by
    ``num_elements`` and rounded up; rows with no entries get 0."""
    with name_scope(None, "sequence_length") as scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1]
        column_ids += array_ops.ones_like(column_ids)
        seq_length = math_special.segment_max(column_ids, segment_ids=row_ids)
        seq_length = math_ops.cast(math_ops.ceil(seq_length / num_elements), dtypes.int64)
        n_pad = array_ops.shape(sp_tensor)[:1] - array_ops.shape(seq_length)[:1]
        padding = array_ops.zeros(n_pad, dtype=seq_length.dtype)
        return array_ops.concat([seq_length, padding], axis=0, name=scope)


def as_dtype_of(values):
    """The dtype NumPy gives a vocabulary list (TF: ``dtypes.as_dtype(np.array(v).dtype)``)."""
    return dtypes.as_dtype(np.array(values).dtype)
