"""Searching and binning kernels (TF's searchsorted, unravel_index and
histogram kernels): LowerBound, UpperBound, UnravelIndex, HistogramFixedWidth,
Bucketize."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _INDEX, _ints, _shape_str

_REAL = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _bound_shape(ins, attrs):
    return [(attrs["out_type"], ins["values"].shape)]


def _bound(sorted_inputs, values, out_type, side):
    seq, vals = np.asarray(sorted_inputs), np.asarray(values)
    if seq.ndim != 2 or vals.ndim != 2 or seq.shape[0] != vals.shape[0]:
        raise invalid_argument(f"Leading dim_size of both tensors must match, got sorted_inputs "
                               f"{_shape_str(seq.shape)} and values {_shape_str(vals.shape)}")
    out = np.empty(vals.shape, dtypes.as_dtype(out_type).np)
    for r in range(seq.shape[0]):
        out[r] = np.searchsorted(seq[r], vals[r], side=side)
    return out


def _register_bound(name, side):
    def kernel(sorted_inputs, values, out_type=dtypes.int32):
        return _bound(sorted_inputs, values, out_type, side)

    kernel.__name__ = name.lower()
    kernel.__doc__ = (f"``output[i, j]``: the first position in the sorted row "
                      f"``sorted_inputs[i]`` whose element is {'>=' if side == 'left' else '>'} ``values[i, j]``.")
    return register_op(name, inputs=("sorted_inputs", "values"), attrs={"out_type": dtypes.int32},
                       type_attrs={"T": ("sorted_inputs", "values")}, allowed={"out_type": _INDEX},
                       shape=_bound_shape)(kernel)


lower_bound = _register_bound("LowerBound", "left")
upper_bound = _register_bound("UpperBound", "right")


def _unravel_shape(ins, attrs):
    idx, dims = ins["indices"], ins["dims"]
    n = dims.shape[0] if dims.shape.ndims == 1 else None
    if idx.shape.ndims is None:
        return [(idx.dtype, unknown_shape())]
    if idx.shape.ndims == 0:
        return [(idx.dtype, TensorShape([n]))]
    return [(idx.dtype, TensorShape([n, idx.shape[0]] if idx.shape.ndims == 1 else None))]


@register_op("UnravelIndex", inputs=("indices", "dims"), type_attrs={"Tidx": ("indices", "dims")},
             allowed={"Tidx": _INDEX}, shape=_unravel_shape)
def unravel_index(indices, dims):
    """The coordinates of each flat (row-major) index in an array of shape
    ``dims``: ``[len(dims)]`` for a scalar index, ``[len(dims), n]`` for ``n`` indices."""
    idx, d = np.asarray(indices), np.asarray(dims)
    if idx.ndim > 1:
        raise invalid_argument(f'The indices can only be scalar or vector, got "{_shape_str(idx.shape)}"')
    if d.ndim != 1:
        raise invalid_argument(f"The dims must be a 1-D tensor, got {_shape_str(d.shape)}")
    if (d <= 0).any():
        raise invalid_argument("Input dims must be positive, got a non-positive dimension.")
    total = int(np.prod(d, dtype=np.int64))
    if ((idx < 0) | (idx >= total)).any():
        raise invalid_argument(f"index out of bounds: the indices must be in [0, {total})")
    coords = np.stack(np.unravel_index(idx.reshape(-1), tuple(int(v) for v in d))).astype(idx.dtype)
    return coords[:, 0] if idx.ndim == 0 else coords


def _histogram_shape(ins, attrs):
    n = _ints(ins["nbins"].value)
    return [(attrs["dtype"], TensorShape([None if n is None else n[0]]))]


@register_op("HistogramFixedWidth", inputs=("values", "value_range", "nbins"), outputs=("out",), attrs={"dtype": dtypes.int32},
             type_attrs={"T": ("values", "value_range")}, allowed={"T": _REAL, "dtype": _INDEX},
             shape=_histogram_shape)
def histogram_fixed_width(values, value_range, nbins, dtype=dtypes.int32):
    """``nbins`` equal-width bins over ``value_range = [lo, hi]``: each value's bin
    is ``(max(v, lo) - lo) / ((hi - lo) / nbins)`` in double, capped at
    ``nbins - 1`` and truncated (values below ``lo`` land in the first bin,
    above ``hi`` in the last)."""
    v, rng = np.asarray(values), np.asarray(value_range)
    n = int(np.asarray(nbins))
    if n <= 0:
        raise invalid_argument(f"nbins should be a positive number, but got '{n}'")
    if rng.shape != (2,):
        raise invalid_argument(f"value_range should be a vector of 2 elements, got {_shape_str(rng.shape)}")
    lo, hi = rng[0], rng[1]
    if not lo < hi:
        raise invalid_argument(f"value_range should satisfy value_range[0] < value_range[1], but got "
                               f"'[{lo}, {hi}]'")
    if v.dtype.kind == "f" and np.isnan(v).any():
        raise invalid_argument("Histogram values must not contain NaN")
    step = (float(hi) - float(lo)) / n
    shifted = (np.maximum(v.reshape(-1), lo) - v.dtype.type(lo)).astype(np.float64)
    bins = np.minimum(shifted / step, n - 1.0).astype(np.int64)
    return np.bincount(bins, minlength=n).astype(dtypes.as_dtype(dtype).np)


_BUCKETIZE_T = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


@register_op("Bucketize", inputs=("input",), attrs={"boundaries": REQUIRED}, type_attrs={"T": "input"},
             allowed={"T": _BUCKETIZE_T}, shape=lambda ins, attrs: [(dtypes.int32, ins["input"].shape)])
def bucketize(input, boundaries):
    """output = the number of ``boundaries`` <= input (TF's ``upper_bound``), int32.
    The boundaries are float32 (a ``list(float)`` attr): an integer input is
    compared as float32, a float64 input against the float32 boundaries widened;
    NaN lands in the last bucket."""
    b = np.asarray(boundaries, np.float32)
    if np.any(b[1:] < b[:-1]):
        raise invalid_argument("Expected sorted boundaries")
    x = np.asarray(input)
    if x.dtype == np.float64:
        b = b.astype(np.float64)
    elif x.dtype != np.float32:
        x = x.astype(np.float32)
    return np.searchsorted(b, x, side="right").astype(np.int32).reshape(x.shape)
