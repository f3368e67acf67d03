"""TF1 array functions (``tf.reshape``, ``tf.concat``, ``tf.gather``, ...) built
on the ops of :mod:`ref.ops.array` (and its sibling families) with ``ref.framework.op_def_library.apply_op``.

Names, signatures, defaults and the ops they create (types and names) follow
``tensorflow.compat.v1``: e.g. ``tf.shape`` of a fully defined tensor is a
``Const``, ``tf.zeros`` of a small static shape is a ``Const`` and otherwise a
``Fill``, ``tf.concat`` of one tensor is an ``Identity``, ``tf.gather`` builds
``GatherV2``. :func:`_slice_helper` is ``Tensor.__getitem__``.
"""
from __future__ import annotations

import numbers

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, colocate_with, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.tensor_util import constant_value, constant_value_as_shape
from ref.types.shapes import Dimension, TensorShape, as_shape, dimension_value
from ref.ops.registry import broadcast_shapes
from ref.graph_ops.control_flow_ops import with_dependencies
from ref.framework.sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["guarantee_const", "reshape", "transpose", "concat", "split", "stack", "pack", "unstack", "unpack", "expand_dims",
           "squeeze", "slice", "strided_slice", "gather", "gather_nd", "scatter_nd", "tile", "pad", "shape",
           "shape_n", "size", "rank", "zeros", "ones", "fill", "zeros_like", "ones_like", "one_hot",
           "stop_gradient", "broadcast_to", "broadcast_dynamic_shape", "broadcast_static_shape",
           "check_numerics", "verify_tensor_all_finite", "where", "where_v2", "boolean_mask", "sequence_mask",
           "reverse", "reverse_v2", "unique", "setdiff1d", "unsorted_segment_sum", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "segment_sum", "dynamic_stitch",
           "dynamic_partition", "invert_permutation", "identity_n", "ensure_shape", "meshgrid", "newaxis",
           "reverse_sequence", "tensor_scatter_nd_update", "tensor_scatter_update", "tensor_scatter_nd_add", "tensor_scatter_add",
           "tensor_scatter_nd_sub", "tensor_scatter_sub", "tensor_scatter_nd_min", "tensor_scatter_nd_max"]

newaxis = None
_slice = slice  # this module defines tf.slice


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

def reshape(tensor, shape, name=None):
    """``tensor`` with its elements in ``shape`` (one entry may be -1)."""
    out = apply_op("Reshape", tensor=tensor, shape=shape, name=name or "Reshape")
    return _refine(out, out.op.inputs[1])


def _refine(out, shape_tensor):
    """Sharpens ``out``'s static shape with what is known of the 1-D shape
    tensor it was built from (TF's shape functions read partially known shape
    tensors, e.g. ``tf.shape(x)`` of a partially known ``x``)."""
    if isinstance(shape_tensor, Tensor):
        known = constant_value_as_shape(shape_tensor)
        if known.ndims is not None and out.shape.is_compatible_with(known):
            out.set_shape(known)
    return out


def shape(input, name=None, out_type=dtypes.int32):
    """The shape of ``input``: a ``Const`` when statically known, else a ``Shape`` op."""
    with name_scope(name, "Shape", [input]) as scope:
        out_type = dtypes.as_dtype(out_type or dtypes.int32)
        if isinstance(input, (SparseTensor, SparseTensorValue)):  # TF: its dense_shape, cast ("Shape/Cast")
            return apply_op("Cast", x=_sparse_shape(input), DstT=out_type)
        input = convert_to_tensor(input)
        dims = input.shape.as_list() if input.shape.is_fully_defined() else None
        if dims is not None and all(d <= np.iinfo(out_type.np).max for d in dims):
            return constant(np.array(dims, out_type.np), name=scope)
        return apply_op("Shape", input=input, out_type=out_type, name=scope)


def _sparse_shape(sp):
    return sp.dense_shape if isinstance(sp, SparseTensor) else convert_to_tensor(sp.dense_shape, dtypes.int64)


def shape_n(input, out_type=dtypes.int32, name=None):
    """The shapes of the tensors in ``input`` (one ``ShapeN`` op)."""
    return apply_op("ShapeN", input=list(input), out_type=dtypes.as_dtype(out_type), name=name or "ShapeN")


