"""Linear-algebra kernels: ``Qr`` (used by the orthogonal initializer and
differentiated in ref/grad/linalg_grad.py), ``MatrixTriangularSolve`` and
``MatrixBandPart`` (the pieces of the Qr gradient); ``Diag``/``DiagPart`` (TF's
tensor diagonals) and ``Svd``."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape


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
    Householder QR: the reflectors and signs of TF's Eigen HouseholderQR, not its
    rounding -- a few ULPs at the matrix's scale apart, measured in
    tests/ops/test_qr_vs_tf.py)."""
    a = np.asarray(input)
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)



def _broadcast_batch(sa, sb, op_name):
    """The broadcast of two static batch shapes (lists; None for an unknown dim)."""
    out = []
    ra, rb = sa[::-1], sb[::-1]
    for i in range(max(len(ra), len(rb))):
        x = ra[i] if i < len(ra) else 1
        y = rb[i] if i < len(rb) else 1
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(None)
        else:
            raise ValueError(f"Incompatible shapes: batch dims {sa} vs. {sb} for '{op_name}' "
                             "(op: 'MatrixTriangularSolve')")
    return out[::-1]


def _triangular_solve_shape(ins, attrs):
    a, b = ins["matrix"].shape, ins["rhs"].shape
    d = ins["matrix"].dtype
    if a.ndims is None or b.ndims is None:
        return [(d, unknown_shape())]
    name = attrs["_op_name"]
    for s in (a, b):
        if s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for '{name}' "
                             f"(op: 'MatrixTriangularSolve') with input shapes: {a}, {b}.")
    al, bl = a.as_list(), b.as_list()
    if al[-1] is not None and al[-2] is not None and al[-1] != al[-2]:
        raise ValueError(f"Dimensions must be equal, but are {al[-2]} and {al[-1]} for '{name}' "
                         f"(op: 'MatrixTriangularSolve') with input shapes: {a}, {b}.")
    m = al[-1] if al[-1] is not None else al[-2]
    if m is not None and bl[-2] is not None and m != bl[-2]:
        raise ValueError(f"Dimensions must be equal, but are {m} and {bl[-2]} for '{name}' "
                         f"(op: 'MatrixTriangularSolve') with input shapes: {a}, {b}.")
    return [(d, TensorShape(_broadcast_batch(al[:-2], bl[:-2], name) + [bl[-2] if m is None else m, bl[-1]]))]


@register_op("MatrixTriangularSolve", inputs=("matrix", "rhs"), attrs={"lower": True, "adjoint": False},
             type_attrs={"T": ("matrix", "rhs")}, allowed={"T": dtypes.FLOATS[2:] + dtypes.COMPLEX},
             shape=_triangular_solve_shape)
def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False):
    """output = A^-1 rhs with A the lower (``lower``) or upper triangle of
    ``matrix`` (the other triangle is ignored), or A^H when ``adjoint``; batch
    dims broadcast. Forward/back substitution, row by row:
    x_i = (b_i - sum_{j<i} A_ij x_j) / A_ii (a zero diagonal gives inf/nan)."""
    a, b = np.asarray(matrix), np.asarray(rhs)
    if a.ndim < 2 or b.ndim < 2:
        raise invalid_argument(f"Input matrix and rhs must be at least rank 2, got {list(a.shape)} and "
                               f"{list(b.shape)}")
    if a.shape[-1] != a.shape[-2]:
        raise invalid_argument(f"Input matrix must be square, got shape {list(a.shape)}")
    if a.shape[-1] != b.shape[-2]:
        raise invalid_argument(f"Input matrix and right-hand side must have the same number of rows: "
                               f"{a.shape[-2]} vs. {b.shape[-2]}")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise invalid_argument(f"Incompatible batch shapes: {list(a.shape[:-2])} vs. {list(b.shape[:-2])}") from None
    tri = np.tril(a) if lower else np.triu(a)
    if adjoint:
        tri, lower = np.conj(np.swapaxes(tri, -1, -2)), not lower
    tri = np.broadcast_to(tri, batch + a.shape[-2:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]))
    n = a.shape[-1]
    rows = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in rows:
            others = slice(0, i) if lower else slice(i + 1, n)
            acc = x[..., i, :] - np.einsum("...j,...jk->...k", tri[..., i, others], x[..., others, :])
            x[..., i, :] = acc / tri[..., i, i][..., None]
    return x.astype(a.dtype, copy=False)


