"""Linear-algebra kernels: ``Qr`` (used by the orthogonal initializer)."""
from __future__ import annotations

import numpy as np

from ref import dtypes
from ref.registry import register_op
from ref.shapes import TensorShape, unknown_shape


def _qr_shape(ins, attrs):
    s = ins["input"].shape
    d = ins["input"].dtype
    if s.ndims is None:
        return [(d, unknown_shape()), (d, unknown_shape())]
    if s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'Qr') with input shapes: {s}.")
    *batch, m, n = s.as_list()
    k = None if m is None or n is None else min(m, n)
    full = attrs.get("full_matrices", False)
    q = batch + [m, m if full else k]
    r = batch + [m if full else k, n]
    return [(d, TensorShape(q)), (d, TensorShape(r))]


@register_op("Qr", inputs=("input",), outputs=("q", "r"), attrs={"full_matrices": False},
             type_attrs={"T": "input"}, allowed={"T": dtypes.FLOATS[2:] + dtypes.COMPLEX}, shape=_qr_shape)
def qr(input, full_matrices=False):
    """input = q @ r with q orthonormal columns and r upper triangular (LAPACK
    Householder QR, as Eigen's HouseholderQR; signs may differ per column)."""
    a = np.asarray(input)
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)