def size(input, name=None, out_type=dtypes.int32):
    """The number of elements of ``input`` (a ``Const`` when statically known)."""
    with name_scope(name, "Size", [input]) as scope:
        out_type = dtypes.as_dtype(out_type)
        if isinstance(input, (SparseTensor, SparseTensorValue)):  # TF: the product of its dense_shape
            return apply_op("Prod", input=apply_op("Cast", x=_sparse_shape(input), DstT=out_type),
                            axis=0, name=scope)
        input = convert_to_tensor(input)
        s = input.shape
        if s.is_fully_defined():
            return constant(s.num_elements(), out_type, name=scope)
        if s.ndims is not None and 0 in s.as_list():
            return constant(0, out_type, name=scope)
        return apply_op("Size", input=input, out_type=out_type, name=scope)


def rank(input, name=None):
    """The number of dimensions of ``input`` (a ``Const`` when statically known)."""
    with name_scope(name, "Rank", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):  # TF: the size of its dense_shape
            return apply_op("Size", input=_sparse_shape(input), out_type=dtypes.int32, name=scope)
        input = convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtypes.int32, name=scope)
        return apply_op("Rank", input=input, name=scope)


def expand_dims(input, axis=None, name=None, dim=None):
    """``input`` with a size-1 dimension inserted at ``axis`` (``dim`` is its old name)."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", input=input, axis=axis, name=name or "ExpandDims")


def squeeze(input, axis=None, name=None, squeeze_dims=None):
    """``input`` without size-1 dimensions (only those in ``axis`` if given)."""
    axis = _deprecated_alias("axis", axis, "squeeze_dims", squeeze_dims)
    if np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", input=input, axis=[int(a) for a in (axis or [])], name=name or "Squeeze")


def _deprecated_alias(new_name, new, old_name, old):
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
    return new if new is not None else old


def ensure_shape(x, shape, name=None):
    """``x``, checked at run time to have a shape compatible with ``shape``."""
    return apply_op("EnsureShape", input=x, shape=as_shape(shape), name=name or "EnsureShape")


def broadcast_to(input, shape, name=None):
    """``input`` broadcast to ``shape``."""
    return _refine(apply_op("BroadcastTo", input=input, shape=shape, name=name or "BroadcastTo"), shape)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shape tensors (``BroadcastArgs``)."""
    return apply_op("BroadcastArgs", s0=shape_x, s1=shape_y)


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (ValueError if incompatible)."""
    try:
        return broadcast_shapes(as_shape(shape_x), as_shape(shape_y))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if for each "
                         f"dimension pair they are either equal or one of them is 1. Received: {shape_x} "
                         f"and {shape_y}.") from None


# ---------------------------------------------------------------------------
# Permuting
# ---------------------------------------------------------------------------

def transpose(a, perm=None, name="transpose", conjugate=False):
    """``a`` with dimensions permuted by ``perm`` (reversed when None)."""
    with name_scope(name, "transpose", [a]) as scope:
        a = convert_to_tensor(a, name="a")
        op = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        if perm is None:
            r = a.shape.ndims
            if r is None:
                rk = apply_op("Rank", input=a)
                perm = apply_op("Range", start=apply_op("Sub", x=rk, y=1), limit=-1, delta=-1)
            else:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
        return apply_op(op, x=a, perm=perm, name=scope)


def reverse(tensor, axis, name=None):
    """``tensor`` reversed along the dimensions in ``axis`` (``ReverseV2``)."""
    return apply_op("ReverseV2", tensor=tensor, axis=axis, name=name or "ReverseV2")


reverse_v2 = reverse


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Reverses the first ``seq_lengths[b]`` entries of each batch element
    ``b`` along ``seq_axis`` (``ReverseSequence``; ``seq_dim``/``batch_dim``
    are the deprecated names)."""
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else (batch_dim if batch_dim is not None else 0)
    return apply_op("ReverseSequence", input=input, seq_lengths=seq_lengths, seq_dim=seq_axis,
                    batch_dim=batch_axis, name=name or "ReverseSequence")


def invert_permutation(x, name=None):
    """``y[x[i]] = i``."""
    return apply_op("InvertPermutation", x=x, name=name or "InvertPermutation")


# ---------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------

