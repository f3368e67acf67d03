"""``ref.ops.eigen_recip``: TF's float32 ``Reciprocal`` and ``Rsqrt`` bit for bit.

Each row is an input family run through ``ref.raw_ops.Reciprocal``/``Rsqrt``
and, when TF is installed, through ``tf.raw_ops`` (oneDNN plays no part in
them): the bits must be equal (any NaN for a NaN). Sizes that are not a
multiple of the packet (8) check the scalar tail. The TF rows run ref inside
``fpenv.flush_denormals`` (TF's FTZ/DAZ).

Without TF: the CPU's bare estimate within its documented bound
(``1.5 * 2**-12`` relative), the Newton step recomputed by hand from that
estimate in NumPy (every rounding spelt out), the tail equal to the correctly
rounded ``1 / x`` and ``1 / sqrt(x)``, the specials (zeros, infinities, NaN,
subnormals outside ``flush_denormals``) as IEEE gives them; and the loops build
with no Numba in the process.
"""
import os
import subprocess
import sys
import textwrap

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
    "every_exponent": np.exp2(np.arange(-126, 128, 0.37)).astype(np.float32),
    "sigmoid_denominators": (1 + np.exp(-_RNG.randn(101, 7) * 3)).astype(np.float32),
    "variances_plus_eps": (_RNG.rand(3, 37) ** 4 + 1e-3).astype(np.float32),
    "specials_in_packets": np.concatenate([_SPECIAL, np.ones(4, np.float32)]),
    "tail_only": np.array([3.0, 7.0, -0.3], np.float32),
    "every_mantissa_top_bits": ((np.arange(4096, dtype=np.int32) << 11) | np.int32(127 << 23)).view(np.float32),
    "odd_exponent_mantissas": ((np.arange(4096, dtype=np.int32) << 11) | np.int32(128 << 23)).view(np.float32),
}
OPS = {"Reciprocal": (eigen_recip.reciprocal, lambda x: np.float32(1) / x),
       "Rsqrt": (eigen_recip.rsqrt, lambda x: np.float32(1) / np.sqrt(x))}
needs_x86 = pytest.mark.skipif(not eigen_recip.AVAILABLE, reason="rcpps/rsqrtps are x86-64 instructions")