def _band_part_shape(ins, attrs):
    s = ins["input"].shape
    if s.ndims is not None and s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'MatrixBandPart') with input shapes: {s}.")
    for k in ("num_lower", "num_upper"):
        r = ins[k].shape.ndims
        if r is not None and r != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {r} for '{attrs['_op_name']}' "
                             f"(op: 'MatrixBandPart')")
    return [(ins["input"].dtype, s)]


@register_op("MatrixBandPart", inputs=("input", "num_lower", "num_upper"), outputs=("band",),
             type_attrs={"T": "input", "Tindex": ("num_lower", "num_upper")},
             allowed={"Tindex": (dtypes.int32, dtypes.int64)}, shape=_band_part_shape)
def matrix_band_part(input, num_lower, num_upper):
    """band[..., m, n] = in_band(m, n) * input[..., m, n] with
    in_band(m, n) = (num_lower < 0 || (m-n) <= num_lower) && (num_upper < 0 || (n-m) <= num_upper)."""
    x = np.asarray(input)
    lo, up = np.asarray(num_lower), np.asarray(num_upper)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    if lo.ndim or up.ndim:
        raise invalid_argument(f"num_lower must be scalar, got shape {list(lo.shape)}" if lo.ndim else
                               f"num_upper must be scalar, got shape {list(up.shape)}")
    lo, up = int(lo), int(up)
    m, n = x.shape[-2:]
    if lo > m:
        raise invalid_argument(f"num_lower must be negative or less or equal to number of rows ({m}) got: {lo}")
    if up > n:
        raise invalid_argument(f"num_upper must be negative or less or equal to number of columns ({n}) got: {up}")
    d = np.arange(m)[:, None] - np.arange(n)[None, :]
    keep = ((lo < 0) | (d <= lo)) & ((up < 0) | (-d <= up))
    return np.where(keep, x, np.zeros((), x.dtype))


# ---------------------------------------------------------------------------
# Einsum
# ---------------------------------------------------------------------------

def parse_einsum(equation, ranks):
    """``(input label strings, output label string)`` of ``equation`` with
    ``...`` replaced by upper-case labels for ``ranks`` (the inputs' ranks);
    an implicit output is the sorted labels seen once, after the ellipsis
    labels (numpy's and TF's convention). ValueError if malformed."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(f"Expecting {len(terms)} inputs to einsum equation {equation!r}, got {len(ranks)}")
    n_ell = 0
    for t, r in zip(terms, ranks):
        if "..." in t:
            n_ell = max(n_ell, r - len(t.replace("...", "")))
    unused = [c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba" if c not in eq]
    ell = "".join(unused[:n_ell])[::-1]
    out_terms = []
    for t, r in zip(terms, ranks):
        if not all(c.isalpha() for c in t.replace("...", "")):
            raise ValueError(f"Invalid character in einsum equation {equation!r}")
        if "..." in t:
            k = r - len(t.replace("...", ""))
            t = t.replace("...", ell[n_ell - k:] if k else "")
        if len(t) != r:
            raise ValueError(f"Input with rank {r} does not match the subscripts {t!r} of einsum equation "
                             f"{equation!r}")
        out_terms.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    # a label repeated in the output puts the values on that diagonal (TF's, e.g. Einsum's gradient "i->ii")
    if any(c not in "".join(out_terms) for c in out):
        raise ValueError(f"Invalid output subscripts in einsum equation {equation!r}")
    return out_terms, out


def _einsum_shape(ins, attrs):
    specs = ins["inputs"]
    dtype = specs[0].dtype
    if any(s.shape.ndims is None for s in specs):
        return [(dtype, unknown_shape())]
    terms, out = parse_einsum(attrs["equation"], [s.shape.ndims for s in specs])
    sizes = {}
    for t, s in zip(terms, specs):
        for c, d in zip(t, s.shape.as_list()):
            if d is not None and d != 1:
                if sizes.get(c) not in (None, d):
                    raise ValueError(f"Expected dimension {sizes[c]} at axis of label {c!r} of einsum "
                                     f"{attrs['equation']!r}, got {d}")
                sizes[c] = d
            elif d == 1:
                sizes.setdefault(c, None)
    known = {c: d for c, d in sizes.items() if d is not None}
    dims = []
    for c in out:
        all_one = all(s.shape.as_list()[t.index(c)] == 1 for t, s in zip(terms, specs) if c in t)
        dims.append(known.get(c, 1 if all_one else None))
    return [(dtype, TensorShape(dims))]


@register_op("Einsum", inputs=("inputs",), list_inputs={"inputs": "N"}, attrs={"equation": REQUIRED},
             type_attrs={"T": "inputs"}, shape=_einsum_shape)
def einsum(inputs, equation):
    """Tensor contraction over the labels of ``equation`` (``"ij,jk->ik"``):
    each output element is the sum, over the labels absent from the output,
    of the product of the inputs' elements (``Einsum``; ``...`` broadcasts)."""
    arrays = [np.asarray(x) for x in inputs]
    if equation.count("->") != 1:
        raise invalid_argument(f"Expecting exactly one '->' in einsum equation: {equation}")
    try:
        terms, out = parse_einsum(equation, [a.ndim for a in arrays])
        unique = "".join(dict.fromkeys(out))
        result = np.einsum(",".join(terms) + "->" + unique, *arrays)
    except ValueError as e:
        raise invalid_argument(f"Einsum {equation!r}: {e}") from None
    if unique != out:  # zeros off the diagonals of the repeated labels; the values on them
        sizes = dict(zip(unique, np.shape(result)))
        full = np.zeros([sizes[c] for c in out], dtype=arrays[0].dtype)
        np.einsum(f"{out}->{unique}", full)[...] = result  # a writeable view of the diagonal
        return full
    return np.asarray(result, dtype=arrays[0].dtype)