def concat(values, axis, name="concat"):
    """``values`` joined along ``axis``; a single tensor passes through an Identity."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:  # TF: ConcatV2's N has a minimum of 2 (one value is an Identity)
        raise ValueError("List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum length 2.")
    if len(values) == 1:
        with name_scope(name):  # TF: the Identity is named ``name`` inside the scope ``name``
            axis_t = convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            axis_t.shape.assert_has_rank(0)
            return apply_op("Identity", input=values[0], name=name)  # "<scope>/<name>", as TF
    return apply_op("ConcatV2", values=list(values), axis=axis, name=name)


def stack(values, axis=0, name="stack"):
    """``values`` (same shape) stacked along a new dimension ``axis``."""
    if axis == 0:
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    first = convert_to_tensor(values[0], name=name)
    r = first.shape.ndims
    if r is not None and not -r - 1 <= axis < r + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r - 1}, {r + 1})")
    return apply_op("Pack", values=list(values), axis=axis, name=name)


def pack(values, axis=0, name="pack"):
    """The old name of :func:`stack`."""
    return stack(values, axis, name)


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of ``value`` along ``axis`` (``num`` inferred from the static shape)."""
    value = convert_to_tensor(value)
    if num is None:
        s = value.shape
        if s.ndims is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
        if not -s.ndims <= axis < s.ndims:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-s.ndims}, {s.ndims})")
        num = dimension_value(s[axis])
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    return list(apply_op("Unpack", value=value, num=num, axis=axis, name=name))


def unpack(value, num=None, axis=0, name="unpack"):
    """The old name of :func:`unstack`."""
    return unstack(value, num, axis, name)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal pieces
    (an int: ``Split``) or pieces of the given sizes (a list/tensor: ``SplitV``)."""
    if isinstance(num_or_size_splits, (numbers.Integral, Dimension)) and not isinstance(num_or_size_splits, bool):
        return list(apply_op("Split", axis=axis, value=value, num_split=int(num_or_size_splits), name=name))
    sizes = convert_to_tensor(num_or_size_splits)
    if sizes.shape.ndims == 0:
        raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                         f"Argument provided: {num_or_size_splits}")
    if num is None:
        num = dimension_value(sizes.shape[0]) if sizes.shape.ndims else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return list(apply_op("SplitV", value=value, size_splits=sizes, axis=axis, num_split=num, name=name))


def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[i]`` times along dimension ``i``."""
    out = apply_op("Tile", input=input, multiples=multiples, name=name or "Tile")
    multiples = out.op.inputs[1]
    if not out.shape.is_fully_defined() and constant_value(multiples) is None:
        # TF's shape function reads a partially known multiples tensor, e.g. [1, shape(x)[-1]]
        known, dims = constant_value_as_shape(multiples), out.op.inputs[0].shape
        if known.ndims is not None and dims.ndims == known.ndims:
            refined = TensorShape([None if d is None or m is None else d * m
                                   for d, m in zip(dims.as_list(), known.as_list())])
            if out.shape.is_compatible_with(refined):
                out.set_shape(refined)
    return out


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """``tensor`` padded by ``paddings`` ([rank, 2]): with ``constant_values``
    (``Pad`` for a Python zero, else ``PadV2``), or mirrored (REFLECT /
    SYMMETRIC: ``MirrorPad``)."""
    mode = mode.upper()
    if mode == "CONSTANT":
        if (not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0
                and constant_values == np.zeros_like(constant_values)):
            result = apply_op("Pad", input=tensor, paddings=paddings, name=name or "Pad")
        else:
            result = apply_op("PadV2", input=tensor, paddings=paddings, constant_values=constant_values,
                              name=name or "PadV2")
    elif mode in ("REFLECT", "SYMMETRIC"):
        result = apply_op("MirrorPad", input=tensor, paddings=paddings, mode=mode, name=name or "MirrorPad")
    else:
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    # TF's array_ops.pad: the rows of paddings known at graph construction (some of a list
    # of tensors and numbers) give those dimensions where the op's shape function could not
    known = _paddings_constant(paddings)
    in_shape = result.op.inputs[0].shape
    if in_shape.ndims is not None and not result.shape.is_fully_defined() and known is not None:
        result.set_shape([None if row is None or dim is None or any(x is None for x in row) else int(sum(row)) + dim
                          for row, dim in zip(known, in_shape.as_list())])
    return result


def _paddings_constant(paddings):
    if isinstance(paddings, Tensor):
        value = constant_value(paddings)
        return None if value is None else value.tolist()
    if isinstance(paddings, (list, tuple)):
        return [_paddings_constant(x) for x in paddings]
    return paddings


