"""Array ops: shapes, slicing, joining, gathering and scattering, padding,
segment sums -- TensorFlow's ``array_ops`` kernels on NumPy values.

Every kernel moves or selects elements; none does arithmetic except the
segment reductions (summed in index order, so results are deterministic), so
each one is exact against ``tf.raw_ops.<Name>``. Shape rules mirror TF's shape
functions: they use partially known shapes and the constant value of index
inputs (``Spec.value``), and raise ValueError naming both shapes where TF's
graph construction fails. Bad index values at run time raise
InvalidArgumentError with TF's message (``indices[1] = 7 is not in [0, 5)``).

StridedSlice follows TF's ``ValidateStridedSliceOp`` step by step (sparse spec
-> dense spec -> canonical begin/end per dimension -> processing shape -> final
shape): one function serves the shape rule, the kernel and its gradient.
"""
from __future__ import annotations

import builtins

import numpy as np

from ref.types import dtypes
from ref.ops._jit import njit
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, as_shape, unknown_shape

_INDEX = (dtypes.int32, dtypes.int64)
_py_slice = builtins.slice  # this module defines the op ``slice``


def _shape_str(shape) -> str:
    """TF's ``[2,3]`` / ``[?,3]`` / ``?`` rendering of a shape."""
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "?"
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None else str(int(d)) for d in shape) + "]"


def _dims(spec):
    """The static dims of a Spec as a list (None for unknown), or None for unknown rank."""
    return None if spec.shape.ndims is None else spec.shape.as_list()


def _ints(value):
    """A constant index input as a list of Python ints (None if unknown)."""
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _same_dtype(ins, attrs, shape):
    return [(ins[next(iter(ins))].dtype, shape)]


# ---------------------------------------------------------------------------
# Shapes: Shape, ShapeN, Size, Rank, Reshape, ExpandDims, Squeeze, EnsureShape
# ---------------------------------------------------------------------------

def _shape_shape(ins, attrs):
    rank = ins["input"].shape.ndims
    return [(attrs["out_type"], TensorShape([rank]))]


@register_op("Shape", inputs=("input",), attrs={"out_type": dtypes.int32}, type_attrs={"T": "input"},
             allowed={"out_type": _INDEX}, shape=_shape_shape)
def shape(input, out_type=dtypes.int32):
    """The shape of ``input`` as a 1-D ``out_type`` tensor."""
    return np.array(np.shape(input), dtype=dtypes.as_dtype(out_type).np)


def _shape_n_shape(ins, attrs):
    return [(attrs["out_type"], TensorShape([s.shape.ndims])) for s in ins["input"]]


@register_op("ShapeN", inputs=("input",), outputs=("*output",), list_inputs={"input": "N"},
             attrs={"out_type": dtypes.int32}, type_attrs={"T": "input"}, shape=_shape_n_shape)
def shape_n(input, out_type=dtypes.int32):
    """The shapes of every tensor in ``input``."""
    return [shape(x, out_type) for x in input]


@register_op("Size", inputs=("input",), attrs={"out_type": dtypes.int32}, type_attrs={"T": "input"},
             allowed={"out_type": _INDEX}, shape=lambda ins, attrs: [(attrs["out_type"], TensorShape([]))])
def size(input, out_type=dtypes.int32):
    """The number of elements of ``input``."""
    return np.array(np.size(input), dtype=dtypes.as_dtype(out_type).np)


@register_op("Rank", inputs=("input",), type_attrs={"T": "input"},
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([]))])
def rank(input):
    """The number of dimensions of ``input`` (int32)."""
    return np.array(np.ndim(input), dtype=np.int32)


def _resolve_reshape(num_elements, requested):
    """``requested`` with its single -1 inferred from ``num_elements`` (TF's
    ReshapeOp); raises InvalidArgumentError with TF's messages."""
    unknown = [i for i, d in enumerate(requested) if d == -1]
    if len(unknown) > 1:
        raise invalid_argument(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    for i, d in enumerate(requested):
        if d < -1:
            raise invalid_argument(f"Size {i} must be non-negative, not {d}")
    product = 1
    for d in requested:
        if d != -1:
            product *= d
    out = list(requested)
    if unknown:
        if product == 0:
            if num_elements != 0:
                raise invalid_argument(f"Input to reshape is a tensor with {num_elements} values, "
                                       f"but the requested shape has 0")
            out[unknown[0]] = 1  # TF: an empty tensor takes size 1 for the -1
            return out
        if num_elements % product:
            raise invalid_argument(f"Input to reshape is a tensor with {num_elements} values, "
                                   f"but the requested shape requires a multiple of {product}")
        out[unknown[0]] = num_elements // product
    elif product != num_elements:
        raise invalid_argument(f"Input to reshape is a tensor with {num_elements} values, "
                               f"but the requested shape has {product}")
    return out


def _reshape_shape(ins, attrs):
    """TF's reshape shape function: infer the one unknown output dim from the
    known elements, or copy the input's one unknown dim when the known parts agree."""
    tensor, shp = ins["tensor"], ins["shape"]
    requested = _ints(shp.value)
    if requested is None:
        n = shp.shape[0] if shp.shape.ndims == 1 else None
        return _same_dtype(ins, attrs, unknown_shape(n))
    out = [None if d == -1 else d for d in requested]
    dims = _dims(tensor)
    if dims is None or out.count(None) > 1 or dims.count(None) > 1:
        return _same_dtype(ins, attrs, TensorShape(out))
    known_in = int(np.prod([d for d in dims if d is not None], dtype=np.int64))
    known_out = int(np.prod([d for d in out if d is not None], dtype=np.int64))
    in_unknown = None in dims
    out_unknown = out.index(None) if None in out else -1
    if not in_unknown and (out_unknown < 0 or known_out > 0):
        if (out_unknown < 0 and known_in != known_out) or (out_unknown >= 0 and known_in % known_out):
            raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape "
                             f"{_shape_str(out)} ({known_out} elements) for '{attrs['_op_name']}' "
                             f"(op: 'Reshape') with input shapes: {_shape_str(tensor.shape)}, "
                             f"{_shape_str(shp.shape)}.")
        if out_unknown >= 0:
            out[out_unknown] = known_in // known_out
    return _same_dtype(ins, attrs, TensorShape(out))


@register_op("Reshape", inputs=("tensor", "shape"), type_attrs={"T": "tensor", "Tshape": "shape"},
             allowed={"Tshape": _INDEX}, shape=_reshape_shape)
def reshape(tensor, shape):
    """``tensor``'s elements in row-major order, in shape ``shape`` (one -1 is inferred)."""
    shape = np.asarray(shape)
    if shape.ndim > 1:
        raise invalid_argument(f"shape must be a vector of {{int32,int64}}, got shape {_shape_str(shape.shape)}")
    return np.reshape(tensor, _resolve_reshape(np.size(tensor), [int(d) for d in shape.reshape(-1)]))


def _expand_dims_shape(ins, attrs):
    dims, axis = _dims(ins["input"]), _ints(ins["axis"].value)
    if dims is None or axis is None:
        return _same_dtype(ins, attrs, unknown_shape(None if dims is None else len(dims) + 1))
    a = axis[0]
    if not -len(dims) - 1 <= a <= len(dims):
        raise ValueError(f"Tried to expand dim index {a} for tensor with {len(dims)} dimensions. "
                         f"Input shapes: {_shape_str(ins['input'].shape)}.")
    a = a % (len(dims) + 1)
    return _same_dtype(ins, attrs, TensorShape(dims[:a] + [1] + dims[a:]))


@register_op("ExpandDims", inputs=("input", "axis"), type_attrs={"T": "input", "Tdim": "axis"},
             allowed={"Tdim": _INDEX}, shape=_expand_dims_shape)
def expand_dims(input, axis):
    """``input`` with a dimension of size 1 inserted at ``axis`` (in [-rank-1, rank])."""
    axis = np.asarray(axis)
    if axis.size != 1:
        raise invalid_argument("'dim' must be a tensor with a single value")
    x = np.asarray(input)
    a, r = int(axis.reshape(-1)[0]), x.ndim
    if not -r - 1 <= a <= r:
        raise invalid_argument(f"Tried to expand dim index {a} for tensor with {r} dimensions.")
    a %= r + 1
    return x.reshape(x.shape[:a] + (1,) + x.shape[a:])  # a view, as np.expand_dims gives


