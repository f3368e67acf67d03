"""``tf.linalg`` builders over LU, pseudo-inverses, least squares and
tridiagonal systems, building TF's nodes (its linalg_impl.py / linalg_ops.py):

* ``lu`` (``Lu``); ``lu_solve``, ``lu_matrix_inverse``, ``lu_reconstruct`` from
  the packed factors: permute the right-hand side by ``perm``, then a unit-lower
  and an upper triangular solve; ``L @ U`` with its rows put back by
  ``invert_permutation(perm)``.
* ``pinv(a) = V diag(1/s) U^H`` with singular values ``s <= rcond * max(s)``
  dropped (``rcond = 10 * max(m, n) * eps`` unless given).
* ``matrix_rank(a)``: the number of singular values above
  ``tol = eps * max(m, n) * max(s)`` unless given.
* ``lstsq`` / ``matrix_solve_ls``: with ``fast`` and a small matrix, the
  regularized normal equations by Cholesky as graph ops; otherwise the
  ``MatrixSolveLs`` op.
* ``tridiagonal_solve`` / ``tridiagonal_matmul`` in TF's three formats
  (``compact``, ``sequence``, ``matrix``).
* ``normalize(t) = (t / norm(t), norm(t))``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import dimension_value
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor import Tensor
from ref.graph_ops import array_ops, control_flow_ops, functional_ops, linalg_ops, linalg_solve_ops, math_ops
from ref.graph_ops.math_extras import norm as _norm

__all__ = ["lu", "lu_solve", "lu_matrix_inverse", "lu_reconstruct", "pinv", "matrix_rank", "lstsq",
           "matrix_solve_ls", "tridiagonal_solve", "tridiagonal_matmul", "normalize"]


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """``(lu, p)``: the packed LU factors of each square matrix and the row
    order ``p`` with ``(L @ U)[i] = input[p[i]]`` (``Lu``)."""
    return apply_op("Lu", input=input, output_idx_type=output_idx_type, name=name)


def _unit_lower(lower_upper, shape=None):
    """L with ones on its diagonal (the shape is read after the band when not given, as TF's lu_solve)."""
    band = linalg_ops.matrix_band_part(lower_upper, num_lower=-1, num_upper=0)
    shape = array_ops.shape(lower_upper) if shape is None else shape
    return linalg_ops.matrix_set_diag(band, array_ops.ones(shape[:-1], dtype=lower_upper.dtype))


def _lu_inputs(lower_upper, perm):
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32, name="lower_upper")
    perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm")
    return lower_upper, perm


