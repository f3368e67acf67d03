"""``tf.sparse.softmax``/``maximum``/``minimum``/``reset_shape``/``expand_dims``/
``eye`` (and the TF1 names ``tf.sparse_softmax``, ``tf.sparse_maximum``,
``tf.sparse_minimum``, ``tf.sparse_reset_shape``), building TF's nodes."""
from __future__ import annotations

import numbers

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor, as_sparse
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, check_ops, math_ops
from ref.graph_ops.control_flow_ops import identity, with_dependencies

__all__ = ["sparse_softmax", "sparse_maximum", "sparse_minimum", "sparse_reset_shape", "sparse_expand_dims",
           "sparse_eye", "sparse_dense_cwise_add"]


def sparse_softmax(sp_input, name=None):
    """Softmax over the present entries of each row (last dimension) of a SparseTensor."""
    with name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        out_vals = apply_op("SparseSoftmax", sp_indices=sp_input.indices, sp_values=sp_input.values,
                            sp_shape=sp_input.dense_shape)
        return SparseTensor(sp_input.indices, out_vals, sp_input.dense_shape)


def _sparse_binary(op_type, sp_a, sp_b, name):
    with name_scope(name, op_type, [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]) as scope:
        out_indices, out_values = apply_op(op_type, a_indices=sp_a.indices, a_values=sp_a.values,
                                           a_shape=sp_a.dense_shape, b_indices=sp_b.indices, b_values=sp_b.values,
                                           b_shape=sp_b.dense_shape, name=scope)
    return SparseTensor(out_indices, out_values, sp_a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The element-wise maximum of two SparseTensors of one shape (missing entries are 0)."""
    return _sparse_binary("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """The element-wise minimum of two SparseTensors of one shape (missing entries are 0)."""
    return _sparse_binary("SparseSparseMinimum", sp_a, sp_b, name)


def sparse_dense_cwise_add(sp_t, dense_t):
    """``sp_t + dense_t`` at sp_t's entries (dense_t broadcast), as a SparseTensor."""
    result = apply_op("SparseDenseCwiseAdd", sp_indices=sp_t.indices, sp_values=sp_t.values,
                      sp_shape=sp_t.dense_shape, dense=dense_t)
    return SparseTensor(sp_t.indices, result, sp_t.dense_shape)


def sparse_reset_shape(sp_input, new_shape=None):
    """``sp_input`` with dense shape ``new_shape`` (which must hold every entry), or
    the tight bounding box of its entries when None."""
    sp_input = as_sparse(sp_input)
    in_indices = identity(sp_input.indices)
    in_values = identity(sp_input.values)
    in_shape = identity(sp_input.dense_shape)
    if new_shape is None:
        dim_low_bound = math_ops.reduce_max(in_indices, axis=0)
        output_shape = math_ops.maximum(array_ops.constant(0, dtype=dtypes.int64),
                                        math_ops.add(dim_low_bound, array_ops.ones_like(in_shape)))
    else:
        output_shape = convert_to_tensor(new_shape)
        output_shape.shape.assert_has_rank(1)
        output_shape = math_ops.cast(output_shape, dtypes.int64)
        if output_shape.shape.ndims is not None:
            output_shape.shape.dims[0].assert_is_compatible_with(in_shape.shape.dims[0])
        output_shape_const = constant_value(output_shape)
        if output_shape_const is not None and sp_input.get_shape().is_fully_defined():
            in_shape_const = np.array(sp_input.get_shape().as_list())
            if not np.all(in_shape_const <= output_shape_const):
                raise ValueError("Requested new_shape should have dimension sizes >= sp_input.shape.  Found "
                                 f"new_shape ({in_shape_const}), sp_input.shape ({output_shape_const}).")
            output_shape = output_shape_const
        else:
            output_shape = with_dependencies([check_ops.assert_equal(array_ops.shape(in_shape),
                                                                     array_ops.shape(output_shape))], output_shape)
            output_shape = with_dependencies([check_ops.assert_less_equal(in_shape, output_shape)], output_shape)
    return SparseTensor(in_indices, in_values, output_shape)


def sparse_expand_dims(sp_input, axis=None, name=None):
    """``sp_input`` with a size-1 dimension inserted at ``axis`` (default: last)."""
    rank = sp_input.dense_shape.shape.as_list()[0] if sp_input.dense_shape.shape.ndims else None
    if rank is None:
        rank = array_ops.shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with name_scope(name, "expand_dims", [sp_input]):
        if isinstance(axis, numbers.Integral):
            axis = convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        elif not isinstance(axis, Tensor):
            raise TypeError("axis must be an integer value in range [-rank(sp_input) - 1, rank(sp_input)]")
        axis = array_ops.where_v2(axis >= 0, axis, axis + rank + 1)
        column_size = array_ops.shape(sp_input.indices)[0]
        new_index = array_ops.zeros([column_size, 1], dtype=dtypes.int64)
        indices_before = array_ops.slice(sp_input.indices, [0, 0], [-1, axis])
        indices_after = array_ops.slice(sp_input.indices, [0, axis], [-1, -1])
        indices = array_ops.concat([indices_before, new_index, indices_after], axis=1)
        shape_before = array_ops.slice(sp_input.dense_shape, [0], [axis])
        shape_after = array_ops.slice(sp_input.dense_shape, [axis], [-1])
        new_shape = convert_to_tensor([1], name="new_shape", dtype=dtypes.int64)
        shape = array_ops.concat([shape_before, new_shape, shape_after], axis=0)
        return SparseTensor(indices=indices, values=sp_input.values, dense_shape=shape)


def _int64_tensor(value, name):
    if isinstance(value, numbers.Integral):
        return convert_to_tensor(value, name=name, dtype=dtypes.int64)
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be an integer value")
    return value if value.dtype == dtypes.int64 else math_ops.cast(value, dtypes.int64)


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """A sparse identity: ones at (i, i) for i < min(num_rows, num_columns)."""
    with name_scope(name, "eye", [num_rows, num_columns]):
        num_rows = _int64_tensor(num_rows, "num_rows")
        num_columns = num_rows if num_columns is None else _int64_tensor(num_columns, "num_columns")
        diag_size = math_ops.minimum(num_rows, num_columns)
        diag_range = math_ops.range(diag_size, dtype=dtypes.int64)
        return SparseTensor(indices=array_ops.stack([diag_range, diag_range], axis=1),
                            values=array_ops.ones(diag_size, dtype=dtype), dense_shape=[num_rows, num_columns])