def _bits_equal(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    nan = np.isnan(a)
    return a.shape == b.shape and np.array_equal(nan, np.isnan(b)) and \
        np.array_equal(a[~nan].view(np.int32), b[~nan].view(np.int32))


def _ulps(a, b):
    ai, bi = (np.asarray(v, np.float32).view(np.int32).astype(np.int64) for v in (a, b))
    return np.abs(ai - bi)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_equals_tensorflow(op, name):
    tf = pytest.importorskip("tensorflow")
    x = INPUTS[name]
    want = getattr(tf.raw_ops, op)(x=tf.constant(x)).numpy()
    with fpenv.flush_denormals():
        got = getattr(raw_ops, op)(x=x)
    assert _bits_equal(got, want)


HALF_NAMES = ["unit_range", "normal_wide", "variances_plus_eps", "tail_only", "every_mantissa_top_bits"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("name", HALF_NAMES)
def test_halves_equal_tensorflow(op, dtype, name):
    """float16/bfloat16: TF widens whole packets to float32, runs the float32 packet
    form and rounds once; the tail is the scalar functor in the half type."""
    tf = pytest.importorskip("tensorflow")
    from ref.types import dtypes
    dt = dtypes.as_dtype(dtype).as_numpy_dtype
    x = INPUTS[name].astype(dt)
    want = getattr(tf.raw_ops, op)(x=tf.constant(x)).numpy()
    with fpenv.flush_denormals():
        got = getattr(raw_ops, op)(x=x)
    assert got.dtype == want.dtype
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(nan, np.isnan(got.astype(np.float32)))
    assert np.array_equal(got[~nan].view(np.int16), want[~nan].view(np.int16))


@needs_x86
@pytest.mark.parametrize("kind", ["rcp", "rsqrt"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_estimate_within_documented_bound(kind, name):
    x = INPUTS[name].reshape(-1)
    x = x[np.isfinite(x) & (x > np.float32(2.0 ** -126)) & (x < np.float32(2.0 ** 126))]  # normal in, normal out
    r = eigen_recip.estimate(kind, x).astype(np.float64)
    exact = 1 / x.astype(np.float64) if kind == "rcp" else 1 / np.sqrt(x.astype(np.float64))
    assert np.abs(r / exact - 1).max(initial=0) <= eigen_recip.ESTIMATE_REL_ERROR
    assert np.any(r != exact.astype(np.float32)) or x.size < 64  # an estimate, not the quotient


def _newton_by_hand(kind, x, r):
    """Eigen's Newton step from the estimate ``r``, each operation a rounded float32 NumPy one."""
    f = np.float32
    with np.errstate(all="ignore"):
        if kind == "rcp":
            t = f(1) - x * r
            return np.where(np.isnan(t), r, r * t + r)
        h = (x * r) * r + f(-1)
        y = (r * f(-0.5)) * h + r
        return np.where(np.isnan(y), r, y)


@needs_x86
@pytest.mark.parametrize("kind", ["rcp", "rsqrt"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_packets_are_the_newton_step_of_the_estimate(kind, name):
    fn, exact = OPS["Reciprocal" if kind == "rcp" else "Rsqrt"]
    x = INPUTS[name].reshape(-1)
    got = fn(x)
    body = x.size - x.size % eigen_recip.PACKET
    normal = ~((np.abs(x) < np.float32(2.0 ** -126)) & (x != 0))  # subnormals are divided (below)
    xb, gb = x[:body][normal[:body]], got[:body][normal[:body]]
    assert _bits_equal(gb, _newton_by_hand(kind, xb, eigen_recip.estimate(kind, xb)))
    with np.errstate(all="ignore"):
        assert _bits_equal(got[body:], exact(x[body:]))  # the scalar functor on the tail


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_against_correctly_rounded(op, name):
    fn, exact_of = OPS[op]
    x = INPUTS[name]
    got = fn(x).reshape(-1)
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        exact = exact_of(flat)
    body = flat.size - flat.size % eigen_recip.PACKET
    assert _bits_equal(got[body:], exact[body:])
    tiny = np.float32(2.0 ** -126)
    finite = np.isfinite(exact[:body]) & (np.abs(exact[:body]) >= tiny) & (np.abs(flat[:body]) > 2 * tiny)
    assert _ulps(got[:body][finite], exact[:body][finite]).max(initial=0) <= 2
    special = (np.abs(flat[:body]) < tiny) | ~np.isfinite(flat[:body]) | (flat[:body] < 0) * (op == "Rsqrt")
    assert _bits_equal(got[:body][special], exact[:body][special])  # zeros, subnormals, inf, NaN, sqrt(<0)


@needs_x86
@pytest.mark.parametrize("op", sorted(OPS))
def test_flush_denormals_reads_subnormals_as_zero(op):
    fn, _ = OPS[op]
    x = np.array([1e-40, -1e-40, 1e-45, -3e-39, 2.0, 4.0, 1e-41, 5e-39], np.float32)
    with fpenv.flush_denormals():
        got = fn(x)
    zero = np.where(np.signbit(x), np.float32(-0.0), np.float32(0.0))
    want = fn(zero)
    want[[4, 5]] = fn(np.full(8, 2.0, np.float32))[0], fn(np.full(8, 4.0, np.float32))[0]
    assert _bits_equal(got, want)


def test_graph_ops_keep_shape_and_dtype():
    import ref
    x = INPUTS["sigmoid_denominators"]
    p = ref.placeholder(ref.float32, [None, 7])
    with ref.Session() as s:
        r, q = s.run([ref.reciprocal(p), ref.rsqrt(p)], {p: x})
    for got, fn in ((r, eigen_recip.reciprocal), (q, eigen_recip.rsqrt)):
        assert got.dtype == np.float32 and got.shape == x.shape
        assert _bits_equal(got, fn(x))


NO_NUMBA = textwrap.dedent("""
    import sys
    import numpy as np
    from ref.ops import eigen_recip
    x = np.linspace(0.5, 9, 37, dtype=np.float32)
    eigen_recip.reciprocal(x), eigen_recip.rsqrt(x)
    print("numba" in sys.modules)
""")


def test_loops_build_without_numba(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}  # an empty object cache too
    out = subprocess.run([sys.executable, "-c", NO_NUMBA], env=env, capture_output=True, text=True, timeout=300,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False"]


FIRST_STEP = textwrap.dedent("""
    import sys
    import numpy as np
    import ref as tf
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4, 4, 3).astype(np.float32)
    labels = rng.randint(0, 10, 64)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4, 4, 3])
        y = tf.placeholder(tf.int64, [None])
        h = tf.layers.batch_normalization(p, training=True, fused=True)
        m, v = tf.nn.moments(h, [0, 1, 2])
        h = tf.nn.batch_normalization(h, m, v, None, None, 1e-3)
        logits = tf.layers.dense(tf.reshape(h, [-1, 48]), 10)
        probs = tf.nn.softmax(logits)
        inv = tf.reciprocal(tf.reduce_sum(probs, 1) + 1.)
        loss = -tf.reduce_mean(tf.log(tf.gather(tf.reshape(probs, [-1]), tf.range(64) * 10 + tf.cast(y, tf.int32))))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss + tf.reduce_sum(inv))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run([train, loss, probs], {p: x, y: labels})
    print("numba" in sys.modules)
""")


def test_first_step_with_softmax_and_batch_norm_loads_no_numba(tmp_path):
    """A first training step with ``Softmax``, ``Reciprocal``, ``FusedBatchNorm`` and
    ``tf.nn.batch_normalization``'s ``Rsqrt`` (and their gradients) loads no Numba."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for k in ("REF_NUMPY_MAX", "REF_NUMPY_BUDGET_S"):
        env.pop(k, None)
    out = subprocess.run([sys.executable, "-c", FIRST_STEP], env=env, capture_output=True, text=True, timeout=600,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False"]


# -- the gradients: TF's functors' packet and scalar forms --------------------------------

GRADS = {"SqrtGrad": lambda y: np.sqrt(y), "RsqrtGrad": lambda y: 1 / np.sqrt(y),
         "ReciprocalGrad": lambda y: 1 / y, "InvGrad": lambda y: 1 / y}
EXACT_GRADS = {"SqrtGrad": lambda y, d: 0.5 * d / y, "RsqrtGrad": lambda y, d: -0.5 * d * y ** 3,
               "ReciprocalGrad": lambda y, d: -d * y * y, "InvGrad": lambda y, d: -d * y * y}


def _grad_inputs(op, dtype, n):
    rng = np.random.RandomState(n)
    y = GRADS[op]((rng.rand(n) * 4 + 0.1).astype(dtype)).astype(dtype)
    dy = rng.randn(n).astype(dtype)
    dy[::7] = 0
    y[::11] = np.inf  # times a zero dy: 0, not NaN
    return y, dy


@pytest.mark.parametrize("n", [10003, 64, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(GRADS))
def test_gradients_equal_tensorflow(op, dtype, n):
    tf = pytest.importorskip("tensorflow")
    y, dy = _grad_inputs(op, dtype, n)
    want = getattr(tf.raw_ops, op)(y=tf.constant(y), dy=tf.constant(dy)).numpy()
    with fpenv.flush_denormals():
        got = getattr(raw_ops, op)(y=y, dy=dy)
    assert got.dtype == want.dtype and np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(got[ok].view(f"i{want.itemsize}"), want[ok].view(f"i{want.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(GRADS))
def test_gradients_against_exact_formula(op, dtype):
    y, dy = _grad_inputs(op, dtype, 1003)
    with np.errstate(all="ignore"):
        got = getattr(raw_ops, op)(y=y, dy=dy)
        exact = EXACT_GRADS[op](y.astype(np.longdouble), dy.astype(np.longdouble)).astype(dtype)
    zero = dy == 0
    assert np.array_equal(got[zero].view(f"i{got.itemsize}"), np.zeros(zero.sum(), f"i{got.itemsize}"))  # +0
    fin = ~zero & np.isfinite(exact)
    gi, ei = (v[fin].view(f"i{got.itemsize}").astype(np.int64) for v in (got, exact))
    assert np.abs(gi - ei).max() <= 3
