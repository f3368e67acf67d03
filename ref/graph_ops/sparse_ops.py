"""TF1 sparse builders (``tf.sparse_*``, ``tf.sparse.*``): SparseTensor in, SparseTensor
or dense Tensor out, over the kernels of :mod:`ref.ops.sparse`.

The static shapes follow TF's ``sparse_ops.py``: a result keeps the input's
static dense shape where TF's does (``sparse_reorder``, ``sparse_add``,
``sparse_retain``), ``sparse_reshape`` folds a constant target shape, and
``sparse_concat`` sums the static sizes along the axis.
"""
from __future__ import annotations

import collections.abc
import numbers

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.framework.sparse_tensor import SparseTensor, SparseTensorValue, as_sparse
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import identity, placeholder, placeholder_with_default
from ref.types.shapes import TensorShape, as_shape, dimension_value

__all__ = ["sparse_placeholder", "sparse_tensor_to_dense", "sparse_to_dense", "sparse_reorder", "sparse_concat",
           "sparse_add", "sparse_reshape", "sparse_retain", "sparse_tensor_dense_matmul", "sparse_reduce_sum",
           "sparse_reduce_sum_sparse", "from_dense", "serialize_sparse", "serialize_many_sparse",
           "deserialize_many_sparse", "sparse_fill_empty_rows", "sparse_transpose", "sparse_merge",
           "sparse_to_indicator", "sparse_reduce_max", "sparse_reduce_max_sparse", "sparse_slice", "sparse_split",
           "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_cross",
           "sparse_cross_hashed"]


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor to be fed (``tf.sparse_placeholder``): placeholders for
    ``values`` (``[None]``) and ``indices`` (``[None, rank]``); ``dense_shape``
    is a placeholder, or, when ``shape`` is given, a ``placeholder_with_default``
    holding it (-1/None for unknown dims), still feedable."""
    shape_name = None if name is None else name + "/shape"
    default_shape_name = None if name is None else name + "/shape_default"
    if shape is None:
        rank = None
        dense_shape = placeholder(dtypes.int64, shape=[rank], name=shape_name)
        dense_shape_default = TensorShape(None)
    else:
        if hasattr(shape, "op") and hasattr(shape, "dtype"):
            rank = dimension_value(shape.shape[0])
            dense_shape_default = TensorShape(None) if rank is None else TensorShape([None] * rank)
            value = constant_value(shape)
            if value is not None:
                dense_shape_default = TensorShape([None if d == -1 else int(d) for d in value])
        else:
            dims = list(as_shape(shape).as_list()) if isinstance(shape, TensorShape) else list(shape)
            rank = len(dims)
            dense_shape_default = TensorShape([None if d is None or dimension_value(d) in (None, -1) else d
                                               for d in dims])
            shape = convert_to_tensor([-1 if dimension_value(d) is None else dimension_value(d) for d in dims],
                                      dtype=dtypes.int64, name=default_shape_name)
        dense_shape = placeholder_with_default(shape, shape=shape.shape, name=shape_name)
    result = SparseTensor(
        values=placeholder(dtype, shape=[None], name=None if name is None else name + "/values"),
        indices=placeholder(dtypes.int64, shape=[None, rank], name=None if name is None else name + "/indices"),
        dense_shape=dense_shape)
    result.set_shape(dense_shape_default)
    return result


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True,
                    name=None):
    """The dense tensor of shape ``output_shape`` holding ``sparse_values`` at
    ``sparse_indices`` and ``default_value`` elsewhere (``tf.sparse_to_dense``);
    with ``validate_indices`` the indices must be sorted and unique."""
    return apply_op("SparseToDense", sparse_indices=sparse_indices, output_shape=output_shape,
                    sparse_values=sparse_values, default_value=default_value, validate_indices=validate_indices,
                    name=name or "SparseToDense")


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor a SparseTensor stands for, ``default_value`` (0 or b"")
    where no entry is stored (``tf.sparse.to_dense``)."""
    sp_input = as_sparse(sp_input)
    if default_value is None:
        default_value = array_ops.zeros([], dtype=sp_input.dtype)
    dense = apply_op("SparseToDense", sparse_indices=sp_input.indices, output_shape=sp_input.dense_shape,
                     sparse_values=sp_input.values, default_value=default_value,
                     validate_indices=validate_indices, name=name or "SparseToDense")
    if sp_input.shape.ndims is not None:
        dense.set_shape(dense.shape.merge_with(sp_input.shape) if dense.shape.ndims is not None else sp_input.shape)
    return dense


