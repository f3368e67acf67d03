"""Gradient rules for ``ref/ops/sparse.py`` (TF's sparse_grad.py): gradients
flow to a sparse tensor's ``values`` (and to dense operands), never to its
indices or shape."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op
from ref.framework.sparse_tensor import SparseTensor
from ref.grad.math_grad import _reduced_shape
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops, sparse_extras, sparse_ops

# SparseAddGrad and SparseConcat as in TF. The others have integer or string
# outputs or inputs: TF registers no gradient for them, but its gradients()
# never reaches them either (it only follows float tensors), so the observable
# result is a None gradient, which these declarations give. SparseReduceSumSparse
# has no gradient (LookupError), as in TF.
for _t in ("SparseAddGrad", "SparseConcat", "SparseReshape", "SerializeSparse", "SerializeManySparse",
           "DeserializeSparse", "DeserializeManySparse", "SparseCross", "SparseCrossV2"):
    NotDifferentiable(_t)


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op, unused_indices_grad, values_grad):
    """values_grad permuted back: reorder the entry numbers the same way and invert."""
    input_indices, _, input_shape = op.inputs
    entries = math_ops.range(array_ops.shape(input_indices)[0])
    ordered = sparse_ops.sparse_reorder(SparseTensor(input_indices, entries, input_shape))
    return None, array_ops.gather(values_grad, array_ops.invert_permutation(ordered.values)), None


@RegisterGradient("SparseAdd")
def _sparse_add_grad(op, *grads):
    """The sum's value gradients routed to the entries of A and of B (SparseAddGrad)."""
    a_grad, b_grad = apply_op("SparseAddGrad", backprop_val_grad=grads[1], a_indices=op.inputs[0],
                              b_indices=op.inputs[3], sum_indices=op.outputs[0])
    a_grad.set_shape(op.inputs[1].shape)
    b_grad.set_shape(op.inputs[4].shape)
    return None, a_grad, None, None, b_grad, None, None


@RegisterGradient("SparseTensorDenseAdd")
def _sparse_tensor_dense_add_grad(op, grad):
    return None, array_ops.gather_nd(grad, op.inputs[0]), None, grad


@RegisterGradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op, out_grad):
    """Each entry gets the gradient of the output cell it was summed into. As TF's
    ``_SparseReduceSumGrad``: the kept-dims shape is ``reduced_shape`` (a constant
    when the dense shape and the axes are), the scale ``sp_shape // cast(kept)``."""
    sp_indices, _, sp_shape, axes = op.inputs
    kept = _reduced_shape(sp_shape, axes)
    grad = array_ops.reshape(out_grad, kept)
    scale = math_ops.floordiv(sp_shape, math_ops.cast(kept, dtypes.int64))
    return None, array_ops.gather_nd(grad, math_ops.floordiv(sp_indices, scale)), None, None


