"""Reductions (TF's reduction_ops kernels): Sum, Prod, Mean, Max, Min, All, Any
over ``axis`` (``keep_dims``), and ArgMax/ArgMin. float32/float64 sums and
products add (multiply) in Eigen's order, as TF's kernel
(:mod:`ref.ops.eigen_reduce`); other dtypes reduce in NumPy's order in
the input's dtype; integer Mean divides as C++ does.
"""
from __future__ import annotations

import builtins as _builtins

import numpy as np

from ref.types import dtypes
from ref.ops import eigen_reduce
from ref.ops.math import _INDEX, _NUM, _REAL, _dims_str, _trunc_div_int
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape


# ---------------------------------------------------------------------------
# Reductions: input, axis, keep_dims
# ---------------------------------------------------------------------------

def _reduction_axes(ndim, axis):
    """Canonical, sorted reduction axes; InvalidArgumentError for an axis out of range."""
    out = []
    for a in np.asarray(axis).reshape(-1).tolist():
        if not -ndim <= a < _builtins.max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise invalid_argument(f"Invalid reduction dimension ({a} for input with {ndim} dimension(s)")
        if ndim:
            out.append(a % ndim)
    return tuple(sorted(set(out)))


def _reduction_shape(ins, attrs, dtype=None):
    inp, axis = ins["input"], ins["axis"]
    dtype = dtype or inp.dtype
    keep = attrs.get("keep_dims", False)
    if inp.shape.ndims is None:
        return [(dtype, unknown_shape())]
    ndim = inp.shape.ndims
    if axis.value is None:
        if keep:
            return [(dtype, unknown_shape(ndim))]
        if axis.shape.ndims == 0:
            return [(dtype, unknown_shape(_builtins.max(ndim - 1, 0)))]
        return [(dtype, unknown_shape())]
    axes = set()
    for a in np.asarray(axis.value).reshape(-1).tolist():
        if not -ndim <= a < _builtins.max(ndim, 1):
            raise ValueError(f"Invalid reduction dimension {a} for input with {ndim} dimensions. "
                             f"for '{attrs.get('_op_name')}' with input shapes: {_dims_str(inp.shape)}, "
                             f"{_dims_str(axis.shape)}")
        axes.add(a % ndim if ndim else 0)
    dims = inp.shape.as_list()
    if keep:
        return [(dtype, TensorShape([1 if i in axes else d for i, d in enumerate(dims)]))]
    return [(dtype, TensorShape([d for i, d in enumerate(dims) if i not in axes]))]


def _reduction(name, allowed):
    return register_op(name, inputs=("input", "axis"), attrs={"keep_dims": False},
                       type_attrs={"T": "input", "Tidx": "axis"}, allowed={"T": allowed, "Tidx": _INDEX},
                       shape=_reduction_shape)


def _reduce(ufunc, input, axis, keep_dims, **kw):
    x = np.asarray(input)
    axes = _reduction_axes(x.ndim, axis)
    return np.asarray(ufunc.reduce(x, axis=axes, keepdims=bool(keep_dims), **kw))


@_reduction("Sum", _NUM)
def sum(input, axis, keep_dims=False):  # noqa: A001 - TF's name
    """output = the sum of ``input`` over ``axis`` (Eigen's order for float32/float64,
    :mod:`ref.ops.eigen_reduce`; else NumPy's pairwise order, in input's dtype)."""
    x = np.asarray(input)
    if x.dtype == _BF16:
        return _in_float(sum, x, axis, keep_dims)
    axes = _reduction_axes(x.ndim, axis)
    total = eigen_reduce.row_sums(x, axes)
    if total is not None:
        return total.reshape(_kept_shape(x.shape, axes, keep_dims))
    return np.asarray(np.add.reduce(x, axis=axes, keepdims=bool(keep_dims), dtype=x.dtype))


_BF16 = dtypes.bfloat16.np


def _in_float(fn, x, axis, keep_dims):
    """``fn`` of bfloat16 ``x`` computed in float32 and rounded back once (TF's bfloat16
    ``Sum``, ``Mean`` and ``EuclideanNorm`` reduce through ``cast<float>``)."""
    return np.asarray(fn(x.astype(np.float32), axis, keep_dims)).astype(_BF16)


def _kept_shape(shape, axes, keep_dims):
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep_dims or i not in axes)


@_reduction("Prod", _NUM)
def prod(input, axis, keep_dims=False):
    """output = the product of ``input`` over ``axis`` (Eigen's order for float32/float64,
    :mod:`ref.ops.eigen_reduce`; else NumPy's order, in input's dtype)."""
    x = np.asarray(input)
    axes = _reduction_axes(x.ndim, axis)
    total = eigen_reduce.reduce(x, axes, mul=True)
    if total is not None:
        return total.reshape(_kept_shape(x.shape, axes, keep_dims))
    return np.asarray(np.multiply.reduce(x, axis=axes, keepdims=bool(keep_dims), dtype=x.dtype))


