"""``ref.ops.eigen_unary``: TF's ``Expm1``, ``Log1p``, ``Erf``, ``Softplus``, ``Elu``,
``Selu``, ``SigmoidGrad``/``TanhGrad`` and float16/bfloat16 ``Sigmoid`` bit for bit.

Each row is an input family run through ``ref.raw_ops`` and ``tf.raw_ops`` (TF's
subnormal flushing on both sides), bits equal (any NaN for a NaN). Families hit
every select of the functors: tiny inputs (``exp(x) == 1``, ``x + 1 == 1``),
overflow (``log(u) == u``), ``exp(x) - 1 == -1``, ``x <= -1`` for ``Log1p``,
``Erf``'s clamps, ``Softplus``'s thresholds per dtype, subnormals, NaN/inf, sizes
with ``n % 8 != 0`` (the scalar tail through the C library) and float16/bfloat16.
Without TF: the compiled loops equal their NumPy forms (IEEE and flushing), and
hand-worked elements follow the formulas (and sit within a few ULPs of the true
function)."""
import math
import os

import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_math, eigen_unary, fpenv
from ref.types import dtypes

_RNG = np.random.RandomState(11)
_BF16 = dtypes.bfloat16.as_numpy_dtype
_SPECIAL = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 2.8e-42, -1e-40, 1.17e-38, 2e-38,
                     1e-8, -1e-8, 3e-8, 6e-8, -6e-8, 1e-4, -1e-4, 0.5, -0.5, 1, -1, -0.999, -0.99999994,
                     -1.0000001, -2, 3.9, 4, 4.1, -4, 7.01, -7.01, 13.94, -13.94, 13.95, -13.95, 15, -15, 16.6,
                     -16.6, 20, -20, 88.7, 88.73, 89, -87.3, -88.8, -103.9, -104.1, -150, 1e30, -1e30, 3.4e38,
                     -3.4e38], np.float32)

UNARY = ("Expm1", "Log1p", "Erf", "Softplus", "Elu", "Selu")


def _f32(a):
    return np.asarray(a, np.float32)


INPUTS = {
    # name: (array (None: one tensor per size 1..17), ops)
    "normal_4099": (_f32(_RNG.randn(4099) * 4), UNARY),
    "sizes_1_to_17": (None, UNARY),
    "matrix_7x13": (_f32(_RNG.randn(7, 13) * 3), UNARY),
    "wide": (_f32(np.concatenate([_RNG.randn(3000) * 40, np.exp(_RNG.randn(3001) * 30) *
                                  _RNG.choice([-1, 1], 3001)])), UNARY),
    "tiny": (_f32(np.exp(_RNG.uniform(-100, -2, 2003)) * _RNG.choice([-1, 1], 2003)), UNARY),
    "near_minus_one": (_f32(-1 + np.exp(_RNG.uniform(-18, 0, 1003))), ("Log1p",)),
    "below_minus_one": (_f32(-1 - np.exp(_RNG.uniform(-18, 5, 203))), ("Log1p",)),
    "specials": (_SPECIAL, UNARY),
    "clamps": (_f32(np.concatenate([np.linspace(-20, 20, 4001), np.linspace(-110, -80, 301),
                                    np.linspace(80, 95, 151)])), UNARY),
    "float16": (np.asarray(np.concatenate([_RNG.randn(2003) * 4, np.linspace(-12, 12, 961)]), np.float16), UNARY),
    "bfloat16": (np.asarray(np.concatenate([_RNG.randn(2005) * 4, np.linspace(-12, 12, 961)]), _BF16), UNARY),
    "float16_specials": (_SPECIAL.astype(np.float16), UNARY),
    "bfloat16_specials": (_SPECIAL.astype(_BF16), UNARY),
}

_ARG = {"Softplus": "features", "Elu": "features", "Selu": "features"}


def _cases():
    for name, (x, ops) in INPUTS.items():
        xs = [_f32(_RNG.randn(n) * 6) for n in range(1, 18)] if x is None else [x]
        for op in ops:
            yield pytest.param(op, xs, id=f"{op}-{name}")


