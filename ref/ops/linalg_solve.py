"""Determinants, linear solves and the cross product: ``MatrixDeterminant``,
``LogMatrixDeterminant``, ``MatrixSolve`` and ``Cross``, over the innermost
matrices (or 3-vectors) of their inputs.

TF's CPU kernels factor each matrix by LU with partial pivoting (Eigen's
``PartialPivLU``); these use LAPACK's ``getrf`` through NumPy, the same
algorithm, so results agree to rounding (``tests/ops/tf_budgets.py``):

* ``det(A) = sign(P) * prod(diag(U))`` for ``P A = L U``; 1 for a 0 x 0 matrix;
* ``slogdet(A) = (sign, log|det A|)``, the log summed from ``log|U_ii|`` so it
  does not overflow; a singular matrix gives ``(0, -inf)``;
* ``solve(A, B) = X`` with ``A X = B`` (``adjoint(A) X = B`` with ``adjoint``);
  a singular ``A`` is an InvalidArgumentError, as TF's;
* ``cross(a, b) = (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_T = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _square(a, op):
    a = np.asarray(a)
    if a.ndim < 2:
        raise invalid_argument(f"{op}: input must have rank >= 2, got {a.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise invalid_argument(f"{op}: input matrices must be squares, got {a.shape[-2]} != {a.shape[-1]}")
    return a


def _work(a):
    """float16 is factored in float32, as Eigen promotes half."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _batch_shape(ins, attrs, op, out_names=1):
    s, d = ins["input"].shape, ins["input"].dtype
    if s.ndims is None:
        return [(d, unknown_shape())] * out_names
    dims = s.as_list()
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)} for '{attrs['_op_name']}' "
                         f"(op: '{op}') with input shapes: {s}.")
    if dims[-1] is not None and dims[-2] is not None and dims[-1] != dims[-2]:
        raise ValueError(f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]} for '{attrs['_op_name']}' "
                         f"(op: '{op}') with input shapes: {s}.")
    return [(d, TensorShape(dims[:-2]))] * out_names


@register_op("MatrixDeterminant", inputs=("input",), type_attrs={"T": "input"}, allowed={"T": _T},
             shape=lambda ins, attrs: _batch_shape(ins, attrs, "MatrixDeterminant"))
def matrix_determinant(input):  # noqa: A002 - TF's name
    """output[...] = det(input[..., :, :]) by LU with partial pivoting."""
    a = _square(input, "MatrixDeterminant")
    if a.shape[-1] == 0:
        return np.ones(a.shape[:-2], a.dtype)
    return np.asarray(np.linalg.det(_work(a))).astype(a.dtype)


@register_op("LogMatrixDeterminant", inputs=("input",), outputs=("sign", "log_abs_determinant"),
             type_attrs={"T": "input"}, allowed={"T": _T},
             shape=lambda ins, attrs: _batch_shape(ins, attrs, "LogMatrixDeterminant", 2))
def log_matrix_determinant(input):  # noqa: A002 - TF's name
    """(sign, log|det|) of each matrix; ``(0, -inf)`` for a singular one. For
    complex input the sign is the unit complex number det / |det|."""
    a = _square(input, "LogMatrixDeterminant")
    if a.shape[-1] == 0:
        return np.ones(a.shape[:-2], a.dtype), np.zeros(a.shape[:-2], a.dtype)
    with np.errstate(divide="ignore"):
        sign, logdet = np.linalg.slogdet(_work(a))
    return np.asarray(sign).astype(a.dtype), np.asarray(logdet).astype(a.dtype)


def _solve_shape(ins, attrs):
    m, r = ins["matrix"], ins["rhs"]
    if m.shape.ndims is None or r.shape.ndims is None:
        return [(m.dtype, unknown_shape())]
    md, rd = m.shape.as_list(), r.shape.as_list()
    if len(md) < 2 or len(rd) < 2:
        raise ValueError(f"Shape must be at least rank 2 for '{attrs['_op_name']}' (op: 'MatrixSolve') with input "
                         f"shapes: {m.shape}, {r.shape}.")
    if md[-2] is not None and rd[-2] is not None and md[-2] != rd[-2]:
        raise ValueError(f"Dimensions must be equal, but are {md[-2]} and {rd[-2]} for '{attrs['_op_name']}' "
                         f"(op: 'MatrixSolve') with input shapes: {m.shape}, {r.shape}.")
    batch = [a if a is not None else b for a, b in zip(md[:-2], rd[:-2])] if len(md) == len(rd) else rd[:-2]
    return [(m.dtype, TensorShape(batch + [md[-1], rd[-1]]))]


@register_op("MatrixSolve", inputs=("matrix", "rhs"), attrs={"adjoint": False}, type_attrs={"T": ("matrix", "rhs")},
             allowed={"T": _T}, shape=_solve_shape)
def matrix_solve(matrix, rhs, adjoint=False):
    """output[..., :, :] = X with ``matrix[..., :, :] @ X = rhs[..., :, :]``
    (``adjoint(matrix) @ X = rhs`` with ``adjoint``)."""
    a, b = _square(matrix, "MatrixSolve"), np.asarray(rhs)
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2] or b.shape[-2] != a.shape[-1]:
        raise invalid_argument(f"Input matrix and right-hand side must have the same batch shape and rows: "
                               f"{list(a.shape)} vs. {list(b.shape)}")
    if adjoint:
        a = np.conj(np.swapaxes(a, -1, -2))
    if a.shape[-1] == 0 or b.shape[-1] == 0:
        return np.zeros(b.shape, a.dtype)
    try:
        out = np.linalg.solve(_work(a), _work(b))
    except np.linalg.LinAlgError:
        raise invalid_argument("Input matrix is not invertible.") from None
    return np.asarray(out).astype(a.dtype)


def _cross_shape(ins, attrs):
    a, b = ins["a"].shape, ins["b"].shape
    try:
        s = a.merge_with(b)
    except ValueError:
        raise ValueError(f"Dimensions must be equal for '{attrs['_op_name']}' (op: 'Cross') with input shapes: "
                         f"{a}, {b}.") from None
    if s.ndims is not None and (s.ndims < 1 or s.as_list()[-1] not in (None, 3)):
        raise ValueError(f"Dimension must be 3 but is {s.as_list()[-1] if s.ndims else 'missing'} for "
                         f"'{attrs['_op_name']}' (op: 'Cross') with input shapes: {a}, {b}.")
    return [(ins["a"].dtype, s)]


@register_op("Cross", inputs=("a", "b"), outputs=("product",), type_attrs={"T": ("a", "b")},
             allowed={"T": dtypes.REALS}, shape=_cross_shape)
def cross(a, b):
    """product[..., :] = cross(a[..., :], b[..., :]) for 3-vectors of equal shapes."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise invalid_argument(f"Both inputs must be of same shape: {list(a.shape)} vs. {list(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise invalid_argument(f"Trailing dimension must be of size 3: {list(a.shape)}")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1).astype(a.dtype, copy=False)