def _check_lu(lower_upper, perm, rhs=None):
    """TF's static checks of the packed factors (the run-time asserts of
    ``validate_args`` are not built)."""
    s = lower_upper.shape
    if s.ndims is not None and s.ndims < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if s.ndims is not None and s[-1].value is not None and s[-2].value is not None and s[-1].value != s[-2].value:
        raise ValueError("Input `lower_upper` must be square.")
    if perm.shape.ndims is not None and s.ndims is not None and perm.shape.ndims + 1 != s.ndims:
        raise ValueError("Input `perm` must have exactly 1 less dimension than `lower_upper`.")
    if rhs is not None and rhs.shape.ndims is not None and rhs.shape.ndims < 2:
        raise ValueError("Input `rhs` must have at least 2 dimensions.")


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with ``A X = rhs`` from ``lu(A)``: ``L y = P rhs``, then ``U X = y``."""
    with name_scope(name or "lu_solve"):
        lower_upper, perm = _lu_inputs(lower_upper, perm)
        rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype, name="rhs")
        _check_lu(lower_upper, perm, rhs)
        if rhs.shape.ndims == 2 and perm.shape.ndims == 1:
            permuted_rhs = array_ops.gather(rhs, perm, axis=-2)
        else:
            rhs_shape = array_ops.shape(rhs)
            batch = array_ops.broadcast_dynamic_shape(rhs_shape[:-2], array_ops.shape(perm)[:-1])
            d, m = rhs_shape[-2], rhs_shape[-1]
            full = array_ops.concat([batch, [d, m]], axis=0)
            flat_rhs = array_ops.reshape(array_ops.broadcast_to(rhs, full), [-1, d, m])
            flat_perm = array_ops.reshape(array_ops.broadcast_to(perm, full[:-1]), [-1, d])
            size = math_ops.reduce_prod(batch)
            rows = array_ops.broadcast_to(math_ops.range(size)[:, None], [size, d])
            indices = array_ops.stack([rows, flat_perm], axis=-1)
            permuted_rhs = array_ops.reshape(array_ops.gather_nd(flat_rhs, indices), full)
        lower = _unit_lower(lower_upper)
        return linalg_ops.matrix_triangular_solve(
            lower_upper, linalg_ops.matrix_triangular_solve(lower, permuted_rhs), lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of ``A`` from ``lu(A)``: ``lu_solve`` against the identity."""
    with name_scope(name or "lu_matrix_inverse"):
        lower_upper, perm = _lu_inputs(lower_upper, perm)
        _check_lu(lower_upper, perm)
        shape = array_ops.shape(lower_upper)
        return lu_solve(lower_upper, perm, rhs=linalg_ops.eye(shape[-1], batch_shape=shape[:-2],
                                                              dtype=lower_upper.dtype), validate_args=False)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """``A`` from ``lu(A)``: ``L @ U`` with the rows put back by
    ``invert_permutation(perm)``."""
    with name_scope(name or "lu_reconstruct"):
        lower_upper, perm = _lu_inputs(lower_upper, perm)
        _check_lu(lower_upper, perm)
        shape = array_ops.shape(lower_upper)
        lower = _unit_lower(lower_upper, shape)
        upper = linalg_ops.matrix_band_part(lower_upper, num_lower=0, num_upper=-1)
        x = math_ops.matmul(lower, upper)
        if lower_upper.shape.ndims != 2:
            size = math_ops.reduce_prod(shape[:-2])
            d = shape[-1]
            x = array_ops.reshape(x, [size, d, d])
            perm = array_ops.reshape(perm, [size, d])
            perm = functional_ops.map_fn(array_ops.invert_permutation, perm)
            rows = array_ops.broadcast_to(math_ops.range(size)[:, None], [size, d])
            x = array_ops.gather_nd(x, array_ops.stack([rows, perm], axis=-1))
            x = array_ops.reshape(x, shape)
        else:
            x = array_ops.gather(x, array_ops.invert_permutation(perm))
        x.set_shape(lower_upper.shape)
        return x


def _check_floating_matrix(a):
    if not a.dtype.is_floating:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.ndims is not None and a.shape.ndims < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.ndims}).")


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values of each matrix above ``tol`` (default
    ``eps * max(rows, cols) * max(s)``)."""
    with name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, dtype_hint=dtypes.float32, name="a")
        _check_floating_matrix(a)
        s = linalg_ops.svd(a, compute_uv=False)
        if tol is None:
            if a.shape[-2:].is_fully_defined():
                m = np.max(a.shape[-2:].as_list())
            else:
                m = math_ops.reduce_max(array_ops.shape(a)[-2:])
            eps = np.finfo(a.dtype.as_numpy_dtype).eps
            tol = eps * math_ops.cast(m, a.dtype) * math_ops.reduce_max(s, axis=-1, keepdims=True)
        return math_ops.reduce_sum(math_ops.cast(s > tol, dtypes.int32), axis=-1)


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD, singular
    values at or below ``rcond * max(s)`` treated as zero."""
    with name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        _check_floating_matrix(a)
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            def dim(i):
                v = dimension_value(a.shape[i])
                return v if v is not None else array_ops.shape(a)[i]
            rows, cols = dim(-2), dim(-1)
            if isinstance(rows, int) and isinstance(cols, int):
                biggest = float(max(rows, cols))
            else:
                biggest = math_ops.cast(math_ops.maximum(rows, cols), dtype)
            rcond = 10. * biggest * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=dtype, name="rcond")
        s, u, v = linalg_ops.svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * math_ops.reduce_max(s, axis=-1)
        s = array_ops.where_v2(s > array_ops.expand_dims(cutoff, -1), s, np.array(np.inf, dtype))
        out = math_ops.matmul(v / array_ops.expand_dims(s, -2), u, adjoint_b=True)
        if a.shape.ndims is not None:
            out.set_shape(a.shape[:-2].concatenate([a.shape[-1], a.shape[-2]]))
        return out