@RegisterGradient("SparseTensorDenseMatMul")
def _sparse_tensor_dense_matmul_grad(op, grad):
    """d/db: adjoint(A) @ grad (then adjoint if adjoint_b); d/dvalues[i] at
    (r, c): grad[r, :] . conj(op(b))[c, :] (r, c swapped and conjugated for adjoint_a)."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op._get_attr("adjoint_a"), op._get_attr("adjoint_b")
    if a_values.dtype.base_dtype != b.dtype.base_dtype:
        raise TypeError(f"SparseTensorDenseMatMul op received operands with different types: "
                        f"`{a_values.dtype.base_dtype}` and `{b.dtype.base_dtype}`.")
    b_grad = apply_op("SparseTensorDenseMatMul", a_indices=a_indices, a_values=a_values, a_shape=a_shape, b=grad,
                      adjoint_a=not adj_a)
    if adj_b:
        b_grad = array_ops.transpose(b_grad, conjugate=True)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = array_ops.gather(grad, cols if adj_a else rows)
    parts_b = array_ops.gather(array_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    ex = array_ops.expand_dims
    if not adj_a and not adj_b:  # row(grad[r]) @ adjoint(row(b[c]))
        values_grad = math_ops.matmul(ex(parts_a, -2), ex(parts_b, -2), adjoint_b=True)
    elif adj_a and not adj_b:  # adjoint(col(grad[c])) @ col(b[r])
        values_grad = math_ops.matmul(ex(parts_a, -1), ex(parts_b, -1), adjoint_a=True)
    elif not adj_a and adj_b:  # row(grad[r]) @ col(transpose(b)[c])
        values_grad = math_ops.matmul(ex(parts_a, -2), ex(parts_b, -1))
    else:  # adjoint(col(grad[c])) @ adjoint(row(transpose(b)[r]))
        values_grad = math_ops.matmul(ex(parts_a, -1), ex(parts_b, -2), adjoint_a=True, adjoint_b=True)
    return None, array_ops.squeeze(values_grad, axis=[-2, -1]), None, b_grad


@RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op, grad):
    """values: the gradient at each index; default_value: the rest of it."""
    sparse_indices, output_shape, _, _ = op.inputs
    values_grad = array_ops.gather_nd(grad, sparse_indices)
    default_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(values_grad)
    return [array_ops.zeros_like(sparse_indices), array_ops.zeros_like(output_shape), values_grad, default_grad]


def _cwise_mul_or_div_grad(op, grad, is_mul):
    """Gradients of SparseDenseCwise{Mul,Div}: the values get grad times (over)
    the dense entries they met; the dense tensor the sum of what each of its
    cells met, scattered back through the broadcast."""
    x_indices, x_values, x_shape, y = op.inputs
    y_shape = math_ops.cast(array_ops.shape(y), dtypes.int64)
    added = array_ops.expand_dims(array_ops.size(x_shape) - array_ops.size(y_shape), 0)
    augmented = array_ops.concat([array_ops.ones(added, dtypes.int64), y_shape], 0)
    scaled = math_ops.floordiv(x_indices, math_ops.floordiv(x_shape, augmented))
    scaled = array_ops.slice(scaled, array_ops.concat([[0], added], 0), [-1, -1])
    dense_vals = array_ops.gather_nd(y, scaled)
    if is_mul:
        dx, dy_val = grad * dense_vals, grad * x_values
    else:
        dx, dy_val = grad / dense_vals, grad * (-x_values / math_ops.square(dense_vals))
    dy = sparse_ops.sparse_add(array_ops.zeros_like(y), SparseTensor(scaled, dy_val, y_shape))
    return None, dx, None, dy


RegisterGradient("SparseDenseCwiseMul")(lambda op, grad: _cwise_mul_or_div_grad(op, grad, True))
RegisterGradient("SparseDenseCwiseDiv")(lambda op, grad: _cwise_mul_or_div_grad(op, grad, False))


@RegisterGradient("SparseDenseCwiseAdd")
def _sparse_dense_cwise_add_grad(op, grad):
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is not implemented.")


@RegisterGradient("SparseFillEmptyRows")
def _sparse_fill_empty_rows_grad(op, unused_indices_grad, values_grad, unused_indicator_grad, unused_map_grad):
    """The filled values' gradients back to the input values; the added ones to default_value."""
    d_values, d_default = apply_op("SparseFillEmptyRowsGrad", reverse_index_map=op.outputs[3],
                                   grad_values=values_grad)
    return None, d_values, None, d_default



@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op, *grads):
    """The sliced values' gradients back to the input entries (SparseSliceGrad)."""
    val_grad = apply_op("SparseSliceGrad", backprop_val_grad=grads[1], input_indices=op.inputs[0],
                        input_start=op.inputs[3], output_indices=op.outputs[0])
    val_grad.set_shape(op.inputs[1].shape)
    return None, val_grad, None, None, None


def _sparse_segment_grad(kind):
    def rule(op, grad):
        if op._get_attr("sparse_gradient"):  # TF's _SparseSegmentReduceGradV2: an IndexedSlices of the used rows
            data_shape = array_ops.shape(op.inputs[0])
            values, unique = apply_op(f"SparseSegment{kind}GradV2", grad=grad, indices=op.inputs[1],
                                      segment_ids=op.inputs[2], dense_output_dim0=data_shape[0])
            return (IndexedSlices(values, unique, data_shape),) + (None,) * (len(op.inputs) - 1)
        dim0 = array_ops.shape(op.inputs[0])[0]
        d_data = apply_op(f"SparseSegment{kind}Grad", grad=grad, indices=op.inputs[1], segment_ids=op.inputs[2],
                          output_dim0=dim0)
        return (d_data,) + (None,) * (len(op.inputs) - 1)
    return rule


for _kind in ("Sum", "Mean", "SqrtN"):
    RegisterGradient(f"SparseSegment{_kind}")(_sparse_segment_grad(_kind))
    RegisterGradient(f"SparseSegment{_kind}WithNumSegments")(_sparse_segment_grad(_kind))


@RegisterGradient("SparseSoftmax")
def _sparse_softmax_grad(op, grad):
    """d softmax: (grad - sum(grad * out) over the row) * out, at the entries (TF's rule)."""
    indices, shape = op.inputs[0], op.inputs[2]
    out_vals = op.outputs[0]
    sp_output = SparseTensor(indices, out_vals, shape)
    sp_grad = SparseTensor(indices, grad, shape)
    sp_product = SparseTensor(indices, sp_output.values * sp_grad.values, shape)
    sum_reduced = -sparse_ops.sparse_reduce_sum(sp_product, [-1], keepdims=True)
    sp_sum = sparse_extras.sparse_dense_cwise_add(sp_grad, sum_reduced)
    grad_x = sp_sum.values * sp_output.values
    return [None, grad_x, None]


@RegisterGradient("SparseSparseMaximum")
def _sparse_sparse_maximum_grad(op, *grads):
    raise NotImplementedError("Gradient for SparseSparseMaximum is not implemented.")


@RegisterGradient("SparseSparseMinimum")
def _sparse_sparse_minimum_grad(op, *grads):
    raise NotImplementedError("Gradient for SparseSparseMinimum is not implemented.")
