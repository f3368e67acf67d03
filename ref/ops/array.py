"""Array ops: shapes, permutations, creation, broadcasting, identities, sets and
diagonals -- TensorFlow's ``array_ops`` kernels on NumPy values -- and the
helpers the other array families share. The rest of ``array_ops`` lives in one
module per TF kernel family: ``slicing`` (Slice, StridedSlice),
``gather_scatter``, ``concat_split``, ``pad_tile``, ``segment_reduction``.

Every kernel moves or selects elements, so each one is exact against
``tf.raw_ops.<Name>``. Shape rules mirror TF's shape functions: they use
partially known shapes and the constant value of index inputs
(``Spec.value``), and raise ValueError naming both shapes where TF's graph
construction fails. Bad index values at run time raise InvalidArgumentError
with TF's message (``indices[1] = 7 is not in [0, 5)``).
"""
from __future__ import annotations

import builtins

import math

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op, shape_input
from ref.types.shapes import TensorShape, as_shape, unknown_shape

_INDEX = (dtypes.int32, dtypes.int64)


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


def _resolve_reshape(input_shape, requested):
    """``requested`` with its single -1 inferred from the input's shape (TF's
    ReshapeOp: zero sizes are left out of both products when ``requested`` has
    one, so ``[0, 6]`` to ``[0, -1, 3]`` gives ``[0, 2, 3]``); raises
    InvalidArgumentError with TF's messages."""
    unknown = [i for i, d in enumerate(requested) if d == -1]
    if len(unknown) > 1:
        raise invalid_argument(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    for i, d in enumerate(requested):
        if d < -1:
            raise invalid_argument(f"Size {i} must be non-negative, not {d}")
    num_elements = math.prod(input_shape)
    product = math.prod(d for d in requested if d > 0)
    out = list(requested)
    if unknown:
        has_zero = 0 in requested
        input_has_zero = has_zero and 0 in input_shape
        counted = math.prod(d for d in input_shape if d > 0 or not has_zero)
        missing = counted // product
        if not input_has_zero and product * missing != counted:
            raise invalid_argument(f"Input to reshape is a tensor with {counted} values, "
                                   f"but the requested shape requires a multiple of {product}")
        out[unknown[0]] = missing
    if math.prod(out) != num_elements:
        raise invalid_argument(f"Input to reshape is a tensor with {num_elements} values, "
                               f"but the requested shape has {math.prod(out)}")
    return out


def _reshape_shape(ins, attrs):
    """TF's reshape shape function: infer the one unknown output dim from the
    known elements, or copy the input's one unknown dim when the known parts agree.
    The requested shape is what is known of the shape input (TF's
    ``MakeShapeFromShapeTensor``): its value, else its partially known elements
    (``tf.stack([tf.shape(x)[0], tf.shape(x)[1] * 2])``)."""
    tensor, shp = ins["tensor"], ins["shape"]
    requested = _ints(shp.value)
    if requested is None and shp.partial is not None and shp.partial.ndims is not None:
        requested = [-1 if d is None else d for d in shp.partial.as_list()]
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
    if not in_unknown and out_unknown >= 0 and known_out == 0 and known_in != 0:
        raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape {_shape_str(out)} (0 elements) "
                         f"for '{attrs['_op_name']}' (op: 'Reshape') with input shapes: {_shape_str(tensor.shape)}, "
                         f"{_shape_str(shp.shape)}.")
    if not in_unknown and (out_unknown < 0 or known_out > 0):
        if out_unknown >= 0 and known_in % known_out:
            raise ValueError(f"Dimension size must be evenly divisible by {known_out} but is {known_in} for "
                             f"'{attrs['_op_name']}' (op: 'Reshape') with input shapes: {_shape_str(tensor.shape)}, "
                             f"{_shape_str(shp.shape)} and with input tensors computed as partial shapes: input[1] = "
                             f"{_shape_str(out)}.")
        if out_unknown < 0 and known_in != known_out:
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
    if tensor.__class__ is np.ndarray and shape.__class__ is np.ndarray and shape.ndim == 1:
        dims = shape.tolist()  # the common cases without the general checks: ~1 us
        known = math.prod(dims)
        if min(dims, default=0) >= 0:
            if known == tensor.size:
                return tensor.reshape(dims)
        elif known < 0 and dims.count(-1) == 1 and min(dims) == -1 and tensor.size % -known == 0:
            dims[dims.index(-1)] = tensor.size // -known
            return tensor.reshape(dims)
    shape = np.asarray(shape)
    if shape.ndim > 1:
        raise invalid_argument(f"shape must be a vector of {{int32,int64}}, got shape {_shape_str(shape.shape)}")
    return np.reshape(tensor, _resolve_reshape(np.shape(tensor), [int(d) for d in shape.reshape(-1)]))


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
             shape=_ensure_shape_shape, ctx=True)