def _squeeze_axes(dims, axis, err):
    rank = len(dims)
    axes = set()
    for a in axis:
        if not -rank <= a < rank:
            raise err(f"Tried to squeeze dim index {a} for tensor with {rank} dimensions.")
        axes.add(a % rank)
    out = []
    for i, d in enumerate(dims):
        if axes:
            if i in axes:
                if d is not None and d != 1:
                    raise err(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
                continue
        elif d == 1:
            continue
        out.append(d)
    return out


def _squeeze_shape(ins, attrs):
    dims = _dims(ins["input"])
    axis = list(attrs.get("axis") or [])
    if dims is None:
        return _same_dtype(ins, attrs, unknown_shape())
    if not axis and None in dims:
        return _same_dtype(ins, attrs, unknown_shape())
    return _same_dtype(ins, attrs, TensorShape(_squeeze_axes(dims, axis, ValueError)))


@register_op("Squeeze", inputs=("input",), attrs={"axis": ()}, type_attrs={"T": "input"},
             shape=_squeeze_shape)
def squeeze(input, axis=()):
    """``input`` without the size-1 dimensions listed in ``axis`` (all of them if empty).
    TF's op-def calls the attr ``squeeze_dims``; the raw-op argument is ``axis``."""
    x = np.asarray(input)
    return x.reshape(_squeeze_axes(list(x.shape), [int(a) for a in (axis or ())], invalid_argument))


def _ensure_shape_shape(ins, attrs):
    have, want = ins["input"].shape, as_shape(attrs["shape"])
    if not have.is_compatible_with(want):
        raise ValueError(f"Shape of tensor {attrs['_op_name']} {_shape_str(have)} is not compatible with "
                         f"expected shape {_shape_str(want)}.")
    return _same_dtype(ins, attrs, have.merge_with(want))


@register_op("EnsureShape", inputs=("input",), attrs={"shape": REQUIRED}, type_attrs={"T": "input"},
             shape=_ensure_shape_shape)
def ensure_shape(input, shape):
    """``input``, after checking at run time that its shape is compatible with ``shape``."""
    want = as_shape(shape)
    if not TensorShape(np.shape(input)).is_compatible_with(want):
        raise invalid_argument(f"Shape of tensor input {_shape_str(list(np.shape(input)))} is not compatible "
                               f"with expected shape {_shape_str(want)}.")
    return input


# ---------------------------------------------------------------------------
# Permuting: Transpose, ConjugateTranspose, Reverse, ReverseV2, InvertPermutation
# ---------------------------------------------------------------------------

def _check_perm(perm, rank, err):
    if len(perm) != rank:
        raise err(f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}")
    for i in range(rank):
        if i not in perm:
            raise err(f"{i} is missing from {{{','.join(str(p) for p in perm)}}}.")


def _transpose_shape(ins, attrs):
    dims, perm = _dims(ins["x"]), _ints(ins["perm"].value)
    if perm is None:
        n = ins["perm"].shape[0] if ins["perm"].shape.ndims == 1 else None
        return _same_dtype(ins, attrs, unknown_shape(n if dims is None else len(dims)))
    if dims is None:
        return _same_dtype(ins, attrs, unknown_shape(len(perm)))
    _check_perm(perm, len(dims), ValueError)
    return _same_dtype(ins, attrs, TensorShape([dims[p] for p in perm]))


@register_op("Transpose", inputs=("x", "perm"), outputs=("y",), type_attrs={"T": "x", "Tperm": "perm"},
             allowed={"Tperm": _INDEX}, shape=_transpose_shape)
def transpose(x, perm):
    """``y[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_{n-1}]``: ``y.shape[k] = x.shape[perm[k]]``."""
    perm = [int(p) for p in np.asarray(perm).reshape(-1)]
    _check_perm(perm, np.ndim(x), invalid_argument)
    return np.array(np.transpose(np.asarray(x), perm), order="C")


@register_op("ConjugateTranspose", inputs=("x", "perm"), outputs=("y",),
             type_attrs={"T": "x", "Tperm": "perm"}, allowed={"Tperm": _INDEX}, shape=_transpose_shape)
def conjugate_transpose(x, perm):
    """``conj(transpose(x, perm))``."""
    y = transpose(x, perm)
    return np.conj(y) if y.dtype.kind == "c" else y


@register_op("ReverseV2", inputs=("tensor", "axis"), type_attrs={"T": "tensor", "Tidx": "axis"},
             allowed={"Tidx": _INDEX}, shape=lambda ins, attrs: _same_dtype(ins, attrs, ins["tensor"].shape))
def reverse_v2(tensor, axis):
    """``tensor`` with the dimensions listed in ``axis`` reversed."""
    r = np.ndim(tensor)
    axes = []
    for i, a in enumerate(np.asarray(axis).reshape(-1)):
        a = int(a)
        if not -r <= a < r:
            raise invalid_argument(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}")
        if a % r in axes:
            raise invalid_argument(f"axis {a % r} specified more than once.")
        axes.append(a % r)
    return np.flip(tensor, axes).copy() if axes else np.array(tensor)


@register_op("ReverseSequence", inputs=("input", "seq_lengths"), attrs={"seq_dim": REQUIRED, "batch_dim": 0},
             type_attrs={"T": "input", "Tlen": "seq_lengths"}, allowed={"Tlen": _INDEX},
             shape=lambda ins, attrs: _same_dtype(ins, attrs, ins["input"].shape))
def reverse_sequence(input, seq_lengths, seq_dim, batch_dim=0):  # noqa: A002 - TF's name
    """For each ``b``, the first ``seq_lengths[b]`` entries of
    ``input[b]`` along ``seq_dim`` reversed, the rest kept (``ReverseSequence``)."""
    x = np.asarray(input)
    r = x.ndim
    if not (0 <= batch_dim < r and 0 <= seq_dim < r) or batch_dim == seq_dim:
        raise invalid_argument(f"Invalid batch_dim {batch_dim} / seq_dim {seq_dim} for an input of rank {r}")
    lengths = np.asarray(seq_lengths).reshape(-1)
    if lengths.size != x.shape[batch_dim]:
        raise invalid_argument(f"Length of seq_lengths != input.dims({batch_dim}), ({lengths.size} vs. "
                               f"{x.shape[batch_dim]})")
    if lengths.size and (lengths.min() < 0 or lengths.max() > x.shape[seq_dim]):
        raise invalid_argument(f"seq_lens(b) must be in [0, input.dims({seq_dim})], got {lengths.tolist()}")
    out = np.array(x)
    for b, n in enumerate(lengths.tolist()):
        src = [builtins.slice(None)] * r
        src[batch_dim] = b
        src[seq_dim] = builtins.slice(0, n)
        part = x[tuple(src)]
        out[tuple(src)] = np.flip(part, seq_dim - (batch_dim < seq_dim))
    return out


@register_op("Reverse", inputs=("tensor", "dims"), type_attrs={"T": "tensor"},
             shape=lambda ins, attrs: _same_dtype(ins, attrs, ins["tensor"].shape))
def reverse(tensor, dims):
    """``tensor`` with dimension ``i`` reversed where the bool vector ``dims[i]`` is true."""
    dims = np.asarray(dims, dtype=bool).reshape(-1)
    if dims.size != np.ndim(tensor):
        raise invalid_argument(f"'dims' must have the same number of values as 'input' has dimensions. "
                               f"'input' has {np.ndim(tensor)}'dims' has {dims.size} values")
    return np.flip(tensor, tuple(np.flatnonzero(dims))).copy()


@register_op("InvertPermutation", inputs=("x",), outputs=("y",), type_attrs={"T": "x"},
             allowed={"T": _INDEX}, shape=lambda ins, attrs: _same_dtype(ins, attrs, ins["x"].shape))
def invert_permutation(x):
    """``y[x[i]] = i``."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("invert_permutation expects a 1D vector.")
    n = x.size
    y = np.full(n, -1, dtype=x.dtype)
    for i, d in enumerate(x.tolist()):
        if not 0 <= d < n:
            raise invalid_argument(f"{d} is not between 0 and {n}")
        if y[d] != -1:
            raise invalid_argument(f"{d} is duplicated in the input.")
        y[d] = i
    return y


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
            raise ValueError(f"Dimension size must be evenly divisible by {n} but is {dim} for "
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


def _tile_shape(ins, attrs):
    dims, mult = _dims(ins["input"]), _ints(ins["multiples"].value)
    if dims is None:
        n = ins["multiples"].shape[0] if ins["multiples"].shape.ndims == 1 else None
        return _same_dtype(ins, attrs, unknown_shape(n if mult is None else len(mult)))
    if mult is None:
        return _same_dtype(ins, attrs, unknown_shape(len(dims)))
    if len(mult) != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {len(mult)} for '{attrs['_op_name']}' (op: "
                         f"'Tile') with input shapes: {_shape_str(dims)}, {_shape_str(ins['multiples'].shape)}.")
    return _same_dtype(ins, attrs, TensorShape([None if d is None else d * m for d, m in zip(dims, mult)]))


@register_op("Tile", inputs=("input", "multiples"), type_attrs={"T": "input", "Tmultiples": "multiples"},
             allowed={"Tmultiples": _INDEX}, shape=_tile_shape)
def tile(input, multiples):
    """``input`` repeated ``multiples[i]`` times along dimension ``i``."""
    mult = _ints(multiples)
    if len(mult) != np.ndim(input):
        raise invalid_argument(f"Expected multiples argument to be a vector of length {np.ndim(input)} but "
                               f"got length {len(mult)}")
    for i, m in enumerate(mult):
        if m < 0:
            raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {m}")
    if not mult:
        return np.array(input)
    x = np.asarray(input)
    if all(m == 1 or d == 1 for d, m in zip(x.shape, mult)):  # a broadcast: one copy, no repeats
        out = np.empty([d * m for d, m in zip(x.shape, mult)], x.dtype)
        out[...] = x
        return out
    return np.tile(x, mult)


# ---------------------------------------------------------------------------
# Padding: Pad, PadV2, MirrorPad
# ---------------------------------------------------------------------------

def _pad_shape(ins, attrs, mode=None):
    dims = _dims(ins["input"])
    pads = ins["paddings"].value
    pshape = ins["paddings"].shape
    if dims is None:
        n = pshape[0] if pshape.ndims == 2 else None
        if pads is not None:
            n = np.shape(pads)[0]
        return _same_dtype(ins, attrs, unknown_shape(n))
    if pshape.ndims is not None and (pshape.ndims != 2 or pshape[0] not in (None, len(dims))
                                     or pshape[1] not in (None, 2)):
        raise ValueError(f"Shape must be [{len(dims)},2] but is {_shape_str(pshape)} for paddings of "
                         f"'{attrs['_op_name']}' with input shapes: {_shape_str(dims)}, {_shape_str(pshape)}.")
    if pads is None:
        return _same_dtype(ins, attrs, unknown_shape(len(dims)))
    pads = np.asarray(pads).reshape(-1, 2)
    if (pads < 0).any():
        raise ValueError(f"Paddings must be non-negative for '{attrs['_op_name']}'")
    return _same_dtype(ins, attrs, TensorShape([None if d is None else d + int(a) + int(b)
                                                for d, (a, b) in zip(dims, pads)]))


def _check_paddings(x, paddings):
    p = np.asarray(paddings)
    r = np.ndim(x)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] != r:
        raise invalid_argument(f"The first dimension of paddings must be the rank of inputs"
                               f"{_shape_str(p.shape)}, input shape: {_shape_str(np.shape(x))}")
    for a, b in p.tolist():
        if a < 0 or b < 0:
            raise invalid_argument(f"Paddings must be non-negative: {a} {b}")
    return [(int(a), int(b)) for a, b in p.tolist()]


@register_op("Pad", inputs=("input", "paddings"), type_attrs={"T": "input", "Tpaddings": "paddings"},
             allowed={"Tpaddings": _INDEX}, shape=_pad_shape)
def pad(input, paddings):
    """``input`` with ``paddings[i] = [before, after]`` zeros around dimension ``i``."""
    return np.pad(input, _check_paddings(input, paddings))


@register_op("PadV2", inputs=("input", "paddings", "constant_values"),
             type_attrs={"T": ("input", "constant_values"), "Tpaddings": "paddings"},
             allowed={"Tpaddings": _INDEX}, shape=_pad_shape)
def pad_v2(input, paddings, constant_values):
    """Pad with ``constant_values`` (a scalar) instead of zeros."""
    if np.ndim(constant_values) != 0:
        raise invalid_argument(f"constant_values must be a scalar. Found: {_shape_str(np.shape(constant_values))}")
    return np.pad(input, _check_paddings(input, paddings), constant_values=np.asarray(constant_values).item())


@register_op("MirrorPad", inputs=("input", "paddings"), attrs={"mode": REQUIRED},
             type_attrs={"T": "input", "Tpaddings": "paddings"}, allowed={"Tpaddings": _INDEX},
             shape=_pad_shape)
def mirror_pad(input, paddings, mode):
    """Pad by mirroring: REFLECT omits the edge (``[1,2,3] -> 3,2|1,2,3|2,1``),
    SYMMETRIC repeats it (``2,1|1,2,3|3,2``)."""
    mode = mode.decode() if isinstance(mode, bytes) else mode
    pads = _check_paddings(input, paddings)
    offset = 1 if mode == "REFLECT" else 0
    for d, (a, b) in zip(np.shape(input), pads):
        if a > d - offset or b > d - offset:
            word = "less than" if offset else "no greater than"
            raise invalid_argument(f"paddings must be {word} the dimension size: {a}, {b} not {word} {d}")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise invalid_argument(f"mode must be either REFLECT or SYMMETRIC, got {mode}")
    return np.pad(input, pads, mode=mode.lower())


# ---------------------------------------------------------------------------
# Slicing: Slice, StridedSlice, StridedSliceGrad
# ---------------------------------------------------------------------------

def _slice_bounds(dims, begin, size, err):
    """Per-dimension (begin, size) of Slice with size -1 resolved (None where unknown)."""
    if len(begin) != len(dims) or len(size) != len(dims):
        raise err(f"Expected begin and size arguments to be 1-D tensors of size {len(dims)}, but got shapes "
                  f"[{len(begin)}] and [{len(size)}] instead.")
    out = []
    for i, (d, b, s) in enumerate(zip(dims, begin, size)):
        if s == -1:
            s = None if d is None else d - b
        if d is not None:
            if not 0 <= b <= d:
                raise err(f"Expected begin[{i}] in [0, {d}], but got {b}")
            if not 0 <= s <= d - b:
                raise err(f"Expected size[{i}] in [0, {d - b}], but got {s}")
        elif s is not None and s < 0:
            raise err(f"Expected size[{i}] >= -1, but got {s}")
        out.append((b, s))
    return out


def _slice_shape(ins, attrs):
    dims, begin, size = _dims(ins["input"]), _ints(ins["begin"].value), _ints(ins["size"].value)
    if dims is None:
        return _same_dtype(ins, attrs, unknown_shape(None if size is None else len(size)))
    if size is None:
        return _same_dtype(ins, attrs, unknown_shape(len(dims)))
    if begin is None:
        return _same_dtype(ins, attrs, TensorShape([None if s == -1 else s for s in size]))
    try:
        bounds = _slice_bounds(dims, begin, size, ValueError)
    except ValueError as e:
        raise ValueError(f"{e} for '{attrs['_op_name']}' (op: 'Slice') with input shapes: {_shape_str(dims)}, "
                         f"{_shape_str(ins['begin'].shape)}, {_shape_str(ins['size'].shape)}.") from None
    return _same_dtype(ins, attrs, TensorShape([s for _, s in bounds]))


@register_op("Slice", inputs=("input", "begin", "size"), type_attrs={"T": "input", "Index": ("begin", "size")},
             allowed={"Index": _INDEX}, shape=_slice_shape)
def slice(input, begin, size):  # noqa: A001 - TF's name
    """``input[begin[i] : begin[i] + size[i]]`` in every dimension (size -1: to the end)."""
    bounds = _slice_bounds(list(np.shape(input)), _ints(begin), _ints(size), invalid_argument)
    return np.array(np.asarray(input)[tuple(_py_slice(b, b + s) for b, s in bounds)])


_NEW_AXIS, _SHRINK_AXIS = -1, -2


def _strided_slice_spec(dims, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                        shrink_axis_mask, err):
    """TF's ValidateStridedSliceOp for an input of ``dims`` (None entries unknown).

    ``begin``/``end`` may be None (not known at graph construction); ``strides``
    must be known. Returns ``(final_shape, processing_shape, dense)`` where
    ``dense`` lists, per input dimension, ``(begin, end, stride, shrink)`` with
    begin/end canonical (clamped, negative indices resolved; None if unknown).
    """
    n = len(strides)
    for name, v in (("begin", begin), ("end", end)):
        if v is not None and len(v) != n:
            raise err(f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                      f"[{len(begin) if begin is not None else '?'}], [{len(end) if end is not None else '?'}], "
                      f"and [{n}] instead.")
    if ellipsis_mask & (ellipsis_mask - 1):
        raise err("Multiple ellipses in slice spec not allowed")
    # Step 1: the sparse spec -- count new axes after the ellipsis; append an
    # implicit ellipsis at the end when there is none.
    after_ellipsis, seen = 0, False
    for i in range(n):
        if seen and (1 << i) & new_axis_mask:
            after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            seen = True
    sparse_n = n
    if not seen:
        ellipsis_mask |= 1 << n
        sparse_n += 1
    # Step 2: the dense spec -- one entry per input dimension.
    rank = len(dims)
    d_begin, d_end, d_stride = [0] * rank, [0] * rank, [1] * rank
    d_bmask = d_emask = d_shrink = 0
    gather = []  # final shape: dense index, _NEW_AXIS or _SHRINK_AXIS
    full = 0
    for i in range(sparse_n):
        if (1 << i) & ellipsis_mask:
            nxt = min(rank - (sparse_n - i) + 1 + after_ellipsis, rank)
            while full < nxt:
                d_bmask |= 1 << full
                d_emask |= 1 << full
                gather.append(full)
                full += 1
        elif (1 << i) & new_axis_mask:
            gather.append(_NEW_AXIS)
        else:
            if full == rank:
                raise err(f"Index out of range using input dim {full}; input has only {rank} dims")
            if begin is not None:
                d_begin[full] = begin[i]
            if end is not None:
                d_end[full] = end[i]
            d_stride[full] = strides[i]
            if begin_mask & (1 << i):
                d_bmask |= 1 << full
            if end_mask & (1 << i):
                d_emask |= 1 << full
            if shrink_axis_mask & (1 << i):
                gather.append(_SHRINK_AXIS)
                d_shrink |= 1 << full
            else:
                gather.append(full)
            full += 1
    # Step 3: canonical begin/end and the processing shape per dense dimension.
    known = begin is not None and end is not None
    processing, dense = [], []
    for i in range(rank):
        b, e, s, dim = d_begin[i], d_end[i], d_stride[i], dims[i]
        shrink = bool(d_shrink & (1 << i))
        if s == 0:
            raise err(f"strides[{i}] must be non-zero")
        if shrink and s <= 0:
            raise err("only stride 1 allowed on non-range indexing.")
        if dim is None:
            processing.append(1 if shrink else None)
            dense.append((None, None, s, shrink))
            continue
        masked = (bool(d_bmask & (1 << i)), bool(d_emask & (1 << i)))
        lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

        def canonical(x, c):
            if masked[c]:
                return (lo, hi)[c] if s > 0 else (hi, lo)[c]
            x_fwd = dim + x if x < 0 else x
            return lo if x_fwd < lo else hi if x_fwd > hi else x_fwd

        interval = None
        if known:
            if shrink:
                x_fwd = dim + b if b < 0 else b
                if not 0 <= x_fwd < dim:
                    raise err(f"slice index {b} of dimension {i} out of bounds.")
                b, e = x_fwd, x_fwd + 1
            else:
                b, e = canonical(b, 0), canonical(e, 1)
            interval = e - b
        elif shrink:
            interval = 1
        elif masked[0] and masked[1]:
            interval = -dim if s < 0 else dim
        if interval is None:
            processing.append(None)
        elif interval == 0 or (interval < 0) != (s < 0):
            processing.append(0)
        else:
            processing.append(-(-abs(interval) // abs(s)))
        dense.append((b if known else None, e if known else None, s, shrink))
    # Step 4: the final shape.
    final = [processing[g] if g >= 0 else 1 for g in gather if g != _SHRINK_AXIS]
    return final, processing, dense


def _dense_slices(dense, processing):
    """NumPy basic-indexing slices for the dense spec (all known)."""
    out = []
    for (b, e, s, _), size in zip(dense, processing):
        if size == 0:
            out.append(_py_slice(0, 0))
        elif s < 0 and e < 0:
            out.append(_py_slice(b, None, s))
        else:
            out.append(_py_slice(b, e, s))
    return tuple(out)


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_MASK_ATTRS = {m: 0 for m in _MASKS}


def _strided_slice_static(dims, begin, end, strides, attrs):
    if dims is None or strides is None:
        return unknown_shape()
    try:
        final, _, _ = _strided_slice_spec(dims, begin, end, strides, *(attrs.get(m, 0) for m in _MASKS),
                                          err=ValueError)
    except ValueError as e:
        raise ValueError(f"{e} for '{attrs['_op_name']}' (op: 'StridedSlice') with input shapes: "
                         f"{_shape_str(dims)}, [{len(strides)}], [{len(strides)}], [{len(strides)}] and with "
                         f"computed input tensors: input[1] = <{begin}>, input[2] = <{end}>, "
                         f"input[3] = <{strides}>.") from None
    return TensorShape(final)


def _strided_slice_shape(ins, attrs):
    shape = _strided_slice_static(_dims(ins["input"]), _ints(ins["begin"].value), _ints(ins["end"].value),
                                  _ints(ins["strides"].value), attrs)
    return _same_dtype(ins, attrs, shape)


@register_op("StridedSlice", inputs=("input", "begin", "end", "strides"), attrs=_MASK_ATTRS,
             type_attrs={"T": "input", "Index": ("begin", "end", "strides")}, allowed={"Index": _INDEX},
             shape=_strided_slice_shape)
def strided_slice(input, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """Python's ``input[b0:e0:s0, ..., ...]`` spelled as vectors and bit masks:
    bit ``i`` of ``begin_mask``/``end_mask`` ignores ``begin[i]``/``end[i]``
    (take the widest range), of ``ellipsis_mask`` makes entry ``i`` an
    ellipsis, of ``new_axis_mask`` inserts a size-1 dimension, of
    ``shrink_axis_mask`` takes the single index ``begin[i]`` and drops the
    dimension."""
    x = np.asarray(input)
    final, processing, dense = _strided_slice_spec(
        list(x.shape), _ints(begin), _ints(end), _ints(strides), begin_mask, end_mask, ellipsis_mask,
        new_axis_mask, shrink_axis_mask, err=invalid_argument)
    return np.array(x[_dense_slices(dense, processing)].reshape(final))


def _strided_slice_grad_shape(ins, attrs):
    shape = _ints(ins["shape"].value)
    dt = ins["dy"].dtype
    if shape is None:
        n = ins["shape"].shape[0] if ins["shape"].shape.ndims == 1 else None
        return [(dt, unknown_shape(n))]
    return [(dt, TensorShape(shape))]


@register_op("StridedSliceGrad", inputs=("shape", "begin", "end", "strides", "dy"), attrs=_MASK_ATTRS,
             type_attrs={"T": "dy", "Index": ("shape", "begin", "end", "strides")}, allowed={"Index": _INDEX},
             shape=_strided_slice_grad_shape)
def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                       shrink_axis_mask=0):
    """Zeros of ``shape`` with ``dy`` written where StridedSlice with the same
    arguments would have read (the gradient of StridedSlice)."""
    dims = _ints(shape)
    final, processing, dense = _strided_slice_spec(
        dims, _ints(begin), _ints(end), _ints(strides), begin_mask, end_mask, ellipsis_mask, new_axis_mask,
        shrink_axis_mask, err=invalid_argument)
    dy = np.asarray(dy)
    if list(dy.shape) != final:
        raise invalid_argument(f"shape of dy was {_shape_str(dy.shape)} instead of {_shape_str(final)}")
    out = np.zeros(dims, dtype=dy.dtype)
    out[_dense_slices(dense, processing)] = dy.reshape(processing)
    return out


def _strided_slice_assign(input, begin, end, strides, value, masks, op_type):
    """A copy of ``input`` with ``value`` (broadcast to the slice's shape) written
    where StridedSlice with the same arguments would have read."""
    x = np.array(input, copy=True)
    final, processing, dense = _strided_slice_spec(list(x.shape), _ints(begin), _ints(end), _ints(strides),
                                                   *masks, err=invalid_argument)
    if int(np.prod(processing, dtype=np.int64)) == 0:
        return x
    value = np.asarray(value)
    try:
        rhs = np.broadcast_to(value, final)
    except ValueError:
        raise invalid_argument(f"Cannot broadcast input shape {_shape_str(value.shape)} into final shape "
                               f"{_shape_str(final)}") from None
    x[_dense_slices(dense, processing)] = rhs.reshape(processing)
    return x


def _strided_slice_assign_shape(ins, attrs):
    key = "ref" if "ref" in ins else "input"
    return [(ins[key].dtype, ins[key].shape)]


@register_op("TensorStridedSliceUpdate", inputs=("input", "begin", "end", "strides", "value"), attrs=_MASK_ATTRS,
             type_attrs={"T": ("input", "value"), "Index": ("begin", "end", "strides")}, allowed={"Index": _INDEX},
             shape=_strided_slice_assign_shape)
def tensor_strided_slice_update(input, begin, end, strides, value, begin_mask=0, end_mask=0, ellipsis_mask=0,
                                new_axis_mask=0, shrink_axis_mask=0):
    """``input`` with ``input[b0:e0:s0, ...] = value`` (a new tensor; nothing mutated)."""
    return _strided_slice_assign(input, begin, end, strides, value,
                                 (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask),
                                 "TensorStridedSliceUpdate")


# ---------------------------------------------------------------------------
# Gathering and scattering: GatherV2, Gather, GatherNd, ScatterNd, OneHot
# ---------------------------------------------------------------------------

def _index_str(shape, flat):
    """TF's SliceDebugString: ``[1]``, ``[1,0]``, or ``''`` for a scalar index."""
    if not shape:
        return ""
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _check_range(name, indices, limit, message="is not in [0, {limit})"):
    """InvalidArgumentError for the first entry of ``indices`` outside [0, limit)."""
    idx = np.asarray(indices)
    bad = np.flatnonzero((idx < 0) | (idx >= limit))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(f"{name}{_index_str(idx.shape, i)} = {int(idx.reshape(-1)[i])} "
                               + message.format(limit=limit))


def _gather_static(params, indices, axis, batch_dims, attrs):
    p, i = _dims(params), _dims(indices)
    if p is None or i is None or axis is None:
        r = None if p is None or i is None else len(p) + len(i) - 1 - batch_dims
        return unknown_shape(r)
    if batch_dims < 0:
        batch_dims += len(i)
    if not -len(p) <= axis < len(p):
        raise ValueError(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {len(p)} "
                         f"for '{attrs['_op_name']}' with input shapes: {_shape_str(p)}, {_shape_str(i)}, [].")
    axis %= len(p)
    if batch_dims > axis:
        raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}) for "
                         f"'{attrs['_op_name']}'")
    for k in range(batch_dims):
        if p[k] is not None and i[k] is not None and p[k] != i[k]:
            raise ValueError(f"Dimension {k} in both shapes must be equal, but are {p[k]} and {i[k]}. Shapes "
                             f"are {_shape_str(p)} and {_shape_str(i)}. for '{attrs['_op_name']}'")
    return TensorShape(p[:axis] + i[batch_dims:] + p[axis + 1:])


