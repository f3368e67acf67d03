"""TF1 linear-algebra functions: ``tf.qr`` / ``tf.linalg.qr``,
``tf.matrix_triangular_solve`` / ``tf.linalg.triangular_solve``,
``tf.matrix_band_part`` / ``tf.linalg.band_part``, ``tf.matrix_transpose`` /
``tf.linalg.matrix_transpose``, ``tf.linalg.adjoint``, ``tf.matrix_inverse`` /
``tf.linalg.inv``, ``tf.cholesky`` / ``tf.linalg.cholesky``, ``tf.self_adjoint_eig`` /
``tf.linalg.eigh`` (and ``eigvals``), ``tf.diag`` /
``tf.diag_part`` (``tf.linalg.tensor_diag[_part]``) and ``tf.linalg.svd`` /
``tf.svd``."""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor import Tensor
from ref.graph_ops import array_ops, math_ops
from ref.types import dtypes
from ref.graph_ops.math_ops import range as tf_range


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """(q, r) with input = q @ r, q orthonormal columns, r upper triangular."""
    return apply_op("Qr", input=input, full_matrices=bool(full_matrices), name=name or "Qr")


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves matrix @ x = rhs (or adjoint(matrix) @ x = rhs) for triangular ``matrix``."""
    with name_scope(name, "triangular_solve", [matrix, rhs]):
        return apply_op("MatrixTriangularSolve", matrix=matrix, rhs=rhs, lower=bool(lower), adjoint=bool(adjoint))


triangular_solve = matrix_triangular_solve


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002 - TF's name
    """The inverse of each innermost square matrix (of its adjoint when ``adjoint``)."""
    return apply_op("MatrixInverse", input=input, adjoint=bool(adjoint), name=name or "MatrixInverse")


inv = matrix_inverse


def cholesky(input, name=None):  # noqa: A002 - TF's name
    """The lower-triangular Cholesky factor of each innermost Hermitian positive definite matrix."""
    return apply_op("Cholesky", input=input, name=name or "Cholesky")


def self_adjoint_eig(tensor, name=None):
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors of each self-adjoint matrix."""
    e, v = apply_op("SelfAdjointEigV2", input=tensor, compute_v=True, name=name or "SelfAdjointEigV2")
    return e, v


eigh = self_adjoint_eig


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of each self-adjoint matrix."""
    e, _ = apply_op("SelfAdjointEigV2", input=tensor, compute_v=False, name=name or "SelfAdjointEigV2")
    return e


eigvalsh = self_adjoint_eigvals


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's name
    """Zeroes everything outside a central band of each innermost matrix."""
    return apply_op("MatrixBandPart", input=input, num_lower=num_lower, num_upper=num_upper,
                    name=name or "MatrixBandPart")


band_part = matrix_band_part


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``a`` with its last two dimensions swapped (conjugated when ``conjugate``)."""
    with name_scope(name, "matrix_transpose", [a]):
        a = convert_to_tensor(a, name="a")
        n = a.shape.ndims
        if n is not None:
            if n < 2:
                raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {a.shape}")
            perm = np.array(list(range(n - 2)) + [n - 1, n - 2], np.int32)
        else:
            r = array_ops.rank(a)
            perm = array_ops.concat([tf_range(r - 2), [r - 1, r - 2]], 0)
        return array_ops.transpose(a, perm=perm, conjugate=conjugate)


transpose = matrix_transpose


def adjoint(matrix, name=None):
    """The conjugate transpose of the innermost matrices."""
    with name_scope(name, "adjoint", [matrix]):
        return matrix_transpose(convert_to_tensor(matrix, name="matrix"), conjugate=True)


