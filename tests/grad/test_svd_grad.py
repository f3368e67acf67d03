"""The Svd gradient (ref/grad/linalg_grad.py): singular values only through
``tf.norm(ord=2)`` over two axes, and through u and v (TF's _SvdGrad: reduced and full,
real and complex), against TF's values and gradients."""
import numpy as np
import pytest

import ref
from ref.grad import linalg_grad as _under_test  # noqa: F401

RNG = np.random.default_rng(5)


def _norm2_and_grad(lib, x):
    with lib.Graph().as_default():
        t = lib.constant(x)
        n = lib.norm(t, ord=2, axis=(-2, -1))
        g = lib.gradients(lib.reduce_sum(n), [t])[0]
        with lib.Session() as sess:
            return sess.run([n, g])


@pytest.mark.parametrize("x", [RNG.standard_normal((3, 4)), RNG.standard_normal((2, 4, 3)).astype(np.float32)],
                         ids=["float64", "batched_float32"])
def test_matrix_2_norm_gradient_equals_tf(x):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _norm2_and_grad(tf, x)
    got = _norm2_and_grad(ref, x)
    tol = 1e-5 if x.dtype == np.float32 else 1e-12
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _uv_loss_and_grad(lib, x, full_matrices, w):
    """s, |u| and |v| weighted (the same for either sign / phase of a singular
    vector pair, so LAPACK's and Eigen's choices agree) and the gradient."""
    with lib.Graph().as_default():
        t = lib.constant(x)
        s, u, v = lib.linalg.svd(t, full_matrices=full_matrices)
        loss = (lib.reduce_sum(s * w[0][:s.shape.as_list()[-1]]) + lib.reduce_sum(lib.abs(u) * w[1][:u.shape[-1]])
                + lib.reduce_sum(lib.abs(v) * w[2][:v.shape[-1]]))
        g = lib.gradients(loss, [t])[0]
        with lib.Session() as sess:
            return sess.run([loss, g])


def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


UV_ROWS = [  # (id, x, full_matrices, tolerance)
    ("wide_float64", RNG.standard_normal((3, 4)), False, 1e-10),
    ("tall_float64", RNG.standard_normal((5, 3)), False, 1e-10),
    ("square_batched_float64", RNG.standard_normal((2, 3, 3)), False, 1e-10),
    ("wide_full_float64", RNG.standard_normal((3, 4)), True, 1e-10),
    ("tall_full_batched_float64", RNG.standard_normal((2, 4, 3)), True, 1e-10),
    ("tall_float32", RNG.standard_normal((4, 3)).astype(np.float32), False, 2e-4),
    ("wide_complex128", _complex((2, 4)), False, 1e-10),
    ("tall_full_complex64", _complex((3, 2)).astype(np.complex64), True, 2e-4),
]


@pytest.mark.parametrize("x,full_matrices,tol", [r[1:] for r in UV_ROWS], ids=[r[0] for r in UV_ROWS])
def test_gradient_through_u_and_v_equals_tf(x, full_matrices, tol):
    tf = pytest.importorskip("tensorflow").compat.v1
    real = np.float32 if x.dtype in (np.float32, np.complex64) else np.float64
    w = [RNG.uniform(0.5, 1.5, max(x.shape[-2:])).astype(real) for _ in range(3)]
    want = _uv_loss_and_grad(tf, x, full_matrices, w)
    got = _uv_loss_and_grad(ref, x, full_matrices, w)
    for g, wv in zip(got, want):
        assert g.dtype == wv.dtype and g.shape == wv.shape
        np.testing.assert_allclose(g, wv, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(2, 5), (5, 2)])
def test_full_matrices_gradient_far_from_square_raises_as_tf(shape):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default():
            t = lib.constant(RNG.standard_normal(shape))
            _, u, _ = lib.linalg.svd(t, full_matrices=True)
            with pytest.raises(NotImplementedError, match=r"abs\(m - n\) > 1 when full_matrices is True"):
                lib.gradients(lib.reduce_sum(lib.abs(u)), [t])
