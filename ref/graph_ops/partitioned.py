"""Partitioned variables: the partitioners (TF docs, "Variables" "Variable Partitioners for
Sharding") and the ``PartitionedVariable`` that ``get_variable(...,
partitioner=...)`` returns.

A partitioner maps ``(shape, dtype)`` to a slice count per axis (only one axis
may be split). Slice ``i`` of ``n`` along the axis has length
``full // n + (1 if i < full % n else 0)`` and is the variable ``name/part_i``,
carrying a ``SaveSliceInfo`` (full name, full shape, offset, shape) so that
checkpoints store the whole variable under its full name.
"""
from __future__ import annotations

import math

from ref.types import dtypes
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, register_tensor_conversion_function
from ref.types.shapes import TensorShape, as_shape, dimension_value
from ref.graph_ops.array_ops import concat

__all__ = ["variable_axis_size_partitioner", "fixed_size_partitioner", "min_max_variable_partitioner",
           "PartitionedVariable", "PartitionInfo"]


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """A partitioner keeping shards below ``max_shard_bytes`` along ``axis``:
    ``ceil(shape[axis] / max(1, floor(max_shard_bytes / bytes_per_slice)))``
    shards, at most ``max_shards``."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive. Currently, "
                         f"max_shard_bytes is {max_shard_bytes} andbytes_per_string_element is "  # sic, as TF
                         f"{bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        dtype = dtypes.as_dtype(dtype)
        element_size = bytes_per_string_element if dtype.base_dtype == dtypes.string else dtype.size
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """A partitioner giving each shard at least ``min_slice_size`` bytes, with at
    most ``max_partitions`` shards (and at most ``shape[axis]``)."""
    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is only {shape}")
        dtype = dtypes.as_dtype(dtype)
        per_element = bytes_per_string_element if dtype.base_dtype == dtypes.string else dtype.size
        partitions = shape.num_elements() * per_element / min_slice_size
        out = [1] * len(shape)
        out[axis] = max(1, min(shape.dims[axis].value, max_partitions, int(math.ceil(partitions))))
        return out

    return _partitioner


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner splitting ``axis`` into ``min(num_shards, shape[axis])`` shards."""

    def _partitioner(shape, **unused_args):
        out = [1] * len(shape)
        out[axis] = min(num_shards, shape.dims[axis].value)
        return out

    return _partitioner


class PartitionInfo:
    """Where one partition sits in the full variable (handed to initializers)."""

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError(f"`full_shape` must be a sequence (like tuple or list) instead of {type(full_shape)}")
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError(f"`var_offset` must be a sequence (like tuple or list) instead of {type(var_offset)}")
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                             f"full_shape is of length {len(full_shape)}.")
        for offset, dim in zip(var_offset, full_shape):
            if offset < 0 or offset >= dim:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, shape={dim} for "
                                 f"var_offset={var_offset}, full_shape={full_shape}")
        self._full_shape = list(full_shape)
        self._var_offset = list(var_offset)

    full_shape = property(lambda self: self._full_shape)
    var_offset = property(lambda self: self._var_offset)

    def single_offset(self, shape):
        """The offset along the one sliced dimension (0 if none)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension where ``shape`` differs from the full shape, or None."""
        if not isinstance(shape, (list, tuple)) and not hasattr(shape, "as_list"):
            raise TypeError(f"`shape` must be a sequence (like tuple or list) instead of {type(shape).__name__}")
        shape = list(shape)
        if len(shape) != len(self.full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length {len(shape)} while "
                             f"self.full_shape={self.full_shape} is of length {len(self.full_shape)}.")
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(f"With self.var_offset={self.var_offset}, a partition of shape={shape} would "
                                 f"exceed self.full_shape={self.full_shape} in dimension {i}.")
        dims = [i for i in range(len(shape)) if shape[i] != self.full_shape[i]]
        if len(dims) > 1:
            raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and self.full_shape="
                             f"{self.full_shape} since slice dim could be one of {dims}")
        return dims[0] if dims else None


class PartitionedVariable:
    """A variable split into slices along one axis; iterates over the slices and
    converts to a tensor by concatenating them (``v/ConcatPartitions/concat``)."""

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        shape = as_shape(shape)
        for v in variable_list:
            if not all(x._get_save_slice_info() is not None for x in variable_list):
                raise ValueError(f"All variables must have a save_slice_info available: "
                                 f"{[x.name for x in variable_list]}")
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if v._get_save_slice_info().full_shape != shape.as_list():
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but full shapes were: "
                                 f"{[v._get_save_slice_info().full_shape]}")
        self._variable_list = sorted(variable_list, key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._variable_list[0].graph)

    def get_shape(self):
        return self._shape

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _concat(self):
        if len(self._variable_list) == 1:
            with name_scope(None):
                return apply_op("Identity", input=self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot concatenate along more than one dimension: {axes}.  Multi-axis "
                                      "partition concat is not supported")
        with name_scope(self._name + "/ConcatPartitions/"):
            concatenated = concat(list(self._variable_list), axes[0])
        with name_scope(None):
            return apply_op("Identity", input=concatenated, name=self._name)

    def as_tensor(self):
        """The full value: the slices concatenated along the partition axis."""
        with control_dependencies(None):
            return self._concat()

    def _apply_assign_fn(self, assign_fn, value):
        """``assign_fn(partition, its part of value)`` for every partition: ``value``
        is a list with one value per partition, a PartitionedVariable, or a
        whole value split along the partition axis.

        Raises:
          NotImplementedError: for a variable partitioned along several axes."""
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot do assign action along more than one dimension: {axes}.  "
                                      "Multi-axis partition assign action is not supported ")
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(f"Expected {len(self._variable_list)} values, one per partition, got {len(value)}")
            parts = value
        elif isinstance(value, PartitionedVariable):
            parts = list(value)
        else:
            axis = axes[0]
            sizes = [dimension_value(v.get_shape()[axis]) for v in self._variable_list]
            parts = apply_op("SplitV", value=value, size_splits=sizes, axis=axis, num_split=len(sizes))
        return [assign_fn(v, p) for v, p in zip(self._variable_list, parts)]

    def _assign_all(self, method, value, use_locking, name, read_value):
        ops = self._apply_assign_fn(lambda v, p: getattr(v, method)(p, use_locking=use_locking, name=name,
                                                                   read_value=read_value), value)
        return ops if read_value else [getattr(o, "op", o) for o in ops]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns the matching part of ``value`` to every partition; returns the
        list of assign results (ops when not ``read_value``)."""
        return self._assign_all("assign", value, use_locking, name, read_value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        """Adds the matching part of ``value`` to every partition (list, as ``assign``)."""
        return self._assign_all("assign_add", value, use_locking, name, read_value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        """Subtracts the matching part of ``value`` from every partition (list, as ``assign``)."""
        return self._assign_all("assign_sub", value, use_locking, name, read_value)

    def __repr__(self):
        return f"<PartitionedVariable '{self._name}' shape={self._shape} partitions={self._partitions}>"


def _to_tensor(v, dtype=None, name=None, as_ref=False):
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _to_tensor)
