"""``tf.linalg.det``/``slogdet``/``logdet``/``solve``/``cholesky_solve``/``matvec``/
``cross`` (and their TF1 top-level names ``tf.matrix_determinant``,
``tf.matrix_solve``, ``tf.cholesky_solve``, ``tf.cross``), building TF's nodes:
the raw ops under their op names, ``logdet`` as ``2 * sum(log(diag(cholesky(A))))``,
``cholesky_solve`` as two triangular solves, ``matvec`` as a matmul with the
vector made a column."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op
from ref.graph_ops import array_ops, complex_ops, linalg_ops, math_ops

__all__ = ["det", "slogdet", "logdet", "solve", "cholesky_solve", "matvec", "cross", "matrix_determinant",
           "matrix_solve"]


def matrix_determinant(input, name=None):  # noqa: A002 - TF's name
    """The determinant of each innermost square matrix (``MatrixDeterminant``)."""
    return apply_op("MatrixDeterminant", input=input, name=name)


det = matrix_determinant


def slogdet(input, name=None):  # noqa: A002 - TF's name
    """(sign, log|det|) of each innermost square matrix (``LogMatrixDeterminant``)."""
    return apply_op("LogMatrixDeterminant", input=input, name=name)


def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, from their
    Cholesky factor: ``2 * sum(log(real(diag(L))))``."""
    with name_scope(name, "logdet", [matrix]):
        chol = apply_op("Cholesky", input=matrix)
        return 2.0 * math_ops.reduce_sum(
            math_ops.log(complex_ops.real(linalg_ops.matrix_diag_part(chol))), axis=[-1])


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """X with ``matrix @ X = rhs`` (``adjoint(matrix) @ X = rhs`` with ``adjoint``) (``MatrixSolve``)."""
    return apply_op("MatrixSolve", matrix=matrix, rhs=rhs, adjoint=adjoint, name=name)


solve = matrix_solve


def cholesky_solve(chol, rhs, name=None):
    """X with ``A @ X = rhs`` given ``chol = cholesky(A)``: ``L y = rhs``, then ``L^H X = y``."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        y = apply_op("MatrixTriangularSolve", matrix=chol, rhs=rhs, adjoint=False, lower=True)
        return apply_op("MatrixTriangularSolve", matrix=chol, rhs=y, adjoint=True, lower=True)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """``a @ b`` for matrices ``a`` and vectors ``b`` (batched)."""
    with name_scope(name, "MatVec", [a, b]):
        output = math_ops.matmul(a, array_ops.expand_dims(b, axis=-1), transpose_a=transpose_a,
                                 adjoint_a=adjoint_a, a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)
        return array_ops.squeeze(output, axis=-1)


def cross(a, b, name=None):
    """The cross product of the innermost 3-vectors of ``a`` and ``b`` (``Cross``)."""
    return apply_op("Cross", a=a, b=b, name=name)
