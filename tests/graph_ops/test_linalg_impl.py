"""``tf.linalg`` LU / pinv / matrix_rank / lstsq / tridiagonal / normalize
builders against TensorFlow: the same GraphDef (``_graphdef.py``) and the same
values (TF's CPU kernels, run in a TF1 graph), row by row; gradients through
the new ops in tests/grad/test_checker.py."""
import contextlib

import numpy as np
import pytest

import ref
from ref.graph_ops import linalg_impl as _under_test  # noqa: F401
from _graphdef import assert_same_graph, ref_and_tf_values

_R = np.random.RandomState(7)
A44 = _R.randn(2, 4, 4)
B43 = _R.randn(2, 4, 3)
A33 = np.array([[0.0, 2.0, 1.0], [3.0, -1.0, 0.5], [1.0, 1.0, 4.0]], np.float32)  # needs a row swap
TALL = _R.randn(5, 3)
WIDE = _R.randn(2, 5)
RHS5 = _R.randn(5, 2)
DIAGS = _R.randn(2, 3, 5)
RHS_T = _R.randn(2, 5, 2)


def lu_factors(tf):
    return list(tf.linalg.lu(tf.constant(A44))) + list(tf.linalg.lu(A33, output_idx_type=tf.int64))


def lu_solve_2d(tf):
    lu, p = tf.linalg.lu(A33)
    return tf.linalg.lu_solve(lu, p, A33[:, :2] + 1.0)


def lu_solve_batched(tf):
    lu, p = tf.linalg.lu(tf.constant(A44))
    return tf.linalg.lu_solve(lu, p, B43)


def lu_inverse_and_reconstruct_2d(tf):
    lu, p = tf.linalg.lu(A33)
    return [tf.linalg.lu_matrix_inverse(lu, p), tf.linalg.lu_reconstruct(lu, p)]


def lu_inverse_batched(tf):
    lu, p = tf.linalg.lu(tf.constant(A44))
    return tf.linalg.lu_matrix_inverse(lu, p, name="inv")


def lu_reconstruct_batched(tf):
    lu, p = tf.linalg.lu(tf.constant(A44))
    return tf.linalg.lu_reconstruct(lu, p)


def pinvs(tf):
    return [tf.linalg.pinv(TALL), tf.linalg.pinv(tf.constant(WIDE, tf.float32), rcond=0.1),
            tf.linalg.pinv(np.outer([1.0, 2.0, 3.0], [1.0, -1.0]))]


def pinv_unknown_shape(tf):
    x = tf.placeholder_with_default(TALL, [None, None])
    return tf.linalg.pinv(x)


def matrix_ranks(tf):
    return [tf.linalg.matrix_rank(TALL), tf.linalg.matrix_rank(np.outer([1.0, 2.0], [3.0, 4.0, 5.0])),
            tf.linalg.matrix_rank(tf.constant(A44, tf.float32), tol=0.5),
            tf.linalg.matrix_rank(tf.placeholder_with_default(TALL, [None, 3]))]


def lstsqs(tf):
    return [tf.linalg.lstsq(TALL, RHS5), tf.linalg.lstsq(WIDE, RHS5[:2], l2_regularizer=0.5),
            tf.matrix_solve_ls(TALL, RHS5, l2_regularizer=0.1, fast=False),
            tf.linalg.lstsq(tf.constant(TALL, tf.float32), RHS5.astype(np.float32), fast=False)]


def lstsq_unknown_shape(tf):
    m = tf.placeholder_with_default(WIDE, [None, None])
    return tf.linalg.lstsq(m, RHS5[:2], l2_regularizer=0.25)


def tridiagonal_solves(tf):
    full = np.diag(DIAGS[0, 1]) + np.diag(DIAGS[0, 0, :-1], 1) + np.diag(DIAGS[0, 2, 1:], -1)
    c = tf.constant
    return [tf.linalg.tridiagonal_solve(c(DIAGS), c(RHS_T)),
            tf.linalg.tridiagonal_solve(c(DIAGS), c(RHS_T[:, :, 0]), partial_pivoting=False),
            tf.linalg.tridiagonal_solve(c(DIAGS[0]), c(RHS_T[0].T), transpose_rhs=True, perturb_singular=True),
            tf.linalg.tridiagonal_solve((c(DIAGS[0, 0, :-1]), c(DIAGS[0, 1]), c(DIAGS[0, 2, 1:])), c(RHS_T[0]),
                                        diagonals_format="sequence"),
            tf.linalg.tridiagonal_solve(c(full), c(RHS_T[0]), diagonals_format="matrix")]


def tridiagonal_matmuls(tf):
    full = np.diag(DIAGS[1, 1]) + np.diag(DIAGS[1, 0, :-1], 1) + np.diag(DIAGS[1, 2, 1:], -1)
    seq = [tf.constant(d) for d in DIAGS[1]]
    return [tf.linalg.tridiagonal_matmul(DIAGS, RHS_T), tf.linalg.tridiagonal_matmul(tf.constant(full), RHS_T[1],
                                                                                     "matrix"),
            tf.linalg.tridiagonal_matmul(seq, RHS_T[1], "sequence")]


def normalizes(tf):
    return list(tf.linalg.normalize(A44)) + list(tf.linalg.normalize(tf.constant(B43, tf.float32), ord=1,
                                                                      axis=[-2, -1]))


def singular_tridiagonal(tf):
    d = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])  # rows 0 and 1 equal: singular
    rhs = np.array([[1.0], [2.0], [3.0]])
    d, rhs = tf.constant(d), tf.constant(rhs)
    return [tf.linalg.tridiagonal_solve(d, rhs, partial_pivoting=False),
            tf.linalg.tridiagonal_solve(d, rhs, perturb_singular=True)]