def ensure_shape(input, shape, ctx=None):
    """``input``, after checking at run time that its shape is compatible with
    ``shape``; the error names the input as TF's (``MyDivide``, ``split:1``)."""
    want = as_shape(shape)
    if not TensorShape(np.shape(input)).is_compatible_with(want):
        source = "input"
        op = getattr(ctx, "op", None)  # (a raw_ops call has no graph op)
        if op is not None and op.inputs:
            t = op.inputs[0]
            source = t.op.name if t.value_index == 0 else t.name
        raise invalid_argument(f"Shape of tensor {source} {_shape_str(list(np.shape(input)))} is not compatible "
                               f"with expected shape {_shape_str(want)}.")
    return input


# ---------------------------------------------------------------------------
# Permuting: Transpose, ConjugateTranspose, Reverse, ReverseV2, InvertPermutation
# ---------------------------------------------------------------------------

def _check_perm(perm, rank, err):
    """TF's TransposeOp checks of a perm (negative entries count from the end);
    the perm with them made non-negative."""
    if len(perm) != rank:
        raise err(f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}")
    perm = [p + rank if p < 0 else p for p in perm]
    for p in perm:
        if not 0 <= p < rank:
            raise err(f"{p} is out of range [0 .. {rank})")
    for i in range(rank):
        if i not in perm:
            raise err(f"{i} is missing from {{{','.join(str(p) for p in perm)}}}.")
    return perm


def _transpose_shape(ins, attrs):
    """TF's TransposeShapeFn: the rank from the input, else the perm's length; a perm
    vector of that length with entries in [-rank, rank) (a permutation is checked
    when it runs)."""
    x, pshape, value = ins["x"].shape, ins["perm"].shape, ins["perm"].value
    elems = pshape.num_elements() if pshape.ndims is not None else None
    if x.ndims is None and elems is None and value is None:
        return _same_dtype(ins, attrs, unknown_shape())
    rank = x.ndims if x.ndims is not None else (elems if elems is not None else int(np.size(value)))
    if x.ndims is None and rank < 2:  # one entry: a scalar or a vector, unchanged either way
        return _same_dtype(ins, attrs, x)
    where = f" for '{attrs['_op_name']}' with input shapes: {_shape_str(x)}, {_shape_str(pshape)}."
    if x.ndims is not None and x.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {x.ndims}{where}")
    if pshape.ndims is not None and pshape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {pshape.ndims}{where}")
    if elems is not None and elems != rank:
        raise ValueError(f"Dimension must be {rank} but is {elems}{where}")
    if value is None:
        return _same_dtype(ins, attrs, unknown_shape(rank))
    perm = [int(p) for p in np.asarray(value).reshape(-1)]
    for p in perm:
        if not -rank <= p < rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}{where}")
    dims = x.as_list() if x.ndims is not None else [None] * rank
    return _same_dtype(ins, attrs, TensorShape([dims[p] for p in perm]))


@register_op("Transpose", inputs=("x", "perm"), outputs=("y",), type_attrs={"T": "x", "Tperm": "perm"},
             allowed={"Tperm": _INDEX}, shape=_transpose_shape)
def transpose(x, perm):
    """``y[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_{n-1}]``: ``y.shape[k] = x.shape[perm[k]]``."""
    perm = np.asarray(perm)
    if perm.ndim != 1:
        raise invalid_argument(f"perm must be rank 1, got shape {_shape_str(perm.shape)}")
    perm = _check_perm([int(p) for p in perm], np.ndim(x), invalid_argument)
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


def _reverse_sequence_shape(ins, attrs):
    """TF's shape function: seq_lengths a vector; with the input's rank known, both dims inside it and
    seq_lengths' length merged into the batch dimension (ValueError "Dimensions must be equal")."""
    x, lens = ins["input"].shape, ins["seq_lengths"].shape
    where = f"for '{attrs.get('_op_name')}' (op: 'ReverseSequence') with input shapes: {x}, {lens}."
    if lens.ndims is not None and lens.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {lens.ndims} {where}")
    if x.ndims is None:
        return _same_dtype(ins, attrs, x)
    batch_dim, seq_dim = attrs.get("batch_dim", 0), attrs["seq_dim"]
    for what, d in (("batch_dim", batch_dim), ("seq_dim", seq_dim)):
        if d >= x.ndims:
            raise ValueError(f"{what} must be < input rank: {d} vs. {x.ndims} {where}")
    dims = x.as_list()
    n = None if lens.ndims is None else lens.as_list()[0]
    if dims[batch_dim] is not None and n is not None and dims[batch_dim] != n:
        raise ValueError(f"Dimensions must be equal, but are {dims[batch_dim]} and {n} {where}")
    dims[batch_dim] = dims[batch_dim] if dims[batch_dim] is not None else n
    return _same_dtype(ins, attrs, TensorShape(dims))