def _gather_v2_shape(ins, attrs):
    axis = _ints(ins["axis"].value)
    shape = _gather_static(ins["params"], ins["indices"], None if axis is None else axis[0],
                           attrs.get("batch_dims", 0), attrs)
    return [(ins["params"].dtype, shape)]


@register_op("GatherV2", inputs=("params", "indices", "axis"), attrs={"batch_dims": 0},
             type_attrs={"Tparams": "params", "Tindices": "indices", "Taxis": "axis"},
             allowed={"Tindices": (dtypes.int16,) + _INDEX, "Taxis": _INDEX}, shape=_gather_v2_shape)
def gather_v2(params, indices, axis, batch_dims=0):
    """``output[p0.., i.., p1..] = params[p0.., indices[i..], p1..]`` along ``axis``;
    the first ``batch_dims`` dimensions of params and indices are matched
    one-to-one. Out-of-range indices raise InvalidArgumentError (CPU)."""
    params, indices = np.asarray(params), np.asarray(indices)
    axis = int(np.asarray(axis).reshape(-1)[0])
    if batch_dims < 0:
        batch_dims += indices.ndim
    if not -params.ndim <= axis < params.ndim:
        raise invalid_argument(f"Expected axis in the range [{-params.ndim}, {params.ndim}), but got {axis}")
    axis %= params.ndim
    if batch_dims > axis:
        raise invalid_argument(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
    if params.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise invalid_argument(f"params.shape[:{batch_dims}] should equal indices.shape[:{batch_dims}] but got "
                               f"{_shape_str(params.shape)} and {_shape_str(indices.shape)}")
    _check_range("indices", indices, params.shape[axis])
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    batch = params.shape[:batch_dims]
    n = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((n,) + params.shape[batch_dims:])
    i = indices.reshape((n,) + indices.shape[batch_dims:])
    parts = [np.take(p[b], i[b], axis=axis - batch_dims) for b in range(n)]
    out_shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    if not parts:
        return np.zeros(out_shape, dtype=params.dtype)
    return np.stack(parts).reshape(out_shape)


@register_op("Gather", inputs=("params", "indices"), attrs={"validate_indices": True},
             type_attrs={"Tparams": "params", "Tindices": "indices"}, allowed={"Tindices": _INDEX},
             shape=lambda ins, attrs: [(ins["params"].dtype, _gather_static(ins["params"], ins["indices"], 0, 0,
                                                                            attrs))])
def gather(params, indices, validate_indices=True):
    """GatherV2 along axis 0 (the old op)."""
    return gather_v2(params, indices, 0)


def _gather_nd_shape(ins, attrs):
    p, i = _dims(ins["params"]), _dims(ins["indices"])
    dt = ins["params"].dtype
    if p is None or i is None or not i or i[-1] is None:
        return [(dt, unknown_shape())]
    if i[-1] > len(p):
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: {_shape_str(i)} and "
                         f"params shape: {_shape_str(p)} for '{attrs['_op_name']}'")
    return [(dt, TensorShape(i[:-1] + p[i[-1]:]))]