def meshgrid(*args, **kwargs):
    """N-D coordinate arrays from N 1-D ``args``; ``indexing='xy'`` (Cartesian,
    the default: the first two outputs' dims swapped) or ``'ij'`` (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    if not args:
        return []
    with name_scope(name, "meshgrid", list(args)):
        n = len(args)
        outs = [reshape(stack(x), [1] * i + [-1] + [1] * (n - i - 1)) for i, x in enumerate(args)]
        sizes = [size(x) for x in args]
        if indexing == "xy" and n > 1:
            outs[0] = reshape(outs[0], [1, -1] + [1] * (n - 2))
            outs[1] = reshape(outs[1], [-1, 1] + [1] * (n - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        # TF multiplies each by ones of the full shape (its gradient then sums over the broadcast)
        mult = ones(sizes, convert_to_tensor(args[0]).dtype.base_dtype)
        return [x * mult for x in outs]


# ---------------------------------------------------------------------------
# Slicing
# ---------------------------------------------------------------------------

def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """``input_[begin[i] : begin[i] + size[i]]`` in every dimension (size -1: to the end)."""
    return apply_op("Slice", input=input_, begin=begin, size=size, name=name or "Slice")


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """The ``StridedSlice`` op (strides default to ones). With ``var`` (the
    variable ``input_`` reads), the result has TF's ``assign(value, name=None)``:
    ``var[...] = value`` as a ``StridedSliceAssign`` (ref variable) or
    ``ResourceStridedSliceAssign`` (resource variable) named ``<name>_assign``."""
    if strides is None:
        strides = ones_like(begin)
    masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                 new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
    out = apply_op("StridedSlice", input=input_, begin=begin, end=end, strides=strides, **masks,
                   name=name or "StridedSlice")
    if var is not None:
        parent_name = name

        def assign(val, name=None):
            if name is None:
                name = (parent_name or "strided_slice") + "_assign"
            return var._strided_slice_assign(begin=begin, end=end, strides=strides, value=val, name=name, **masks)

        out.assign = assign
    return out


def tensor_strided_slice_update(input, begin, end, strides, value, begin_mask=0, end_mask=0, ellipsis_mask=0,
                                new_axis_mask=0, shrink_axis_mask=0, name=None):
    """``input`` with the slice ``input[begin:end:strides]`` replaced by ``value``
    (``TensorStridedSliceUpdate``; nothing is mutated)."""
    return apply_op("TensorStridedSliceUpdate", input=input, begin=begin, end=end, strides=strides, value=value,
                    begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                    new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask,
                    name=name or "TensorStridedSliceUpdate")


_SLICE_TYPES = (dtypes.int16, dtypes.int32, dtypes.int64)


def _check_index(idx):
    """TypeError unless ``idx`` is a Python int or a scalar integer tensor."""
    if isinstance(idx, (numbers.Integral, Dimension)) and not isinstance(idx, bool):
        return
    dtype = getattr(idx, "dtype", None)
    if dtype is None or dtypes.as_dtype(dtype) not in _SLICE_TYPES or (idx.shape and len(idx.shape) == 1):
        raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                        f"tf.int32/tf.int64 tensors are valid indices, got {idx!r}")


def _index_value(x):
    return x.value if isinstance(x, Dimension) else x


def _slice_helper(tensor, slice_spec, var=None):
    """``tensor[slice_spec]`` (``Tensor.__getitem__``) as one ``StridedSlice``,
    built exactly as TF does: ints shrink a dimension, slices (with steps) set
    begin/end/stride and their masks where omitted, ``...`` is the ellipsis,
    ``None`` (``tf.newaxis``) adds a dimension, scalar integer tensors index
    dynamically, and a bool mask goes to :func:`boolean_mask`."""
    tensor = convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool) or (isinstance(slice_spec, Tensor) and slice_spec.dtype == dtypes.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, _slice):
            dtype = None  # the widest tensor dtype among start/stop/step
            for t in (s.start, s.stop, s.step):
                if isinstance(t, Tensor):
                    if t.dtype == dtypes.int64:
                        dtype = dtypes.int64
                    elif t.dtype == dtypes.int32 and dtype != dtypes.int64:
                        dtype = dtypes.int32
                    elif t.dtype == dtypes.int16 and dtype is None:
                        dtype = dtypes.int16
            for part, out, mask_default in ((s.start, begin, 0), (s.stop, end, 0), (s.step, strides, 1)):
                part = _index_value(part)
                if part is not None:
                    _check_index(part)
                    out.append(part)
                else:
                    out.append(mask_default if dtype is None else constant(mask_default, dtype=dtype))
                    if out is begin:
                        begin_mask |= 1 << index
                    elif out is end:
                        end_mask |= 1 << index
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            s = _index_value(s)
            _check_index(s)
            begin.append(s)
            end.append(apply_op("AddV2", x=s, y=1, name="add") if isinstance(s, Tensor) else s + 1)
            if isinstance(s, Tensor) and s.dtype in (dtypes.int16, dtypes.int64):
                strides.append(constant(1, dtype=s.dtype))
            else:
                strides.append(1)
            shrink_axis_mask |= 1 << index
    with name_scope(None, "strided_slice", [tensor] + begin + end + strides) as scope:
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            if any(p.dtype == dtypes.int64 for p in packed):
                packed = [p if p.dtype == dtypes.int64 else apply_op("Cast", x=p, DstT=dtypes.int64)
                          for p in packed]
        else:
            empty = constant(np.zeros(0, np.int32))
            packed = [empty, empty, empty]
        return strided_slice(tensor, *packed, begin_mask=begin_mask, end_mask=end_mask,
                             shrink_axis_mask=shrink_axis_mask, new_axis_mask=new_axis_mask,
                             ellipsis_mask=ellipsis_mask, var=var, name=scope)


# ---------------------------------------------------------------------------
# Gathering and scattering
# ---------------------------------------------------------------------------

def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of ``params`` along ``axis`` (default ``batch_dims``) at ``indices``
    (``GatherV2``); ``validate_indices`` has no effect (CPU always validates)."""
    if axis is None:
        axis = batch_dims
    c = constant_value(axis)
    # TF reads rows through sparse_read for resource variables only; a reference
    # variable converts to its snapshot ("w/read") and feeds a plain GatherV2.
    if c is not None and int(c) == 0 and hasattr(params, "handle") and not isinstance(params, Tensor):
        return params.sparse_read(indices, name=name)
    return apply_op("GatherV2", params=params, indices=indices, axis=axis, batch_dims=batch_dims,
                    name=name or "GatherV2")