def regularized_gramian_cholesky(matrix, l2_regularizer, first_kind):
    """cholesky(A^H A + l2 I) (first kind) or cholesky(A A^H + l2 I)."""
    gramian = math_ops.matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        shape = array_ops.shape(matrix)
        batch = shape[:-2]
        small = shape[-1] if first_kind else shape[-2]
        identity = linalg_ops.eye(small, batch_shape=batch, dtype=matrix.dtype)
        static = matrix.shape[-1 if first_kind else -2]
        identity.set_shape(matrix.shape[:-2].concatenate([static, static]))
        gramian += l2_regularizer * identity
    return apply_op("Cholesky", input=gramian)


def _use_composite(fast, matrix):
    """TF's choice: the graph of Cholesky solves unless ``fast`` is off or the
    batch is large and I/O bound (then the fused ``MatrixSolveLs``)."""
    if fast is False:
        return False
    shape = matrix.shape
    if not shape.is_fully_defined():
        return True
    size = shape.num_elements() * matrix.dtype.size
    io_bound = shape[:-2].num_elements() > np.min(shape[-2:].as_list())
    return not (size > 256000 and io_bound)


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """X minimizing ``|matrix X - rhs|^2 + l2_regularizer |X|^2`` per matrix."""
    matrix = convert_to_tensor(matrix, name="matrix")
    if matrix.dtype == dtypes.complex128 and l2_regularizer != 0:
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 "
                                  "due to poor accuracy.")
    if not _use_composite(fast, matrix):
        return apply_op("MatrixSolveLs", matrix=matrix, rhs=rhs, l2_regularizer=l2_regularizer, fast=fast,
                        name=name)

    def over():
        chol = regularized_gramian_cholesky(matrix, l2_regularizer, True)
        return linalg_solve_ops.cholesky_solve(chol, math_ops.matmul(matrix, rhs, adjoint_a=True))

    def under():
        chol = regularized_gramian_cholesky(matrix, l2_regularizer, False)
        return math_ops.matmul(matrix, linalg_solve_ops.cholesky_solve(chol, rhs), adjoint_a=True)

    with name_scope(name, "matrix_solve_ls", [matrix, rhs, l2_regularizer]):
        shape = matrix.shape[-2:]
        if shape.is_fully_defined():
            return over() if shape[-2].value >= shape[-1].value else under()
        dyn = array_ops.shape(matrix)[-2:]
        return control_flow_ops.cond(dyn[-2] >= dyn[-1], over, under)


lstsq = matrix_solve_ls


