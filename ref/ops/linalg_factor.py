"""LU factorization, least squares and tridiagonal systems: ``Lu``,
``MatrixSolveLs``, ``TridiagonalSolve`` and ``TridiagonalMatMul``, over the
innermost matrices of their inputs (TF's CPU kernels in
tensorflow/core/kernels/linalg).

* ``Lu(A) = (LU, p)``: partial pivoting (Eigen's ``PartialPivLU``: at step k
  the row of largest ``|A_ik|``, i >= k, the first on ties, becomes row k),
  ``L`` unit lower and ``U`` upper packed into one matrix, and ``p`` with
  ``(L @ U)[i] = A[p[i]]``. A zero pivot is TF's "Input is not invertible."
* ``MatrixSolveLs(A, B, l2)``: with ``fast``, the regularized normal
  equations by Cholesky, ``X = (A^H A + l2 I)^-1 A^H B`` for m >= n and
  ``X = A^H (A A^H + l2 I)^-1 B`` for m < n; otherwise the minimum-norm
  least-squares solution (Eigen's complete orthogonal decomposition; here
  through the SVD, the same solution).
* ``TridiagonalSolve(diagonals, rhs)``: ``diagonals[..., 0, :]`` the
  superdiagonal (last element unused), ``[..., 1, :]`` the diagonal,
  ``[..., 2, :]`` the subdiagonal (first unused). With ``partial_pivoting``
  Gaussian elimination with row interchanges (LAPACK's ``gtsv``), without it
  the Thomas algorithm; a zero pivot gives NaN everywhere (TF logs a warning).
  With ``perturb_singular`` tiny pivots are nudged by ``eps * max|U|`` as
  LAPACK's ``lagts``.
* ``TridiagonalMatMul(superdiag, maindiag, subdiag, rhs)``:
  ``y_i = sub_i x_{i-1} + main_i x_i + super_i x_{i+1}``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_T = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
_T_LS = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
_T_TRI = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _work(a):
    """float16 is computed in float32, as Eigen promotes half."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _rank_error(ins_shapes, attrs, op, rank):
    raise ValueError(f"Shape must be at least rank {rank} but is rank {ins_shapes[0].ndims} for "
                     f"'{attrs['_op_name']}' (op: '{op}') with input shapes: "
                     f"{', '.join(str(s) for s in ins_shapes)}.")


# --------------------------------------------------------------------------- Lu

def _lu_shape(ins, attrs):
    s, d = ins["input"].shape, ins["input"].dtype
    idx = attrs.get("output_idx_type", dtypes.int32)
    if s.ndims is None:
        return [(d, unknown_shape()), (idx, unknown_shape())]
    dims = s.as_list()
    if len(dims) < 2:
        _rank_error([s], attrs, "Lu", 2)
    if dims[-1] is not None and dims[-2] is not None and dims[-1] != dims[-2]:
        raise ValueError(f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]} for "
                         f"'{attrs['_op_name']}' (op: 'Lu') with input shapes: {s}.")
    n = dims[-1] if dims[-1] is not None else dims[-2]
    return [(d, TensorShape(dims[:-2] + [n, n])), (idx, TensorShape(dims[:-2] + [n]))]


def _lu1(a):
    """Packed LU and the row order of one square matrix (partial pivoting)."""
    a = a.copy()
    n = a.shape[0]
    perm = np.arange(n)
    for k in range(n):
        piv = k + int(np.argmax(np.abs(a[k:, k])))
        if piv != k:
            a[[k, piv]] = a[[piv, k]]
            perm[[k, piv]] = perm[[piv, k]]
        if a[k, k] != 0:
            a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a, perm


@register_op("Lu", inputs=("input",), outputs=("lu", "p"), attrs={"output_idx_type": dtypes.int32},
             type_attrs={"T": "input"}, allowed={"T": _T, "output_idx_type": (dtypes.int32, dtypes.int64)},
             shape=_lu_shape)