def gather_nd(params, indices, name=None, batch_dims=0, bad_indices_policy=""):
    """``output[i..] = params[indices[i.., :]]`` (``GatherNd``); an index
    outside ``params`` raises InvalidArgumentError at run time, or gives zeros
    with ``bad_indices_policy="IGNORE"``. Only ``batch_dims=0`` is built here;
    other values raise ValueError."""
    if int(constant_value(batch_dims)) != 0:
        raise ValueError("ref's gather_nd supports batch_dims=0 only")
    return apply_op("GatherNd", params=params, indices=indices, bad_indices_policy=bad_indices_policy,
                    name=name or "GatherNd")


def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates add);
    ``bad_indices_policy="IGNORE"`` skips indices outside ``shape``."""
    return apply_op("ScatterNd", indices=indices, updates=updates, shape=shape,
                    bad_indices_policy=bad_indices_policy, name=name or "ScatterNd")


def _tensor_scatter(how):
    op = f"TensorScatter{how}"

    def builder(tensor, indices, updates, name=None):
        return apply_op(op, tensor=tensor, indices=indices, updates=updates, name=name or op)
    builder.__name__ = f"tensor_scatter_nd_{how.lower()}"
    builder.__doc__ = (f"A copy of ``tensor`` with ``updates`` combined ({how.lower()}) into the elements or "
                       f"slices at ``indices`` (``{op}``).")
    return builder


tensor_scatter_nd_update = tensor_scatter_update = _tensor_scatter("Update")
tensor_scatter_nd_add = tensor_scatter_add = _tensor_scatter("Add")
tensor_scatter_nd_sub = tensor_scatter_sub = _tensor_scatter("Sub")
tensor_scatter_nd_min = _tensor_scatter("Min")
tensor_scatter_nd_max = _tensor_scatter("Max")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length ``depth`` along ``axis`` (default last) with
    ``on_value`` (default 1) and ``off_value`` (default 0) of ``dtype`` (default
    the on/off values' dtype, else float32)."""
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
        off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
        given = [t.dtype.base_dtype for t in (on, off) if t is not None]
        if given:
            if dtype is not None:
                for t, what in ((on, "on_value"), (off, "off_value")):
                    if t is not None and t.dtype.base_dtype != dtype:
                        raise TypeError(f"dtype {t.dtype.base_dtype} of {what} does not match dtype parameter "
                                        f"{dtype}")
            else:
                dtype = given[0]
        elif dtype is None:
            dtype = dtypes.float32
        if on is None:
            on = convert_to_tensor(1, dtype, name="on_value")
        if off is None:
            off = convert_to_tensor(0, dtype, name="off_value")
        if on.dtype.base_dtype != off.dtype.base_dtype:
            raise TypeError(f"dtype {on.dtype.base_dtype} of on_value does not match dtype "
                            f"{off.dtype.base_dtype} of off_value")
        return apply_op("OneHot", indices=indices, depth=depth, on_value=on, off_value=off,
                        axis=-1 if axis is None else axis, name=scope)


