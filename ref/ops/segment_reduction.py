"""Segments, partitions and bins (TF's segment_reduction, dynamic_stitch,
dynamic_partition and bincount kernels): UnsortedSegment{Sum,Max,Min,Prod}, Segment{Sum,Mean},
DenseBincount,
DynamicStitch, DynamicPartition; reductions summed in index order, so results
are deterministic.
"""
from __future__ import annotations

import os

import numpy as np

from ref.types import dtypes, errors
from ref.ops._jit import njit
from ref.ops.registry import REQUIRED, invalid_argument, register_op, require_rank
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _INDEX, _check_range, _dims, _index_str, _ints, _shape_str


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


def output_rows(n, inner, dtype):
    """Checks that ``n`` rows of shape ``inner`` can be held before allocating
    them: TF's InvalidArgumentError when the element count overflows int64
    (its TensorShape), a ResourceExhaustedError ("OOM when allocating") when the
    bytes exceed this machine's memory (TF's allocator failing), never a
    MemoryError or an allocation that swaps."""
    count = n
    for d in inner:
        if count * d >= 2 ** 63:  # TF prints the wrapped int64 product
            wrapped = (count * d + 2 ** 63) % 2 ** 64 - 2 ** 63
            raise invalid_argument(f"Encountered overflow when multiplying {count} with {d}, result: {wrapped}")
        count *= d
    nbytes = count * np.dtype(dtype).itemsize
    if nbytes > _physical_memory():
        raise errors.ResourceExhaustedError(None, None, f"OOM when allocating tensor with shape"
                                            f"{_shape_str((n,) + tuple(inner))} and type {np.dtype(dtype).name}")
    return n


def _physical_memory():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2 ** 40


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
    output_rows(n, inner, dt)
    if kind == "sum":
        out = np.zeros((n,) + inner, dt)
    elif kind == "prod":
        out = np.ones((n,) + inner, dt)
    else:
        tf_dtype = dtypes.as_dtype(dt)  # its lowest/highest finite value (half, bfloat16 too)
        out = np.full((n,) + inner, tf_dtype.min if kind == "max" else tf_dtype.max, dt)
    keep = ids >= 0
    if kind in ("sum", "prod"):
        (np.add if kind == "sum" else np.multiply).at(out, ids[keep], rows[keep])
        return out
    # half and bfloat16 go through the loop as float32, which holds each of their values
    # exactly (the loop only picks values); Numba has neither type
    narrow = dt == np.float16 or dt.kind == "V"
    work = out.astype(np.float32) if narrow else out
    flat = work.reshape(n, int(np.prod(inner, dtype=np.int64)))
    src = rows.reshape(len(ids), flat.shape[1])
    _segment_extreme_loop(src.astype(np.float32) if narrow else src, ids, flat, kind == "max")
    return flat.reshape(out.shape).astype(dt) if narrow else flat.reshape(out.shape)


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


def _register_unsorted(name, kind, allowed, formula, index=_INDEX):
    def kernel(data, segment_ids, num_segments):
        return _unsorted_segment(data, segment_ids, num_segments, kind)

    kernel.__name__ = f"unsorted_segment_{kind}"
    kernel.__doc__ = (f"``output[i..] = {formula}`` over ``j`` with ``segment_ids[j] == i``; "
                      f"negative ids are dropped, ids >= num_segments are an error.")
    register_op(name, inputs=("data", "segment_ids", "num_segments"),
                type_attrs={"T": "data", "Tindices": "segment_ids", "Tnumsegments": "num_segments"},
                allowed={"T": allowed, "Tindices": index, "Tnumsegments": _INDEX},
                shape=_unsorted_segment_shape)(kernel)
    return kernel


unsorted_segment_sum = _register_unsorted("UnsortedSegmentSum", "sum", dtypes.NUMBERS,
                                          "sum data[j..] (in index order)", (dtypes.int16,) + _INDEX)
unsorted_segment_prod = _register_unsorted("UnsortedSegmentProd", "prod", dtypes.NUMBERS,
                                           "prod data[j..] (1 for an empty segment)")
unsorted_segment_max = _register_unsorted("UnsortedSegmentMax", "max", dtypes.REALS,
                                          "max data[j..] (the type's lowest value for an empty segment)")
unsorted_segment_min = _register_unsorted("UnsortedSegmentMin", "min", dtypes.REALS,
                                          "min data[j..] (the type's highest value for an empty segment)")


