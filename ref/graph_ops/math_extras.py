"""``tf.linspace``/``tf.lin_space``, ``tf.norm`` (``tf.linalg.norm``),
``tf.reduce_logsumexp``, ``tf.math.cumulative_logsumexp`` and ``tf.math.reduce_variance``/``reduce_std``, built from
elementary ops as TF's ``math_ops`` and ``linalg_ops`` do; ``bucketize`` (TF's
``math_ops._bucketize``: no tf.* name, the feature columns' ``Bucketize``)."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.tensor_util import constant_value
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, complex_ops, math_ops

__all__ = ["linspace", "lin_space", "norm", "reduce_logsumexp", "reduce_variance", "reduce_std", "cumulative_logsumexp"]


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included)
    along ``axis``; ``start``/``stop`` broadcast against each other. The values
    are ``start + delta * i`` with ``delta = (stop - start) / max(num - 1, 1)``,
    between ``start`` and ``stop`` themselves -- op for op TF 2.x's
    ``linspace_nd`` (``tf.compat.v1.linspace``)."""
    with name_scope(name, "linspace", [start, stop]):
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, name="stop", dtype=start.dtype)
        num_int = convert_to_tensor(num, name="num", dtype_hint=dtypes.int32)
        if not num_int.dtype.is_integer:
            raise TypeError(f"Argument `tensor` (name: num) must be of type integer. Received `tensor` = "
                            f"{num_int} of dtype: {num_int.dtype.name}")
        # TF's convert_to_int_tensor casts with the raw op (a Cast node even to int32)
        num_int = apply_op("Cast", x=num_int, DstT=dtypes.int32, name="Cast")
        math_ops.cast(num_int, start.dtype)  # TF computes (and leaves unused) num as start's dtype
        broadcast_shape = array_ops.broadcast_dynamic_shape(array_ops.shape(start), array_ops.shape(stop))
        start = array_ops.broadcast_to(start, broadcast_shape)
        stop = array_ops.broadcast_to(stop, broadcast_shape)
        expanded_start = array_ops.expand_dims(start, axis=axis)
        expanded_stop = array_ops.expand_dims(stop, axis=axis)
        shape = array_ops.shape(expanded_start)
        ndims = array_ops.shape(shape)[0]
        axis = array_ops.where_v2(axis >= 0, axis, ndims + axis)
        num_fill = math_ops.maximum(num_int - 2, 0)
        n_steps = math_ops.maximum(num_int - 1, 1)
        delta = (expanded_stop - expanded_start) / math_ops.cast(n_steps, expanded_stop.dtype)
        expanded_start = math_ops.cast(expanded_start, delta.dtype)
        expanded_stop = math_ops.cast(expanded_stop, delta.dtype)
        range_end = array_ops.where_v2(num_int >= 0, n_steps, -1)
        desired_range = math_ops.cast(math_ops.range(1, range_end, dtype=dtypes.int64), delta.dtype)
        mask = math_ops.equal(axis, math_ops.range(ndims))
        desired_range_shape = array_ops.where_v2(mask, num_fill, 1)
        desired_range = array_ops.reshape(desired_range, desired_range_shape)
        res = expanded_start + delta * desired_range
        concatenated = array_ops.concat((expanded_start, res, expanded_stop), axis=axis)
        begin = array_ops.zeros_like(shape)
        size = array_ops.concat((shape[0:axis], array_ops.reshape(num_int, [1]), shape[axis + 1:]), axis=0)
        return array_ops.slice(concatenated, begin, size)


lin_space = linspace

_VECTOR_ORDS = ("euclidean", "fro")
_MATRIX_ORDS = ["euclidean", "fro", 1, 2, np.inf]