def lu(input, output_idx_type=dtypes.int32):  # noqa: A002 - TF's name
    """``P input = L U``: ``lu`` packs unit-lower ``L`` (below the diagonal) and
    ``U``; ``p[i]`` is the input row that became row ``i``."""
    a = np.asarray(input)
    if a.ndim < 2:
        raise invalid_argument(f"Input tensor must have rank >= 2, got {a.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise invalid_argument("Input matrix must be square.")
    n = a.shape[-1]
    out = np.empty(a.shape, a.dtype)
    perm = np.empty(a.shape[:-1], dtypes.as_dtype(output_idx_type).as_numpy_dtype)
    if n == 0:
        return out, perm
    w = _work(a).reshape((-1, n, n))
    flat_out, flat_perm = out.reshape((-1, n, n)), perm.reshape((-1, n))
    for b in range(w.shape[0]):
        packed, p = _lu1(w[b])
        flat_out[b], flat_perm[b] = packed, p
        if np.min(np.abs(np.diagonal(packed))) <= 0:
            raise invalid_argument("Input is not invertible.")
    return out, perm


# ---------------------------------------------------------------- MatrixSolveLs

def _solve_ls_shape(ins, attrs):
    m, r, d = ins["matrix"].shape, ins["rhs"].shape, ins["matrix"].dtype
    if ins["l2_regularizer"].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ins['l2_regularizer'].shape.ndims} for "
                         f"'{attrs['_op_name']}' (op: 'MatrixSolveLs') with input shapes: {m}, {r}, "
                         f"{ins['l2_regularizer'].shape}.")
    if m.ndims is None or r.ndims is None:
        return [(d, unknown_shape())]
    if m.ndims < 2 or r.ndims < 2:
        _rank_error([m, r, ins["l2_regularizer"].shape], attrs, "MatrixSolveLs", 2)
    md, rd = m.as_list(), r.as_list()
    if md[-2] is not None and rd[-2] is not None and md[-2] != rd[-2]:
        raise ValueError(f"Dimensions must be equal, but are {md[-2]} and {rd[-2]} for '{attrs['_op_name']}' "
                         f"(op: 'MatrixSolveLs') with input shapes: {m}, {r}, [].")
    batch = m[:-2].merge_with(r[:-2]).as_list() if len(md) == len(rd) else md[:-2]
    return [(d, TensorShape(batch + [md[-1], rd[-1]]))]


def _cholesky_solve_normal(g, b):
    """Solves ``g x = b`` for Hermitian positive definite ``g``; None when not."""
    try:
        chol = np.linalg.cholesky(g)
    except np.linalg.LinAlgError:
        return None
    y = np.linalg.solve(chol, b)
    return np.linalg.solve(np.conj(chol.T), y)


@register_op("MatrixSolveLs", inputs=("matrix", "rhs", "l2_regularizer"), attrs={"fast": True},
             type_attrs={"T": ("matrix", "rhs")}, allowed={"T": _T_LS},
             input_types={"l2_regularizer": dtypes.float64}, shape=_solve_ls_shape)
def matrix_solve_ls(matrix, rhs, l2_regularizer, fast=True):
    """``output = argmin_X |matrix X - rhs|^2 + l2 |X|^2`` per batch matrix."""
    a, b, l2 = np.asarray(matrix), np.asarray(rhs), np.asarray(l2_regularizer)
    if l2.ndim != 0:
        raise invalid_argument(f"l2_regularizer must be scalar, got shape {list(l2.shape)}")
    l2 = float(l2)
    if l2 < 0:
        raise invalid_argument("l2_regularizer must be >= 0.")
    if a.ndim < 2 or b.ndim != a.ndim or a.shape[:-2] != b.shape[:-2] or a.shape[-2] != b.shape[-2]:
        raise invalid_argument(f"Input matrix and right-hand side must have the same batch shape and rows: "
                               f"{list(a.shape)} vs. {list(b.shape)}")
    rows, cols, k = a.shape[-2], a.shape[-1], b.shape[-1]
    out = np.zeros(a.shape[:-2] + (cols, k), a.dtype)
    if rows == 0 or cols == 0 or k == 0:
        return out
    wa, wb = _work(a).reshape((-1, rows, cols)), _work(b).reshape((-1, rows, k))
    flat = out.reshape((-1, cols, k))
    for i in range(wa.shape[0]):
        x, xh = wa[i], np.conj(wa[i].T)
        if fast:
            if rows >= cols:
                sol = _cholesky_solve_normal(xh @ x + l2 * np.eye(cols, dtype=x.dtype), xh @ wb[i])
            else:
                sol = _cholesky_solve_normal(x @ xh + l2 * np.eye(rows, dtype=x.dtype), wb[i])
                sol = None if sol is None else xh @ sol
            if sol is None or not np.all(np.isfinite(sol)):
                extra = "a larger l2_regularizer > 0" if rows >= cols else "an l2_regularizer > 0"
                raise invalid_argument("Input matrix was rank deficient or ill-conditioned. Try setting "
                                       f"fast=False or provide {extra}.")
        else:
            sol = np.linalg.pinv(x) @ wb[i]
        flat[i] = sol
    return out