def _same_bits(want, got):
    want, got = np.asarray(want), np.asarray(got)
    assert want.dtype == got.dtype and want.shape == got.shape
    nan = np.isnan(want.astype(np.float64)) & np.isnan(got.astype(np.float64))
    kind = {2: np.uint16, 4: np.uint32, 8: np.uint64}[want.itemsize]
    bad = ~((want.view(kind) == got.view(kind)) | nan)
    assert not bad.any(), f"{int(bad.sum())} of {want.size} differ: got {got[bad][:5]}, want {want[bad][:5]}"


def _ref(op, **kw):
    """``ref.raw_ops.<op>`` under TF's subnormal flushing."""
    with fpenv.flush_denormals(), np.errstate(all="ignore"):
        return getattr(raw_ops, op)(**kw)


@pytest.mark.parametrize("op, xs", list(_cases()))
def test_equals_tensorflow(op, xs):
    tf = pytest.importorskip("tensorflow")
    for x in xs:
        want = getattr(tf.raw_ops, op)(**{_ARG.get(op, "x"): tf.constant(x)}).numpy()
        _same_bits(want, _ref(op, **{_ARG.get(op, "x"): x}))


_GRAD_SIZES = (1, 7, 8, 9, 15, 16, 17, 1003, 4096)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, _BF16, np.float64], ids=["f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("op", ["SigmoidGrad", "TanhGrad"])
def test_gradients_equal_tensorflow(op, dtype):
    tf = pytest.importorskip("tensorflow")
    for n in _GRAD_SIZES:
        x = _RNG.randn(n) * 4
        y = (1 / (1 + np.exp(-x)) if op == "SigmoidGrad" else np.tanh(x)).astype(dtype)
        dy = (_RNG.randn(n) * 3).astype(dtype)
        want = getattr(tf.raw_ops, op)(y=tf.constant(y), dy=tf.constant(dy)).numpy()
        _same_bits(want, _ref(op, y=y, dy=dy))


@pytest.mark.parametrize("dtype", [np.float16, _BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("family", ["normal", "wide", "specials"])
def test_half_sigmoid_equals_tensorflow(dtype, family):
    tf = pytest.importorskip("tensorflow")
    x = {"normal": _RNG.randn(2003) * 4, "wide": np.linspace(-80, 80, 3203), "specials": _SPECIAL}[family]
    for v in (x, x[:13], x[:5]):
        v = v.astype(dtype)
        _same_bits(tf.raw_ops.Sigmoid(x=tf.constant(v)).numpy(), _ref("Sigmoid", x=v))


# ---------------------------------------------------------------------------
# Without TF
# ---------------------------------------------------------------------------

_LOOPS = {"Expm1": eigen_unary._expm1_loop, "Log1p": eigen_unary._log1p_loop, "Erf": eigen_unary._erf_loop}


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled loops")
@pytest.mark.parametrize("flush", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("op, xs", [c for c in _cases() if c.values[0] in _LOOPS
                                    and c.values[1][0].dtype == np.float32])
def test_numpy_form_is_the_loop(op, xs, flush):
    loop = _LOOPS[op]
    for x in xs:
        x = x.reshape(-1)
        body = x.size - x.size % eigen_math.PACKET
        want, got = np.empty_like(x), np.empty_like(x)
        with (fpenv.flush_denormals() if flush else np.errstate()), np.errstate(all="ignore"):
            loop(x, got, body)
            eigen_unary._FORMS[loop](x, want, body)
        _same_bits(want, got)


def _ulps(a, b):
    a, b = np.float32(a), np.float32(b)
    ia, ib = (int(np.asarray(v).view(np.int32)) for v in (a, b))
    ia, ib = (i if i >= 0 else -(i & 0x7FFFFFFF) for i in (ia, ib))
    return abs(ia - ib)


_F = np.float32


@pytest.mark.parametrize("x", [0.5, -0.5, 2.0, -3.0, 1e-3, 10.0, 0.1])
def test_expm1_packet_by_hand(x):
    """A packet lane is ``(u - 1) * (x / log(u))`` with Eigen's exp and log; the tail is expm1f."""
    v = np.full(9, x, np.float32)
    u = eigen_math.exp(v[:8])[0]
    by_hand = (u - _F(1)) * (_F(x) / eigen_math.log(np.full(8, u, np.float32))[0])
    got = eigen_unary.expm1(v)
    assert got[0] == by_hand
    assert _ulps(got[0], math.expm1(x)) <= 4 and _ulps(got[8], math.expm1(x)) <= 1


@pytest.mark.parametrize("x, want", [(1e-9, 1e-9), (-1e-8, -1e-8), (-100.0, -1.0), (-np.inf, -1.0),
                                     (89.0, np.inf), (np.inf, np.inf)])
def test_expm1_selects(x, want):
    """``u == 1`` gives x itself, ``u - 1 == -1`` gives -1, ``log(u) == u`` gives u (+inf)."""
    got = eigen_unary.expm1(np.full(8, x, np.float32))
    assert got[0] == np.float32(want) and np.signbit(got[0]) == np.signbit(np.float32(want))


@pytest.mark.parametrize("x", [0.5, -0.5, 3.0, 1e-3, -0.999, 1e5])
def test_log1p_packet_by_hand(x):
    v = np.full(9, x, np.float32)
    u = _F(x) + _F(1)
    by_hand = _F(x) * (eigen_math.log(np.full(8, u, np.float32))[0] / (u - _F(1)))
    got = eigen_unary.log1p(v)
    assert got[0] == by_hand
    assert _ulps(got[0], math.log1p(_F(x))) <= 4 and _ulps(got[8], math.log1p(_F(x))) <= 1


@pytest.mark.parametrize("x, want", [(1e-9, 1e-9), (-1.0, -np.inf), (-2.0, np.nan), (np.inf, np.inf)])
def test_log1p_selects(x, want):
    got = eigen_unary.log1p(np.full(8, x, np.float32))[0]
    assert (np.isnan(got) and np.isnan(want)) or got == np.float32(want)


def test_log1p_flushes_a_subnormal_packet_lane_not_the_tail():
    """Measured in TF 2.21 under its flushing: a subnormal in a packet gives a signed 0,
    ``log1pf`` on the tail returns it."""
    x = np.full(12, 2.8e-42, np.float32)
    x[[3, 10]] *= -1
    with fpenv.flush_denormals():
        got = eigen_unary.log1p(x)
    assert (got[:8] == 0).all() and np.signbit(got[3]) and not np.signbit(got[0])
    assert (got[8:].view(np.uint32) == x[8:].view(np.uint32)).all()
    assert (eigen_unary.log1p(x).view(np.uint32) == x.view(np.uint32)).all()  # IEEE: x itself


@pytest.mark.parametrize("x", [0.0, 0.1, -0.3, 0.9, 1.5, -2.5, 3.9, 4.5, -10.0])
def test_erf_by_hand(x):
    """``x * P(x2) / Q(x2)``, Horner with each step rounded, x2 = min(x * x, 16), clamped to [-1, 1]."""
    a, b = eigen_unary._ERF_ALPHA, eigen_unary._ERF_BETA
    x2 = min(_F(x) * _F(x), _F(16))
    p, q = a[0], b[0]
    for i in range(1, 6):
        p, q = p * x2 + a[i], q * x2 + b[i]
    by_hand = min(max((_F(x) * p) / q, _F(-1)), _F(1))
    got = eigen_unary.erf(np.full(9, x, np.float32))
    assert got[0] == by_hand and got[8] == by_hand
    assert _ulps(got[0], math.erf(x)) <= 3


@pytest.mark.parametrize("x, want", [(np.inf, 1.0), (-np.inf, -1.0), (np.nan, np.nan), (-0.0, -0.0)])
def test_erf_specials(x, want):
    got = eigen_unary.erf(np.full(8, x, np.float32))[0]
    assert (np.isnan(got) and np.isnan(want)) or (got == want and np.signbit(got) == np.signbit(want))


@pytest.mark.parametrize("dtype, want", [(np.float32, -13.942385), (np.float16, -7.008), (_BF16, -2.84375)],
                         ids=["f32", "f16", "bf16"])
def test_softplus_threshold(dtype, want):
    """``log(NumTraits<T>::epsilon()) + 2`` in T; Eigen's float16 epsilon is 2^-13."""
    t = eigen_unary.softplus_threshold(np.dtype(dtype))
    assert t.dtype == np.dtype(dtype) and t == np.asarray(want, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, _BF16], ids=["f32", "f16", "bf16"])
def test_softplus_branches(dtype):
    """x above -t, exp(x) below t, log1p(exp(x)) (exp rounded to T first) between."""
    t = float(eigen_unary.softplus_threshold(np.dtype(dtype)))
    x = np.asarray([-t + 0.5, t - 0.5, 0.25, -0.25, -t + 0.5, t - 0.5, 1.0, -1.0, 0.5], dtype)
    got = raw_ops.Softplus(features=x)
    e = eigen_math.exp(x)
    assert got[0] == x[0] and got[1] == e[1]
    assert got[2] == eigen_unary.log1p(e)[2]
    assert abs(float(got[6]) - math.log1p(math.exp(1.0))) < 4 * float(np.finfo(np.float16).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, _BF16], ids=["f32", "f16", "bf16"])
def test_elu_selu_use_eigen_exp(dtype):
    x = np.asarray(np.linspace(-5, 5, 21), dtype)
    one = np.asarray(1, dtype)
    e = eigen_math.exp(x)
    want_elu = np.where(x < 0, e - one, x)
    scale = np.asarray(np.float32(eigen_unary.SELU_SCALE)).astype(dtype)
    scale_alpha = np.asarray(np.float32(eigen_unary.SELU_SCALE_ALPHA)).astype(dtype)
    want_selu = np.where(x < 0, scale_alpha * (e - one), scale * x)
    _same_bits(want_elu.astype(dtype), raw_ops.Elu(features=x))
    _same_bits(want_selu.astype(dtype), raw_ops.Selu(features=x))


def _order_sensitive(dtype, count):
    """(y, dy) pairs whose two products differ: ``dy * (y * (1 - y)) != (dy * y) * (1 - y)``."""
    rng = np.random.RandomState(5)
    y, dy = rng.uniform(0.01, 0.99, 4000).astype(dtype), rng.randn(4000).astype(dtype)
    one = np.asarray(1, dtype)
    differ = dy * (y * (one - y)) != (dy * y) * (one - y)
    return y[differ][:count], dy[differ][:count]


@pytest.mark.parametrize("dtype, packet", [(np.float32, 8), (np.float16, 8), (np.float64, 4)],
                         ids=["f32", "f16", "f64"])
@pytest.mark.parametrize("n", [3, 8, 11, 19])
def test_sigmoid_grad_orders(dtype, packet, n):
    """Packets: ``dy * (y * (1 - y))``; the last ``n % packet`` elements: ``(dy * y) * (1 - y)``."""
    y, dy = _order_sensitive(dtype, n)
    one = np.asarray(1, dtype)
    got = raw_ops.SigmoidGrad(y=y, dy=dy)
    body = n - n % packet
    _same_bits((dy * (y * (one - y)))[:body], got[:body])
    _same_bits(((dy * y) * (one - y))[body:], got[body:])


@pytest.mark.parametrize("shape, order", [((), "C"), ((3, 5), "F"), ((4, 5), "C"), ((2, 3, 3), "F")])
def test_sigmoid_grad_flat_order(shape, order):
    """Packets and tail by position in C order (TF's flat tensor), whatever the array's layout."""
    n = int(np.prod(shape))
    y, dy = _order_sensitive(np.float32, n)
    one = np.float32(1)
    want = np.concatenate([(dy * (y * (one - y)))[:n - n % 8], ((dy * y) * (one - y))[n - n % 8:]])
    y, dy = (np.asarray(v.reshape(shape), order=order) for v in (y, dy))
    got = raw_ops.SigmoidGrad(y=y, dy=dy)
    assert got.shape == shape
    _same_bits(want, np.asarray(got).reshape(-1))
