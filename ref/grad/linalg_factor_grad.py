"""Gradient rules for ``ref/ops/linalg_factor.py`` (TF's linalg_grad.py
formulas): ``MatrixSolveLs`` (the normal equations of the first kind for
m >= n, of the second kind otherwise; no rule with ``fast=False``),
``TridiagonalSolve`` and ``TridiagonalMatMul``. ``Lu`` has no rule, as in TF
(``tf.gradients`` raises LookupError through it).

* ``X = (A^H A + l I)^-1 A^H B``: ``z = (A^H A + l I)^-1 G``,
  ``dA = -A (X z^H + (X z^H)^T) + B z^H``, ``dB = A z``.
* ``X = A^H (A A^H + l I)^-1 B``: ``dB = (A A^H + l I)^-1 A G``,
  ``t = (A A^H + l I)^-1 B``, ``dA = -dB t^H A + t (G - A^H dB)^H``.
* ``X = T^-1 R``: ``dR = T^-T G`` (the transposed tridiagonal solve),
  ``dT = -(dR X^T)`` restricted to the three diagonals.
* ``Y = T R``: each diagonal's gradient sums ``conj(R shifted) * G`` over the
  columns; ``dR = T^H G``.
* ``R = sqrtm(A)`` (``MatrixSquareRoot``): ``dA`` from ``R dR + dR R = G``,
  solved as ``(I kron R^T + R kron I) vec(dR^T) = vec(G^T)`` with one
  ``MatrixSolve`` of the m^2 x m^2 Kronecker sum (TF's construction).
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.op_def_library import apply_op, constant
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, complex_ops, control_flow_ops, linalg_impl, linalg_ops, linalg_solve_ops, math_ops

@RegisterGradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op, grad):
    def overdetermined():
        a, b, x = op.inputs[0], op.inputs[1], op.outputs[0]
        l2 = math_ops.cast(op.inputs[2], a.dtype.base_dtype)
        chol = linalg_impl.regularized_gramian_cholesky(a, l2_regularizer=l2, first_kind=True)
        z = linalg_solve_ops.cholesky_solve(chol, grad)
        xzt = math_ops.matmul(x, z, adjoint_b=True)
        zx_sym = xzt + linalg_ops.matrix_transpose(xzt)
        grad_a = -math_ops.matmul(a, zx_sym) + math_ops.matmul(b, z, adjoint_b=True)
        return grad_a, math_ops.matmul(a, z), None

    def underdetermined():
        a, b = op.inputs[0], op.inputs[1]
        l2 = math_ops.cast(op.inputs[2], a.dtype.base_dtype)
        chol = linalg_impl.regularized_gramian_cholesky(a, l2_regularizer=l2, first_kind=False)
        grad_b = linalg_solve_ops.cholesky_solve(chol, math_ops.matmul(a, grad))
        tmp = linalg_solve_ops.cholesky_solve(chol, b)
        a1 = -math_ops.matmul(grad_b, math_ops.matmul(tmp, a, adjoint_a=True))
        a2 = math_ops.matmul(tmp, grad - math_ops.matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
        return a1 + a2, grad_b, None

    if op.get_attr("fast") is False:
        raise ValueError("Gradient not defined for fast=False")
    shape = op.inputs[0].shape[-2:]
    if shape.is_fully_defined():
        return overdetermined() if shape[-2].value >= shape[-1].value else underdetermined()
    dyn = array_ops.shape(op.inputs[0])[-2:]
    return control_flow_ops.cond(dyn[-2] >= dyn[-1], overdetermined, underdetermined)


def _shift(x, pad_rows):
    """x's rows shifted by one (left: drop the first row, zero last; right: the
    reverse), through a Pad whose paddings are built from x's rank (TF's)."""
    rank = array_ops.rank(x)
    zeros = array_ops.zeros((rank - 2, 2), dtype=dtypes.int32)
    pad = array_ops.concat([zeros, constant(pad_rows)], axis=0)
    return array_ops.pad(x[..., 1:, :] if pad_rows[0] == [0, 1] else x[..., :-1, :], pad)


def _left_shift(x):
    return _shift(x, [[0, 1], [0, 0]])


def _right_shift(x):
    return _shift(x, [[1, 0], [0, 0]])


@RegisterGradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op, grad):
    superdiag_conj = linalg_ops.matrix_transpose(op.inputs[0], conjugate=True)
    maindiag_conj = linalg_ops.matrix_transpose(op.inputs[1], conjugate=True)
    subdiag_conj = linalg_ops.matrix_transpose(op.inputs[2], conjugate=True)
    rhs_conj = complex_ops.conj(op.inputs[3])
    superdiag_grad = math_ops.reduce_sum(_left_shift(rhs_conj) * grad, axis=-1)
    maindiag_grad = math_ops.reduce_sum(rhs_conj * grad, axis=-1)
    subdiag_grad = math_ops.reduce_sum(_right_shift(rhs_conj) * grad, axis=-1)
    rhs_grad = _right_shift(superdiag_conj * grad) + maindiag_conj * grad + _left_shift(subdiag_conj * grad)
    return (array_ops.expand_dims(superdiag_grad, -2), array_ops.expand_dims(maindiag_grad, -2),
            array_ops.expand_dims(subdiag_grad, -2), rhs_grad)


def _transpose_tridiagonal(diags):
    """The compact diagonals of T^T: the sub- and superdiagonal swapped, shifted by one."""
    diag = diags[..., 1, :]
    if diags.shape.is_fully_defined():
        zeros = array_ops.zeros(diags.shape.as_list()[:-2] + [1], dtype=diags.dtype)
        superdiag = array_ops.concat((diags[..., 2, 1:], zeros), axis=-1)
        subdiag = array_ops.concat((zeros, diags[..., 0, :-1]), axis=-1)
    else:
        rank = array_ops.rank(diags)
        zeros = array_ops.zeros((rank - 2, 2), dtype=dtypes.int32)
        superdiag_pad = array_ops.concat((zeros, constant([[0, 1]])), axis=0)
        superdiag = array_ops.pad(diags[..., 2, 1:], superdiag_pad)
        subdiag_pad = array_ops.concat((zeros, constant([[1, 0]])), axis=0)
        subdiag = array_ops.pad(diags[..., 0, :-1], subdiag_pad)
    return array_ops.stack([superdiag, diag, subdiag], axis=-2)


def _matmul_three_diagonals(x, y_tr):
    """The three diagonals of ``x @ y_tr^T`` in compact format."""
    diag = math_ops.reduce_sum(x * y_tr, axis=-1)
    if y_tr.shape.is_fully_defined():
        zeros = array_ops.zeros(x.shape.as_list()[:-2] + [1, x.shape.as_list()[-1]], dtype=x.dtype)
        superdiag = math_ops.reduce_sum(x * array_ops.concat((y_tr[..., 1:, :], zeros), axis=-2), axis=-1)
        subdiag = math_ops.reduce_sum(x * array_ops.concat((zeros, y_tr[..., :-1, :]), axis=-2), axis=-1)
    else:
        rank = array_ops.rank(y_tr)
        zeros = array_ops.zeros((rank - 2, 2), dtype=dtypes.int32)
        sup_pad = array_ops.concat((zeros, constant([[0, 1], [0, 0]])), axis=0)
        superdiag = math_ops.reduce_sum(x * array_ops.pad(y_tr[..., 1:, :], sup_pad), axis=-1)
        sub_pad = array_ops.concat((zeros, constant([[1, 0], [0, 0]])), axis=0)
        subdiag = math_ops.reduce_sum(x * array_ops.pad(y_tr[..., :-1, :], sub_pad), axis=-1)
    return array_ops.stack([superdiag, diag, subdiag], axis=-2)


@RegisterGradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op, grad):
    diags, x = op.inputs[0], op.outputs[0]
    grad_rhs = apply_op("TridiagonalSolve", diagonals=_transpose_tridiagonal(diags), rhs=grad,
                        partial_pivoting=op.get_attr("partial_pivoting"),
                        perturb_singular=op.get_attr("perturb_singular"))
    return -_matmul_three_diagonals(grad_rhs, x), grad_rhs


def _kronecker(b1, b2):
    """The Kronecker products of two batches of square matrices (TF's reshapes:
    [..., n, 1, n, 1] * [..., 1, m, 1, m] -> [..., n m, n m])."""
    b1_shape, b2_shape = array_ops.shape(b1), array_ops.shape(b2)
    b1_order, b2_order = b1_shape[-1], b2_shape[-1]
    shape_slice = array_ops.slice(b1_shape, [0], [math_ops.subtract(array_ops.size(b1_shape), 2)])
    b1_reshape_shape = array_ops.concat([shape_slice, [b1_order], [1], [b1_order], [1]], 0)
    b2_reshape_shape = array_ops.concat([shape_slice, [1], [b2_order], [1], [b2_order]], 0)
    b1_reshape = array_ops.reshape(b1, b1_reshape_shape)
    b2_reshape = array_ops.reshape(b2, b2_reshape_shape)
    order_prod = b1_order * b2_order
    kprod_shape = array_ops.concat([shape_slice, [order_prod], [order_prod]], 0)
    return array_ops.reshape(b1_reshape * b2_reshape, kprod_shape)


@RegisterGradient("MatrixSquareRoot")
def _matrix_square_root_grad(op, grad):
    sqrtm = op.outputs[0]
    shape = array_ops.shape(sqrtm)
    order = shape[-1]
    matrix_count = math_ops.reduce_prod(shape[0:-2])
    eye = linalg_ops.eye(order, dtype=sqrtm.dtype)
    eye_batch = array_ops.reshape(array_ops.tile(array_ops.reshape(eye, [-1]), [matrix_count]), shape)
    ksum = math_ops.add(_kronecker(eye_batch, linalg_ops.matrix_transpose(sqrtm)), _kronecker(sqrtm, eye_batch))
    shape_slice = array_ops.slice(shape, [0], [math_ops.subtract(array_ops.size(shape), 2)])
    shape_vec_da = array_ops.concat([shape_slice, [order * order], [1]], 0)
    vec_da = array_ops.reshape(linalg_ops.matrix_transpose(grad), shape_vec_da)
    vec_dsqrtm = linalg_solve_ops.matrix_solve(ksum, vec_da)
    return linalg_ops.matrix_transpose(array_ops.reshape(vec_dsqrtm, shape))
