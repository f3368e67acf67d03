"""Matrix functions of ``tf.linalg`` (TF's linalg_impl.py / gen_linalg_ops):

* ``expm`` (``matrix_exponential``): scaling and squaring with Pade
  approximants, as graph ops. Each matrix ``A`` with 1-norm ``|A|_1`` (largest
  column sum of ``|a_ij|``) uses the approximant of order 3, 5 or 7 (float16/32,
  complex64; thresholds 0.4259, 1.8802) or 3, 5, 7, 9 or 13 (float64,
  complex128; 0.01496, 0.2539, 0.9504, 2.0978); the highest order acts on
  ``A / 2**s`` with ``s = max(floor(log2(|A|_1 / maxnorm)), 0)``
  (maxnorm 3.9257 / 5.3719). With ``U`` the odd and ``V`` the even part of the
  approximant, ``exp(A) ~ (V - U)^-1 (V + U)``, then squared ``s`` times in a
  while loop. A non-finite norm gives NaNs.
* ``sqrtm`` (``matrix_square_root``): ``MatrixSquareRoot``, the principal
  square root ``X`` with ``X @ X = A``.
* ``logm``: ``MatrixLogarithm``, the principal logarithm of complex matrices
  (no gradient, as in TF).
"""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops, control_flow_ops, linalg_ops, linalg_solve_ops, math_ops
from ref.types import dtypes

__all__ = ["matrix_exponential", "expm", "matrix_square_root", "sqrtm", "logm"]

# Pade coefficients b_0 .. b_{n-1} of the order-n approximant (Higham 2005).
_PADE = {
    3: (120.0, 60.0, 12.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0),
}
# single precision: orders 3, 5, 7 (the last scaled); double: 3, 5, 7, 9, 13
_SINGLE = ((3, 5, 7), 3.925724783138660, (4.258730016922831e-001, 1.880152677804762e+000))
_DOUBLE = ((3, 5, 7, 9, 13), 5.371920351148152,
           (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e+000))


def _pade(matrix, order):
    """(U, V): U = A (A^{2k} + sum b_{2j+1} A^{2j}), V = sum b_{2j} A^{2j} (j < k)."""
    b = [constant(c, matrix.dtype) for c in _PADE[order]]
    ident = linalg_ops.eye(array_ops.shape(matrix)[-2], batch_shape=array_ops.shape(matrix)[:-2], dtype=matrix.dtype)
    m2 = math_ops.matmul(matrix, matrix)
    if order == 13:  # A^8 .. A^12 folded through A^6
        m4 = math_ops.matmul(m2, m2)
        m6 = math_ops.matmul(m4, m2)
        tmp_u = math_ops.matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
        u = math_ops.matmul(matrix, tmp_u)
        tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
        v = math_ops.matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
        return u, v
    powers = [ident, m2]  # A^0, A^2, A^4, ...
    for _ in range(2, order // 2 + 1):
        powers.append(math_ops.matmul(powers[-1], m2))
    k = order // 2
    tmp = powers[k]
    for j in range(k - 1, -1, -1):
        tmp = tmp + b[2 * j + 1] * powers[j]
    u = math_ops.matmul(matrix, tmp)
    v = b[2 * k] * powers[k]
    for j in range(k - 1, -1, -1):
        v = v + b[2 * j] * powers[j]
    return u, v


def matrix_exponential(input, name=None):  # noqa: A002 - TF's name
    """exp(A) of each innermost square matrix, by scaling and squaring with Pade
    approximants (see the module docstring); ``tf.linalg.expm``."""
    with name_scope(name, "matrix_exponential", [input]):
        matrix = convert_to_tensor(input, name="input")
        if matrix.shape[-2:] == [0, 0]:
            return matrix
        batch_shape = matrix.shape[:-2]
        if not batch_shape.is_fully_defined():
            batch_shape = array_ops.shape(matrix)[:-2]
        matrix = array_ops.reshape(matrix, array_ops.concat(([-1], array_ops.shape(matrix)[-2:]), axis=0))
        l1_norm = math_ops.reduce_max(
            math_ops.reduce_sum(math_ops.abs(matrix), axis=array_ops.size(array_ops.shape(matrix)) - 2),
            axis=-1)[..., None, None]

        def const(x):
            return constant(x, l1_norm.dtype)

        def nest_where(vals, cases):
            pred = math_ops.less(l1_norm, const(vals[0]))
            rest = cases[1] if len(vals) == 1 else nest_where(vals[1:], cases[1:])
            return array_ops.where_v2(pred, cases[0], rest)

        if matrix.dtype in (dtypes.float16, dtypes.float32, dtypes.complex64):
            orders, maxnorm, conds = _SINGLE
        elif matrix.dtype in (dtypes.float64, dtypes.complex128):
            orders, maxnorm, conds = _DOUBLE
        else:
            raise ValueError(f"tf.linalg.expm does not support matrices of type {matrix.dtype}")
        maxnorm = const(maxnorm)
        squarings = math_ops.maximum(math_ops.floor(math_ops.log(l1_norm / maxnorm) / math_ops.log(const(2.0))), 0)
        parts = [_pade(matrix, n) for n in orders[:-1]]
        scaled = matrix / math_ops.cast(math_ops.pow(const(2.0), squarings), matrix.dtype)
        parts.append(_pade(scaled, orders[-1]))
        u = nest_where(conds, [p[0] for p in parts])
        v = nest_where(conds, [p[1] for p in parts])
        is_finite = math_ops.is_finite(math_ops.reduce_max(l1_norm))
        nan = constant(np.nan, matrix.dtype)
        result = control_flow_ops.cond(is_finite, lambda: linalg_solve_ops.matrix_solve(-u + v, u + v),
                                       lambda: array_ops.fill(array_ops.shape(matrix), nan))
        max_squarings = math_ops.reduce_max(squarings)
        i = const(0.0)

        def keep_going(i, _):
            return control_flow_ops.cond(is_finite, lambda: math_ops.less(i, max_squarings),
                                         lambda: constant(False))

        def square(i, r):
            return i + 1, array_ops.where_v2(math_ops.less(i, squarings), math_ops.matmul(r, r), r)

        _, result = control_flow_ops.while_loop(keep_going, square, [i, result])
        if not matrix.shape.is_fully_defined():
            return array_ops.reshape(result, array_ops.concat((batch_shape, array_ops.shape(result)[-2:]), axis=0))
        return array_ops.reshape(result, batch_shape.concatenate(result.shape[-2:]))


expm = matrix_exponential


def matrix_square_root(input, name=None):  # noqa: A002 - TF's name
    """The principal square root of each innermost square matrix (``MatrixSquareRoot``)."""
    return apply_op("MatrixSquareRoot", input=input, name=name or "MatrixSquareRoot")


sqrtm = matrix_square_root


def logm(input, name=None):  # noqa: A002 - TF's name
    """The principal logarithm of each innermost complex square matrix (``MatrixLogarithm``)."""
    return apply_op("MatrixLogarithm", input=input, name=name or "MatrixLogarithm")