@register_op("ReverseSequence", inputs=("input", "seq_lengths"), attrs={"seq_dim": REQUIRED, "batch_dim": 0},
             type_attrs={"T": "input", "Tlen": "seq_lengths"}, allowed={"Tlen": _INDEX},
             shape=_reverse_sequence_shape)
def reverse_sequence(input, seq_lengths, seq_dim, batch_dim=0):  # noqa: A002 - TF's name
    """For each ``b``, the first ``seq_lengths[b]`` entries of
    ``input[b]`` along ``seq_dim`` reversed, the rest kept (``ReverseSequence``)."""
    x = np.asarray(input)
    r = x.ndim
    if batch_dim == seq_dim:  # TF's kernel checks, in its order
        raise invalid_argument(f"batch_dim == seq_dim == {seq_dim}")
    for what, d in (("seq_dim", seq_dim), ("batch_dim", batch_dim)):
        if not 0 <= d < r:
            raise invalid_argument(f"{what} must be < input rank ( {d} vs. {r})")
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


def _fill_shape(ins, attrs):
    if ins["dims"].shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {ins['dims'].shape.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'Fill') with input shapes: {_shape_str(ins['dims'].shape)}, "
                         f"{_shape_str(ins['value'].shape)}.")
    if ins["value"].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ins['value'].shape.ndims} for "
                         f"'{attrs['_op_name']}' (op: 'Fill') with input shapes: {_shape_str(ins['dims'].shape)}, "
                         f"{_shape_str(ins['value'].shape)}.")
    known = ins["dims"].value
    below = [] if known is None else [int(v) for v in np.asarray(known).reshape(-1) if v < -1]
    if below:  # TF: -1 is an unknown dimension of a shape tensor, less is invalid
        raise ValueError(f"Invalid value in tensor used for shape: {below[0]}")
    if known is not None and (np.asarray(known) < 0).any():
        raise ValueError(f"Fill dimensions must be >= 0 for '{attrs['_op_name']}' (op: 'Fill') with input shapes: "
                         f"{_shape_str(ins['dims'].shape)}, {_shape_str(ins['value'].shape)}.")
    return [(ins["value"].dtype, shape_input(ins["dims"]))]


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
             shape=lambda ins, attrs: [(attrs["dtype"], shape_input(ins["shape"]))])
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
    target = shape_input(ins["shape"])
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
             type_lists={"T": "input"},
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
# Sets: Unique, UniqueWithCounts, ListDiff; diagonals: MatrixDiag, MatrixDiagPart
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


@register_op("UniqueWithCounts", inputs=("x",), outputs=("y", "idx", "count"), attrs={"out_idx": dtypes.int32},
             type_attrs={"T": "x"}, allowed={"out_idx": _INDEX},
             shape=lambda ins, attrs: [(ins["x"].dtype, TensorShape([None])), (attrs["out_idx"], ins["x"].shape),
                                       (attrs["out_idx"], TensorShape([None]))])
def unique_with_counts(x, out_idx=dtypes.int32):
    """``Unique``'s ``y`` and ``idx``, and ``count[j]``: how often ``y[j]`` occurs in ``x``."""
    y, idx = unique(x, out_idx)
    count = np.bincount(idx.astype(np.int64), minlength=len(y)).astype(idx.dtype)
    return y, idx, count


def _unique_v2_shape(ins, attrs, counts=False):
    """TF's UniqueV2 shape function (UniqueIdxShapeFn): ``y`` of ``x``'s rank, ``idx`` the
    length of the axis (all of a vector ``x`` for an empty axis)."""
    x, axis = ins["x"].shape, ins["axis"].value
    idx = TensorShape([None])
    if axis is not None and x.ndims is not None:
        axis = np.asarray(axis)
        if axis.ndim != 1:
            raise ValueError(f"axis expects a 1D vector. for '{attrs['_op_name']}'")
        if axis.size == 0:
            if x.ndims != 1:
                raise ValueError(f"x expects a 1D vector. for '{attrs['_op_name']}'")
            idx = x
        elif axis.size == 1:
            a = int(axis[0])
            if not -x.ndims <= a < x.ndims:
                raise ValueError(f"axis expects to be in the range [{-x.ndims}, {x.ndims}) for '{attrs['_op_name']}'")
            idx = TensorShape([x.as_list()[a % x.ndims]])
        else:
            raise ValueError(f"axis does not support input tensors larger than 1 elements. for '{attrs['_op_name']}'")
    out = [(ins["x"].dtype, unknown_shape(x.ndims)), (attrs["out_idx"], idx)]
    return out + [(attrs["out_idx"], TensorShape([None]))] if counts else out