@_reduction("EuclideanNorm", _NUM)
def euclidean_norm(input, axis, keep_dims=False):
    """output = sqrt(sum(x * conj(x))) over ``axis``, in input's dtype (integers truncate;
    float32/float64 sum in Eigen's order, :mod:`ref.ops.eigen_reduce`, as TF's
    ``(in * in.conjugate()).reduce(...).sqrt()``)."""
    x = np.asarray(input)
    if x.dtype == _BF16:
        return _in_float(euclidean_norm, x, axis, keep_dims)
    sq = np.multiply(x, np.conj(x)) if x.dtype.kind == "c" else np.multiply(x, x)
    axes = _reduction_axes(x.ndim, axis)
    total = None
    if x.dtype in (np.float32, np.float64):
        total = eigen_reduce.reduce(sq, axes, cost=eigen_reduce.value_cost(x.dtype, 1, loads=2))
    if total is not None:
        total = total.reshape(_kept_shape(x.shape, axes, keep_dims))
    else:
        total = _reduce(np.add, sq, axis, keep_dims, dtype=x.dtype)
    with np.errstate(invalid="ignore"):
        if x.dtype.kind in "iu":
            return np.asarray(np.sqrt(total.astype(np.float64))).astype(x.dtype)
        return np.asarray(np.sqrt(total))


@_reduction("Mean", _NUM)
def mean(input, axis, keep_dims=False):
    """output = sum / count over ``axis``; integer inputs divide as C++ does
    (truncating), so ``Mean([-7, 0, 0]) == -2``; bfloat16 in float32."""
    x = np.asarray(input)
    if x.dtype == _BF16:
        return _in_float(mean, x, axis, keep_dims)
    axes = _reduction_axes(x.ndim, axis)
    total = eigen_reduce.row_sums(x, axes)
    if total is not None:
        total = total.reshape(_kept_shape(x.shape, axes, keep_dims))
    else:
        total = np.add.reduce(x, axis=axes, keepdims=bool(keep_dims), dtype=x.dtype)
    count = 1
    for a in axes:
        count *= x.shape[a]
    if x.dtype.kind in "iu":
        if count == 0:
            raise invalid_argument("Integer division by zero")
        return np.asarray(_trunc_div_int(total, np.asarray(count, x.dtype)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.true_divide(total, np.asarray(count, x.dtype)))


def _lowest(dtype):
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max


@_reduction("Max", _REAL)
def max(input, axis, keep_dims=False):  # noqa: A001 - TF's name
    """output = the maximum over ``axis`` (NaN propagates; -inf/lowest for an empty reduction)."""
    x = np.asarray(input)
    return _reduce(np.maximum, x, axis, keep_dims, initial=_lowest(x.dtype)).astype(x.dtype)


@_reduction("Min", _REAL)
def min(input, axis, keep_dims=False):  # noqa: A001 - TF's name
    """output = the minimum over ``axis`` (NaN propagates; inf/highest for an empty reduction)."""
    x = np.asarray(input)
    return _reduce(np.minimum, x, axis, keep_dims, initial=_highest(x.dtype)).astype(x.dtype)


def _bool_reduction(name):
    return register_op(name, inputs=("input", "axis"), attrs={"keep_dims": False},
                       type_attrs={"Tidx": "axis"}, allowed={"Tidx": _INDEX}, shape=_reduction_shape)


@_bool_reduction("All")
def all(input, axis, keep_dims=False):  # noqa: A001 - TF's name
    """output = logical AND over ``axis`` (True for an empty reduction)."""
    return _reduce(np.logical_and, np.asarray(input, bool), axis, keep_dims)


@_bool_reduction("Any")
def any(input, axis, keep_dims=False):  # noqa: A001 - TF's name
    """output = logical OR over ``axis`` (False for an empty reduction)."""
    return _reduce(np.logical_or, np.asarray(input, bool), axis, keep_dims)


def _arg_shape(ins, attrs):
    inp, dim = ins["input"], ins["dimension"]
    out_type = attrs["output_type"]
    if inp.shape.ndims is None:
        return [(out_type, unknown_shape())]
    if dim.value is None:
        return [(out_type, unknown_shape(_builtins.max(inp.shape.ndims - 1, 0)))]
    d, n = int(dim.value), inp.shape.ndims
    if not -n <= d < n:
        raise ValueError(f"Expected dimension in the range [{-n}, {n}), but got {d} for "
                         f"'{attrs.get('_op_name')}' with input shapes: {_dims_str(inp.shape)}, [].")
    dims = inp.shape.as_list()
    del dims[d % n]
    return [(out_type, TensorShape(dims))]


def _arg(x, dimension, output_type, pick):
    x = np.asarray(x)
    d = int(dimension)
    if not -x.ndim <= d < x.ndim:
        raise invalid_argument(f"Expected dimension in the range [{-x.ndim}, {x.ndim}), but got {d}")
    if x.shape[d] == 0:
        raise invalid_argument(f"Reduction axis {d} is empty in shape {list(x.shape)}")
    if x.dtype.kind == "f":
        # TF's comparison loop never picks a NaN: treat NaNs as the worst value.
        x = np.where(np.isnan(x), np.asarray(-np.inf if pick is np.argmax else np.inf, x.dtype), x)
    return pick(x, axis=d).astype(dtypes.as_dtype(output_type).np)


def _argop(name):
    return register_op(name, inputs=("input", "dimension"), attrs={"output_type": dtypes.int64},
                       type_attrs={"T": "input", "Tidx": "dimension"},
                       allowed={"T": _REAL + (dtypes.bool,), "Tidx": _INDEX, "output_type": _INDEX},
                       shape=_arg_shape)


@_argop("ArgMax")
def arg_max(input, dimension, output_type=dtypes.int64):
    """output = the index of the largest value along ``dimension`` (the first of ties)."""
    return _arg(input, dimension, output_type, np.argmax)


@_argop("ArgMin")
def arg_min(input, dimension, output_type=dtypes.int64):
    """output = the index of the smallest value along ``dimension`` (the first of ties)."""
    return _arg(input, dimension, output_type, np.argmin)