def _compact(diagonals, rhs, transpose_rhs, conjugate_rhs, partial_pivoting, perturb_singular, name):
    diags_rank, rhs_rank = diagonals.shape.ndims, rhs.shape.ndims
    if diags_rank:
        if diags_rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
        if rhs_rank and rhs_rank != diags_rank and rhs_rank != diags_rank - 1:
            raise ValueError(f"Expected the rank of rhs to be {diags_rank - 1} or {diags_rank}, got {rhs_rank}")
        if rhs_rank and not diagonals.shape[:-2].is_compatible_with(rhs.shape[:diags_rank - 2]):
            raise ValueError(f"Batch shapes {diagonals.shape[:-2]} and {rhs.shape[:diags_rank - 2]} are "
                             "incompatible")
    if diags_rank and diagonals.shape[-2].value and diagonals.shape[-2].value != 3:
        raise ValueError(f"Expected 3 diagonals got {diagonals.shape[-2].value}")

    def check_lhs_rhs():
        n, r = diagonals.shape[-1].value, rhs.shape[-2].value
        if n and r and n != r:
            raise ValueError(f"Expected number of left-hand sided and right-hand sides to be equal, got {n} and {r}")

    def solve(b):
        return apply_op("TridiagonalSolve", diagonals=diagonals, rhs=b, partial_pivoting=partial_pivoting,
                        perturb_singular=perturb_singular, name=name)

    if rhs_rank and diags_rank and rhs_rank == diags_rank - 1:
        if conjugate_rhs:
            rhs = math_ops.conj(rhs)
        rhs = array_ops.expand_dims(rhs, -1)
        check_lhs_rhs()
        return array_ops.squeeze(solve(rhs), -1)
    if transpose_rhs:
        rhs = linalg_ops.matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = math_ops.conj(rhs)
    check_lhs_rhs()
    return solve(rhs)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """X with ``T X = rhs`` for tridiagonal ``T`` given as ``[..., 3, M]``
    (``compact``: super, main, sub), a ``(super, main, sub)`` sequence, or the
    full ``[..., M, M]`` matrix (``TridiagonalSolve``)."""
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    args = (transpose_rhs, conjugate_rhs, partial_pivoting, perturb_singular, name)
    if diagonals_format == "compact":
        return _compact(convert_to_tensor(diagonals), convert_to_tensor(rhs), *args)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
        if (not subdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1])
                or not superdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1])):
            raise ValueError("Tensors representing the three diagonals must have the same shape,except for the "
                             f"last dimension, got {subdiag.shape}, {maindiag.shape}, {superdiag.shape}")
        m = dimension_value(maindiag.shape[-1])

        def pad_if_necessary(t, what, last_dim_padding):
            n = dimension_value(t.shape[-1])
            if not n or n == m:
                return t
            if n == m - 1:
                return array_ops.pad(t, [[0, 0] for _ in range(t.shape.ndims - 1)] + [last_dim_padding])
            raise ValueError(f"Expected {what} to be have length {m} or {m - 1}, got {n}.")

        subdiag = pad_if_necessary(subdiag, "subdiagonal", [1, 0])
        superdiag = pad_if_necessary(superdiag, "superdiagonal", [0, 1])
        diagonals = array_ops.stack((superdiag, maindiag, subdiag), axis=-2)
        return _compact(diagonals, convert_to_tensor(rhs), *args)
    if diagonals_format == "matrix":
        diagonals = convert_to_tensor(diagonals)
        m1, m2 = dimension_value(diagonals.shape[-1]), dimension_value(diagonals.shape[-2])
        if m1 and m2 and m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}")
        diagonals = linalg_ops.matrix_diag_part(diagonals, k=(-1, 1), padding_value=0., align="LEFT_RIGHT")
        return _compact(diagonals, convert_to_tensor(rhs), *args)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``T @ rhs`` for tridiagonal ``T`` in any of ``tridiagonal_solve``'s
    formats (``TridiagonalMatMul``)."""
    if diagonals_format == "compact":  # a NumPy array is sliced in NumPy, as in TF
        superdiag, maindiag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    elif diagonals_format == "sequence":
        superdiag, maindiag, subdiag = diagonals
    elif diagonals_format == "matrix":
        m1, m2 = dimension_value(diagonals.shape[-1]), dimension_value(diagonals.shape[-2])
        if m1 and m2 and m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}")
        diags = linalg_ops.matrix_diag_part(diagonals, k=(-1, 1), padding_value=0., align="LEFT_RIGHT")
        superdiag, maindiag, subdiag = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    superdiag = array_ops.expand_dims(superdiag, -2)
    maindiag = array_ops.expand_dims(maindiag, -2)
    subdiag = array_ops.expand_dims(subdiag, -2)
    return apply_op("TridiagonalMatMul", superdiag=superdiag, maindiag=maindiag, subdiag=subdiag, rhs=rhs, name=name)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """``(tensor / norm, norm)`` with the norm kept over ``axis``."""
    with name_scope(name, "normalize", [tensor]):
        tensor = convert_to_tensor(tensor)
        n = math_ops.cast(_norm(tensor, ord, axis, keepdims=True), tensor.dtype)
        return tensor / n, n