# ---------------------------------------------------------- tridiagonal systems

def _dims_error(a, b, op, attrs, shapes):
    raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{attrs['_op_name']}' (op: '{op}') "
                     f"with input shapes: {', '.join(str(s) for s in shapes)}.")


def _tridiag_solve_shape(ins, attrs):
    """TF's TridiagonalSolveShapeFn: batch shapes merge, ``M`` of both agree,
    3 diagonals; the output is ``rhs``'s shape."""
    d, r = ins["diagonals"].shape, ins["rhs"].shape
    for s in (d, r):
        if s.ndims is not None and s.ndims < 2:
            _rank_error([d, r], attrs, "TridiagonalSolve", 2)
    if d.ndims is None or r.ndims is None:
        return [(ins["rhs"].dtype, r)]
    dl, rl = d.as_list(), r.as_list()
    if len(dl) != len(rl):
        raise ValueError(f"Shapes must be equal rank, but are {len(dl) - 2} and {len(rl) - 2} for "
                         f"'{attrs['_op_name']}' (op: 'TridiagonalSolve') with input shapes: {d}, {r}.")
    for x, y in zip(dl[:-2] + [dl[-1]], rl[:-2] + [rl[-2]]):
        if x is not None and y is not None and x != y:
            _dims_error(x, y, "TridiagonalSolve", attrs, (d, r))
    if dl[-2] is not None and dl[-2] != 3:
        raise ValueError(f"Dimension must be 3 but is {dl[-2]} for '{attrs['_op_name']}' (op: 'TridiagonalSolve') "
                         f"with input shapes: {d}, {r}.")
    return [(ins["rhs"].dtype, TensorShape([x if x is not None else y for x, y in zip(dl[:-2], rl[:-2])]
                                           + [rl[-2] if rl[-2] is not None else dl[-1], rl[-1]]))]


def _perturb_pivot(perturb, pivot, row, real_dtype):
    """LAPACK xLAGTS's guard: grows a pivot below 1 until neither ``1/pivot``
    nor ``row/pivot`` overflows; returns (pivot, row)."""
    fi = np.finfo(real_dtype)
    tiny, small = fi.tiny, 1.0 / fi.max
    safemin = tiny if small < tiny else (1 + fi.eps) * small
    bignum = 1.0 / safemin
    abs_pivot = abs(pivot)
    if abs_pivot >= 1:
        return pivot, row
    perturb = np.copysign(max(abs(perturb), safemin), np.real(pivot))
    max_factor = np.max(np.abs(row)) if row.size else 0.0
    while abs_pivot < 1:
        if abs_pivot < safemin:
            if abs_pivot == 0 or max_factor * safemin > abs_pivot:
                pivot, perturb = pivot + perturb, perturb * 2
            else:
                return pivot * bignum, row * bignum
        elif max_factor > abs_pivot * bignum:
            pivot, perturb = pivot + perturb, perturb * 2
        else:
            break
        abs_pivot = abs(pivot)
    return pivot, row