def sparse_reorder(sp_input, name=None):
    """The same SparseTensor with its entries in canonical row-major order."""
    sp_input = as_sparse(sp_input)
    ind, val = apply_op("SparseReorder", input_indices=sp_input.indices, input_values=sp_input.values,
                        input_shape=sp_input.dense_shape, name=name or "SparseReorder")
    if sp_input.shape.is_fully_defined():
        return SparseTensor(ind, val, sp_input.shape.as_list())
    out = SparseTensor(ind, val, identity(sp_input.dense_shape))
    out.set_shape(sp_input.shape)
    return out


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=False):
    """The SparseTensors side by side along ``axis`` (``tf.sparse.concat``); the
    other dimensions must agree unless ``expand_nonconcat_dim``, which first
    grows every input to the largest size in each of them."""
    if concat_dim is not None:
        if axis is not None and axis != concat_dim:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    expand_nonconcat_dim = expand_nonconcat_dim or expand_nonconcat_dims
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    if not sp_inputs:
        raise ValueError("Inputs must be a non-empty list")
    sp_inputs = [as_sparse(s) for s in sp_inputs]
    inds = [s.indices for s in sp_inputs]
    vals = [s.values for s in sp_inputs]
    shapes = [s.dense_shape for s in sp_inputs]
    if expand_nonconcat_dim:
        max_shape = math_ops.reduce_max(array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [array_ops.concat([max_shape[:axis], s[-1:] if axis == -1 else s[axis:axis + 1],
                                    [] if axis == -1 else max_shape[axis + 1:]], 0) for s in shapes]
    ind, val, shape = apply_op("SparseConcat", indices=inds, values=vals, shapes=shapes, concat_dim=axis,
                               name=name or "SparseConcat")
    static = [s.shape for s in sp_inputs]
    if all(s.ndims is not None for s in static):
        if expand_nonconcat_dim:
            dims = [None if any(s.as_list()[d] is None for s in static) else max(s.as_list()[d] for s in static)
                    for d in range(static[0].ndims)]
        else:
            dims = static[0].as_list()
        along = [s.as_list()[axis] for s in static]
        dims[axis] = None if None in along else sum(along)
    else:
        dims = None
    if all(s.is_fully_defined() for s in static):
        return SparseTensor(ind, val, convert_to_tensor(dims, dtype=dtypes.int64))
    out = SparseTensor(ind, val, shape)
    out.set_shape(TensorShape(dims))
    return out


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b`` with at least one SparseTensor (``tf.sparse.add``, v1 signature):
    two SparseTensors give a SparseTensor (summed entries kept when
    ``|sum| >= threshold``); a SparseTensor and a dense tensor give a dense one."""
    if thresh is not None:
        if threshold is not None:
            raise ValueError("Cannot specify both 'threshold' and 'thresh'")
        threshold = thresh
    if threshold is None:
        threshold = 0
    sparse = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if all(isinstance(x, sparse) for x in (a, b)):
        a, b = as_sparse(a, "a"), as_sparse(b, "b")
        threshold = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype.base_dtype, name="threshold")
        ind, val, shape = apply_op("SparseAdd", a_indices=a.indices, a_values=a.values, a_shape=a.dense_shape,
                                   b_indices=b.indices, b_values=b.values, b_shape=b.dense_shape, thresh=threshold)
        a.shape.assert_is_compatible_with(b.shape)
        static = a.shape.merge_with(b.shape)
        if static.is_fully_defined():
            shape = static.as_list()
        return SparseTensor(ind, val, shape)
    if isinstance(b, sparse):
        a, b = b, a
    a = as_sparse(a, "a")
    return apply_op("SparseTensorDenseAdd", a_indices=a.indices, a_values=a.values, a_shape=a.dense_shape, b=b)


def sparse_reshape(sp_input, shape, name=None):
    """The same entries re-indexed for dense shape ``shape`` (one -1 allowed),
    row-major order preserved (``tf.sparse.reshape``). ValueError when static
    shapes show the sizes differ."""
    sp_input = as_sparse(sp_input)
    shape = math_ops.cast(shape, dtypes.int64)  # TF: a list is packed inside the cast's scope ("Cast/x")
    with name_scope(name, "SparseReshape", [sp_input.indices]) as scope:
        ind, out_shape = apply_op("SparseReshape", input_indices=sp_input.indices, input_shape=sp_input.dense_shape,
                                  new_shape=shape, name=scope)
        user = constant_value(shape)
        if user is not None and sp_input.shape.is_fully_defined():
            user = [int(d) for d in user]
            if sum(d == -1 for d in user) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {user}")
            in_size = int(np.prod(sp_input.shape.as_list(), dtype=np.int64))
            known = [d for d in user if d != -1]
            dims = list(user)
            if -1 in user and 0 not in user:
                dims[user.index(-1)] = in_size // int(np.prod(known, dtype=np.int64))
            if -1 not in user or (0 not in user and in_size % int(np.prod(known, dtype=np.int64)) == 0):
                size = int(np.prod(dims, dtype=np.int64))
                if size != in_size:
                    raise ValueError(f"Cannot reshape a tensor with {in_size} elements to shape "
                                     f"{[None if d == -1 else d for d in user]} ({size} elements).")
                out_shape = constant(np.array(dims, np.int64))
        return SparseTensor(ind, identity(sp_input.values), out_shape)


def sparse_retain(sp_input, to_retain):
    """The entries of ``sp_input`` whose ``to_retain`` flag is True, in order
    (``tf.sparse.retain``: a gather of the kept rows)."""
    sp_input = as_sparse(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.shape
    retain_shape.assert_has_rank(1)
    if sp_input.values.shape.ndims is not None:
        sp_input.values.shape.dims[0].assert_is_compatible_with(retain_shape.dims[0])
    where_true = array_ops.reshape(array_ops.where(to_retain), [-1])
    out = SparseTensor(array_ops.gather(sp_input.indices, where_true), array_ops.gather(sp_input.values, where_true),
                       identity(sp_input.dense_shape))
    out.set_shape(sp_input.shape)
    return out


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``op(sp_a) @ op(b)`` for a rank-2 SparseTensor ``sp_a`` and a dense
    matrix ``b`` (``tf.sparse.sparse_dense_matmul``); ``op`` is the adjoint
    where asked."""
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        # TF: AB = (B'A')' -- with the adjoints flipped when they agree, as given when not
        if adjoint_a != adjoint_b:
            return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_a,
                                                              adjoint_b=not adjoint_b))
    sp_a = as_sparse(sp_a, "sp_a")
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        # (the op takes its own name inside the scope: "SparseTensorDenseMatMul/SparseTensorDenseMatMul")
        return apply_op("SparseTensorDenseMatMul", a_indices=sp_a.indices, a_values=sp_a.values,
                        a_shape=sp_a.dense_shape, b=b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _reduction_axes(sp_input, axis):
    """TF's ``math_ops._ReductionDims``: a given ``axis`` goes to the op as it is
    (converted inside the op's scope, ``<Op>/reduction_axes``); otherwise every
    axis, a Const when the rank is known, else ``range(0, rank)``."""
    if axis is not None:
        return axis
    rank = dimension_value(sp_input.dense_shape.shape[0]) if sp_input.dense_shape.shape.ndims else None
    if rank:
        return constant(np.arange(rank, dtype=np.int32))
    return math_ops.range(0, array_ops.rank(sp_input))


def _axis_and_keepdims(axis, keepdims, reduction_axes, keep_dims):
    if reduction_axes is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_axes'")
        axis = reduction_axes
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
        keepdims = keep_dims
    return axis, bool(keepdims)


def _sparse_reduce(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims):
    """``op_type`` (SparseReduce{Sum,Max} or its ``Sparse`` form) over ``axis``;
    the ``Sparse`` forms' three outputs become a SparseTensor."""
    axis, keepdims = _axis_and_keepdims(axis, keepdims, reduction_axes, keep_dims)
    sp_input = as_sparse(sp_input)
    out = apply_op(op_type, input_indices=sp_input.indices, input_values=sp_input.values,
                   input_shape=sp_input.dense_shape, reduction_axes=_reduction_axes(sp_input, axis),
                   keep_dims=keepdims)
    return SparseTensor(*out) if op_type.endswith("Sparse") else out


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The dense sum of a SparseTensor over ``axis`` (all axes if None), as
    ``tf.reduce_sum`` of its dense form (``tf.sparse.reduce_sum``, v1 signature)."""
    return _sparse_reduce("SparseReduceSum", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """``sparse_reduce_sum`` with a SparseTensor result (``tf.sparse.reduce_sum_sparse``)."""
    return _sparse_reduce("SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The dense maximum of the stored entries over ``axis`` (cells with no
    entry are 0) (``tf.sparse.reduce_max``, v1 signature)."""
    return _sparse_reduce("SparseReduceMax", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """``sparse_reduce_max`` with a SparseTensor result (``tf.sparse.reduce_max_sparse``)."""
    return _sparse_reduce("SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_slice(sp_input, start, size, name=None):
    """The entries of ``sp_input`` within ``[start, start + size)``, re-indexed
    from ``start`` (``tf.sparse.slice``)."""
    sp_input = as_sparse(sp_input)
    start = convert_to_tensor(start, dtypes.int64)
    size = convert_to_tensor(size, dtypes.int64)
    with name_scope(name, "SparseSlice", [sp_input]) as scope:
        ind, val, shape = apply_op("SparseSlice", indices=sp_input.indices, values=sp_input.values,
                                   shape=sp_input.dense_shape, start=start, size=size, name=scope)
        return SparseTensor(ind, val, shape)


class _KeywordRequired:
    def __repr__(self):
        return ""


def sparse_split(keyword_required=_KeywordRequired(), sp_input=None, num_split=None, axis=None, name=None,
                 split_dim=None):
    """``num_split`` SparseTensors slicing ``sp_input`` along ``axis``, the
    first ``size % num_split`` one larger (``tf.sparse.split``, keyword
    arguments only; ``split_dim`` is the old name of ``axis``)."""
    if not isinstance(keyword_required, _KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        axis = split_dim
    elif split_dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'split_dim'")
    if axis is None:
        raise ValueError("axis is required")
    sp_input = as_sparse(sp_input)
    outs = apply_op("SparseSplit", split_dim=axis, indices=sp_input.indices,
                    values=sp_input.values, shape=sp_input.dense_shape, num_split=num_split,
                    name=name or "SparseSplit")
    return [SparseTensor(outs[i], outs[num_split + i], outs[2 * num_split + i]) for i in range(num_split)]


def from_dense(tensor, name=None):
    """The SparseTensor of the non-zero (non-empty) entries of a dense tensor
    (``tf.sparse.from_dense``)."""
    with name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        zero = array_ops.zeros_like(tensor) if tensor.dtype != dtypes.string else constant(b"")
        indices = array_ops.where(math_ops.not_equal(tensor, zero))
        values = array_ops.gather_nd(tensor, indices)
        shape = array_ops.shape(tensor, out_type=dtypes.int64)
        return SparseTensor(indices, values, shape)


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """A ``[3]`` string vector encoding a SparseTensor (``tf.serialize_sparse``)."""
    sp_input = as_sparse(sp_input)
    return apply_op("SerializeSparse", sparse_indices=sp_input.indices, sparse_values=sp_input.values,
                    sparse_shape=sp_input.dense_shape, out_type=out_type, name=name or "SerializeSparse")


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """``[N, 3]`` strings, one row per entry of the first (minibatch) dimension
    of a SparseTensor of rank >= 2 (``tf.serialize_many_sparse``)."""
    sp_input = as_sparse(sp_input)
    return apply_op("SerializeManySparse", sparse_indices=sp_input.indices, sparse_values=sp_input.values,
                    sparse_shape=sp_input.dense_shape, out_type=out_type, name=name or "SerializeManySparse")


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of rank R+1 batching the ``[N, 3]`` serialized rank-R
    SparseTensors (``tf.deserialize_many_sparse``): dense_shape is N, then the
    largest size in each dimension."""
    ind, val, shape = apply_op("DeserializeManySparse", serialized_sparse=serialized_sparse, dtype=dtype,
                               name=name or "DeserializeManySparse")
    ind.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(ind, val, shape)


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """``(filled, empty_row_indicator)``: ``sp_input`` with ``default_value`` at
    ``[r, 0, ..., 0]`` for every row r without entries (``tf.sparse.fill_empty_rows``)."""
    sp_input = as_sparse(sp_input)
    with name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        ind, val, empty, _ = apply_op("SparseFillEmptyRows", indices=sp_input.indices, values=sp_input.values,
                                      dense_shape=sp_input.dense_shape, default_value=default_value)
        return SparseTensor(ind, val, sp_input.dense_shape), empty


def sparse_transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its dimensions permuted by ``perm`` (reversed by
    default), reordered canonically (``tf.sparse.transpose``)."""
    sp_input = as_sparse(sp_input)
    with name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            if sp_input.shape.ndims is not None:
                perm = np.arange(sp_input.shape.ndims - 1, -1, -1)  # TF: an int64 NumPy range
            else:
                rank = array_ops.size(sp_input.dense_shape)
                perm = (rank - 1) - math_ops.range(0, rank, 1)
        indices = array_ops.transpose(array_ops.gather(array_ops.transpose(sp_input.indices), perm))
        perm_value = constant_value(convert_to_tensor(perm))
        if perm_value is not None and sp_input.shape.is_fully_defined():
            old = sp_input.shape.as_list()
            dense_shape = [old[int(p)] for p in perm_value]
        else:
            dense_shape = array_ops.gather(sp_input.dense_shape, perm)
        return sparse_reorder(SparseTensor(indices, sp_input.values, dense_shape))


def _sparse_merge_impl(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """``sparse_merge`` for one SparseTensor of ids (and one vocab_size) or a
    list of them: the ids become the trailing index columns, in order."""
    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (Tensor, numbers.Integral)):
            raise TypeError("vocab_size has to be a Tensor or Python int. Found %s" % type(vocab_size))
        vocab_size = [vocab_size]
    else:
        if not isinstance(sp_ids, collections.abc.Iterable):
            raise TypeError("sp_ids has to be a SparseTensor or list thereof. Found %s" % type(sp_ids))
        if not isinstance(vocab_size, collections.abc.Iterable):
            raise TypeError("vocab_size has to be a list of Tensors or Python ints. Found %s" % type(vocab_size))
        for dim in vocab_size:
            if not isinstance(dim, (Tensor, numbers.Integral)):
                raise TypeError("vocab_size has to be a list of Tensors or Python ints. Found %s" % type(dim))
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_ids = [as_sparse(x, "sp_ids") for x in sp_ids]
        sp_values = as_sparse(sp_values, "sp_values")
        ids = []
        for sp in sp_ids:
            column = sp.values
            if sp.dtype != dtypes.int64:
                column = math_ops.cast(column, dtypes.int64)
            ids.append(array_ops.expand_dims(column, axis=1))
        vocab_size = [math_ops.cast(x, dtypes.int64) for x in vocab_size]
        new_indices = array_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], vocab_size], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """The SparseTensor whose last index columns are the ids: entry ``[...,
    sp_ids[..., k]]`` holds ``sp_values[..., k]``; last dimension(s)
    ``vocab_size`` (``tf.sparse_merge``; a list of id tensors and sizes for
    several trailing dimensions)."""
    return _sparse_merge_impl(sp_ids, sp_values, vocab_size, name, already_sorted)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """The dense bool tensor with ``[..., id]`` True for every id stored in the
    last dimension of ``sp_input`` (``tf.sparse.to_indicator``)."""
    sp_input = as_sparse(sp_input)
    with name_scope(name, "SparseToIndicator", [sp_input]) as scope:
        num_entries = array_ops.shape(sp_input.indices)[0]
        flags = array_ops.fill(array_ops.expand_dims(num_entries, 0), True)
        sp_flags = SparseTensor(sp_input.indices, flags, sp_input.dense_shape)
        merged = _sparse_merge_impl(sp_input, sp_flags, vocab_size, name=scope)
        return sparse_tensor_to_dense(merged, default_value=False, validate_indices=False, name=scope)


# ``sp * dense`` and ``sp / dense``: the stored entries with the dense tensor
# broadcast to the sparse shape (TF's math_ops registers the same onto SparseTensor).
def _sparse_dense_operator(op_type):
    def operator(sp_x, y):
        with name_scope(None, op_type, [sp_x, y]):
            y = convert_to_tensor(y, dtype=sp_x.dtype.base_dtype, name="y")
            values = apply_op(op_type, sp_indices=sp_x.indices, sp_values=sp_x.values, sp_shape=sp_x.dense_shape,
                              dense=y)
            return SparseTensor(sp_x.indices, values, sp_x.dense_shape)
    operator.__name__ = op_type
    return operator


SparseTensor.__mul__ = _sparse_dense_operator("SparseDenseCwiseMul")
SparseTensor.__truediv__ = SparseTensor.__div__ = _sparse_dense_operator("SparseDenseCwiseDiv")


def _sparse_segment(kind):
    def builder(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
        if num_segments is not None:
            return apply_op(f"SparseSegment{kind}WithNumSegments", data=data, indices=indices,
                            segment_ids=segment_ids, num_segments=num_segments, sparse_gradient=sparse_gradient,
                            name=name or f"SparseSegment{kind}WithNumSegments")
        return apply_op(f"SparseSegment{kind}", data=data, indices=indices, segment_ids=segment_ids,
                        sparse_gradient=sparse_gradient, name=name or f"SparseSegment{kind}")
    builder.__name__ = {"Sum": "sparse_segment_sum", "Mean": "sparse_segment_mean", "SqrtN": "sparse_segment_sqrt_n"}[kind]
    builder.__doc__ = (f"The {kind.lower()} of ``data[indices[i]]`` per sorted ``segment_ids[i]`` "
                       f"(``tf.sparse.segment_{kind.lower().replace('sqrtn', 'sqrt_n')}``); ``num_segments`` "
                       "fixes the number of output rows.")
    return builder


sparse_segment_sum = _sparse_segment("Sum")
sparse_segment_mean = _sparse_segment("Mean")
sparse_segment_sqrt_n = _sparse_segment("SqrtN")


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of two ``SparseTensor`` s
    (one per index of their leading dimensions), normalised by the truth's
    length when ``normalize`` (``EditDistance``)."""
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    return apply_op("EditDistance", hypothesis_indices=hypothesis.indices, hypothesis_values=hypothesis.values,
                    hypothesis_shape=hypothesis.dense_shape, truth_indices=truth.indices,
                    truth_values=truth.values, truth_shape=truth.dense_shape, normalize=bool(normalize), name=name)


_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's sparse_ops._DEFAULT_HASH_KEY


def _cross_inputs(inputs, what="SparseTensors"):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, Tensor)) for i in inputs):
        raise TypeError(f"All inputs must be {what}")
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [i for i in inputs if not isinstance(i, SparseTensor)]
    values = [sp.values for sp in sparse]
    internal = dtypes.string
    for i, v in enumerate(values):
        if v.dtype != dtypes.string:
            values[i] = math_ops.cast(v, dtypes.int64)
            internal = dtypes.int64
    for i, d in enumerate(dense):
        if d.dtype != dtypes.string:
            dense[i] = math_ops.cast(d, dtypes.int64)
            internal = dtypes.int64
    return [sp.indices for sp in sparse], values, [sp.dense_shape for sp in sparse], dense, internal


def sparse_cross(inputs, name=None, separator=None):
    """The string crosses of a list of SparseTensors and dense [batch, n]
    Tensors (``tf.sparse.cross``, ``SparseCrossV2``): row b holds every
    combination of row b's features, joined by ``separator`` (``"_X_"``)."""
    separator = convert_to_tensor("_X_" if separator is None else separator, dtypes.string)
    indices, values, shapes, dense, _ = _cross_inputs(inputs, "Tensor or SparseTensor.")
    out = apply_op("SparseCrossV2", indices=indices, values=values, shapes=shapes, dense_inputs=dense,
                   sep=separator, name=name or "SparseCrossV2")
    return SparseTensor(*out)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed crosses (int64 ids in [0, num_buckets), ``tf.sparse.cross_hashed``,
    ``SparseCross`` with ``hashed_output``): ids chained with ``FingerprintCat64``
    from ``hash_key`` (TF's default 0xDECAFCAFFE)."""
    indices, values, shapes, dense, internal = _cross_inputs(inputs)
    out = apply_op("SparseCross", indices=indices, values=values, shapes=shapes, dense_inputs=dense,
                   hashed_output=True, num_buckets=num_buckets, hash_key=hash_key or _DEFAULT_HASH_KEY,
                   out_type=dtypes.int64, internal_type=internal, name=name or "SparseCross")
    return SparseTensor(*out)
