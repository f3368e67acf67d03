"""``ref.ops.eigen_unary.log1p``: TF's float32 ``Log1p`` bit for bit (Eigen's
``generic_plog1p`` on whole packets, C's ``log1pf`` on the tail). Each row is an
input family through ``ref.raw_ops.Log1p`` and ``tf.raw_ops.Log1p`` (oneDNN
off); without TF, against the formula spelled out in NumPy over
``eigen_math.log`` and within 4 ULPs of NumPy's ``log1p``."""
import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_math

_RNG = np.random.RandomState(11)
INPUTS = {
    "logistic_loss_terms": np.exp(-np.abs(_RNG.randn(1001) * 5)).astype(np.float32),
    "wide": (_RNG.randn(4099) * 3).astype(np.float32),
    "specials": np.array([0, -0.0, 1e-8, -1, -2, np.inf, np.nan, 3e38, 1e-30, 5, 0.5, -0.5, 7, 9, 1e-3, 2e-7, 3],
                         np.float32),
    "tail_only": np.array([0.25, 3.0, 1e-6], np.float32),
}


def _same(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and bool(np.all((a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_log1p_is_tf(name):
    tf = pytest.importorskip("tensorflow")
    x = INPUTS[name]
    assert _same(raw_ops.Log1p(x=x), tf.raw_ops.Log1p(x=tf.constant(x)).numpy())


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_log1p_formula(name):
    x = INPUTS[name]
    got = raw_ops.Log1p(x=x)
    body = x.size - x.size % 8
    with np.errstate(all="ignore"):
        u = x[:body] + np.float32(1)
        lu = eigen_math.log(u)
        want = np.where((u == 1) | (u == lu), x[:body], x[:body] * (lu / (u - np.float32(1))))
        assert _same(got[:body], want)
        ref_np = np.log1p(x.astype(np.float64)).astype(np.float32)
    fin = np.isfinite(ref_np) & np.isfinite(got)
    d = np.abs(got[fin].view(np.int32).astype(np.int64) - ref_np[fin].view(np.int32))
    assert d.max(initial=0) <= 4