def _solve_pivoting(sup, diag, sub, rhs, perturb):
    n = diag.shape[0]
    u = np.zeros((n, 3), diag.dtype)
    x = np.array(rhs)
    u[0, 0], u[0, 1] = diag[0], sup[0]
    if perturb:
        max_abs_u = max(abs(u[0, 0]), abs(u[0, 1]))
        scale1 = abs(u[0, 0]) + abs(u[0, 1])
    for k in range(n - 1):
        u[k + 1, 0] = diag[k + 1]
        if perturb:
            scale2 = abs(sub[k + 1]) + abs(u[k + 1, 0]) + (abs(sup[k + 1]) if k < n - 2 else 0.0)
            if sub[k + 1] == 0:
                swap, skip = False, True
            else:
                piv1 = 0.0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
                swap, skip = abs(sub[k + 1]) / scale2 > piv1, False
            if not swap:
                scale1 = scale2
        else:
            skip, swap = False, abs(u[k, 0]) < abs(sub[k + 1])
            if not swap and u[k, 0] == 0:
                return None
        if skip:
            u[k + 1, 1], u[k, 2] = sup[k + 1], 0
        elif not swap:
            f = sub[k + 1] / u[k, 0]
            u[k + 1, 0] = diag[k + 1] - f * u[k, 1]
            x[k + 1] = rhs[k + 1] - f * x[k]
            if perturb or k != n - 2:
                u[k + 1, 1], u[k, 2] = sup[k + 1], 0
        else:
            f = u[k, 0] / sub[k + 1]
            u[k, 0], u[k + 1, 0], u[k, 1] = sub[k + 1], u[k, 1] - f * diag[k + 1], diag[k + 1]
            x[k + 1], x[k] = x[k] - f * rhs[k + 1], rhs[k + 1]
            if k != n - 2:
                u[k, 2], u[k + 1, 1] = sup[k + 1], -f * sup[k + 1]
        if perturb and k < n - 2:
            max_abs_u = max(max_abs_u, *np.abs(u[k]))
    if not perturb:
        if u[n - 1, 0] == 0:
            return None
        x[n - 1] = x[n - 1] / u[n - 1, 0]
        x[n - 2] = (x[n - 2] - u[n - 2, 1] * x[n - 1]) / u[n - 2, 0]
        for i in range(n - 3, -1, -1):
            x[i] = (x[i] - u[i, 1] * x[i + 1] - u[i, 2] * x[i + 2]) / u[i, 0]
        return x
    real = np.finfo(diag.dtype).dtype
    tol = np.finfo(real).eps * max(max_abs_u, abs(u[n - 1, 0]))
    for k in range(n - 1, -1, -1):
        row = x[k].copy()
        if k + 1 < n:
            row = row - u[k, 1] * x[k + 1]
        if k + 2 < n:
            row = row - u[k, 2] * x[k + 2]
        t = tol if k == n - 1 else np.copysign(tol, np.real(u[k, 0]))
        denom, row = _perturb_pivot(t, u[k, 0], row, real)
        x[k] = row * (1 / denom)
    return x


def _solve_thomas(sup, diag, sub, rhs):
    n = diag.shape[0]
    if diag[0] == 0:
        return None
    u = np.zeros(n, diag.dtype)
    x = np.array(rhs)
    u[0], x[0] = sup[0] / diag[0], rhs[0] / diag[0]
    for i in range(1, n):
        denom = diag[i] - sub[i] * u[i - 1]
        if denom == 0:
            return None
        u[i], x[i] = sup[i] / denom, (rhs[i] - sub[i] * x[i - 1]) / denom
    for i in range(n - 2, -1, -1):
        x[i] -= u[i] * x[i + 1]
    return x


@register_op("TridiagonalSolve", inputs=("diagonals", "rhs"),
             attrs={"partial_pivoting": True, "perturb_singular": False},
             type_attrs={"T": ("diagonals", "rhs")}, allowed={"T": _T_TRI}, shape=_tridiag_solve_shape)
def tridiagonal_solve(diagonals, rhs, partial_pivoting=True, perturb_singular=False):
    """X with ``T X = rhs`` for the tridiagonal ``T`` that ``diagonals`` packs."""
    d, b = np.asarray(diagonals), np.asarray(rhs)
    if not partial_pivoting and perturb_singular:
        raise invalid_argument("Setting perturb_singular requires also setting partial_pivoting.")
    if d.ndim < 2 or b.ndim < 2:
        raise invalid_argument(f"Input must have rank >= 2, but got {min(d.ndim, b.ndim)}")
    if d.shape[-2] != 3:
        raise invalid_argument(f"Expected diagonals to be provided as a matrix with 3 rows, got "
                               f"{d.shape[-2]} rows.")
    if d.shape[-1] != b.shape[-2]:
        raise invalid_argument(f"Expected the same number of left-hand sides and right-hand sides, got "
                               f"{d.shape[-1]} and {b.shape[-2]}.")
    if d.shape[:-2] != b.shape[:-2]:
        raise invalid_argument(f"Input matrices must have the same batch shape: {list(d.shape)} vs. "
                               f"{list(b.shape)}")
    n, k = b.shape[-2], b.shape[-1]
    out = np.zeros(b.shape, b.dtype)
    if n == 0:
        return out
    fd, fb, fo = d.reshape((-1, 3, n)), b.reshape((-1, n, k)), out.reshape((-1, n, k))
    for i in range(fd.shape[0]):
        sup, diag, sub = fd[i]
        if n == 1 and not perturb_singular:
            x = None if diag[0] == 0 else fb[i] / diag[0]
        elif n == 1:
            real = np.finfo(diag.dtype).dtype
            denom, row = _perturb_pivot(np.finfo(real).eps * abs(diag[0]), diag[0], fb[i][0].copy(), real)
            x = (row * (1 / denom))[None]
        elif partial_pivoting:
            x = _solve_pivoting(sup, diag, sub, fb[i], perturb_singular)
        else:
            x = _solve_thomas(sup, diag, sub, fb[i])
        fo[i] = np.nan if x is None else x
    return out


