"""MatrixTriangularSolve / MatrixBandPart kernels and the Qr gradient,
compared with TensorFlow (tf.raw_ops and tensorflow.compat.v1 graphs)."""
import os

import numpy as np
import pytest

import ref
from ref import raw_ops
from ref.graph_ops import linalg_ops
from ref.grad import linalg_grad as _under_test  # noqa: F401  (the module these tests cover)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
RNG = np.random.RandomState(7)


def _tri_system(a_shape, b_shape, dtype):
    a = RNG.uniform(-1, 1, a_shape) + 3.0 * np.eye(a_shape[-1])
    return a.astype(dtype), RNG.uniform(-1, 1, b_shape).astype(dtype)


# (matrix shape, rhs shape, lower, adjoint, dtype)
SOLVES = [
    ([3, 3], [3, 2], True, False, np.float64),
    ([3, 3], [3, 2], False, False, np.float64),
    ([4, 4], [4, 1], True, True, np.float64),
    ([4, 4], [4, 3], False, True, np.float32),
    ([2, 3, 3], [3, 2], True, False, np.float64),     # batch broadcast: rhs has none
    ([1, 3, 3], [2, 3, 4], False, True, np.float64),  # batch broadcast: 1 vs 2
]


@pytest.mark.parametrize("a_shape,b_shape,lower,adjoint,dtype", SOLVES)
def test_matrix_triangular_solve_matches_tf(a_shape, b_shape, lower, adjoint, dtype):
    tf = pytest.importorskip("tensorflow")
    a, b = _tri_system(a_shape, b_shape, dtype)
    got = raw_ops.MatrixTriangularSolve(matrix=a, rhs=b, lower=lower, adjoint=adjoint)
    want = tf.raw_ops.MatrixTriangularSolve(matrix=a, rhs=b, lower=lower, adjoint=adjoint).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("shape,lo,up", [([3, 4], 1, 0), ([4, 3], -1, 0), ([4, 3], 0, -1), ([2, 3, 3], 0, 0),
                                         ([3, 5], 2, 1), ([3, 3], -1, -1)])
def test_matrix_band_part_matches_tf(shape, lo, up):
    tf = pytest.importorskip("tensorflow")
    x = RNG.uniform(-1, 1, shape).astype(np.float32)
    got = raw_ops.MatrixBandPart(input=x, num_lower=np.int64(lo), num_upper=np.int64(up))
    want = tf.raw_ops.MatrixBandPart(input=x, num_lower=np.int64(lo), num_upper=np.int64(up)).numpy()
    np.testing.assert_array_equal(got, want)


def test_matrix_band_part_rejects_too_wide_band():
    with pytest.raises(ref.types.errors.InvalidArgumentError, match="num_lower must be negative or less or equal"):
        raw_ops.MatrixBandPart(input=np.ones((2, 3)), num_lower=3, num_upper=0)


# (input shape, full_matrices)
QRS = [([3, 3], False), ([5, 3], False), ([2, 4], False), ([2, 4], True), ([3, 3], True), ([2, 4, 3], False)]


@pytest.mark.parametrize("shape,full", QRS)
def test_qr_gradient_matches_tf(shape, full):
    tf = pytest.importorskip("tensorflow").compat.v1
    a0 = RNG.uniform(-1, 1, shape)
    m, n = shape[-2:]
    k = m if full else min(m, n)
    wq = RNG.uniform(-1, 1, shape[:-2] + [m, k])
    wr = RNG.uniform(-1, 1, shape[:-2] + [k, n])
    results = []
    for lib, qr in ((tf, tf.linalg.qr), (ref, linalg_ops.qr)):
        with lib.Graph().as_default():
            a = lib.placeholder(lib.float64, shape)
            q, r = qr(a, full_matrices=full)
            loss = lib.reduce_sum(q * wq) + lib.reduce_sum(r * r * wr)
            (g,) = lib.gradients(loss, [a])
            with lib.Session() as s:
                results.append(s.run([q, g], {a: a0}))
    (q_tf, g_tf), (q_ref, g_ref) = results
    # LAPACK (ref) and Eigen (TF) agree on Householder signs for these inputs; check it first.
    np.testing.assert_allclose(q_ref, q_tf, atol=1e-12)
    np.testing.assert_allclose(g_ref, g_tf, rtol=1e-10, atol=1e-12)


