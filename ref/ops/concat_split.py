"""Joining and splitting (TF's concat, pack and split kernels): ConcatV2, Concat,
Pack, Unpack, Split, SplitV. Exact element moves, checked against ``tf.raw_ops``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, as_shape, unknown_shape
from ref.ops.array import _INDEX, _dims, _ints, _shape_str


# ---------------------------------------------------------------------------
# Joining and splitting: ConcatV2, Concat, Pack, Unpack, Split, SplitV, Tile
# ---------------------------------------------------------------------------

def _concat_static(specs, axis_value, attrs):
    """Output shape of concatenating ``specs`` along a (maybe unknown) axis."""
    ranks = {s.shape.ndims for s in specs if s.shape.ndims is not None}
    if len(ranks) > 1:
        a, b = [s.shape for s in specs if s.shape.ndims is not None][:2]
        raise ValueError(f"Shape must be rank {a.ndims} but is rank {b.ndims} for '{attrs['_op_name']}' "
                         f"with input shapes: {', '.join(_shape_str(s.shape) for s in specs)}.")
    if not ranks:
        return unknown_shape()
    rank = ranks.pop()
    if rank == 0:
        raise ValueError(f"Can't concatenate scalars (use tf.stack instead) for '{attrs['_op_name']}'")
    if axis_value is None:
        return unknown_shape(rank)
    axis = int(np.asarray(axis_value).reshape(-1)[0])
    if not -rank <= axis < rank:
        raise ValueError(f"Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis} "
                         f"for '{attrs['_op_name']}'")
    axis %= rank
    out = [None] * rank
    total = 0
    for i, s in enumerate(specs):
        if s.shape.ndims is None:  # an input of unknown rank: its length along the axis is unknown
            total = None
            continue
        dims = s.shape.as_list()
        total = None if total is None or dims[axis] is None else total + dims[axis]
        for k in range(rank):
            if k == axis:
                continue
            if out[k] is not None and dims[k] is not None and out[k] != dims[k]:
                raise ValueError(f"Dimension {k} in both shapes must be equal, but are {out[k]} and {dims[k]}. "
                                 f"Shapes are {_shape_str(specs[0].shape)} and {_shape_str(s.shape)}. for "
                                 f"'{attrs['_op_name']}' with input shapes: "
                                 f"{', '.join(_shape_str(x.shape) for x in specs)}.")
            out[k] = dims[k] if out[k] is None else out[k]
    out[axis] = total
    return TensorShape(out)


def _concat(values, axis):
    rank = np.ndim(values[0])
    if rank == 0:
        raise invalid_argument("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    axis = int(np.asarray(axis).reshape(-1)[0])
    if not -rank <= axis < rank:
        raise invalid_argument(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), "
                               f"but got {axis}")
    axis %= rank
    first = np.shape(values[0])
    for i, v in enumerate(values[1:], 1):
        s = np.shape(v)
        if len(s) != rank:
            raise invalid_argument(f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                                   f"{_shape_str(first)} vs. shape[{i}] = {_shape_str(s)}")
        for k in range(rank):
            if k != axis and s[k] != first[k]:
                raise invalid_argument(f"ConcatOp : Dimension {k} in both shapes must be equal: shape[0] = "
                                       f"{_shape_str(first)} vs. shape[{i}] = {_shape_str(s)}")
    return np.concatenate(values, axis=axis)


@register_op("ConcatV2", inputs=("values", "axis"), list_inputs={"values": "N"},
             type_attrs={"T": "values", "Tidx": "axis"}, allowed={"Tidx": _INDEX},
             shape=lambda ins, attrs: [(ins["values"][0].dtype,
                                        _concat_static(ins["values"], ins["axis"].value, attrs))])
def concat_v2(values, axis):
    """``values`` joined along ``axis`` (every other dimension must agree)."""
    return _concat(values, axis)


@register_op("Concat", inputs=("concat_dim", "values"), list_inputs={"values": "N"}, type_attrs={"T": "values"},
             shape=lambda ins, attrs: [(ins["values"][0].dtype,
                                        _concat_static(ins["values"], ins["concat_dim"].value, attrs))])
def concat(concat_dim, values):
    """The old argument order of ConcatV2: ``concat_dim`` first."""
    return _concat(values, concat_dim)


def _pack_shape(ins, attrs):
    specs = ins["values"]
    merged = unknown_shape()
    for i, s in enumerate(specs):
        try:
            merged = merged.merge_with(s.shape)
        except ValueError:
            if merged.ndims != s.shape.ndims:
                raise ValueError(f"Shapes must be equal rank, but are {merged.ndims} and {s.shape.ndims}; "
                                 f"From merging shape 0 with other shapes. for '{attrs['_op_name']}' (op: 'Pack') "
                                 f"with input shapes: {', '.join(_shape_str(x.shape) for x in specs)}.") from None
            raise ValueError(f"Shapes {_shape_str(merged)} and {_shape_str(s.shape)} are incompatible; "
                             f"From merging shape 0 with other shapes. for '{attrs['_op_name']}' (op: 'Pack') "
                             f"with input shapes: {', '.join(_shape_str(x.shape) for x in specs)}.") from None
    if merged.ndims is None:
        return [(specs[0].dtype, unknown_shape())]
    dims = merged.as_list()
    axis = attrs.get("axis", 0)
    if not -len(dims) - 1 <= axis <= len(dims):
        raise ValueError(f"Invalid axis: {axis}; must be in [{-len(dims) - 1},{len(dims) + 1})")
    axis %= len(dims) + 1
    return [(specs[0].dtype, TensorShape(dims[:axis] + [len(specs)] + dims[axis:]))]


@register_op("Pack", inputs=("values",), list_inputs={"values": "N"}, attrs={"axis": 0},
             type_attrs={"T": "values"}, shape=_pack_shape)
def pack(values, axis=0):
    """The N equal-shaped ``values`` stacked along a new dimension ``axis``."""
    first = np.shape(values[0])
    for i, v in enumerate(values[1:], 1):
        if np.shape(v) != first:
            raise invalid_argument(f"Shapes of all inputs must match: values[0].shape = {_shape_str(first)} != "
                                   f"values[{i}].shape = {_shape_str(np.shape(v))}")
    r = len(first)
    if not -r - 1 <= axis <= r:
        raise invalid_argument(f"axis = {axis} not in [{-r - 1}, {r + 1})")
    return np.stack(values, axis=axis % (r + 1))


def _unpack_shape(ins, attrs):
    dims, num, axis = _dims(ins["value"]), attrs["num"], attrs.get("axis", 0)
    dt = ins["value"].dtype
    if dims is None:
        return [(dt, unknown_shape())] * num
    if not -len(dims) <= axis < len(dims):
        raise ValueError(f"axis = {axis} not in [{-len(dims)}, {len(dims)})")
    axis %= len(dims)
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[axis]} for '{attrs['_op_name']}' (op: 'Unpack') "
                         f"with input shapes: {_shape_str(dims)}.")
    return [(dt, TensorShape(dims[:axis] + dims[axis + 1:]))] * num


@register_op("Unpack", inputs=("value",), outputs=("*output",), attrs={"num": REQUIRED, "axis": 0},
             type_attrs={"T": "value"}, shape=_unpack_shape)
def unpack(value, num, axis=0):
    """The ``num`` slices of ``value`` along ``axis``."""
    shape = np.shape(value)
    r = len(shape)
    if not -r <= axis < r:
        raise invalid_argument(f"axis = {axis} not in [{-r}, {r})")
    axis %= r
    if shape[axis] != num:
        raise invalid_argument(f"Input shape axis {axis} must equal {num}, got shape {_shape_str(shape)}")
    return [np.take(value, i, axis=axis) for i in range(num)]


def _split_sizes_static(dim, sizes, num_split, op_name):
    """Output sizes of SplitV along the split dim (None where unknown)."""
    if sizes is None:
        return [None] * num_split
    if len(sizes) != num_split:
        raise ValueError(f"Length of size_splits should be equal to num_split ({len(sizes)} vs {num_split}) "
                         f"for '{op_name}'")
    if sizes.count(-1) > 1:
        raise ValueError(f"size_splits can only have one -1 for '{op_name}'")
    total = sum(s for s in sizes if s != -1)
    for i, s in enumerate(sizes):  # TF's order: each size (the -1 one resolved) before the total
        size = dim - total if s == -1 and dim is not None else s
        if size < -1 or (size == -1 and dim is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {size} for '{op_name}'")
    if -1 in sizes:
        if dim is None:
            return [None if s == -1 else s for s in sizes]
        rest = dim - (sum(sizes) + 1)
        if rest < 0:
            raise ValueError(f"Determined shape must either match input shape along split_dim exactly if "
                             f"fully specified, or be less than the size of the input along split_dim if not "
                             f"fully specified.  Got: {sum(sizes) + 1} for '{op_name}'")
        return [rest if s == -1 else s for s in sizes]
    if dim is not None and sum(sizes) != dim:
        raise ValueError(f"Determined shape must either match input shape along split_dim exactly if fully "
                         f"specified, or be less than the size of the input along split_dim if not fully "
                         f"specified.  Got: {sum(sizes)} for '{op_name}'")
    return sizes


def _split_outputs(spec, axis_value, sizes_fn, num_split, attrs):
    dims = _dims(spec)
    if dims is None or axis_value is None:
        return [(spec.dtype, unknown_shape(None if dims is None else len(dims)))] * num_split
    axis = int(np.asarray(axis_value).reshape(-1)[0])
    if not -len(dims) <= axis < len(dims):
        raise ValueError(f"Dimension {axis} must be in range [{-len(dims)}, {len(dims)}) for "
                         f"'{attrs['_op_name']}' with input shapes: {_shape_str(dims)}.")
    axis %= len(dims)
    return [(spec.dtype, TensorShape(dims[:axis] + [s] + dims[axis + 1:])) for s in sizes_fn(dims[axis])]


def _split_shape(ins, attrs):
    n = attrs["num_split"]

    def sizes(dim):
        if dim is not None and dim % n:
            raise ValueError(f"Dimension size must be evenly divisible by {n} but is {dim}\n\tNumber of ways to "
                             f"split should evenly divide the split dimension for "
                             f"'{attrs['_op_name']}' (op: 'Split') with input shapes: "
                             f"{_shape_str(ins['axis'].shape)}, {_shape_str(ins['value'].shape)}.")
        return [None if dim is None else dim // n] * n

    return _split_outputs(ins["value"], ins["axis"].value, sizes, n, attrs)


@register_op("Split", inputs=("axis", "value"), outputs=("*output",), attrs={"num_split": REQUIRED},
             type_attrs={"T": "value"}, shape=_split_shape)
def split(axis, value, num_split):
    """``value`` cut into ``num_split`` equal pieces along ``axis``."""
    r = np.ndim(value)
    axis = int(np.asarray(axis).reshape(-1)[0])
    if not -r <= axis < r:
        raise invalid_argument(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {axis}")
    axis %= r
    d = np.shape(value)[axis]
    if d % num_split:
        raise invalid_argument(f"Number of ways to split should evenly divide the split dimension, but got "
                               f"split_dim {axis} (size = {d}) and num_split {num_split}")
    return [np.array(p) for p in np.split(value, num_split, axis=axis)]


def _split_v_shape(ins, attrs):
    n = attrs["num_split"]
    sizes = _ints(ins["size_splits"].value)
    return _split_outputs(ins["value"], ins["axis"].value,
                          lambda dim: _split_sizes_static(dim, sizes, n, attrs["_op_name"]), n, attrs)


@register_op("SplitV", inputs=("value", "size_splits", "axis"), outputs=("*output",),
             attrs={"num_split": REQUIRED}, type_attrs={"T": "value", "Tlen": "size_splits"},
             allowed={"Tlen": (dtypes.int8,) + _INDEX}, shape=_split_v_shape)
def split_v(value, size_splits, axis, num_split):
    """``value`` cut along ``axis`` into pieces of ``size_splits`` (one may be -1: the rest)."""
    r = np.ndim(value)
    if np.size(axis) != 1:
        raise invalid_argument("split_dim_tensor must have exactly one element.")
    axis = int(np.asarray(axis).reshape(-1)[0])
    if not -r <= axis < r:
        raise invalid_argument(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {axis}")
    axis %= r
    try:
        sizes = _split_sizes_static(np.shape(value)[axis], _ints(size_splits), num_split, "SplitV")
    except ValueError as e:
        raise invalid_argument(str(e).split(" for 'SplitV'")[0]) from None
    bounds = np.cumsum(sizes)[:-1]
    return [np.array(p) for p in np.split(value, bounds, axis=axis)]


@register_op("ParallelConcat", inputs=("values",), list_inputs={"values": "N"}, attrs={"shape": REQUIRED},
             type_attrs={"T": "values"},
             shape=lambda ins, attrs: [(ins["values"][0].dtype, as_shape(attrs["shape"]))])
def parallel_concat(values, shape):
    """The N ``[1, ...]`` values concatenated along the first dimension into
    ``shape`` (TF's ``tf.parallel_stack``: every input's shape is ``shape[1:]``
    with a leading 1)."""
    want = as_shape(shape)
    for i, v in enumerate(values):
        if np.shape(v)[:1] != (1,) or (want.ndims is not None and np.ndim(v) != want.ndims):
            raise invalid_argument(f"ParallelConcat: input {i} should have shape [1, ...] of rank {want.ndims}, "
                                   f"got {_shape_str(np.shape(v))}")
    out = np.concatenate([np.asarray(v) for v in values], axis=0)
    if not TensorShape(out.shape).is_compatible_with(want):
        raise invalid_argument(f"ParallelConcat: output shape {_shape_str(out.shape)} is not {want}")
    return out