def _segment_sum_shape(ins, attrs):
    """TF's SegmentReductionShapeFn: ``data`` of rank >= 1, ``segment_ids`` a vector."""
    require_rank(ins, attrs, data=range(1, 65), segment_ids=1)
    data = _dims(ins["data"])
    if data is None:
        return [(ins["data"].dtype, unknown_shape())]
    return [(ins["data"].dtype, TensorShape([None] + data[1:]))]


@register_op("SegmentSum", inputs=("data", "segment_ids"), type_attrs={"T": "data", "Tindices": "segment_ids"},
             allowed={"T": dtypes.NUMBERS, "Tindices": _INDEX}, shape=_segment_sum_shape)
def segment_sum(data, segment_ids):
    """``output[i..] = sum data[j..]`` over ``j`` with ``segment_ids[j] == i``;
    ``segment_ids`` is a sorted vector; ``output`` has ``segment_ids[-1] + 1`` rows."""
    data = np.asarray(data)
    ids, n = _sorted_segments(data, segment_ids)
    out = np.zeros((n,) + data.shape[1:], data.dtype)
    np.add.at(out, ids, data)
    return out


def walk_sorted_segments(seg, n, idx=None, rows=None):
    """TF's walk over the runs of sorted segment ids, raising its errors in its
    order: at each run, that the next run's id is larger, then that this run's
    id lies in ``[0, n)``, then (sparse forms) that its ``indices`` lie in
    ``[0, rows)``."""
    count = seg.shape[0]
    if count == 0 or (np.all(seg[1:] >= seg[:-1]) and seg[0] >= 0 and seg[-1] < n
                      and (idx is None or not np.any((idx < 0) | (idx >= rows)))):
        return  # all valid: nothing to report (the walk only finds the first error)
    start, end = 0, 1
    out_index = int(seg[0]) if count else 0
    while count:
        next_index = 0
        if end < count:
            next_index = int(seg[end])
            if out_index == next_index:
                end += 1
                continue
            if not out_index < next_index:
                raise invalid_argument("segment ids are not increasing")
        if not 0 <= out_index < n:
            raise invalid_argument(f"Segment id {out_index} out of range [0, {n}), possibly because 'segment_ids' "
                                   f"input is not sorted.")
        if idx is not None:
            run = idx[start:end]
            bad = np.nonzero((run < 0) | (run >= rows))[0]
            if bad.size:
                i = start + int(bad[0])
                raise invalid_argument(f"Bad: indices[{i}] == {int(idx[i])} out of range [0, {rows})")
        start, end, out_index = end, end + 1, next_index
        if end > count:
            break


def _sorted_segments(data, segment_ids):
    """The checked sorted ids of ``Segment*`` (TF's messages) and the output row count."""
    ids = np.asarray(segment_ids)
    if ids.ndim != 1 or data.ndim == 0 or ids.shape[0] != data.shape[0]:
        raise invalid_argument("segment_ids should be the same size as dimension 0 of input.")
    n = int(ids[-1]) + 1 if ids.size else 0
    if n < 0:
        raise invalid_argument("segment ids must be >= 0")
    if ids.size and n == 0:
        raise invalid_argument("segment ids must be >= 0")
    walk_sorted_segments(ids.astype(np.int64), n)
    return ids, output_rows(n, data.shape[1:], data.dtype)


def _register_sorted(name, ufunc, allowed, empty, doc):
    @register_op(name, inputs=("data", "segment_ids"), type_attrs={"T": "data", "Tindices": "segment_ids"},
                 allowed={"T": allowed, "Tindices": _INDEX}, shape=_segment_sum_shape)
    def kernel(data, segment_ids):
        data = np.asarray(data)
        ids, n = _sorted_segments(data, segment_ids)
        out = np.empty((n,) + data.shape[1:], data.dtype)
        filled = np.zeros(n, bool)
        filled[ids] = True
        out[~filled] = empty
        if ids.size:
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            out[ids[starts]] = ufunc.reduceat(data, starts, axis=0).astype(data.dtype)
        return out
    kernel.__name__ = name
    kernel.__doc__ = (f"``output[i..] = {doc}`` over the rows ``j`` with the sorted ``segment_ids[j] == i``; "
                      f"``output`` has ``segment_ids[-1] + 1`` rows, an empty segment is {empty}.")
    return kernel


segment_max = _register_sorted("SegmentMax", np.maximum, dtypes.REALS, 0, "max data[j..]")
segment_min = _register_sorted("SegmentMin", np.minimum, dtypes.REALS, 0, "min data[j..]")
segment_prod = _register_sorted("SegmentProd", np.multiply, dtypes.NUMBERS, 1, "prod data[j..]")


