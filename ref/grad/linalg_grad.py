"""Gradient rules for ``ref/ops/linalg.py`` (TF's linalg_grad.py formulas):
``Qr`` (real and complex), ``Svd`` (through ``s``, ``u`` and ``v``),
``MatrixTriangularSolve``, ``MatrixBandPart``, ``Einsum``, ``Diag``/``DiagPart``, ``MatrixInverse``,
``Cholesky``, ``SelfAdjointEigV2``.

Every rule is built from ops that have rules themselves, so the gradients can
be differentiated again.
"""
from __future__ import annotations

from ref.framework.graph import control_dependencies
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.types import dtypes
from ref.grad.math_grad import _reduced_shape
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, complex_ops, linalg_ops, math_ops
from ref.grad._util import _broadcast_gradient_args
from ref.ops.linalg import parse_einsum


def _ops():
    return array_ops, linalg_ops, math_ops


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op, grad):
    """d input = band_part(grad, num_lower, num_upper)."""
    _, linalg_ops, _ = _ops()
    return linalg_ops.matrix_band_part(grad, op.inputs[1], op.inputs[2]), None, None


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op, grad):
    """c = A^-1 b:  d b = A^-H grad;  d A = -(d b) c^H (or -c (d b)^H when
    ``adjoint``), kept to A's triangle; summed over broadcast batch dims."""
    array_ops, linalg_ops, math_ops = _ops()
    a, b = op.inputs
    adjoint_a, lower_a = op._get_attr("adjoint"), op._get_attr("lower")
    c = op.outputs[0]
    grad_b = linalg_ops.matrix_triangular_solve(a, grad, lower=lower_a, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = math_ops.negative(math_ops.matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = math_ops.negative(math_ops.matmul(grad_b, c, adjoint_b=True))
    grad_a = linalg_ops.matrix_band_part(grad_a, -1, 0) if lower_a else linalg_ops.matrix_band_part(grad_a, 0, -1)
    if a.shape.is_fully_defined() and b.shape.is_fully_defined() and \
            a.shape.as_list()[:-2] == b.shape.as_list()[:-2]:
        return grad_a, grad_b
    a_shape, b_shape = array_ops.shape(a), array_ops.shape(b)
    ra, rb = _broadcast_gradient_args(a_shape[:-2], b_shape[:-2])
    grad_a = array_ops.reshape(math_ops.reduce_sum(grad_a, ra), a_shape)
    grad_b = array_ops.reshape(math_ops.reduce_sum(grad_b, rb), b_shape)
    return grad_a, grad_b


def _triangular_solve(x, r):
    """x @ adjoint(inverse(r)) for upper-triangular r."""
    _, linalg_ops, _ = _ops()
    return linalg_ops.adjoint(linalg_ops.matrix_triangular_solve(r, linalg_ops.adjoint(x), lower=False,
                                                                 adjoint=False))


def _qr_grad_square_and_deep(q, r, dq, dr):
    """m >= n, reduced QR (arXiv:2009.10071):
    qdq = q^H dq, rdr = r dr^H, tril = band_part(qdq - qdq^H + rdr - rdr^H, -1, 0),
    d a = q (dr + tril r^-H) + (dq - q qdq) r^-H; for complex inputs plus
    (q c^H) r^-H with c = i imag(diag(rdr - qdq^H)) (TF's _QrGrad)."""
    _, linalg_ops, math_ops = _ops()
    qdq = math_ops.matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - linalg_ops.adjoint(qdq)
    rdr = math_ops.matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - linalg_ops.adjoint(rdr)
    tril = linalg_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
    grad_a = math_ops.matmul(q, dr + _triangular_solve(tril, r))
    grad_b = _triangular_solve(dq - math_ops.matmul(q, qdq), r)
    ret = grad_a + grad_b
    if q.dtype.is_complex:
        m = rdr - linalg_ops.adjoint(qdq)
        eyem = linalg_ops.matrix_set_diag(array_ops.zeros_like(m), linalg_ops.matrix_diag_part(m))
        correction = eyem - math_ops.cast(complex_ops.real(eyem), q.dtype)
        ret = ret + _triangular_solve(math_ops.matmul(q, linalg_ops.adjoint(correction)), r)
    return ret


@RegisterGradient("Qr")
def _qr_grad(op, dq, dr):
    """TF's _QrGrad: static shapes only; not for m > n with full_matrices (TF's
    NotImplementedError); the wide case (m < n) partitions a = [x, y],
    r = [u, v] and reduces to the square case."""
    array_ops, _, math_ops = _ops()
    q, r = op.outputs
    if r.shape.ndims is None or r.shape.as_list()[-2] is None or r.shape.as_list()[-1] is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}")
    rows_r, cols_r = r.shape.as_list()[-2:]
    if rows_r > cols_r and q.shape.as_list()[-2] == q.shape.as_list()[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                  f"r.shape={r.shape} with nrows={rows_r}and ncols={cols_r}.")
    num_rows, num_cols = q.shape.as_list()[-2], cols_r
    if num_rows >= num_cols:
        return _qr_grad_square_and_deep(q, r, dq, dr)
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = math_ops.matmul(q, dv)
    dx = _qr_grad_square_and_deep(q, u, dq + math_ops.matmul(y, dv, adjoint_b=True), du)
    return array_ops.concat([dx, dy], axis=-1)


_ELLIPSIS = "..."


def _einsum_axis(subs, label):
    """The axis of ``label`` in ``subs``: counted from the front before an
    ellipsis, from the back (negative) after it; None when absent."""
    head, _, tail = subs.partition(_ELLIPSIS)
    if label in head:
        return head.index(label)
    if _ELLIPSIS in subs and label in tail:
        return tail.index(label) - len(tail)
    return None


def _einsum_bcast_range(subs):
    """(start, end) of the axes the ellipsis stands for ((0, 0) without one)."""
    start = subs.find(_ELLIPSIS)
    if start == -1:
        return 0, 0
    after = len(subs) - start - len(_ELLIPSIS)
    return start, (-after if after else None)


def _einsum_grad_reduced(output_grad, output_subs, input_subs, input_shape, reduced_labels):
    """The gradient of a one-operand einsum that sums over ``reduced_labels``:
    the output gradient broadcast back over the summed labels (one Einsum when
    labels repeat or move, TF's _GetGradReduced)."""
    reduced_subs = "".join(list(reduced_labels))  # TF's order: the set's iteration order
    reduced_axes = [_einsum_axis(input_subs, c) for c in reduced_subs]
    reduced_dims = array_ops.stack([input_shape[ax] for ax in reduced_axes])
    repeated = len(set(input_subs)) + len(set(output_subs)) < len(input_subs) + len(output_subs)
    kept = "".join(c for c in input_subs if c not in reduced_labels)
    if not repeated and kept == output_subs:
        kept_shape = _reduced_shape(input_shape, convert_to_tensor(reduced_axes))
        return array_ops.broadcast_to(array_ops.reshape(output_grad, kept_shape), input_shape)
    full = array_ops.concat([reduced_dims, array_ops.shape(output_grad)], axis=0)
    ones_then_grad = array_ops.concat([array_ops.ones(len(reduced_labels), dtype=dtypes.int32),
                                       array_ops.shape(output_grad)], axis=0)
    spread = array_ops.broadcast_to(array_ops.reshape(output_grad, ones_then_grad), full)
    return apply_op("Einsum", inputs=[spread], equation=f"{reduced_subs + output_subs}->{input_subs}")


def _einsum_grad_wrt(output_grad, other, input_shape, input_subs, other_subs, output_subs):
    """One operand's gradient in a two-operand einsum, before unbroadcasting:
    the output gradient contracted with the other operand onto this operand's
    labels, then spread over the labels only this operand sums."""
    reduced = set(input_subs).difference(set(output_subs + other_subs + "."))
    left = "".join(c for c in input_subs if c not in reduced)
    g = apply_op("Einsum", inputs=[output_grad, other], equation=f"{output_subs},{other_subs}->{left}")
    if not reduced:
        return g
    return _einsum_grad_reduced(g, left, input_subs, input_shape, reduced)


def _einsum_grad_n(op, grad):
    """The gradient of an einsum of three or more operands (which TF splits into
    pairwise Einsum ops; ref keeps one): each input's gradient is the einsum of
    the output gradient with the other inputs onto the input's labels, labels
    only that input sums over broadcast back, size-1 (broadcast) dimensions
    summed. Repeated labels within one input have no gradient here."""
    xs = list(op.inputs)
    ranks = [x.shape.ndims for x in xs]
    if any(r is None for r in ranks):
        raise ValueError(f"The gradient of Einsum {op.name} needs inputs of known rank")
    terms, out = parse_einsum(op._get_attr("equation"), ranks)
    grads = []
    for i, (t, x) in enumerate(zip(terms, xs)):
        if len(set(t)) != len(t):
            raise ValueError(f"ref's Einsum gradient does not support repeated labels within an input: {t!r} "
                             f"in {op._get_attr('equation')!r}")
        others = [(terms[j], xs[j]) for j in range(len(xs)) if j != i]
        keep = "".join(c for c in t if c in out or any(c in o for o, _ in others))
        g = linalg_ops.einsum(",".join([out] + [o for o, _ in others]) + "->" + keep, grad,
                              *[v for _, v in others])
        if keep != t:
            g_shape = array_ops.shape(g)
            shape = array_ops.stack([g_shape[keep.index(c)] if c in keep else 1 for c in t])
            g = array_ops.broadcast_to(array_ops.reshape(g, shape), array_ops.shape(x))
        x_dims, g_dims = x.shape.as_list(), g.shape.as_list()
        axes = [a for a, (xd, gd) in enumerate(zip(x_dims, g_dims)) if xd == 1 and gd != 1]
        if axes:
            g = math_ops.reduce_sum(g, axis=axes, keepdims=True)
        grads.append(g)
    return grads


@RegisterGradient("Einsum")
def _einsum_grad(op, grad):
    """TF's _EinsumGrad, built op for op: a one-operand einsum's gradient is the
    reversed einsum (spread over summed labels); a two-operand einsum's is the
    output gradient contracted with the other operand, and with an ellipsis in
    the output the broadcast batch axes summed back (skipped when both static
    batch shapes agree)."""
    equation = op.get_attr("equation")
    equation = equation.decode() if isinstance(equation, bytes) else equation
    input_subs, output_subs = equation.split("->")
    if len(op.inputs) == 1:
        input_shape = array_ops.shape(op.inputs[0])
        reduced = set(input_subs).difference(set(output_subs + _ELLIPSIS))
        if not reduced:
            return apply_op("Einsum", inputs=[grad], equation=f"{output_subs}->{input_subs}")
        return _einsum_grad_reduced(grad, output_subs, input_subs, input_shape, reduced)
    if len(op.inputs) > 2:
        return _einsum_grad_n(op, grad)
    x_subs, y_subs = input_subs.split(",")
    if _ELLIPSIS in output_subs:
        x_subs += "" if _ELLIPSIS in x_subs else _ELLIPSIS
        y_subs += "" if _ELLIPSIS in y_subs else _ELLIPSIS
    x, y = op.inputs[0], op.inputs[1]
    if grad.dtype.is_complex:
        x, y = math_ops.conj(x), math_ops.conj(y)
    x_shape, y_shape = array_ops.shape(x), array_ops.shape(y)
    grad_x = _einsum_grad_wrt(grad, y, x_shape, x_subs, y_subs, output_subs)
    grad_y = _einsum_grad_wrt(grad, x, y_shape, y_subs, x_subs, output_subs)
    if _ELLIPSIS not in output_subs:
        return grad_x, grad_y
    bx0, bx1 = _einsum_bcast_range(x_subs)
    by0, by1 = _einsum_bcast_range(y_subs)
    xs, ys = x.shape, y.shape
    if xs.is_fully_defined() and ys.is_fully_defined() and xs[bx0:bx1] == ys[by0:by1]:
        return grad_x, grad_y
    rx, ry = _broadcast_gradient_args(x_shape[bx0:bx1], y_shape[by0:by1])
    grad_x = array_ops.reshape(math_ops.reduce_sum(grad_x, bx0 + rx), x_shape)
    grad_y = array_ops.reshape(math_ops.reduce_sum(grad_y, by0 + ry), y_shape)
    return grad_x, grad_y


@RegisterGradient("Diag")
def _diag_grad(op, grad):
    return apply_op("DiagPart", input=grad)


@RegisterGradient("DiagPart")
def _diag_part_grad(op, grad):
    return apply_op("Diag", diagonal=grad)


def _safe_reciprocal(x, epsilon=1e-20):
    """x / (x^2 + epsilon): 1/x away from 0, 0 at 0."""
    return x * math_ops.reciprocal(x * x + epsilon)


@RegisterGradient("Svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    """TF's _SvdGrad (Giles; Townsend for the reduced case). With ``m <= n``
    (else the rule runs on ``adjoint(a)`` and transposes back), ``f_ij =
    1 / (s_j^2 - s_i^2)`` off the diagonal, ``v1 = v[:, :m]``:
    ``d a = u (diag(grad_s) + (F o u^H gu + h.c.) S + S (F o v1^H gv1 + h.c.)) v1^H``
    plus, when ``m < n``, ``u S^-1 (gv1^H - gv1^H v1 v1^H [- v1^H gv2 v2^H])``, plus
    for complex inputs the phase term ``u S^-1 (L^H - L) v1^H / 2``,
    ``L = I o v^H gv``. ``compute_uv=False``: ``u diag(grad_s) v^H`` with
    ``u``, ``v`` recomputed. Degenerate singular values give inf/NaN, as TF."""
    a = op.inputs[0]
    a_shape = a.shape.with_rank_at_least(2)
    grad_s = math_ops.cast(grad_s, a.dtype)
    grad_s_mat = linalg_ops.matrix_diag(grad_s)
    if not op._get_attr("compute_uv"):
        _, u, v = linalg_ops.svd(a, compute_uv=True)
        grad_a = math_ops.matmul(u, math_ops.matmul(grad_s_mat, v, adjoint_b=True))
        grad_a.set_shape(a_shape)
        return grad_a
    full_matrices = op._get_attr("full_matrices")
    grad_u_shape = grad_u.shape.with_rank_at_least(2)
    grad_v_shape = grad_v.shape.with_rank_at_least(2)
    m = a_shape.dims[-2].merge_with(grad_u_shape.dims[-2])
    n = a_shape.dims[-1].merge_with(grad_v_shape.dims[-2])
    batch_shape = a_shape[:-2].merge_with(grad_u_shape[:-2]).merge_with(grad_v_shape[:-2])
    a_shape = batch_shape.concatenate([m, n])
    m, n = a_shape.dims[-2].value, a_shape.dims[-1].value
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.")
    s, u, v = op.outputs
    s = math_ops.cast(s, a.dtype)
    use_adjoint = m > n
    if use_adjoint:  # the gradient of adjoint(a) = v S^T u^H, transposed back at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    with control_dependencies([grad_s, grad_u, grad_v]):
        if full_matrices and abs(m - n) > 1:
            raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is "
                                      f"True. Received: m={m} and n={n} from op input={a} with shape={a_shape}.")
        s_mat = linalg_ops.matrix_diag(s)
        s2 = math_ops.square(s)
        s_shape = array_ops.shape(s)
        f = linalg_ops.matrix_set_diag(
            _safe_reciprocal(array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)), array_ops.zeros_like(s))
        s_inv_mat = linalg_ops.matrix_diag(_safe_reciprocal(s))
        v1 = v[..., :, :m]
        grad_v1 = grad_v[..., :, :m]
        u_gu = math_ops.matmul(u, grad_u, adjoint_a=True)
        v_gv = math_ops.matmul(v1, grad_v1, adjoint_a=True)
        f_u = f * u_gu
        f_v = f * v_gv
        term1_nouv = (grad_s_mat + math_ops.matmul(f_u + linalg_ops.adjoint(f_u), s_mat) +
                      math_ops.matmul(s_mat, f_v + linalg_ops.adjoint(f_v)))
        term1 = math_ops.matmul(u, math_ops.matmul(term1_nouv, v1, adjoint_b=True))
        if m == n:
            grad_a_before_transpose = term1
        else:
            gv1t = linalg_ops.matrix_transpose(grad_v1, conjugate=True)
            gv1t_v1 = math_ops.matmul(gv1t, v1)
            term2_nous = gv1t - math_ops.matmul(gv1t_v1, v1, adjoint_b=True)
            if full_matrices:
                v2 = v[..., :, m:n]
                grad_v2 = grad_v[..., :, m:n]
                v1t_gv2 = math_ops.matmul(v1, grad_v2, adjoint_a=True)
                term2_nous -= math_ops.matmul(v1t_gv2, v2, adjoint_b=True)
            u_s_inv = math_ops.matmul(u, s_inv_mat)
            term2 = math_ops.matmul(u_s_inv, term2_nous)
            grad_a_before_transpose = term1 + term2
        if a.dtype.is_complex:
            eye = linalg_ops.eye(s_shape[-1], batch_shape=s_shape[:-1], dtype=a.dtype)
            l = eye * v_gv  # noqa: E741 - the formula's name
            term3_nouv = math_ops.matmul(s_inv_mat, linalg_ops.adjoint(l) - l)
            term3 = 1 / 2. * math_ops.matmul(u, math_ops.matmul(term3_nouv, v1, adjoint_b=True))
            grad_a_before_transpose += term3
        if use_adjoint:
            grad_a = linalg_ops.matrix_transpose(grad_a_before_transpose, conjugate=True)
        else:
            grad_a = grad_a_before_transpose
        grad_a.set_shape(a_shape)
        return grad_a


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op, grad):
    """d A = -A^-H @ grad @ A^-H (adjoints swapped for ``adjoint=True``)."""
    ainv = op.outputs[0]
    adj = op._get_attr("adjoint")
    inner = math_ops.matmul(grad, ainv, adjoint_a=adj, adjoint_b=not adj)
    return -math_ops.matmul(ainv, inner, adjoint_a=not adj)


@RegisterGradient("Cholesky")
def _cholesky_grad(op, grad):
    """d A = sym(L^-H @ Phi(L^H @ grad) @ L^-1) / 2, ``Phi`` taking the lower
    triangle with the diagonal halved (TF's formula)."""
    chol = op.outputs[0]
    num_rows = array_ops.shape(chol)[-1]
    batch_shape = array_ops.shape(chol)[:-2]
    l_inverse = linalg_ops.matrix_triangular_solve(chol, linalg_ops.eye(num_rows, batch_shape=batch_shape,
                                                                        dtype=chol.dtype))
    middle = math_ops.matmul(chol, grad, adjoint_a=True)
    middle = linalg_ops.matrix_set_diag(middle, 0.5 * linalg_ops.matrix_diag_part(middle))
    middle = linalg_ops.matrix_band_part(middle, -1, 0)
    grad_a = math_ops.matmul(math_ops.matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += linalg_ops.adjoint(grad_a)
    return grad_a * 0.5


def _safe_reciprocal(x, epsilon=1e-20):
    return x * math_ops.reciprocal(x * x + epsilon)


@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_v2_grad(op, grad_e, grad_v):
    """d A = v (diag(grad_e) + f * (v^H grad_v)) v^H with f_ij = 1 / (e_j - e_i)
    off the diagonal (without v: recomputed, grad_e's term only); symmetrised
    onto the lower triangle, which is all the op reads."""
    e = op.outputs[0]
    with control_dependencies([grad_e, grad_v]):
        if op._get_attr("compute_v"):
            v = op.outputs[1]
            f = linalg_ops.matrix_set_diag(
                _safe_reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                array_ops.zeros_like(e))
            grad_a = math_ops.matmul(v, math_ops.matmul(
                linalg_ops.matrix_diag(grad_e) + f * math_ops.matmul(v, grad_v, adjoint_a=True), v, adjoint_b=True))
        else:
            _, v = linalg_ops.self_adjoint_eig(op.inputs[0])
            grad_a = math_ops.matmul(v, math_ops.matmul(linalg_ops.matrix_diag(grad_e), v, adjoint_b=True))
        grad_a = linalg_ops.matrix_band_part(grad_a + linalg_ops.adjoint(grad_a), -1, 0)
        grad_a = linalg_ops.matrix_set_diag(grad_a, 0.5 * linalg_ops.matrix_diag_part(grad_a))
        return grad_a


# -- determinants, solves, cross (TF's linalg_grad / math_grad) ---------------------

@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op, grad):
    """d det(A) = det(A) * inverse(A)^H, scaled by each matrix's incoming gradient."""
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = apply_op("MatrixInverse", input=a, adjoint=True)
    multipliers = array_ops.reshape(grad * c, array_ops.concat([array_ops.shape(c), [1, 1]], 0))
    return multipliers * a_adj_inv


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op, _, grad_b):
    """d log|det(A)| = inverse(A)^H (the sign output has no gradient)."""
    a, c = op.inputs[0], op.outputs[1]
    a_adj_inv = apply_op("MatrixInverse", input=a, adjoint=True)
    multipliers = array_ops.reshape(grad_b, array_ops.concat([array_ops.shape(c), [1, 1]], 0))
    return multipliers * a_adj_inv


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op, grad):
    """X = A^-1 B: dB = A^-H dX, dA = -dB X^H (-X dB^H with ``adjoint``)."""
    a = op.inputs[0]
    adjoint_a = op._get_attr("adjoint")
    c = op.outputs[0]
    grad_b = apply_op("MatrixSolve", matrix=a, rhs=grad, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = -math_ops.matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -math_ops.matmul(grad_b, c, adjoint_b=True)
    return grad_a, grad_b


@RegisterGradient("Cross")
def _cross_grad(op, grad):
    """d (u x v) = (v x g, g x u)."""
    u, v = op.inputs
    return apply_op("Cross", a=v, b=grad), apply_op("Cross", a=grad, b=u)