# -- Diag / DiagPart (rank-2k tensors) and Svd -----------------------------------

def _diag_shape(ins, attrs):
    s = ins["diagonal"].shape
    if s.ndims is None:
        return [(ins["diagonal"].dtype, unknown_shape())]
    if s.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs['_op_name']}' "
                         "(op: 'Diag') with input shapes: [].")
    return [(ins["diagonal"].dtype, s.concatenate(s))]


_DIAG_TYPES = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
               dtypes.complex64, dtypes.complex128)


@register_op("Diag", inputs=("diagonal",), type_attrs={"T": "diagonal"}, allowed={"T": _DIAG_TYPES},
             shape=_diag_shape)
def diag(diagonal):
    """``output[i1..ik, i1..ik] = diagonal[i1..ik]``, zeros elsewhere: shape ``D + D``."""
    d = np.asarray(diagonal)
    if d.ndim < 1:
        raise invalid_argument("Input must be at least rank 1, got 0")
    out = np.zeros((d.size, d.size), d.dtype)
    out[np.arange(d.size), np.arange(d.size)] = d.reshape(-1)
    return out.reshape(d.shape + d.shape)


def _diag_part_shape(ins, attrs):
    s = ins["input"].shape
    if s.ndims is None:
        return [(ins["input"].dtype, unknown_shape())]
    if s.ndims % 2 or s.ndims == 0:
        raise ValueError(f"Input must have even rank and be non-empty, got rank {s.ndims} for "
                         f"'{attrs['_op_name']}' (op: 'DiagPart') with input shapes: {s}.")
    k = s.ndims // 2
    dims = s.as_list()
    out = []
    for a, b in zip(dims[:k], dims[k:]):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{attrs['_op_name']}' "
                             f"(op: 'DiagPart') with input shapes: {s}.")
        out.append(a if a is not None else b)
    return [(ins["input"].dtype, TensorShape(out))]


@register_op("DiagPart", inputs=("input",), outputs=("diagonal",), type_attrs={"T": "input"},
             allowed={"T": _DIAG_TYPES}, shape=_diag_part_shape)
def diag_part(input):  # noqa: A002 - TF's name
    """``diagonal[i1..ik] = input[i1..ik, i1..ik]`` for ``input`` of shape ``D + D``."""
    x = np.asarray(input)
    if x.ndim == 0 or x.ndim % 2:
        raise invalid_argument(f"The rank of the tensor should be even and positive, got shape "
                               f"[{','.join(str(d) for d in x.shape)}]")
    k = x.ndim // 2
    if x.shape[:k] != x.shape[k:]:
        raise invalid_argument(f"Invalid shape [{','.join(str(d) for d in x.shape)}]: dimensions {k} and "
                               f"{2 * k} do not match.")
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    return np.array(x.reshape(n, n).diagonal()).reshape(x.shape[:k])


