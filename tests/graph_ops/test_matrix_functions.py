"""``tf.linalg.expm`` and ``tf.linalg.sqrtm`` run in a Session against TF 2.21's
``tf.compat.v1`` graphs: each Pade branch of expm (1-norms below each
threshold, and large enough to need squarings), batches of unknown shape,
empty matrices, a non-finite matrix (NaNs); sqrtm of SPD, general and complex
matrices and a real matrix with a negative eigenvalue (NaN); logm of complex
matrices (a negative real eigenvalue: the principal branch, +i pi)."""
import numpy as np
import pytest

import ref
from ref.graph_ops import linalg_matrix_functions as _under_test  # noqa: F401

RNG = np.random.default_rng(7)
M = RNG.normal(size=(3, 3))
NORM1 = np.abs(M).sum(0).max()
SCALES = (0.001, 0.1, 0.5, 1.5, 3.0, 40.0)  # 1-norms 0.001|M| ... 40|M|: every branch in both precisions
EXPM = [(f"{np.dtype(dt).name}-x{s}", (M * s / NORM1 * (1 if s < 1 else s)).astype(dt), dt)
        for dt in (np.float32, np.float64) for s in SCALES]
EXPM += [("complex128", (M + 1j * M.T).astype(np.complex128), np.complex128),
         ("complex64-batch", (np.stack([M, -M]) * (1 + 0.5j)).astype(np.complex64), np.complex64),
         ("empty", np.zeros((2, 0, 0), np.float32), np.float32),
         ("inf", np.float64([[1.0, np.inf], [0.0, 1.0]]), np.float64)]


def _run(tf, build, feed_value, dtype, unknown):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.as_dtype(dtype), [None] * feed_value.ndim if unknown else feed_value.shape)
        out = build(tf, x)
        with tf.Session() as sess:
            return sess.run(out, {x: feed_value})


@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown-shape"])
@pytest.mark.parametrize("rid,a,dtype", EXPM, ids=[r[0] for r in EXPM])
def test_expm_is_tensorflows(rid, a, dtype, unknown):
    real = pytest.importorskip("tensorflow")
    if rid == "empty" and unknown:
        pytest.skip("TF's expm of an unknown-shape empty batch fails inside its while loop")
    got = _run(ref, lambda tf, x: tf.linalg.expm(x), a, dtype, unknown)
    want = _run(real.compat.v1, lambda tf, x: tf.linalg.expm(x), a, dtype, unknown)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.nanmax(np.abs(want), initial=0)))


SPD = M @ M.T + np.eye(3)
SQRTM = [("spd-float32", SPD.astype(np.float32), np.float32, 1e-5),
         ("general-float64", M + 4 * np.eye(3), np.float64, 1e-12),
         ("rotation-like", np.float64([[1.0, -2.0], [3.0, 1.0]]), np.float64, 1e-12),
         ("complex64", (M + 1j * M.T).astype(np.complex64), np.complex64, 1e-5),
         ("negative-eigenvalue", np.float64([[1.0, 2.0], [3.0, -4.0]]), np.float64, 0.0)]


@pytest.mark.parametrize("rid,a,dtype,tol", SQRTM, ids=[r[0] for r in SQRTM])
def test_sqrtm_is_tensorflows(rid, a, dtype, tol):
    real = pytest.importorskip("tensorflow")
    got = _run(ref, lambda tf, x: tf.linalg.sqrtm(x), a, dtype, False)
    want = _run(real.compat.v1, lambda tf, x: tf.linalg.sqrtm(x), a, dtype, False)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.nanmax(np.abs(want), initial=1.0))


LOGM = [("complex128", (SPD + 1j * (M - M.T)).astype(np.complex128), np.complex128, 1e-12),
        ("complex64-batch", np.stack([SPD, M + 4 * np.eye(3)]).astype(np.complex64), np.complex64, 1e-5),
        ("negative-eigenvalue", np.complex128([[-2.0, 0.5], [0.0, 3.0]]), np.complex128, 1e-12)]


@pytest.mark.parametrize("rid,a,dtype,tol", LOGM, ids=[r[0] for r in LOGM])
def test_logm_is_tensorflows(rid, a, dtype, tol):
    real = pytest.importorskip("tensorflow")
    got = _run(ref, lambda tf, x: tf.linalg.logm(x), a, dtype, False)
    want = _run(real.compat.v1, lambda tf, x: tf.linalg.logm(x), a, dtype, False)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