def _nd_positions(name, indices, shape, what, suffix=""):
    """The leading-dims tuples of ``indices`` (shape [..., K]) as index arrays,
    after checking each row lies inside ``shape[:K]``."""
    idx = np.asarray(indices)
    k = idx.shape[-1]
    rows = idx.reshape(-1, k)
    bound = np.array(shape[:k], dtype=np.int64)
    bad = np.flatnonzero(((rows < 0) | (rows >= bound)).any(axis=1)) if rows.size else []
    if len(bad):
        b = int(bad[0])
        raise invalid_argument(f"{name}{_index_str(idx.shape[:-1], b)} = [{', '.join(str(int(v)) for v in rows[b])}] "
                               f"does not index into {what} {_shape_str(shape)}{suffix}")
    return tuple(rows[:, j] for j in range(k))


@register_op("GatherNd", inputs=("params", "indices"), attrs={"bad_indices_policy": ""},
             type_attrs={"Tparams": "params", "Tindices": "indices"},
             allowed={"Tindices": (dtypes.int16,) + _INDEX}, shape=_gather_nd_shape)
def gather_nd(params, indices, bad_indices_policy=""):
    """``output[i..] = params[indices[i.., :]]``: each innermost row of
    ``indices`` (length K) selects an element or slice of ``params``."""
    params, indices = np.asarray(params), np.asarray(indices)
    if indices.ndim == 0 or indices.shape[-1] > params.ndim:
        raise invalid_argument(f"index innermost dimension length must be <= params rank; saw: "
                               f"{indices.shape[-1] if indices.ndim else 0} vs. {params.ndim}")
    k = indices.shape[-1]
    pos = _nd_positions("indices", indices, params.shape, "param shape", ", node name: GatherNd")
    out = params[pos] if k else np.broadcast_to(params, (int(np.prod(indices.shape[:-1], dtype=np.int64)),)
                                                + params.shape)
    return np.array(out.reshape(indices.shape[:-1] + params.shape[k:]))