def _unique_along(x, axis, out_idx):
    """UniqueV2: the distinct slices of ``x`` along ``axis`` (a 0- or 1-element vector;
    empty: ``x`` is a vector) in order of first occurrence, and each slice's index."""
    x, axis = np.asarray(x), np.asarray(axis)
    if axis.ndim != 1:
        raise invalid_argument("axis expects a 1D vector.")
    if axis.size > 1:
        raise invalid_argument("axis does not support input tensors larger than 1 elements.")
    if axis.size == 0:
        return unique(x, out_idx)
    a = int(axis[0])
    if not -x.ndim <= a < x.ndim:
        raise invalid_argument(f"axis has to be between [0, {x.ndim})")
    a %= x.ndim
    moved = np.moveaxis(x, a, 0)
    rows = moved.reshape(moved.shape[0], -1)
    seen, firsts, idx = {}, [], np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        key = tuple(row.tolist())
        if key not in seen:
            seen[key] = len(firsts)
            firsts.append(i)
        idx[i] = seen[key]
    y = np.moveaxis(moved[firsts], 0, a)
    return np.ascontiguousarray(y), idx.astype(dtypes.as_dtype(out_idx).np)


@register_op("UniqueV2", inputs=("x", "axis"), outputs=("y", "idx"), attrs={"out_idx": dtypes.int32},
             type_attrs={"T": "x", "Taxis": "axis"}, allowed={"out_idx": _INDEX, "Taxis": _INDEX},
             shape=_unique_v2_shape)
def unique_v2(x, axis, out_idx=dtypes.int32):
    """``Unique`` along ``axis``: ``y`` the distinct slices in order of first occurrence,
    ``idx`` the position in ``y`` of each slice of ``x``."""
    return _unique_along(x, axis, out_idx)


@register_op("UniqueWithCountsV2", inputs=("x", "axis"), outputs=("y", "idx", "count"),
             attrs={"out_idx": dtypes.int32}, type_attrs={"T": "x", "Taxis": "axis"},
             allowed={"out_idx": _INDEX, "Taxis": _INDEX},
             shape=lambda ins, attrs: _unique_v2_shape(ins, attrs, counts=True))
def unique_with_counts_v2(x, axis, out_idx=dtypes.int32):
    """``UniqueV2``'s ``y`` and ``idx``, and how many slices of ``x`` each ``y`` slice stands for."""
    y, idx = _unique_along(x, axis, out_idx)
    a = np.asarray(axis)
    n = y.shape[int(a[0]) % y.ndim] if a.size else len(y)
    return y, idx, np.bincount(idx.astype(np.int64), minlength=n).astype(idx.dtype)


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


# -- Bitcast (TF's array_ops.cc: the same bytes read as another type) --------------

_BITCAST_T = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int64, dtypes.int32,
              dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.int8, dtypes.int16,
              dtypes.complex64, dtypes.complex128)


def _bitcast_shape(ins, attrs):
    """Same sizes: the input's shape; a wider input gains a last dimension of the size
    ratio; a narrower one loses its last dimension, which must be that ratio."""
    src, dst = ins["input"].dtype, dtypes.as_dtype(attrs["type"])
    s = ins["input"].shape
    a, b = src.size, dst.size
    if a == b or s.ndims is None:
        return [(dst, s if a == b else unknown_shape())]
    if a > b:
        return [(dst, s.concatenate([a // b]))]
    last = s.as_list()[-1] if s.ndims else None
    where = f"for '{attrs.get('_op_name')}' (op: 'Bitcast') with input shapes: {s}."
    if s.ndims == 0:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 {where}")
    if last is not None and last != b // a:  # TF names the dtypes by their DataType enum numbers
        raise ValueError(f"Cannot bitcast from {src.as_datatype_enum} to {dst.as_datatype_enum} due to shape. "
                         f"{last} does not match {b // a} {where}")
    return [(dst, TensorShape(s.as_list()[:-1]))]


@register_op("Bitcast", inputs=("input",), attrs={"type": REQUIRED}, type_attrs={"T": "input"},
             allowed={"T": _BITCAST_T, "type": _BITCAST_T}, shape=_bitcast_shape)
def bitcast(input, type):
    """output = the bytes of ``input`` as ``type`` (no copy in TF): a wider input gives a
    last dimension of the size ratio, a narrower one takes its last dimension away."""
    x = np.ascontiguousarray(input)
    dst = dtypes.as_dtype(type).np
    a, b = x.dtype.itemsize, dst.itemsize
    if a == b:
        return x.view(dst)
    if a > b:
        return x.reshape(x.shape + (1,)).view(dst).reshape(x.shape + (a // b,))
    if x.ndim == 0 or x.shape[-1] != b // a:
        raise invalid_argument(f"Cannot bitcast from {dtypes.as_dtype(x.dtype).name} to "
                               f"{dtypes.as_dtype(type).name}: shape {list(x.shape)}")
    return x.view(dst).reshape(x.shape[:-1])
