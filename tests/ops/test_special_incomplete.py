"""Incomplete gamma/beta, modified Bessel and NextAfter kernels against
``tf.raw_ops`` (TensorFlow 2.21's Eigen kernels), row by row: float64 within a
few units of 1e-15 (relative, or absolute near 0), float32 within TF's own
float32 error (its Eigen kernels compute in float32; ref's in float64 and round);
the special values (0, 1, NaN, out-of-domain) exactly."""
import numpy as np
import pytest

from ref import raw_ops
from ref.ops import special_incomplete as _under_test  # noqa: F401
from ref.golden.ulp import max_ulp

F32, F64 = np.float32, np.float64
_R = np.random.RandomState(11)


def _pos(n, scale=3.0, shift=1e-3):
    return _R.gamma(1.0, scale, n) + shift


A, X = _pos(400), _pos(400, shift=0.0)
B, U = _pos(400), _R.uniform(0.0, 1.0, 400)
Z = _R.randn(400) * 15
# (op, kwargs) over float64 inputs: each row runs in float32 and float64
VALUE_ROWS = {
    "Igamma": {"a": A, "x": X},
    "Igammac": {"a": A, "x": X},
    "IgammaGradA": {"a": A, "x": X},
    "Igamma-broadcast": {"a": A[:5, None], "x": X[None, :7]},
    "Igamma-large": {"a": _pos(50, 300.0, 20.0), "x": _pos(50, 300.0, 20.0)},
    "Betainc": {"a": A, "b": B, "x": U},
    "Betainc-scalar-a": {"a": np.float64(2.5), "b": B, "x": U},
    "BesselI0": {"x": Z},
    "BesselI0e": {"x": Z},
    "BesselI1": {"x": Z},
    "BesselI1e": {"x": Z},
    "NextAfter": {"x1": Z, "x2": Z[::-1].copy()},
}
# (absolute, relative) tolerance per dtype: TF's float32 kernels run in float32
TOL = {F32: (4e-6, 2e-5), F64: (1e-13, 5e-13)}
BESSEL_ULP = 16  # Eigen's Cephes Chebyshev expansions vs ref's power/asymptotic series, measured 5-15


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("row", sorted(VALUE_ROWS))
def test_values_as_tf_raw_ops(row, dt):
    tf = pytest.importorskip("tensorflow")
    op = row.split("-")[0]
    kw = {k: np.asarray(v).astype(dt) for k, v in VALUE_ROWS[row].items()}
    want = getattr(tf.raw_ops, op)(**{k: tf.constant(v) for k, v in kw.items()}).numpy()
    got = getattr(raw_ops, op)(**kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    if op.startswith("Bessel"):
        assert max_ulp(got, want) <= BESSEL_ULP
    elif op == "NextAfter":
        np.testing.assert_array_equal(got, want)
    else:
        atol, rtol = TOL[dt]
        if op == "IgammaGradA":  # a derivative: TF's own float64 error is ~1e-13 of its scale
            atol, rtol = atol * 10, rtol * 10
        np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)


NAN, INF = np.nan, np.inf
SPECIAL_ROWS = {
    "Igamma": {"a": [0.0, 1.0, -1.0, 2.0, INF, 1.0, NAN, 3.0], "x": [1.0, 0.0, 1.0, -1.0, 1.0, INF, 1.0, NAN]},
    "Igammac": {"a": [0.0, 1.0, -1.0, 2.0, INF, 1.0, NAN, 3.0], "x": [1.0, 0.0, 1.0, -1.0, 1.0, INF, 1.0, NAN]},
    "Betainc": {"a": [0.0, 1.0, 1.0, 2.0, 1.0, -1.0, 2.0], "b": [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 3.0],
                "x": [0.5, 0.5, 1.5, 0.0, 1.0, 0.5, -0.1]},
    "BesselI0": {"x": [0.0, -0.0, NAN, 1e-30]},
    "BesselI1": {"x": [0.0, -0.0, NAN, 1e-30, -2.0]},
    "BesselI1e": {"x": [0.0, NAN, 1e-30, -2.0, 700.0]},
    "BesselI0e": {"x": [0.0, NAN, 1e-30, 700.0, -1e4]},
}


@pytest.mark.parametrize("row", sorted(SPECIAL_ROWS))
def test_special_values_as_tf(row):
    tf = pytest.importorskip("tensorflow")
    kw = {k: np.asarray(v, F64) for k, v in SPECIAL_ROWS[row].items()}
    want = getattr(tf.raw_ops, row)(**{k: tf.constant(v) for k, v in kw.items()}).numpy()
    got = getattr(raw_ops, row)(**kw)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0, equal_nan=True)


def test_betainc_shapes_must_agree_as_tf():
    tf = pytest.importorskip("tensorflow")
    import ref
    kw = {"a": np.ones(3), "b": np.ones(2), "x": np.full(3, 0.5)}
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.raw_ops.Betainc(**kw)
    with pytest.raises(ref.errors.InvalidArgumentError):
        raw_ops.Betainc(**kw)
