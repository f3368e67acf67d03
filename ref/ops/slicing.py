"""Slicing (TF's slice and strided_slice kernels): Slice, StridedSlice,
StridedSliceGrad, TensorStridedSliceUpdate.

StridedSlice follows TF's ``ValidateStridedSliceOp`` step by step (sparse spec
-> dense spec -> canonical begin/end per dimension -> processing shape -> final
shape): one function serves the shape rule, the kernel and its gradient.
"""
from __future__ import annotations

import builtins

import numpy as np

from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _INDEX, _dims, _ints, _same_dtype, _shape_str

_py_slice = builtins.slice  # this module defines the op ``slice``


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
    """TF's SliceShape: exact when input, begin and size are known; with size
    known, a -1 entry is ``dim - begin`` where both are known (begin read as a
    partial shape: ``stack([n, 0])`` gives ``[?, 0]``); with size unknown, its
    partial value (-1 unknown)."""
    dims, begin, size = _dims(ins["input"]), _ints(ins["begin"].value), _ints(ins["size"].value)
    if dims is not None and begin is not None and size is not None:
        try:
            bounds = _slice_bounds(dims, begin, size, ValueError)
        except ValueError as e:
            raise ValueError(f"{e} for '{attrs['_op_name']}' (op: 'Slice') with input shapes: {_shape_str(dims)}, "
                             f"{_shape_str(ins['begin'].shape)}, {_shape_str(ins['size'].shape)}.") from None
        return _same_dtype(ins, attrs, TensorShape([s for _, s in bounds]))
    if size is not None:
        partial = ins["begin"].partial
        starts = begin if begin is not None else (
            partial.as_list() if partial is not None and partial.ndims == len(size) else [None] * len(size))
        out = []
        for i, s in enumerate(size):
            d = dims[i] if dims is not None else None
            out.append(s if s != -1 else None if d is None or starts[i] is None else d - starts[i])
        return _same_dtype(ins, attrs, TensorShape(out))
    partial = ins["size"].partial
    if partial is not None and partial.ndims is not None:
        return _same_dtype(ins, attrs, partial)
    n = ins["size"].shape.as_list()[0] if ins["size"].shape.ndims == 1 else None
    if n is None and dims is not None:
        n = len(dims)
    return _same_dtype(ins, attrs, unknown_shape(n))


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
                if rank == 0:  # TF's BuildDenseSpec
                    raise err("Attempting to slice scalar input.")
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
