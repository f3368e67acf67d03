"""RandomGammaGrad (d sample / d alpha of Gamma(alpha, 1) samples) against
tf.raw_ops.RandomGammaGrad, and the RandomGamma gradient rule against
tf.gradients of tf.random.gamma with the same samples fed in both graphs."""
import os

import numpy as np
import pytest

import ref
from ref import raw_ops
from ref.graph_ops import random_ops
from ref.grad import random_grad as _under_test  # noqa: F401  (the module these tests cover)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# (alpha, sample) pairs covering both branches: the series (x <= 1 or x <= alpha)
# and the continued fraction (x > 1 and x > alpha); tiny, zero and large values.
ALPHA = np.array([0.01, 0.1, 0.5, 1.0, 1.0, 2.5, 2.5, 7.0, 30.0, 100.0, 0.3, 5.0, 1e-3, 200.0, 2.0, 0.7])
SAMPLE = np.array([1e-5, 0.3, 0.2, 0.5, 3.0, 0.7, 6.0, 4.0, 28.0, 120.0, 2.0, 0.0, 1e-30, 180.0, 1.0, 15.0])

# Tolerances: TF computes in the input dtype, ref in float64 rounded to it.
# float64: both are the converged series / continued fraction (relative 1e-12);
# float32: TF's float32 evaluation carries its own rounding (relative 5e-5).
TOL = {np.float64: 1e-12, np.float32: 5e-5}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random_gamma_grad_kernel_matches_tf(dtype):
    tf = pytest.importorskip("tensorflow")
    a, x = ALPHA.astype(dtype), SAMPLE.astype(dtype)
    got = raw_ops.RandomGammaGrad(alpha=a, sample=x)
    want = tf.raw_ops.RandomGammaGrad(alpha=a, sample=x).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=0)


def test_random_gamma_grad_kernel_broadcasts_and_rejects_bad_input():
    tf = pytest.importorskip("tensorflow")
    a = np.array([[0.5], [3.0]])
    x = np.array([0.1, 1.0, 4.0, -1.0])
    got = raw_ops.RandomGammaGrad(alpha=a, sample=x)
    want = tf.raw_ops.RandomGammaGrad(alpha=a, sample=x).numpy()
    assert got.shape == (2, 4)
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    assert np.isnan(got[:, 3]).all()  # negative sample: NaN, as TF


def test_random_gamma_grad_matches_finite_difference_of_the_cdf():
    """Independent oracle: x(alpha) at a fixed CDF level u, found by bisection on
    a float64 quadrature of the gamma density; central difference in alpha."""
    from math import lgamma

    def cdf(a, x, n=20001):
        t = np.linspace(0.0, x, n)[1:]
        f = np.exp((a - 1) * np.log(t) - t - lgamma(a))
        return float(np.trapezoid(np.concatenate([[0.0], f]), dx=x / (n - 1)))  # a > 1: density 0 at 0

    def quantile(a, u):
        lo, hi = 1e-9, 60.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if cdf(a, mid) < u else (lo, mid)
        return 0.5 * (lo + hi)

    for a, x in [(2.5, 1.7), (4.0, 6.5)]:
        u, h = cdf(a, x), 1e-4
        fd = (quantile(a + h, u) - quantile(a - h, u)) / (2 * h)
        got = raw_ops.RandomGammaGrad(alpha=np.float64(a), sample=np.float64(x))
        assert abs(got - fd) < 1e-4 * abs(fd), (a, x, got, fd)


def _gamma_program(lib, gamma, alpha0, n, feed_sample):
    with lib.Graph().as_default():
        alpha = lib.placeholder(lib.float64, alpha0.shape)
        sample = gamma([n, 2], alpha, dtype=lib.float64, seed=3)
        weights = lib.constant(np.linspace(-1.0, 2.0, n * 2 * alpha0.size).reshape([n, 2] + list(alpha0.shape)))
        loss = lib.reduce_sum(lib.square(sample) * weights)
        (g,) = lib.gradients(loss, [alpha])
        raw = next(op for op in lib.get_default_graph().get_operations() if op.type == "RandomGamma").outputs[0]
        with lib.Session() as s:
            return s.run(g, {alpha: alpha0, raw: feed_sample})


@pytest.mark.parametrize("alpha0", [np.array([0.5, 2.0, 7.5]), np.array([[1.5, 0.2], [3.0, 12.0]])])
def test_random_gamma_gradient_matches_tf_on_fed_samples(alpha0):
    tf = pytest.importorskip("tensorflow").compat.v1
    n = 4
    rng = np.random.RandomState(1)
    fed = rng.gamma(np.broadcast_to(alpha0, [n, 2] + list(alpha0.shape)))
    want = _gamma_program(tf, tf.random.gamma, alpha0, n, fed)
    got = _gamma_program(ref, random_ops.random_gamma, alpha0, n, fed)
    assert got.shape == alpha0.shape
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # The rule itself: d/dalpha sum(w * s^2) = sum_samples w * 2 s * dsample/dalpha.
    w = np.linspace(-1.0, 2.0, fed.size).reshape(fed.shape)
    partial = raw_ops.RandomGammaGrad(alpha=np.broadcast_to(alpha0, fed.shape).copy(), sample=fed)
    np.testing.assert_allclose(got, (w * 2 * fed * partial).sum(axis=(0, 1)), rtol=1e-10)


def test_random_gamma_has_no_gradient_for_shape():
    with ref.Graph().as_default():
        shape = ref.placeholder(ref.int32, [1])
        alpha = ref.placeholder(ref.float32, [])
        s = ref.framework.op_def_library.apply_op("RandomGamma", shape=shape, alpha=alpha)
        g_shape, g_alpha = ref.gradients(s, [shape, alpha])
        assert g_shape is None and g_alpha is not None