def where(condition, x=None, y=None, name=None):
    """TF1 ``where``: with ``condition`` alone, the int64 coordinates of its true
    elements (``Where``); with ``x`` and ``y``, ``Select`` (a vector condition
    picks whole rows of x/y)."""
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
            return apply_op("Where", condition=condition, name=scope)
    if x is not None and y is not None:
        return apply_op("Select", condition=condition, x=x, y=y, name=name or "Select")
    raise ValueError("x and y must both be non-None or both be None.")


def where_v2(condition, x=None, y=None, name=None):
    """TF2 ``where``: coordinates with ``condition`` alone, else ``SelectV2``
    (condition, x and y broadcast together)."""
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
            return apply_op("Where", condition=condition, name=scope)
    if x is not None and y is not None:
        return apply_op("SelectV2", condition=condition, t=x, e=y, name=name or "SelectV2")
    raise ValueError("x and y must both be non-None or both be None.")


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (slices) of ``tensor`` where the bool ``mask`` is true;
    ``mask``'s dims match ``tensor``'s from ``axis`` on and are flattened into one."""
    with name_scope(name, values=[tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        k = mask.shape.ndims
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else int(constant_value(axis))
        tshape = tensor.shape
        tshape[axis:axis + k].assert_is_compatible_with(mask.shape)
        leading = apply_op("Prod", input=shape(tensor)[axis:axis + k], axis=[0])
        # shape(tensor) three times, as TF (three Shape ops / Consts in the graph)
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading], shape(tensor)[axis + k:]], 0))
        if tshape.ndims is not None:
            first = tshape[axis:axis + k].num_elements()
            tensor.set_shape(tshape[:axis].concatenate([first]).concatenate(tshape[axis + k:]))
        mask = reshape(mask, [-1])
        indices = squeeze(where_v2(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[i.., j] = j < lengths[i..]`` for ``j < maxlen`` (default max(lengths))."""
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = apply_op("Max", input=lengths, axis=constant(np.arange(lengths.shape.ndims, dtype=np.int32))
                              if lengths.shape.ndims is not None else
                              apply_op("Range", start=0, limit=apply_op("Rank", input=lengths), delta=1))
            maxlen = apply_op("Maximum", x=constant(0, maxlen.dtype), y=maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                             f"with shape '{maxlen.shape}' instead")
        row = apply_op("Range", start=constant(0, maxlen.dtype), limit=maxlen, delta=constant(1, maxlen.dtype))
        matrix = apply_op("Cast", x=expand_dims(lengths, -1), DstT=maxlen.dtype)
        result = apply_op("Less", x=row, y=matrix)
        if dtype is None or result.dtype.is_compatible_with(dtype):
            return result
        return apply_op("Cast", x=result, DstT=dtypes.as_dtype(dtype))


# ---------------------------------------------------------------------------
# Creating
# ---------------------------------------------------------------------------

def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    with name_scope(name, "Fill") as scope:  # TF converts inside the op's scope: "Fill/dims"
        if not isinstance(dims, Tensor):  # int64 when a dimension needs it, as TF's conversion
            try:
                kind = np.asarray(dims).dtype.kind
            except TypeError:  # a list holding tensors: apply_op packs it
                kind = None
            dims = convert_to_tensor(dims, name="dims") if kind is not None and kind in "iu" else dims
        return _refine(apply_op("Fill", dims=dims, value=value, name=scope), dims)


