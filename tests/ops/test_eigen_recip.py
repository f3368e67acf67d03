"""``ref.ops.eigen_recip``: TF's float32 ``Reciprocal`` bit for bit.

Each row is an input family run through ``ref.raw_ops.Reciprocal`` and, when
TF is installed, through ``tf.raw_ops.Reciprocal`` (oneDNN plays no part in
it): the bits must be equal (any NaN for a NaN). Sizes that are not a multiple
of the packet (8) check the scalar tail. Without TF: the packet part within 2
ULPs of NumPy's correctly rounded ``1 / x``, the tail equal to it, and the
specials (zeros, infinities, NaN) as IEEE gives them (``rcpps`` itself reads
and writes subnormals as zero, so those are TF's rows' business). The TF rows run ref
inside ``fpenv.flush_denormals`` (TF's FTZ/DAZ)."""
import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_recip, fpenv

_RNG = np.random.RandomState(3)
_SPECIAL = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1.17e-38, 2e-38, 1.0, 2.0, 0.75,
                     3.0, 1e30, -1e30, 3.4e38, 8.5e37, -7.0, 0.1, 1e-37], np.float32)

INPUTS = {
    "unit_range": (_RNG.rand(4096) * 4 + 0.25).astype(np.float32),
    "normal_wide": (_RNG.randn(1003) * 100).astype(np.float32),
    "sigmoid_denominators": (1 + np.exp(-_RNG.randn(101, 7) * 3)).astype(np.float32),
    "specials_in_packets": np.concatenate([_SPECIAL, np.ones(4, np.float32)]),
    "tail_only": np.array([3.0, 7.0, -0.3], np.float32),
    "every_mantissa_top_bits": ((np.arange(4096, dtype=np.int32) << 11) | np.int32(127 << 23)).view(np.float32),
}


def _bits_equal(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    nan = np.isnan(a)
    return a.shape == b.shape and np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.int32), b[~nan].view(np.int32))


def _ulps(a, b):
    ai, bi = (np.asarray(v, np.float32).view(np.int32).astype(np.int64) for v in (a, b))
    return np.abs(ai - bi)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_reciprocal_is_tf(name):
    tf = pytest.importorskip("tensorflow")
    x = INPUTS[name]
    want = tf.raw_ops.Reciprocal(x=tf.constant(x)).numpy()
    with fpenv.flush_denormals():
        got = raw_ops.Reciprocal(x=x)
    assert _bits_equal(got, want)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_reciprocal_against_division(name):
    x = INPUTS[name]
    got = eigen_recip.reciprocal(x).reshape(-1)
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        exact = np.float32(1) / flat
    body = flat.size - flat.size % eigen_recip.PACKET
    assert _bits_equal(got[body:], exact[body:])
    finite = np.isfinite(exact[:body]) & (np.abs(exact[:body]) >= np.float32(2.0 ** -126)) & (np.abs(flat[:body]) > np.float32(2.0 ** -125))
    assert _ulps(got[:body][finite], exact[:body][finite]).max(initial=0) <= 2
    tiny = np.float32(2.0 ** -126)
    special = (np.abs(flat[:body]) < tiny) | ~np.isfinite(flat[:body])  # zeros, subnormals (divided), inf, NaN
    assert _bits_equal(got[:body][special], exact[:body][special])


def test_graph_reciprocal_keeps_shape_and_dtype():
    import ref
    x = INPUTS["sigmoid_denominators"]
    p = ref.placeholder(ref.float32, [None, 7])
    with ref.Session() as s:
        got = s.run(ref.reciprocal(p), {p: x})
    assert got.dtype == np.float32 and got.shape == x.shape
    assert _bits_equal(got, eigen_recip.reciprocal(x))