def _scatter_nd_shape(ins, attrs):
    shape = _ints(ins["shape"].value)
    dt = ins["updates"].dtype
    if shape is None:
        n = ins["shape"].shape[0] if ins["shape"].shape.ndims == 1 else None
        return [(dt, unknown_shape(n))]
    i, u = _dims(ins["indices"]), _dims(ins["updates"])
    if i is not None and u is not None and i and i[-1] is not None:
        want = TensorShape(i[:-1] + shape[i[-1]:])
        if not want.is_compatible_with(TensorShape(u)):
            raise ValueError(f"Dimensions [{len(i) - 1},{len(u)}) of updates[shape={_shape_str(u)}] = "
                             f"{_shape_str(u[len(i) - 1:])} must match dimensions [{i[-1]},{len(shape)}) of "
                             f"output[shape={_shape_str(shape)}] = {_shape_str(shape[i[-1]:])}: for "
                             f"'{attrs['_op_name']}' with input shapes: {_shape_str(i)}, {_shape_str(u)}, "
                             f"[{len(shape)}].")
    return [(dt, TensorShape(shape))]


@register_op("ScatterNd", inputs=("indices", "updates", "shape"), attrs={"bad_indices_policy": ""},
             type_attrs={"T": "updates", "Tindices": ("indices", "shape")},
             allowed={"Tindices": (dtypes.int16,) + _INDEX}, shape=_scatter_nd_shape)