def _filled(shape, value, dtype, name, default_name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, default_name, [shape]) as scope:
        if not isinstance(shape, Tensor):
            try:
                dims = [int(_index_value(d)) for d in (as_shape(shape).as_list() if isinstance(shape, TensorShape)
                                                        else np.asarray(shape).reshape(-1).tolist())]
            except (TypeError, ValueError):
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
            else:
                # small: a constant (TF's _constant_if_small); a scalar shape (``ones(3)``) is not: TF's
                # constant() cannot iterate it, so TF converts TensorShape(3) and fills
                if np.prod(dims) < 1000 and np.ndim(shape) != 0:
                    return constant(value, dtype=dtype, shape=dims, name=scope)
                big = max(dims, default=0) >= 2**31  # TF converts the TensorShape: int64 if needed
                shape = constant(np.array(dims, np.int64 if big else np.int32), name="shape_as_tensor")
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return _refine(apply_op("Fill", dims=shape, value=constant(value, dtype=dtype), name=scope), shape)


def zeros(shape, dtype=dtypes.float32, name=None):
    """Zeros of ``shape`` (a ``Const`` when small and static, else ``Fill``)."""
    dtype = dtypes.as_dtype(dtype)
    zero = False if dtype.is_bool else "" if dtype == dtypes.string else 0
    return _filled(shape, zero, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """Ones of ``shape`` (a ``Const`` when small and static, else ``Fill``)."""
    dtype = dtypes.as_dtype(dtype)
    return _filled(shape, True if dtype.is_bool else 1, dtype, name, "ones")


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with ``tensor``'s shape and (unless given) dtype."""
    if isinstance(tensor, IndexedSlices):
        tensor = convert_to_tensor(tensor)
    with name_scope(name, "zeros_like", [tensor]) as scope:
        if not (isinstance(tensor, Tensor) or hasattr(tensor, "_handle")):  # TF: a variable is read only if needed
            tensor = convert_to_tensor(tensor, name="tensor")
        if optimize and tensor.shape.is_fully_defined() and tensor.dtype != dtypes.variant:
            return zeros(tensor.shape, dtype=dtype or tensor.dtype, name=scope)
        if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype.base_dtype:
            return zeros(shape(tensor), dtype=dtype, name=scope)
        return apply_op("ZerosLike", x=tensor, name=scope)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with ``tensor``'s shape and (unless given) dtype (TF builds
    ``ones(shape(tensor))``, never the OnesLike op)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        if optimize and tensor.shape.is_fully_defined():  # TF's shape_internal without out_type
            with name_scope(None, "Shape", [tensor]):
                dims = tensor.shape.as_list()
                wide = max(dims, default=0) > np.iinfo(np.int32).max  # TF's shape_internal: int64 then
                shp = constant(np.array(dims, np.int64 if wide else np.int32), name="shape_as_tensor")
        else:
            shp = apply_op("Shape", input=tensor)
        out = ones(shp, dtype=dtype or tensor.dtype, name=scope)
        out.set_shape(tensor.shape)
        return out


def ones_like_v2(input, dtype=None, name=None):
    """TF 2's ``tf.ones_like`` (what Keras-built layers call): a small
    constant of ``input``'s static shape when it is fully defined, else the
    ``OnesLike`` op (or ``ones(shape(input))`` for another dtype) -- unlike
    TF1's ``ones_like``, which always fills ``ones(shape)``."""
    with name_scope(name, "ones_like", [input]) as scope:
        tensor = input if isinstance(input, Tensor) else convert_to_tensor(input, name="tensor")
        if tensor.shape.is_fully_defined() and tensor.dtype != dtypes.variant:
            return ones(tensor.shape, dtype=dtype or tensor.dtype, name=scope)
        if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype and dtypes.as_dtype(dtype) != dtypes.variant:
            return ones(shape(tensor), dtype=dtype, name=scope)
        return apply_op("OnesLike", x=tensor, name=scope)


def stop_gradient(input, name=None):
    """``input``; no gradient flows back through it."""
    if isinstance(input, IndexedSlices):
        input = convert_to_tensor(input)
    return apply_op("StopGradient", input=input, name=name or "StopGradient")


def prevent_gradient(input, message="", name=None):
    """``input``; asking for its gradient raises LookupError naming ``message``
    (TF's ``array_ops.prevent_gradient``, op ``PreventGradient``)."""
    return apply_op("PreventGradient", input=input, message=message, name=name or "PreventGradient")