@register_op("SegmentMean", inputs=("data", "segment_ids"), type_attrs={"T": "data", "Tindices": "segment_ids"},
             allowed={"T": dtypes.NUMBERS, "Tindices": _INDEX}, shape=_segment_sum_shape)
def segment_mean(data, segment_ids):
    """``output[i..] = sum data[j..] / N_i`` over the ``N_i`` rows ``j`` with
    ``segment_ids[j] == i`` (sorted ids); an empty segment is 0. Integer data
    divides with truncation, as TF's kernel."""
    data = np.asarray(data)
    out = segment_sum(data, segment_ids)
    counts = np.bincount(np.asarray(segment_ids, np.int64).reshape(-1), minlength=out.shape[0])[:out.shape[0]]
    n = np.maximum(counts, 1).reshape((-1,) + (1,) * (data.ndim - 1))
    if out.dtype.kind in "iu":
        return (np.sign(out) * (np.abs(out) // n)).astype(out.dtype)
    return (out / n.astype(out.dtype)).astype(out.dtype)


def _dynamic_stitch_shape(ins, attrs):
    indices, data = ins["indices"], ins["data"]
    dt = data[0].dtype
    inner = None
    for i, d in zip(indices, data):
        if i.shape.ndims is None or d.shape.ndims is None:
            continue
        # TF's MergePrefix: data's shape starts with its indices' shape
        if d.shape.ndims < i.shape.ndims:
            raise ValueError(f"Shape must be at least rank {i.shape.ndims} but is rank {d.shape.ndims} for "
                             f"'{attrs['_op_name']}'")
        for k, (a, b) in enumerate(zip(d.shape.as_list(), i.shape.as_list())):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{attrs['_op_name']}'")
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


@register_op("ParallelDynamicStitch", inputs=("indices", "data"), outputs=("merged",),
             list_inputs={"indices": "N", "data": "N"}, type_attrs={"T": "data"}, shape=_dynamic_stitch_shape)
def parallel_dynamic_stitch(indices, data):
    """``DynamicStitch`` as TF runs it in parallel: the same ``merged``
    (where ``indices`` repeat, which entry wins is unspecified in TF; here
    the last, as ``DynamicStitch``)."""
    return dynamic_stitch(indices, data)


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
# DenseBincount (TF's bincount kernel)
# ---------------------------------------------------------------------------

def _dense_bincount_shape(ins, attrs):
    inp, w = ins["input"], ins["weights"]
    dt = w.dtype
    size = _ints(ins["size"].value)
    n = None if size is None else size[0]
    if inp.shape.ndims == 2:
        return [(dt, TensorShape([inp.shape[0], n]))]
    return [(dt, TensorShape([n]) if inp.shape.ndims in (None, 1) else unknown_shape())]


@register_op("DenseBincount", inputs=("input", "size", "weights"), attrs={"binary_output": False},
             type_attrs={"Tidx": ("input", "size"), "T": "weights"},
             allowed={"Tidx": _INDEX, "T": (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)},
             shape=_dense_bincount_shape)
def dense_bincount(input, size, weights, binary_output=False):  # noqa: A002 - TF's name
    """``output[i] = sum of weights[j]`` (1 without weights; 1 once any
    ``j`` matches when ``binary_output``) over ``input[j] == i``, for
    ``0 <= i < size``; larger values are skipped. A 2-D ``input`` counts each row."""
    arr, w = np.asarray(input), np.asarray(weights)
    n = int(np.asarray(size))
    if n < 0:
        raise invalid_argument(f"size ({n}) must be non-negative")
    if arr.ndim not in (1, 2):
        raise invalid_argument("Input must be a 1 or 2-dimensional tensor.")
    if w.size and w.shape != arr.shape:
        raise invalid_argument(f"Input and weights must have the same shape, got {_shape_str(arr.shape)} and "
                               f"{_shape_str(w.shape)}")
    if arr.size and arr.min() < 0:
        raise invalid_argument("Input arr must be non-negative!")
    rows = arr.reshape((-1, arr.shape[-1])) if arr.ndim == 2 else arr.reshape(1, -1)
    wrows = w.reshape(rows.shape) if w.size else None
    out = np.zeros((rows.shape[0], n), w.dtype)
    for r in range(rows.shape[0]):
        keep = rows[r] < n
        ids = rows[r][keep].astype(np.int64)
        if binary_output:
            out[r, ids] = 1
        elif wrows is None:
            out[r] += np.bincount(ids, minlength=n)[:n].astype(w.dtype)
        else:
            np.add.at(out[r], ids, wrows[r][keep])
    return out if arr.ndim == 2 else out[0]
