"""Batched matrix diagonals with a diagonal band ``k``: ``MatrixDiagV3``,
``MatrixDiagPartV3`` and ``MatrixSetDiagV3`` (what TF 2.x's
``tf.linalg.diag``, ``tf.linalg.diag_part`` and ``tf.linalg.set_diag`` build).

Diagonal ``d`` of an ``M x N`` matrix holds the elements ``(i, j)`` with
``j - i = d``; ``k`` is one diagonal or a band ``[lower, upper]``. A band is
packed as ``[..., upper - lower + 1, max_diag_len]``, row ``upper - d`` for
diagonal ``d``, element ``(i, j)`` at column ``offset + min(i, j)``; a
diagonal shorter than ``max_diag_len`` is aligned left (offset 0) or right
(offset ``max_diag_len - len``) as ``align`` says: its first word for the
superdiagonals (``d >= 0``), its second for the subdiagonals (``d <= 0``).
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _band(k):
    """(lower, upper) from ``k`` (a scalar or a vector of one or two)."""
    k = np.asarray(k).reshape(-1)
    if k.size < 1 or k.size > 2:
        raise invalid_argument(f"diag_index must have only one or two elements, received {k.size} elements.")
    lo, hi = int(k[0]), int(k[-1])
    if lo > hi:
        raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}")
    return lo, hi


def _check_band(lo, hi, rows, cols):
    for what, d in (("lower_diag_index", lo), ("upper_diag_index", hi)):
        if not (-rows < d < cols or d == 0):
            raise invalid_argument(f"{what} is out of bound: {d}. It must be between {-rows} and {cols}")


def _diagonals(lo, hi, rows, cols, max_len, align):
    """Per diagonal in the band: (packed row, length, offset, row indices, column indices)."""
    super_left, sub_left = align.startswith("LEFT"), align.endswith("LEFT")
    out = []
    for d in range(hi, lo - 1, -1):
        n = min(rows + min(0, d), cols - max(d, 0))
        left = (d >= 0 and super_left) or (d <= 0 and sub_left)
        pos = np.arange(max(n, 0))
        out.append((hi - d, max(n, 0), 0 if left else max_len - max(n, 0), pos + max(0, -d), pos + max(0, d)))
    return out


def _max_len(lo, hi, rows, cols):
    return min(rows + min(hi, 0), cols - max(lo, 0))


def _const_band(spec):
    if spec.value is None:
        return None
    k = np.asarray(spec.value).reshape(-1)
    return (int(k[0]), int(k[-1])) if 1 <= k.size <= 2 else None


def _diag_v3_shape(ins, attrs):
    dt = ins["diagonal"].dtype
    band = _const_band(ins["k"])
    d = ins["diagonal"].shape
    if band is None or d.ndims is None or ins["num_rows"].value is None or ins["num_cols"].value is None:
        return [(dt, unknown_shape())]
    lo, hi = band
    dims = d.as_list()
    batch, max_len = (dims[:-1], dims[-1]) if lo == hi else (dims[:-2], dims[-1])
    rows, cols = int(np.asarray(ins["num_rows"].value)), int(np.asarray(ins["num_cols"].value))
    if max_len is None:
        return [(dt, TensorShape(batch + [rows if rows > 0 else None, cols if cols > 0 else None]))]
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    return [(dt, TensorShape(batch + [rows, cols]))]


@register_op("MatrixDiagV3", inputs=("diagonal", "k", "num_rows", "num_cols", "padding_value"),
             attrs={"align": "RIGHT_LEFT"}, type_attrs={"T": ("diagonal", "padding_value")}, shape=_diag_v3_shape)
def matrix_diag_v3(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
    """Matrices with the band ``k`` taken from ``diagonal`` and ``padding_value``
    elsewhere; ``num_rows``/``num_cols`` of -1 are the smallest that fit."""
    x = np.asarray(diagonal)
    lo, hi = _band(k)
    if x.ndim < (1 if lo == hi else 2):
        raise invalid_argument(f"diagonal must be at least {1 if lo == hi else 2}-dim, received shape: "
                               f"{list(x.shape)}")
    if lo != hi and x.shape[-2] != hi - lo + 1:
        raise invalid_argument(f"The number of diagonals provided in the input does not match the lower_diag_index "
                               f"and upper_diag_index range. Expected {hi - lo + 1}, got {x.shape[-2]}")
    max_len = x.shape[-1]
    rows, cols = int(np.asarray(num_rows)), int(np.asarray(num_cols))
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows:
        raise invalid_argument("The number of rows is too small.")
    if cols < min_cols:
        raise invalid_argument("The number of columns is too small.")
    if rows != min_rows and cols != min_cols:
        raise invalid_argument("The number of rows or columns is not consistent with the specified d_lower, "
                               "d_upper, and diagonal.")
    packed = x[..., None, :] if lo == hi else x
    batch = packed.shape[:-2]
    out = np.full(batch + (rows, cols), np.asarray(padding_value, x.dtype), dtype=x.dtype)
    for row, n, off, ii, jj in _diagonals(lo, hi, rows, cols, max_len, align):
        out[..., ii, jj] = packed[..., row, off:off + n]
    return out


def _diag_part_v3_shape(ins, attrs):
    dt = ins["input"].dtype
    band = _const_band(ins["k"])
    s = ins["input"].shape
    if band is None or s.ndims is None:
        return [(dt, unknown_shape())]
    if s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
    lo, hi = band
    *batch, rows, cols = s.as_list()
    max_len = None if rows is None or cols is None else _max_len(lo, hi, rows, cols)
    return [(dt, TensorShape(batch + ([] if lo == hi else [hi - lo + 1]) + [max_len]))]


@register_op("MatrixDiagPartV3", inputs=("input", "k", "padding_value"), outputs=("diagonal",),
             attrs={"align": "RIGHT_LEFT"}, type_attrs={"T": ("input", "padding_value")}, shape=_diag_part_v3_shape)
def matrix_diag_part_v3(input, k, padding_value, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """The band ``k`` of the innermost matrices, packed (``padding_value`` fills
    the short diagonals)."""
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    lo, hi = _band(k)
    rows, cols = x.shape[-2:]
    _check_band(lo, hi, rows, cols)
    max_len = _max_len(lo, hi, rows, cols)
    out = np.full(x.shape[:-2] + (hi - lo + 1, max_len), np.asarray(padding_value, x.dtype), dtype=x.dtype)
    for row, n, off, ii, jj in _diagonals(lo, hi, rows, cols, max_len, align):
        out[..., row, off:off + n] = x[..., ii, jj]
    return out[..., 0, :] if lo == hi else out


def _set_diag_v3_shape(ins, attrs):
    return [(ins["input"].dtype, ins["input"].shape)]


@register_op("MatrixSetDiagV3", inputs=("input", "diagonal", "k"), attrs={"align": "RIGHT_LEFT"},
             type_attrs={"T": ("input", "diagonal")}, shape=_set_diag_v3_shape)
def matrix_set_diag_v3(input, diagonal, k, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """``input`` with its band ``k`` replaced by ``diagonal`` (packed as
    ``MatrixDiagPartV3`` returns it)."""
    x = np.asarray(input)
    dg = np.asarray(diagonal)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    lo, hi = _band(k)
    rows, cols = x.shape[-2:]
    _check_band(lo, hi, rows, cols)
    max_len = _max_len(lo, hi, rows, cols)
    want = x.shape[:-2] + (() if lo == hi else (hi - lo + 1,)) + (max_len,)
    if dg.shape != want:
        raise invalid_argument(f"diagonal must have shape {list(want)}, received shape: {list(dg.shape)}")
    packed = dg[..., None, :] if lo == hi else dg
    out = x.copy()
    for row, n, off, ii, jj in _diagonals(lo, hi, rows, cols, max_len, align):
        out[..., ii, jj] = packed[..., row, off:off + n]
    return out