def _static_axis(axis):
    if isinstance(axis, Tensor):
        v = constant_value(axis)
        axis = None if v is None else v.tolist()
    return axis


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """The vector norm over ``axis`` (an int, or all of ``tensor`` when None) or the
    matrix norm over a pair of axes: ``'euclidean'``/``'fro'``, ``p > 0``, ``inf``;
    for matrices ``1`` (max column sum), ``inf`` (max row sum) and ``2`` (the
    largest singular value)."""
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keepdims = keep_dims
    keepdims = bool(keepdims)
    axis = _static_axis(axis)
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {tuple(axis)}")
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_ORDS}, got {ord}")
    else:
        if not (axis is None or isinstance(axis, (int, np.integer))
                or (isinstance(axis, (tuple, list)) and len(axis) == 1)):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if axis is not None and not isinstance(axis, (int, np.integer)):
            axis = axis[0]
        ok = ord in _VECTOR_ORDS or ord == np.inf or (
            isinstance(ord, (int, float, np.number)) and not isinstance(ord, bool) and ord > 0)
        if not ok:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    # TF: a vector norm's axis becomes the 1-tuple (axis,), a matrix norm's a tuple
    axes = None if axis is None else tuple(axis) if is_matrix else (axis,)
    with name_scope(name, "norm", [tensor]):
        x = convert_to_tensor(tensor)
        if is_matrix and ord == 2:
            result = _matrix_2_norm(x, axis)
        elif ord in _VECTOR_ORDS or (not is_matrix and not isinstance(ord, str) and ord == 2):  # TF: 2 is euclidean
            sq = x * complex_ops.conj(x) if x.dtype.is_complex else x * x  # complex stays complex, as TF
            result = math_ops.sqrt(math_ops.reduce_sum(sq, axes, keepdims=True))
        else:
            # TF: ord 1 sums over axis[0] (then a matrix's max over axis[-1]); inf
            # maxes over axis[0] (a matrix's row sums first); p sums |x| ** p over
            # the axes and takes the (1 / p)-th power, p a Python number.
            result = math_ops.abs(x)
            if ord == 1:
                result = math_ops.reduce_sum(result, None if axes is None else axes[0], keepdims=True)
                if is_matrix:
                    result = math_ops.reduce_max(result, axes[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix:
                    result = math_ops.reduce_sum(result, axes[1], keepdims=True)
                result = math_ops.reduce_max(result, None if axes is None else axes[0], keepdims=True)
            else:
                result = math_ops.pow(math_ops.reduce_sum(math_ops.pow(result, ord), axes, keepdims=True),
                                      1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axes)
        return result


def _matrix_2_norm(x, axis):
    """TF's ord=2 matrix norm: the two axes moved last (in ``axis``'s order), the
    largest absolute singular value (``Svd`` without u, v) kept as a 1 x 1 matrix,
    and the axes moved back. ``x``'s rank must be known statically here."""
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("ref computes the ord=2 matrix norm of tensors of known rank only")
    positive = [int(a) + rank if int(a) < 0 else int(a) for a in axis]
    before = [i for i in range(rank) if i not in positive] + positive
    after = [before.index(i) for i in range(rank)]
    permed = array_ops.transpose(x, perm=np.asarray(before, np.int32))
    s = apply_op("Svd", input=permed, compute_uv=False, full_matrices=False)[0]
    top = math_ops.reduce_max(math_ops.abs(s), axis=-1, keepdims=True)
    return array_ops.transpose(array_ops.expand_dims(top, -1), perm=np.asarray(after, np.int32))


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) over ``axis``, stably: m + log(sum(exp(x - m))) with
    m = max(x) over ``axis`` (0 where that max is not finite), m's gradient stopped."""
    keepdims, axis = math_ops._keep(keepdims, keep_dims, reduction_indices, axis)
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = math_ops.reduce_max(input_tensor, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(apply_op("SelectV2", condition=apply_op("IsFinite", x=raw_max), t=raw_max,
                                                  e=0))
        result = apply_op("Log", x=math_ops.reduce_sum(math_ops.exp(math_ops.subtract(input_tensor, my_max)),
                                                       axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, apply_op("Shape", input=result))  # not folded: gen_array_ops.shape
        result = math_ops.add(result, my_max, name=scope)
        return math_ops._may_reduce_to_scalar(keepdims, axis, result)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """mean(|x - mean(x)|^2) over ``axis`` (real for complex ``x``)."""
    with name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor)
        means = math_ops.reduce_mean(x, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type {means.dtype}.")
        diff = x - means
        if diff.dtype.is_complex:
            squared = apply_op("Real", input=apply_op("Mul", x=complex_ops.conj(diff), y=diff),
                               Tout=diff.dtype.real_dtype)
        else:
            squared = apply_op("Square", x=diff)
        return math_ops.reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(reduce_variance(x)) over ``axis``."""
    with name_scope(name or "reduce_std"):
        x = convert_to_tensor(input_tensor)
        return apply_op("Sqrt", x=reduce_variance(x, axis=axis, keepdims=keepdims))


def _as_indexed_slices(x, optimize=True):
    """``x`` as IndexedSlices: every row, indices ``range(shape(x)[0])`` (TF's private
    ``math_ops._as_indexed_slices``); IndexedSlices pass through."""
    if isinstance(x, IndexedSlices):
        return x
    if not isinstance(x, Tensor):
        raise TypeError(f"Not a Tensor or IndexedSlices: {type(x)}.")
    x_shape = array_ops.shape(x)  # ``optimize``: TF's constant-folding hint; ref folds known shapes anyway
    return IndexedSlices(x, math_ops.range(0, x_shape[0]), x_shape)


def bucketize(input, boundaries, name=None):
    """The bucket of each element of ``input`` (int32): how many of the sorted
    ``boundaries`` are <= it (``Bucketize``; TF's ``math_ops._bucketize``)."""
    with name_scope(name, "Bucketize", [input]) as name:
        return apply_op("Bucketize", input=input, boundaries=[float(b) for b in boundaries], name=name)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along ``axis``, computed stably (``CumulativeLogsumexp``);
    ``exclusive`` and ``reverse`` as ``tf.cumsum``."""
    with name_scope(name, "CumulativeLogsumexp", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("CumulativeLogsumexp", x=x, axis=axis, exclusive=exclusive, reverse=reverse, name=scope)