def tridiagonal_gradients(tf):
    d = tf.placeholder(tf.float64, [2, 3, 5], name="d")
    r = tf.placeholder(tf.float64, [2, 5, 2], name="r")
    du = tf.placeholder(tf.float32, [None, 3, None], name="du")
    ru = tf.placeholder(tf.float32, [None, None, 2], name="ru")
    tf.gradients([tf.linalg.tridiagonal_solve(d, r, perturb_singular=True), tf.linalg.tridiagonal_matmul(d, r)],
                 [d, r])
    tf.gradients([tf.linalg.tridiagonal_solve(du, ru, partial_pivoting=False), tf.linalg.tridiagonal_matmul(du, ru)],
                 [du, ru])


def solve_ls_op_gradients(tf):
    # a batch this large and I/O bound makes TF build the fused MatrixSolveLs op
    tall = tf.placeholder(tf.float64, [4000, 3, 2], name="tall")
    wide = tf.placeholder(tf.float64, [4000, 2, 3], name="wide")
    rhs = tf.placeholder(tf.float64, [4000, 3, 1], name="rhs")
    tf.gradients([tf.linalg.lstsq(tall, rhs, l2_regularizer=0.5), tf.linalg.lstsq(wide, rhs[:, :2])], [tall, wide, rhs])


def lstsq_composite_gradients(tf):
    m = tf.placeholder(tf.float32, [5, 3], name="m")
    tf.gradients(tf.linalg.lstsq(m, RHS5.astype(np.float32), l2_regularizer=0.25), [m])


GRADIENT_ROWS = [tridiagonal_gradients, solve_ls_op_gradients, lstsq_composite_gradients]
ROWS = [lu_factors, lu_solve_2d, lu_solve_batched, lu_inverse_and_reconstruct_2d, lu_inverse_batched,
        lu_reconstruct_batched, pinvs, pinv_unknown_shape, matrix_ranks, lstsqs, lstsq_unknown_shape,
        tridiagonal_solves, tridiagonal_matmuls, normalizes, singular_tridiagonal]
# lu_reconstruct of a batch maps invert_permutation over it (map_fn: TF1 while loop and TensorArrays)
GRAPH_ROWS = [r for r in ROWS if r is not lu_reconstruct_batched]


@pytest.mark.parametrize("snippet", GRAPH_ROWS + GRADIENT_ROWS, ids=lambda f: f.__name__)
def test_same_graph_as_tf(snippet):
    assert_same_graph(lambda tf: [snippet(tf)] and None)


@pytest.mark.parametrize("snippet", ROWS, ids=lambda f: f.__name__)
def test_values_as_tf(snippet):
    ours, theirs = ref_and_tf_values(snippet)
    ours, theirs = (o if isinstance(o, list) else [o] for o in (ours, theirs))
    for a, b in zip(ours, theirs):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        tol = 1e-4 if a.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


class _GraphRaw:
    """``tf.raw_ops``-style graph builders for ref (keyword inputs -> apply_op)."""

    def __getattr__(self, op_type):
        from ref.framework.op_def_library import apply_op
        return lambda **kw: apply_op(op_type, **kw)


ERROR_ROWS = {
    "lu_singular": (lambda lib, raw: lib.linalg.lu(np.zeros((2, 2))), ref.errors.InvalidArgumentError),
    "lu_not_square": (lambda lib, raw: lib.linalg.lu(np.zeros((2, 3))), ValueError),
    "solve_ls_rank_deficient": (lambda lib, raw: raw.MatrixSolveLs(
        matrix=np.ones((3, 2)), rhs=np.ones((3, 1)), l2_regularizer=np.float64(0.0)), ref.errors.InvalidArgumentError),
    "solve_ls_negative_l2": (lambda lib, raw: raw.MatrixSolveLs(
        matrix=np.ones((3, 2)), rhs=np.ones((3, 1)), l2_regularizer=np.float64(-1.0), fast=False),
        ref.errors.InvalidArgumentError),
    "tridiagonal_four_rows": (lambda lib, raw: raw.TridiagonalSolve(diagonals=np.ones((4, 3)), rhs=np.ones((3, 1))),
                              ValueError),
    "pinv_of_ints": (lambda lib, raw: lib.linalg.pinv(lib.constant(np.ones((2, 2), np.int32))), TypeError),
    "matrix_rank_of_vector": (lambda lib, raw: lib.linalg.matrix_rank(np.ones(3)), ValueError),
    "perturb_without_pivoting": (lambda lib, raw: lib.linalg.tridiagonal_solve(
        lib.constant(np.ones((3, 3))), lib.constant(np.ones((3, 1))), partial_pivoting=False, perturb_singular=True),
        ValueError),
}


@pytest.mark.parametrize("row", sorted(ERROR_ROWS))
def test_errors_as_tf(row):
    real_tf = pytest.importorskip("tensorflow")
    tf1 = real_tf.compat.v1
    import _graphdef
    build, kind = ERROR_ROWS[row]
    for lib, raw in ((ref, _GraphRaw()), (tf1, real_tf.raw_ops)):
        err = getattr(tf1.errors, kind.__name__) if lib is tf1 and issubclass(kind, ref.errors.OpError) else kind
        ctx = _graphdef.tf1_behaviour() if lib is tf1 else contextlib.nullcontext()
        with ctx, lib.Graph().as_default():
            with pytest.raises(err):
                out = build(lib, raw)
                with lib.Session() as s:
                    s.run(out)