def einsum(equation, *inputs, **kwargs):
    """Tensor contraction written with index labels (``tf.einsum``): e.g.
    ``einsum("ij,jk->ik", a, b)`` is a matmul, ``"bij,bjk->bik"`` a batched
    one, ``"ij->ji"`` a transpose, ``"i,i->"`` a dot product; labels missing
    from the output are summed over; ``...`` stands for broadcast dimensions
    (the ``Einsum`` op)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}")
    with name_scope(name, "einsum", list(inputs)) as scope:
        inputs = [convert_to_tensor(x, name=f"input_{i}") for i, x in enumerate(inputs)]
        equation = equation.replace(" ", "")
        if "->" not in equation:  # implicit output: the labels seen once, sorted, after the ellipsis
            labels = [c for c in equation if c.isalpha()]
            once = sorted(c for c in set(labels) if labels.count(c) == 1)
            equation += "->" + ("..." if "..." in equation else "") + "".join(once)
        out = [c for c in equation.partition("->")[2] if c.isalpha()]
        if len(set(out)) != len(out):  # TF's builder refuses what its op allows (the diagonal, "i->ii")
            raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
        return apply_op("Einsum", inputs=inputs, equation=equation, name="Einsum")  # TF: einsum/Einsum


def diag(diagonal, name=None):
    """The tensor with ``diagonal`` on its diagonal: ``output[i, j, ..., i, j, ...] =
    diagonal[i, j, ...]``, shape ``D + D`` (``Diag``; ``tf.linalg.tensor_diag``)."""
    return apply_op("Diag", diagonal=diagonal, name=name or "Diag")


def diag_part(input, name=None):  # noqa: A002 - TF's name
    """The diagonal of a rank-2k tensor of shape ``D + D`` (``DiagPart``;
    ``tf.linalg.tensor_diag_part``)."""
    return apply_op("DiagPart", input=input, name=name or "DiagPart")


tensor_diag, tensor_diag_part = diag, diag_part


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values ``s`` (descending) of the innermost matrices, and with
    ``compute_uv`` the ``(s, u, v)`` of ``tensor = u @ diag(s) @ adjoint(v)``
    (``Svd``)."""
    s, u, v = apply_op("Svd", input=tensor, compute_uv=bool(compute_uv), full_matrices=bool(full_matrices),
                       name=name or "Svd")
    if s.dtype.is_complex:
        s = apply_op("Real", input=s, Tout=s.dtype.real_dtype, name="Real")
    return (s, u, v) if compute_uv else s


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched matrices with ``diagonal`` on the diagonal band ``k`` (one
    diagonal or ``[lower, upper]``), ``padding_value`` elsewhere; ``num_rows``
    / ``num_cols`` of -1 are the smallest that fit (``tf.linalg.diag`` /
    ``tf.matrix_diag``; ``MatrixDiagV3``)."""
    if getattr(diagonal, "dtype", None) is not None and diagonal.dtype == dtypes.bool:
        padding_value = bool(padding_value)
    return apply_op("MatrixDiagV3", diagonal=diagonal, k=k, num_rows=num_rows, num_cols=num_cols,
                    padding_value=padding_value, align=align, name=name)


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """The diagonal band ``k`` of the innermost matrices (``tf.linalg.diag_part``
    / ``tf.matrix_diag_part``; ``MatrixDiagPartV3``)."""
    if getattr(input, "dtype", None) is not None and input.dtype == dtypes.bool:
        padding_value = bool(padding_value)
    return apply_op("MatrixDiagPartV3", input=input, k=k, padding_value=padding_value, align=align, name=name)


def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """``input`` with its diagonal band ``k`` replaced by ``diagonal``
    (``tf.linalg.set_diag`` / ``tf.matrix_set_diag``; ``MatrixSetDiagV3``)."""
    return apply_op("MatrixSetDiagV3", input=input, diagonal=diagonal, k=k, align=align, name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrices ``[*batch_shape, num_rows, num_columns]`` (``tf.eye``:
    ones on the diagonal of ``matrix_diag``, or set into zeros when not square)."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size = math_ops.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, (int, np.integer)) or not isinstance(num_columns, (int, np.integer)):
                raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. "
                                f"Received: num_rows={num_rows}, num_columns={num_columns}")
            is_square = num_rows == num_columns
            diag_size = np.minimum(num_rows, num_columns)
        if isinstance(batch_shape, Tensor) or isinstance(diag_size, Tensor):
            batch_shape = convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape = array_ops.concat((batch_shape, [diag_size]), axis=0)
            if not is_square:
                shape = array_ops.concat((batch_shape, [num_rows, num_columns]), axis=0)
        else:
            batch_shape = list(batch_shape)
            diag_shape = batch_shape + [diag_size]
            if not is_square:
                shape = batch_shape + [num_rows, num_columns]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(array_ops.zeros(shape, dtype=dtype), diag_ones)