def test_qr_gradient_unsupported_cases_raise_like_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib, qr in ((tf, tf.linalg.qr), (ref, linalg_ops.qr)):
        with lib.Graph().as_default():
            a = lib.placeholder(lib.float64, [4, 2])
            q, r = qr(a, full_matrices=True)
            with pytest.raises(NotImplementedError, match="nrows > ncols and full_matrices is true"):
                lib.gradients(lib.reduce_sum(q) + lib.reduce_sum(r), [a])
            b = lib.placeholder(lib.float64, [None, None])
            q, r = qr(b)
            with pytest.raises(NotImplementedError, match="dynamic shapes"):
                lib.gradients(lib.reduce_sum(q), [b])


def test_triangular_solve_gradient_matches_tf_with_batch_broadcast():
    tf = pytest.importorskip("tensorflow").compat.v1
    a0, b0 = _tri_system([2, 3, 3], [3, 2], np.float64)
    results = []
    for lib, solve in ((tf, tf.linalg.triangular_solve), (ref, linalg_ops.matrix_triangular_solve)):
        with lib.Graph().as_default():
            a = lib.placeholder(lib.float64, [2, 3, 3])
            b = lib.placeholder(lib.float64, [3, 2])
            x = solve(a, b, lower=True, adjoint=False)
            grads = lib.gradients(lib.reduce_sum(x * x), [a, b])
            with lib.Session() as s:
                results.append(s.run(grads, {a: a0, b: b0}))
    for got, want in zip(results[1], results[0]):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# complex inputs: (input shape, full_matrices, dtype, tolerance)
COMPLEX_QRS = [([3, 3], False, np.complex128, 1e-10), ([4, 2], False, np.complex128, 1e-10),
               ([2, 4], True, np.complex128, 1e-10), ([2, 3, 2], False, np.complex64, 2e-4)]


@pytest.mark.parametrize("shape,full,dtype,tol", COMPLEX_QRS)
def test_complex_qr_gradient_matches_tf(shape, full, dtype, tol):
    """TF's complex correction term; the loss (|q|, |r| weighted) is the same for
    any phase of a column of q and the matching row of r."""
    tf = pytest.importorskip("tensorflow").compat.v1
    a0 = (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)).astype(dtype)
    m, n = shape[-2:]
    k = m if full else min(m, n)
    real = np.float32 if dtype == np.complex64 else np.float64
    wq = RNG.uniform(-1, 1, shape[:-2] + [m, k]).astype(real)
    wr = RNG.uniform(-1, 1, shape[:-2] + [k, n]).astype(real)
    results = []
    for lib, qr in ((tf, tf.linalg.qr), (ref, linalg_ops.qr)):
        with lib.Graph().as_default():
            a = lib.placeholder(lib.as_dtype(dtype), shape)
            q, r = qr(a, full_matrices=full)
            loss = lib.reduce_sum(lib.abs(q) * wq) + lib.reduce_sum(lib.abs(r) * lib.abs(r) * wr)
            (g,) = lib.gradients(loss, [a])
            with lib.Session() as s:
                results.append(s.run(g, {a: a0}))
    assert results[1].dtype == results[0].dtype
    np.testing.assert_allclose(results[1], results[0], rtol=tol, atol=tol)


@pytest.mark.parametrize("decomposition,shape", [("qr", [3, 2]), ("qr", [2, 3]), ("svd", [3, 2]), ("svd", [2, 3])])
def test_complex_decomposition_gradient_checker(decomposition, shape):
    """ref's theoretical Jacobian of a phase-invariant function of a complex
    Qr / Svd against its own central differences (complex128)."""
    a0 = RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)
    with ref.Graph().as_default(), ref.Session():
        a = ref.constant(a0)
        outs = linalg_ops.qr(a) if decomposition == "qr" else linalg_ops.svd(a)
        y = ref.concat([ref.reshape(ref.abs(t) * ref.abs(t) if t.dtype.is_complex else t, [-1]) for t in outs], 0)
        theoretical, numerical = ref.test.compute_gradient(a, shape, y, y.shape.as_list(), x_init_value=a0, delta=1e-6)
    np.testing.assert_allclose(theoretical, numerical, atol=1e-6)