def guarantee_const(input, name=None):
    """``input``, marked as constant for the life of the session (``GuaranteeConst``)."""
    return apply_op("GuaranteeConst", input=input, name=name)


def identity_n(input, name=None):
    """Every tensor of ``input``, unchanged (one ``IdentityN`` op)."""
    return apply_op("IdentityN", input=list(input), name=name or "IdentityN")


def check_numerics(tensor, message, name=None):
    """``tensor``, failing at run time with ``message`` if it holds NaN or Inf."""
    return apply_op("CheckNumerics", tensor=tensor, message=message, name=name or "CheckNumerics")


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t`` behind a control dependency on ``check_numerics(t, msg)``
    (``x``/``message`` are the newer names of ``t``/``msg``, as in TF)."""
    if x is not None:
        if t is not None:
            raise ValueError("Cannot specify both 't' and 'x'.")
        t = x
    if message is not None:
        if msg is not None:
            raise ValueError("Cannot specify both 'msg' and 'message'.")
        msg = message
    if t is None or msg is None:
        raise TypeError("verify_tensor_all_finite() needs a tensor (t or x) and a message (msg or message)")
    with name_scope(name, "VerifyFinite", [t]):
        t = convert_to_tensor(t, name="x")
        with colocate_with(t):  # TF: both ops colocated with the tensor checked
            verify = check_numerics(t, message=msg)
            return with_dependencies([verify], t)


# ---------------------------------------------------------------------------
# Segments, partitions, sets
# ---------------------------------------------------------------------------

def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``output[i..] = sum(data[j..])`` over ``segment_ids[j..] == i``, ``num_segments`` rows."""
    return apply_op("UnsortedSegmentSum", data=data, segment_ids=segment_ids, num_segments=num_segments,
                    name=name or "UnsortedSegmentSum")


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """``output[i..] = max(data[j..])`` over ``segment_ids[j..] == i`` (lowest value if empty)."""
    return apply_op("UnsortedSegmentMax", data=data, segment_ids=segment_ids, num_segments=num_segments,
                    name=name or "UnsortedSegmentMax")


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """``output[i..] = min(data[j..])`` over ``segment_ids[j..] == i`` (highest value if empty)."""
    return apply_op("UnsortedSegmentMin", data=data, segment_ids=segment_ids, num_segments=num_segments,
                    name=name or "UnsortedSegmentMin")


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """``output[i..] = prod(data[j..])`` over ``segment_ids[j..] == i`` (1 if empty)."""
    return apply_op("UnsortedSegmentProd", data=data, segment_ids=segment_ids, num_segments=num_segments,
                    name=name or "UnsortedSegmentProd")


def segment_sum(data, segment_ids, name=None):
    """``output[i] = sum(data[j])`` over the sorted ``segment_ids[j] == i``."""
    return apply_op("SegmentSum", data=data, segment_ids=segment_ids, name=name or "SegmentSum")


def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i..]] = data[m][i..]`` (later entries win)."""
    return apply_op("DynamicStitch", indices=list(indices), data=list(data), name=name or "DynamicStitch")


def parallel_dynamic_stitch(indices, data, name=None):
    """``dynamic_stitch`` run in parallel (``ParallelDynamicStitch``; what
    ``embedding_lookup`` builds over partitions). Not a ``tf.*`` name in TF either."""
    return apply_op("ParallelDynamicStitch", indices=list(indices), data=list(data),
                    name=name or "ParallelDynamicStitch")


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``num_partitions`` tensors: the slices of ``data`` with ``partitions == p``."""
    return list(apply_op("DynamicPartition", data=data, partitions=partitions, num_partitions=num_partitions,
                         name=name or "DynamicPartition"))


def unique(x, out_idx=dtypes.int32, name=None):
    """``(y, idx)``: the distinct elements of ``x`` in first-seen order, and ``x[i] == y[idx[i]]``."""
    return apply_op("Unique", x=x, out_idx=dtypes.as_dtype(out_idx), name=name or "Unique")


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """``(out, idx)``: the elements of ``x`` not in ``y`` and their positions (``ListDiff``)."""
    return apply_op("ListDiff", x=x, y=y, out_idx=dtypes.as_dtype(index_dtype), name=name or "ListDiff")


# ``t[...]`` on any Tensor: registered onto the framework's Tensor from here.
Tensor.__getitem__ = _slice_helper