def scatter_nd(indices, updates, shape, bad_indices_policy=""):
    """Zeros of ``shape`` plus ``updates[i..]`` added at ``indices[i.., :]``;
    duplicates add, in index order."""
    indices, updates = np.asarray(indices), np.asarray(updates)
    shape = _ints(shape)
    if indices.ndim == 0:
        raise invalid_argument(f"Indices shape must have rank at least one. Found:{_shape_str(indices.shape)}")
    if updates.ndim == 0:
        raise invalid_argument(f"Updates shape must have rank at least one. Found:{_shape_str(updates.shape)}")
    k = indices.shape[-1]
    if updates.shape != indices.shape[:-1] + tuple(shape[k:]):
        raise invalid_argument(f"Dimensions [{indices.ndim - 1},{updates.ndim}) of updates[shape="
                               f"{_shape_str(updates.shape)}] must match dimensions [{k},{len(shape)}) of "
                               f"output[shape={_shape_str(shape)}]")
    pos = _nd_positions("indices", indices, shape, "shape")
    out = np.zeros(shape, dtype=updates.dtype)
    flat = updates.reshape((-1,) + tuple(shape[k:]))
    if k == 0:
        for row in flat:
            out += row
        return out
    np.add.at(out, pos, flat)
    return out


def _one_hot_shape(ins, attrs):
    dims, depth = _dims(ins["indices"]), _ints(ins["depth"].value)
    d = None if depth is None else depth[0]
    dt = ins["on_value"].dtype
    if dims is None:
        return [(dt, unknown_shape())]
    axis = attrs.get("axis", -1)
    if not -1 <= axis <= len(dims):
        raise ValueError(f"Expected axis to be -1 or between [0, {len(dims) + 1}).  But received: {axis}")
    axis = len(dims) if axis == -1 else axis
    return [(dt, TensorShape(dims[:axis] + [d] + dims[axis:]))]


@register_op("OneHot", inputs=("indices", "depth", "on_value", "off_value"), attrs={"axis": -1},
             type_attrs={"T": ("on_value", "off_value"), "TI": "indices"},
             allowed={"TI": (dtypes.uint8, dtypes.int8) + _INDEX}, shape=_one_hot_shape)
def one_hot(indices, depth, on_value, off_value, axis=-1):
    """``on_value`` where ``indices[i..] == j`` along the new dimension ``axis``
    of size ``depth``, ``off_value`` elsewhere (indices outside [0, depth) give
    an all-off row)."""
    indices = np.asarray(indices)
    depth = int(np.asarray(depth))
    if depth < 0:
        raise invalid_argument(f"depth must be non-negative, got: {depth}")
    if np.ndim(on_value) or np.ndim(off_value):
        raise invalid_argument("on_value and off_value must be scalars")
    r = indices.ndim
    if not -1 <= axis <= r:
        raise invalid_argument(f"Expected axis to be -1 or between [0, {r + 1}).  But received: {axis}")
    axis = r if axis == -1 else axis
    hot = indices[..., None] == np.arange(depth)
    hot = np.moveaxis(hot, -1, axis)
    on, off = np.asarray(on_value), np.asarray(off_value)
    return np.where(hot, on, off).astype(on.dtype)


# ---------------------------------------------------------------------------
# Creating: ZerosLike, OnesLike, Fill, Empty, Where
# ---------------------------------------------------------------------------

@register_op("ZerosLike", inputs=("x",), outputs=("y",), type_attrs={"T": "x"})
def zeros_like(x):
    """Zeros with the shape and dtype of ``x`` (a variant list: unset elements)."""
    if getattr(x, "is_variant", False):
        return x.zeros_like()
    x = np.asarray(x)
    return np.zeros(x.shape, dtype=x.dtype) if x.dtype != object else np.full(x.shape, b"", dtype=object)


@register_op("OnesLike", inputs=("x",), outputs=("y",), type_attrs={"T": "x"})
def ones_like(x):
    """Ones with the shape and dtype of ``x``."""
    x = np.asarray(x)
    return np.ones(x.shape, dtype=x.dtype)


def _dims_input_shape(spec):
    """Static shape described by a 1-D shape input (its value, or its length)."""
    v = _ints(spec.value)
    if v is not None:
        return TensorShape([None if d == -1 else d for d in v])
    return unknown_shape(spec.shape[0] if spec.shape.ndims == 1 else None)


def _fill_shape(ins, attrs):
    if ins["dims"].shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {ins['dims'].shape.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'Fill') with input shapes: {_shape_str(ins['dims'].shape)}, "
                         f"{_shape_str(ins['value'].shape)}.")
    if ins["value"].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ins['value'].shape.ndims} for "
                         f"'{attrs['_op_name']}' (op: 'Fill') with input shapes: {_shape_str(ins['dims'].shape)}, "
                         f"{_shape_str(ins['value'].shape)}.")
    return [(ins["value"].dtype, _dims_input_shape(ins["dims"]))]


@register_op("Fill", inputs=("dims", "value"), type_attrs={"T": "value", "index_type": "dims"},
             allowed={"index_type": _INDEX}, shape=_fill_shape)
def fill(dims, value):
    """A tensor of shape ``dims`` with every element ``value`` (a scalar)."""
    dims = np.asarray(dims)
    if dims.ndim != 1:
        raise invalid_argument(f"dims must represent a vector, got shape {_shape_str(dims.shape)}")
    if np.ndim(value) != 0:
        raise invalid_argument(f"value must represent a scalar, got shape {_shape_str(np.shape(value))}")
    for i, d in enumerate(dims.tolist()):
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    value = np.asarray(value)
    return np.full(dims.tolist(), value, dtype=value.dtype)


@register_op("Empty", inputs=("shape",), attrs={"dtype": REQUIRED, "init": False},
             shape=lambda ins, attrs: [(attrs["dtype"], _dims_input_shape(ins["shape"]))])
def empty(shape, dtype, init=False):
    """An uninitialised tensor of ``shape``; here always zeros (deterministic)."""
    return np.zeros(_ints(shape), dtype=dtypes.as_dtype(dtype).np)


@register_op("Where", inputs=("condition",), outputs=("index",), type_attrs={"T": "condition"},
             shape=lambda ins, attrs: [(dtypes.int64, TensorShape([None, ins["condition"].shape.ndims]))])
def where(condition):
    """The coordinates of the true (non-zero) elements of ``condition``, one row
    per element in row-major order: int64 of shape [num_true, rank]."""
    return np.argwhere(np.asarray(condition)).astype(np.int64)


# ---------------------------------------------------------------------------
# Broadcasting: BroadcastTo, BroadcastArgs, BroadcastGradientArgs
# ---------------------------------------------------------------------------

def _bcast(s0, s1, err=None):
    """The broadcast shape of two shape vectors; InvalidArgumentError if incompatible."""
    n = max(len(s0), len(s1))
    a = [1] * (n - len(s0)) + list(s0)
    b = [1] * (n - len(s1)) + list(s1)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise (err or invalid_argument)(f"Incompatible shapes: {_shape_str(s0)} vs. {_shape_str(s1)}")
        out.append(y if x == 1 else x)
    return out, a, b


def _broadcast_to_shape(ins, attrs):
    target = _dims_input_shape(ins["shape"])
    src = ins["input"].shape
    if target.ndims is not None and src.ndims is not None:
        if src.ndims > target.ndims:
            raise ValueError(f"Shape must be at most rank {target.ndims} but is rank {src.ndims} for "
                             f"'{attrs['_op_name']}' with input shapes: {_shape_str(src)}, "
                             f"{_shape_str(ins['shape'].shape)}.")
        t, s = target.as_list(), [1] * (target.ndims - src.ndims) + src.as_list()
        for x, y in zip(s, t):
            if x is not None and y is not None and x != 1 and x != y:
                raise ValueError(f"Incompatible shapes: {_shape_str(src)} vs. {_shape_str(target)} for "
                                 f"'{attrs['_op_name']}'")
    return _same_dtype(ins, attrs, target)


@register_op("BroadcastTo", inputs=("input", "shape"), type_attrs={"T": "input", "Tidx": "shape"},
             allowed={"Tidx": _INDEX}, shape=_broadcast_to_shape)
def broadcast_to(input, shape):
    """``input`` broadcast (NumPy rules) to ``shape``."""
    target = _ints(shape)
    out, a, _ = _bcast(np.shape(input), target)
    if out != target:
        raise invalid_argument(f"Incompatible shapes: {_shape_str(np.shape(input))} vs. {_shape_str(target)}")
    return np.array(np.broadcast_to(input, target))


def _broadcast_args_shape(ins, attrs):
    s0, s1 = ins["s0"], ins["s1"]
    v0, v1 = _ints(s0.value), _ints(s1.value)
    if v0 is not None and v1 is not None:
        out, _, _ = _bcast(v0, v1, ValueError)
        return [(s0.dtype, TensorShape([len(out)]))]
    n0 = s0.shape[0] if s0.shape.ndims == 1 else None
    n1 = s1.shape[0] if s1.shape.ndims == 1 else None
    return [(s0.dtype, TensorShape([None if n0 is None or n1 is None else max(n0, n1)]))]