def _svd_shape(ins, attrs):
    s, d = ins["input"].shape, ins["input"].dtype
    real = d  # TF's s has the input's type: complex singular values with zero imaginary parts
    if s.ndims is None:
        return [(real, unknown_shape()), (d, unknown_shape()), (d, unknown_shape())]
    if s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'Svd') with input shapes: {s}.")
    *batch, m, n = s.as_list()
    p = None if m is None or n is None else min(m, n)
    if not attrs.get("compute_uv", True):
        return [(real, TensorShape(batch + [p])), (d, TensorShape([0])), (d, TensorShape([0]))]
    full = attrs.get("full_matrices", False)
    return [(real, TensorShape(batch + [p])), (d, TensorShape(batch + [m, m if full else p])),
            (d, TensorShape(batch + [n, n if full else p]))]


@register_op("Svd", inputs=("input",), outputs=("s", "u", "v"), attrs={"compute_uv": True, "full_matrices": False},
             type_attrs={"T": "input"},
             allowed={"T": (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)},
             shape=_svd_shape)
def svd(input, compute_uv=True, full_matrices=False):  # noqa: A002 - TF's name
    """``input = u @ diag(s) @ adjoint(v)``, singular values ``s`` descending
    (LAPACK's gesdd; the signs of singular vector pairs may differ from TF's
    Eigen JacobiSVD). ``compute_uv=False``: ``u`` and ``v`` are empty ``[0]``."""
    a = np.asarray(input)
    if a.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {a.ndim}")
    real = a.dtype  # s in the input's type, as TF's op (tf.linalg.svd takes the real part)
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    if not compute_uv:
        s = np.linalg.svd(work, compute_uv=False) if a.size else np.zeros(a.shape[:-1][:-1] + (min(a.shape[-2:]),))
        return s.astype(real), np.zeros([0], a.dtype), np.zeros([0], a.dtype)
    u, s, vh = np.linalg.svd(work, full_matrices=bool(full_matrices))
    v = np.conj(np.swapaxes(vh, -1, -2))
    return s.astype(real), u.astype(a.dtype), v.astype(a.dtype)


# ---------------------------------------------------------------------------
# MatrixInverse, Cholesky: square (batch) matrices in, same shape out
# ---------------------------------------------------------------------------

def _square_shape(ins, attrs):
    """TF's BatchUnchangedSquareShapeFn: rank >= 2, the last two dimensions equal."""
    s, d = ins["input"].shape, ins["input"].dtype
    if s.ndims is None:
        return [(d, unknown_shape())]
    if s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for '{attrs['_op_name']}' "
                         f"with input shapes: {s}.")
    *batch, m, n = s.as_list()
    if m is not None and n is not None and m != n:
        raise ValueError(f"Dimensions must be equal, but are {m} and {n} for '{attrs['_op_name']}' "
                         f"with input shapes: {s}.")
    k = m if m is not None else n
    return [(d, TensorShape(batch + [k, k]))]


