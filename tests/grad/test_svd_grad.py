"""The Svd gradient (ref/grad/linalg_grad.py, singular values only) through
``tf.norm(ord=2)`` over two axes, against TF's values and gradients."""
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