@register_op("BroadcastArgs", inputs=("s0", "s1"), outputs=("r0",), type_attrs={"T": ("s0", "s1")},
             allowed={"T": _INDEX}, shape=_broadcast_args_shape)
def broadcast_args(s0, s1):
    """The shape two tensors of shapes ``s0`` and ``s1`` broadcast to."""
    out, _, _ = _bcast(_ints(s0), _ints(s1))
    return np.array(out, dtype=np.asarray(s0).dtype)


@register_op("BroadcastGradientArgs", inputs=("s0", "s1"), outputs=("r0", "r1"), type_attrs={"T": ("s0", "s1")},
             allowed={"T": _INDEX},
             shape=lambda ins, attrs: [(ins["s0"].dtype, TensorShape([None]))] * 2)
def broadcast_gradient_args(s0, s1):
    """The axes to sum a broadcast result's gradient over, for each input (TF's
    BCast ``grad_x_reduce_idx``/``grad_y_reduce_idx``): output axis ``k`` goes to
    every input that is 1 (or missing) there while another is not, and to both
    when all are 1. Ascending."""
    dt = np.asarray(s0).dtype
    out, a, b = _bcast(_ints(s0), _ints(s1))
    r0, r1 = [], []
    for k, (x, y) in enumerate(zip(a, b)):
        if x == 1 and y == 1:
            r0.append(k)
            r1.append(k)
        elif x == 1:
            r0.append(k)
        elif y == 1:
            r1.append(k)
    return np.array(r0, dtype=dt), np.array(r1, dtype=dt)


# ---------------------------------------------------------------------------
# Identities: StopGradient, PreventGradient, IdentityN, CheckNumerics
# ---------------------------------------------------------------------------

@register_op("StopGradient", inputs=("input",), type_attrs={"T": "input"})
def stop_gradient(input):
    """``input``; gradients do not flow through it."""
    return input


@register_op("PreventGradient", inputs=("input",), attrs={"message": ""}, type_attrs={"T": "input"})
def prevent_gradient(input, message=""):
    """``input``; asking for its gradient is an error naming ``message``."""
    return input


@register_op("IdentityN", inputs=("input",), outputs=("*output",), list_inputs={"input": None},
             shape=lambda ins, attrs: [(s.dtype, s.shape) for s in ins["input"]])
def identity_n(input):
    """Every tensor of the list ``input``, unchanged."""
    return list(input)


@register_op("CheckNumerics", inputs=("tensor",), attrs={"message": REQUIRED}, type_attrs={"T": "tensor"},
             allowed={"T": dtypes.FLOATS})
def check_numerics(tensor, message):
    """``tensor``, after checking it holds no NaN or Inf: InvalidArgumentError
    ``"<message> : Tensor had NaN values"`` (or ``Inf values``, ``Inf and NaN values``)."""
    x = np.asarray(tensor)
    has_nan, has_inf = bool(np.isnan(x).any()), bool(np.isinf(x).any())
    if has_nan or has_inf:
        what = "Inf and NaN" if has_nan and has_inf else "NaN" if has_nan else "Inf"
        raise invalid_argument(f"{message} : Tensor had {what} values")
    return tensor


# ---------------------------------------------------------------------------
# Segments and partitions: UnsortedSegment{Sum,Max,Min,Prod}, SegmentSum,
# DynamicStitch, DynamicPartition
# ---------------------------------------------------------------------------

@njit
def _segment_extreme_loop(rows, ids, out, take_max):
    """TF's CPU order: for each row in turn, ``out = out if x < out else x``
    (max) -- so a NaN is kept until a later element replaces it."""
    for j in range(rows.shape[0]):
        s = ids[j]
        if s < 0:
            continue
        for k in range(rows.shape[1]):
            x = rows[j, k]
            o = out[s, k]
            if take_max:
                if not x < o:
                    out[s, k] = x
            elif not x > o:
                out[s, k] = x


def _segment_prepare(data, segment_ids, name="segment_ids"):
    data, ids = np.asarray(data), np.asarray(segment_ids)
    if data.shape[:ids.ndim] != ids.shape:
        raise invalid_argument(f"{name}.shape = {_shape_str(ids.shape)} does not match prefix of "
                               f"data.shape = {_shape_str(data.shape)}")
    inner = data.shape[ids.ndim:]
    return data.reshape((ids.size,) + inner), ids.reshape(-1).astype(np.int64), inner


def _unsorted_segment(data, segment_ids, num_segments, kind):
    rows, ids, inner = _segment_prepare(data, segment_ids)
    n = int(np.asarray(num_segments))
    if n < 0:
        raise invalid_argument(f"num_segments must be non-negative, got {n}")
    bad = np.flatnonzero(ids >= n)
    if bad.size:
        raise invalid_argument(f"segment_ids{_index_str(np.shape(segment_ids), int(bad[0]))} = "
                               f"{int(ids[bad[0]])} is out of range [0, {n})")
    dt = rows.dtype
    if kind == "sum":
        out = np.zeros((n,) + inner, dt)
    elif kind == "prod":
        out = np.ones((n,) + inner, dt)
    else:
        info = np.finfo(dt) if dt.kind in "fc" else np.iinfo(dt)
        out = np.full((n,) + inner, info.min if kind == "max" else info.max, dt)
    keep = ids >= 0
    if kind in ("sum", "prod"):
        (np.add if kind == "sum" else np.multiply).at(out, ids[keep], rows[keep])
        return out
    flat = out.reshape(n, int(np.prod(inner, dtype=np.int64)))
    _segment_extreme_loop(rows.reshape(len(ids), flat.shape[1]), ids, flat, kind == "max")
    return flat.reshape(out.shape)


def _unsorted_segment_shape(ins, attrs):
    data, ids = _dims(ins["data"]), _dims(ins["segment_ids"])
    n = _ints(ins["num_segments"].value)
    dt = ins["data"].dtype
    if data is None or ids is None:
        return [(dt, unknown_shape())]
    if not TensorShape(data[:len(ids)]).is_compatible_with(TensorShape(ids)):
        raise ValueError(f"Shapes {_shape_str(data[:len(ids)])} and {_shape_str(ids)} are incompatible: "
                         f"segment_ids.shape must be a prefix of data.shape for '{attrs['_op_name']}' with input "
                         f"shapes: {_shape_str(data)}, {_shape_str(ids)}, [].")
    return [(dt, TensorShape([None if n is None else n[0]] + data[len(ids):]))]


def _register_unsorted(name, kind, allowed, formula):
    def kernel(data, segment_ids, num_segments):
        return _unsorted_segment(data, segment_ids, num_segments, kind)

    kernel.__name__ = f"unsorted_segment_{kind}"
    kernel.__doc__ = (f"``output[i..] = {formula}`` over ``j`` with ``segment_ids[j] == i``; "
                      f"negative ids are dropped, ids >= num_segments are an error.")
    register_op(name, inputs=("data", "segment_ids", "num_segments"),
                type_attrs={"T": "data", "Tindices": "segment_ids", "Tnumsegments": "num_segments"},
                allowed={"T": allowed, "Tindices": _INDEX, "Tnumsegments": _INDEX},
                shape=_unsorted_segment_shape)(kernel)
    return kernel


unsorted_segment_sum = _register_unsorted("UnsortedSegmentSum", "sum", dtypes.NUMBERS,
                                          "sum data[j..] (in index order)")
unsorted_segment_prod = _register_unsorted("UnsortedSegmentProd", "prod", dtypes.NUMBERS,
                                           "prod data[j..] (1 for an empty segment)")
unsorted_segment_max = _register_unsorted("UnsortedSegmentMax", "max", dtypes.REALS,
                                          "max data[j..] (the type's lowest value for an empty segment)")
unsorted_segment_min = _register_unsorted("UnsortedSegmentMin", "min", dtypes.REALS,
                                          "min data[j..] (the type's highest value for an empty segment)")


def _segment_sum_shape(ins, attrs):
    data = _dims(ins["data"])
    if data is None:
        return [(ins["data"].dtype, unknown_shape())]
    return [(ins["data"].dtype, TensorShape([None] + data[1:]))]


@register_op("SegmentSum", inputs=("data", "segment_ids"), type_attrs={"T": "data", "Tindices": "segment_ids"},
             allowed={"T": dtypes.NUMBERS, "Tindices": _INDEX}, shape=_segment_sum_shape)