def _tridiag_matmul_shape(ins, attrs):
    """TF's TridiagonalMatMulShapeFn: the diagonals are ``[..., 1, M]`` of one
    shape, their batch shape ``rhs``'s, ``M`` its rows; the output is ``rhs``'s shape."""
    names = ("superdiag", "maindiag", "subdiag", "rhs")
    shapes = [ins[n].shape for n in names]
    for s in shapes:
        if s.ndims is not None and s.ndims < 2:
            _rank_error(shapes, attrs, "TridiagonalMatMul", 2)
    merged = shapes[1]
    for s in (shapes[0], shapes[2]):
        try:
            merged = merged.merge_with(s)
        except ValueError:
            raise ValueError(f"Shapes must be equal for '{attrs['_op_name']}' (op: 'TridiagonalMatMul') with input "
                             f"shapes: {', '.join(str(x) for x in shapes)}.") from None
    r = shapes[3]
    if merged.ndims is not None and r.ndims is not None:
        ml, rl = merged.as_list(), r.as_list()
        if len(ml) != len(rl):
            raise ValueError(f"Shapes must be equal rank, but are {len(ml) - 2} and {len(rl) - 2} for "
                             f"'{attrs['_op_name']}' (op: 'TridiagonalMatMul') with input shapes: "
                             f"{', '.join(str(x) for x in shapes)}.")
        for x, y in zip(ml[:-2] + [ml[-1]], rl[:-2] + [rl[-2]]):
            if x is not None and y is not None and x != y:
                _dims_error(x, y, "TridiagonalMatMul", attrs, shapes)
        if ml[-2] is not None and ml[-2] != 1:
            raise ValueError(f"Dimension must be 1 but is {ml[-2]} for '{attrs['_op_name']}' "
                             f"(op: 'TridiagonalMatMul') with input shapes: {', '.join(str(x) for x in shapes)}.")
    return [(ins["rhs"].dtype, r)]


@register_op("TridiagonalMatMul", inputs=("superdiag", "maindiag", "subdiag", "rhs"),
             type_attrs={"T": ("superdiag", "maindiag", "subdiag", "rhs")}, allowed={"T": _T_TRI},
             shape=_tridiag_matmul_shape)
def tridiagonal_mat_mul(superdiag, maindiag, subdiag, rhs):
    """``output[..., i, :] = subdiag_i rhs[i-1] + maindiag_i rhs[i] + superdiag_i rhs[i+1]``;
    the diagonals are ``[..., 1, m]`` (a row each)."""
    sup, main, sub, b = (np.asarray(v) for v in (superdiag, maindiag, subdiag, rhs))
    if b.ndim < 2:
        raise invalid_argument(f"Input must have rank >= 2, but got {b.ndim}")
    m = b.shape[-2]
    for name, v in (("superdiag", sup), ("maindiag", main), ("subdiag", sub)):
        if v.ndim != b.ndim or v.shape[-2] != 1 or v.shape[-1] != m or v.shape[:-2] != b.shape[:-2]:
            raise invalid_argument(f"Expected {name} to have shape {list(b.shape[:-2]) + [1, m]}, got "
                                   f"{list(v.shape)}")
    col = lambda v: np.swapaxes(v, -1, -2)  # noqa: E731 - [..., 1, m] -> [..., m, 1]
    out = col(main) * b
    if m > 1:
        out[..., :-1, :] += col(sup)[..., :-1, :] * b[..., 1:, :]
        out[..., 1:, :] += col(sub)[..., 1:, :] * b[..., :-1, :]
    return out.astype(b.dtype, copy=False)