def _square_input(a):
    a = np.asarray(a)
    if a.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {a.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise invalid_argument(f"Input matrices must be squares, got {a.shape[-2]} != {a.shape[-1]}")
    return a


_INV_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


@register_op("MatrixInverse", inputs=("input",), attrs={"adjoint": False}, type_attrs={"T": "input"},
             allowed={"T": _INV_TYPES}, shape=_square_shape)
def matrix_inverse(input, adjoint=False):  # noqa: A002 - TF's name
    """``output[..., :, :] = inverse(input[..., :, :])`` (of its adjoint when
    ``adjoint``), by LU with partial pivoting; a singular matrix is an error."""
    a = _square_input(input)
    if adjoint:
        a = np.conj(np.swapaxes(a, -1, -2))
    if a.size == 0:
        return np.array(a)
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    try:
        out = np.linalg.inv(work)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input is not invertible.") from None
    return out.astype(a.dtype, copy=False)


@register_op("MatrixSquareRoot", inputs=("input",), type_attrs={"T": "input"}, allowed={"T": _INV_TYPES},
             shape=_square_shape)
def matrix_square_root(input):  # noqa: A002 - TF's name
    """output = the principal square root X of each matrix A (X @ X = A, the
    eigenvalues of X in the right half plane): V diag(sqrt(w)) V^-1 from A's
    eigendecomposition (TF: Eigen's Schur method; the same X where A is
    diagonalizable). A real matrix with a negative real eigenvalue has no real
    square root: NaN (where Eigen puts NaN in part of the matrix)."""
    a = _square_input(input)
    if a.size == 0:
        return np.array(a)
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    w, v = np.linalg.eig(work)
    root = np.sqrt(w.astype(np.result_type(w.dtype, np.complex64)))
    out = np.matmul(v * root[..., None, :], np.linalg.inv(v))
    if not np.iscomplexobj(a):
        bad = np.any((w.imag == 0) & (w.real < 0), axis=-1) if np.iscomplexobj(w) else np.any(w < 0, axis=-1)
        out = np.where(bad[..., None, None], np.nan, out.real)
    return out.astype(a.dtype)


@register_op("MatrixLogarithm", inputs=("input",), type_attrs={"T": "input"},
             allowed={"T": (dtypes.complex64, dtypes.complex128)}, shape=_square_shape)
def matrix_logarithm(input):  # noqa: A002 - TF's name
    """output = the principal logarithm L of each complex matrix A (exp(L) = A,
    eigenvalues of L with imaginary parts in (-pi, pi]): V diag(log(w)) V^-1
    from A's eigendecomposition (TF: Eigen's Schur-Parlett method; the same L
    where A is diagonalizable)."""
    a = _square_input(input)
    if a.size == 0:
        return np.array(a)
    w, v = np.linalg.eig(a)
    return np.matmul(v * np.log(w)[..., None, :], np.linalg.inv(v)).astype(a.dtype)


@register_op("Cholesky", inputs=("input",), type_attrs={"T": "input"}, allowed={"T": _INV_TYPES}, shape=_square_shape)
def cholesky(input):  # noqa: A002 - TF's name
    """The lower-triangular ``L`` with ``input = L @ adjoint(L)``, read from the
    lower triangle of each (Hermitian positive definite) matrix. A matrix that
    is not positive definite gives NaNs, as TF's CPU kernel (TF leaves its
    upper triangle unwritten; here it is NaN too)."""
    a = _square_input(input)
    if a.size == 0:
        return np.array(a)
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    try:
        out = np.linalg.cholesky(work)
    except np.linalg.LinAlgError:  # TF 2.21's CPU kernel: no error, NaNs for that matrix
        flat = work.reshape((-1,) + work.shape[-2:])
        out = np.full_like(flat, np.nan)
        for i, m in enumerate(flat):
            try:
                out[i] = np.linalg.cholesky(m)
            except np.linalg.LinAlgError:
                pass
        out = out.reshape(work.shape)
    return out.astype(a.dtype, copy=False)


def _eig_shape(ins, attrs):
    s, d = ins["input"].shape, ins["input"].dtype
    real = dtypes.float32 if d == dtypes.complex64 else dtypes.float64 if d == dtypes.complex128 else d
    if s.ndims is None:
        return [(real, unknown_shape()), (d, unknown_shape())]
    (_, square), = _square_shape(ins, attrs)
    dims = square.as_list()
    v = TensorShape(dims) if attrs.get("compute_v", True) else TensorShape([0])
    return [(real, TensorShape(dims[:-1])), (d, v)]


@register_op("SelfAdjointEigV2", inputs=("input",), outputs=("e", "v"), attrs={"compute_v": True},
             type_attrs={"T": "input"}, allowed={"T": _INV_TYPES}, shape=_eig_shape)
def self_adjoint_eig_v2(input, compute_v=True):  # noqa: A002 - TF's name
    """Eigenvalues ``e`` (ascending) and eigenvectors ``v`` (columns) of each
    self-adjoint matrix, read from its lower triangle: ``input @ v = v @ diag(e)``.
    Eigenvector signs (phases) may differ from TF's Eigen solver.
    ``compute_v=False``: ``v`` is an empty ``[0]``."""
    a = _square_input(input)
    real = np.float32 if a.dtype == np.complex64 else np.float64 if a.dtype == np.complex128 else a.dtype
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    if not compute_v:
        return np.linalg.eigvalsh(work).astype(real), np.zeros([0], a.dtype)
    e, v = np.linalg.eigh(work)
    return e.astype(real), v.astype(a.dtype)