def segment_sum(data, segment_ids):
    """``output[i..] = sum data[j..]`` over ``j`` with ``segment_ids[j] == i``;
    ``segment_ids`` is a sorted vector; ``output`` has ``segment_ids[-1] + 1`` rows."""
    ids = np.asarray(segment_ids)
    data = np.asarray(data)
    if ids.ndim != 1 or data.ndim == 0 or ids.shape[0] != data.shape[0]:
        raise invalid_argument("segment_ids should be the same size as dimension 0 of input.")
    n = int(ids[-1]) + 1 if ids.size else 0
    if ids.size and (np.diff(ids) < 0).any():
        raise invalid_argument("segment ids are not increasing")
    bad = np.flatnonzero((ids < 0) | (ids >= max(n, 0)))
    if bad.size:
        raise invalid_argument(f"Segment id {int(ids[bad[0]])} out of range [0, {n}), possibly because "
                               f"'segment_ids' input is not sorted.")
    out = np.zeros((n,) + data.shape[1:], data.dtype)
    np.add.at(out, ids, data)
    return out


def _dynamic_stitch_shape(ins, attrs):
    indices, data = ins["indices"], ins["data"]
    dt = data[0].dtype
    inner = None
    for i, d in zip(indices, data):
        if i.shape.ndims is None or d.shape.ndims is None:
            continue
        rest = TensorShape(d.shape.as_list()[i.shape.ndims:])
        try:
            inner = rest if inner is None else inner.merge_with(rest)
        except ValueError:
            raise ValueError(f"Dimensions must be equal: data shapes {_shape_str(inner)} and {_shape_str(rest)} "
                             f"beyond the indices' rank for '{attrs['_op_name']}'") from None
    values = [_ints(i.value) for i in indices]
    first = None if any(v is None for v in values) else max([-1] + [x for v in values for x in v]) + 1
    if inner is None:
        return [(dt, unknown_shape())]
    return [(dt, TensorShape([first]).concatenate(inner))]


@register_op("DynamicStitch", inputs=("indices", "data"), outputs=("merged",),
             list_inputs={"indices": "N", "data": "N"}, type_attrs={"T": "data"}, shape=_dynamic_stitch_shape)
def dynamic_stitch(indices, data):
    """``merged[indices[m][i..], ...] = data[m][i.., ...]``, later entries
    overwriting earlier ones; ``merged`` has ``max(indices) + 1`` rows."""
    indices = [np.asarray(i) for i in indices]
    data = [np.asarray(d) for d in data]
    n = max([-1] + [int(i.max()) for i in indices if i.size]) + 1
    inner = None
    for m, (i, d) in enumerate(zip(indices, data)):
        if d.shape[:i.ndim] != i.shape:
            raise invalid_argument(f"data[{m}].shape = {_shape_str(d.shape)} does not start with indices[{m}].shape "
                                   f"= {_shape_str(i.shape)}")
        rest = d.shape[i.ndim:]
        if inner is None:
            inner = rest
        elif rest != inner:
            raise invalid_argument(f"Need data[0].shape[{indices[0].ndim}:] = data[{m}].shape[{i.ndim}:], got "
                                   f"data[0].shape = {_shape_str(data[0].shape)}, data[{m}].shape = "
                                   f"{_shape_str(d.shape)}, indices[0].shape = {_shape_str(indices[0].shape)}, "
                                   f"indices[{m}].shape = {_shape_str(i.shape)}")
    out = np.zeros((n,) + tuple(inner or ()), dtype=data[0].dtype if data else np.float32)
    for i, d in zip(indices, data):
        flat = i.reshape(-1)
        bad = np.flatnonzero((flat < 0) | (flat >= n))
        if bad.size:
            raise invalid_argument(f"indices[{int(bad[0])}] is out of range")
        out[flat] = d.reshape((flat.size,) + tuple(inner))
    return out


def _dynamic_partition_shape(ins, attrs):
    data, parts = _dims(ins["data"]), _dims(ins["partitions"])
    dt = ins["data"].dtype
    n = attrs["num_partitions"]
    if data is None or parts is None:
        return [(dt, unknown_shape())] * n
    if not TensorShape(data[:len(parts)]).is_compatible_with(TensorShape(parts)):
        raise ValueError(f"Shapes {_shape_str(data[:len(parts)])} and {_shape_str(parts)} are incompatible: "
                         f"partitions.shape must be a prefix of data.shape for '{attrs['_op_name']}'")
    return [(dt, TensorShape([None] + data[len(parts):]))] * n


@register_op("DynamicPartition", inputs=("data", "partitions"), outputs=("*outputs",),
             attrs={"num_partitions": REQUIRED}, type_attrs={"T": "data"}, shape=_dynamic_partition_shape)
def dynamic_partition(data, partitions, num_partitions):
    """``outputs[p]`` stacks the slices ``data[j..]`` with ``partitions[j..] == p``, in order."""
    data, parts = np.asarray(data), np.asarray(partitions)
    if data.shape[:parts.ndim] != parts.shape:
        raise invalid_argument(f"data.shape must start with partitions.shape, got data.shape = "
                               f"{_shape_str(data.shape)}, partitions.shape = {_shape_str(parts.shape)}")
    _check_range("partitions", parts, num_partitions)
    flat = parts.reshape(-1)
    rows = data.reshape((flat.size,) + data.shape[parts.ndim:])
    return [np.array(rows[flat == p]) for p in range(num_partitions)]


# ---------------------------------------------------------------------------
# Sets: Unique, ListDiff; diagonals: MatrixDiag, MatrixDiagPart
# ---------------------------------------------------------------------------

@register_op("Unique", inputs=("x",), outputs=("y", "idx"), attrs={"out_idx": dtypes.int32},
             type_attrs={"T": "x"}, allowed={"out_idx": _INDEX},
             shape=lambda ins, attrs: [(ins["x"].dtype, TensorShape([None])), (attrs["out_idx"], ins["x"].shape)])
def unique(x, out_idx=dtypes.int32):
    """``y``: the distinct elements of the vector ``x`` in order of first
    occurrence; ``idx``: ``x[i] == y[idx[i]]``."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("unique expects a 1D vector.")
    # NaN != NaN in TF's hash map, so every NaN is its own element.
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True, equal_nan=False)
    order = np.argsort(first, kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    return x[first[order]], position[inverse.reshape(-1)].astype(dtypes.as_dtype(out_idx).np)


@register_op("ListDiff", inputs=("x", "y"), outputs=("out", "idx"), attrs={"out_idx": dtypes.int32},
             type_attrs={"T": ("x", "y")}, allowed={"out_idx": _INDEX},
             shape=lambda ins, attrs: [(ins["x"].dtype, TensorShape([None])), (attrs["out_idx"], TensorShape([None]))])
def list_diff(x, y, out_idx=dtypes.int32):
    """``out``: the elements of vector ``x`` not in ``y``, in order (duplicates kept);
    ``idx``: their positions in ``x``."""
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim != 1 or y.ndim != 1:
        raise invalid_argument("x should be a 1D vector.")
    keep = ~np.isin(x, y)
    return x[keep], np.flatnonzero(keep).astype(dtypes.as_dtype(out_idx).np)


def _matrix_diag_shape(ins, attrs):
    d = _dims(ins["diagonal"])
    if d is None:
        return [(ins["diagonal"].dtype, unknown_shape())]
    if not d:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs['_op_name']}'")
    return [(ins["diagonal"].dtype, TensorShape(d + [d[-1]]))]


@register_op("MatrixDiag", inputs=("diagonal",), type_attrs={"T": "diagonal"}, shape=_matrix_diag_shape)
def matrix_diag(diagonal):
    """``output[..., i, i] = diagonal[..., i]``, zeros elsewhere."""
    d = np.asarray(diagonal)
    if d.ndim < 1:
        raise invalid_argument(f"input must be at least 1-dim, received shape: {_shape_str(d.shape)}")
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), dtype=d.dtype)
    i = np.arange(n)
    out[..., i, i] = d
    return out


def _matrix_diag_part_shape(ins, attrs):
    d = _dims(ins["input"])
    if d is None:
        return [(ins["input"].dtype, unknown_shape())]
    if len(d) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(d)} for '{attrs['_op_name']}'")
    m, n = d[-2:]
    return [(ins["input"].dtype, TensorShape(d[:-2] + [None if m is None or n is None else min(m, n)]))]


@register_op("MatrixDiagPart", inputs=("input",), outputs=("diagonal",), type_attrs={"T": "input"},
             shape=_matrix_diag_part_shape)
def matrix_diag_part(input):
    """``diagonal[..., i] = input[..., i, i]`` for ``i < min(M, N)``."""
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {_shape_str(x.shape)}")
    return np.array(np.diagonal(x, axis1=-2, axis2=-1))
