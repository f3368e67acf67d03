"""Incomplete gamma and beta functions, modified Bessel functions and
``NextAfter`` (TF's cwise ``Igamma``, ``Igammac``, ``IgammaGradA``, ``Betainc``,
``BesselI0``/``I0e``/``I1``/``I1e`` and ``NextAfter`` kernels), each evaluated
in float64 and rounded to the input's dtype.

* ``igamma(a, x) = P(a, x) = gamma(a, x) / Gamma(a)``, the regularized lower
  incomplete gamma function, and ``igammac(a, x) = Q(a, x) = 1 - P(a, x)``
  (Eigen's split: the power series
  ``P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))`` when
  ``x <= 1`` or ``x <= a``, otherwise the continued fraction of ``Q``,
  ``Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...))``).
  ``P(a, 0) = 0``; NaN for ``a <= 0`` or ``x < 0``.
* ``igamma_grad_a(a, x) = dP(a, x) / da``: both expansions carried with their
  derivative in ``a`` (forward mode), with
  ``d/da log(x^a / Gamma(a)) = log x - digamma(a)``.
* ``betainc(a, b, x) = I_x(a, b) = B(x; a, b) / B(a, b)``, the regularized
  incomplete beta function: ``x^a (1 - x)^b / (a B(a, b))`` times the continued
  fraction ``1 / (1 + d_1 / (1 + d_2 / ...))`` with
  ``d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))`` and
  ``d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m))``, through
  ``I_x(a, b) = 1 - I_1-x(b, a)`` when ``x > (a + 1) / (a + b + 2)``. NaN for
  ``a <= 0``, ``b <= 0`` or ``x`` outside [0, 1].
* ``bessel_i0(x) = sum_k (x^2 / 4)^k / (k!)^2``,
  ``bessel_i1(x) = x / 2 * sum_k (x^2 / 4)^k / (k! (k + 1)!)``; ``bessel_i0e``,
  ``bessel_i1e`` are these times ``exp(-|x|)``. Above ``|x| = 30`` the
  asymptotic series
  ``I_v(x) e^-x = 1 / sqrt(2 pi x) sum_k (-1)^k prod_j (4 v^2 - (2j - 1)^2) / (k! (8x)^k)``.
* ``next_after(x1, x2)``: the representable number after ``x1`` towards ``x2``.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.ops._jit import njit
from ref.ops.registry import broadcast_rule, invalid_argument, register_op, unary_shape
from ref.ops.special_math import _PSI_SERIES, _digamma1

_F32_64 = (dtypes.float32, dtypes.float64)
_F = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)
_EPS = 2.0 ** -53
_BIG = 4503599627370496.0  # 2^52: the continued fractions' rescaling threshold
_MAXITER = 2000


@njit(inline="always")
def _igamma_series(a, x, want_derivative, series):
    """(P(a, x), dP/da) by the power series."""
    log_pre = a * math.log(x) - x - math.lgamma(a + 1.0)
    pre = math.exp(log_pre)
    term, dterm, total, dtotal = 1.0, 0.0, 1.0, 0.0
    r = a
    for _ in range(_MAXITER):
        r += 1.0
        dterm = dterm * x / r - term * x / (r * r)
        term *= x / r
        total += term
        dtotal += dterm
        if term <= total * _EPS and (not want_derivative or abs(dterm) <= abs(dtotal) * _EPS):
            break
    value = pre * total
    if not want_derivative:
        return value, 0.0
    return value, value * (math.log(x) - _digamma1(a + 1.0, series)) + pre * dtotal


@njit(inline="always")
def _igammac_cf(a, x, want_derivative, series):
    """(Q(a, x), dQ/da) by the continued fraction (p_k / q_k convergents, with
    their derivatives in a)."""
    log_pre = a * math.log(x) - x - math.lgamma(a)
    pre = math.exp(log_pre)
    y, z, c = 1.0 - a, x + 2.0 - a, 0.0
    pkm2, qkm2, pkm1, qkm1 = 1.0, x, x + 1.0, z * x
    dpkm2, dqkm2, dpkm1, dqkm1 = 0.0, 0.0, 0.0, -x
    ans = pkm1 / qkm1
    dans = (dpkm1 * qkm1 - pkm1 * dqkm1) / (qkm1 * qkm1)
    for _ in range(_MAXITER):
        c += 1.0
        y += 1.0
        z += 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        done = False
        if qk != 0.0:
            r = pk / qk
            dr = (dpk * qk - pk * dqk) / (qk * qk)
            t = abs((ans - r) / r) if r != 0.0 else 1.0
            dt = abs((dans - dr) / dr) if dr != 0.0 else 0.0
            ans, dans = r, dr
            done = t <= _EPS and (not want_derivative or dt <= _EPS)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
        if abs(pk) > _BIG:
            s = 1.0 / _BIG
            pkm2 *= s
            pkm1 *= s
            qkm2 *= s
            qkm1 *= s
            dpkm2 *= s
            dpkm1 *= s
            dqkm2 *= s
            dqkm1 *= s
        if done:
            break
    value = pre * ans
    if not want_derivative:
        return value, 0.0
    return value, value * (math.log(x) - _digamma1(a, series)) + pre * dans


@njit(inline="always")
def _igamma1(a, x, which, series):
    """which 0: P(a, x); 1: Q(a, x); 2: dP/da."""
    if math.isnan(a) or math.isnan(x) or a <= 0.0 or x < 0.0:
        return math.nan
    if x == 0.0:
        return 1.0 if which == 1 else 0.0
    if math.isinf(a):
        return (1.0 if which == 1 else 0.0) if not math.isinf(x) else math.nan
    if math.isinf(x):
        return 0.0 if which != 0 else 1.0
    want = which == 2
    if x <= 1.0 or x <= a:
        p, dp = _igamma_series(a, x, want, series)
        return p if which == 0 else (1.0 - p if which == 1 else dp)
    q, dq = _igammac_cf(a, x, want, series)
    return 1.0 - q if which == 0 else (q if which == 1 else -dq)


@njit
def _igamma_loop(a, x, out, which, series):
    for i in range(out.shape[0]):
        out[i] = _igamma1(a[i], x[i], which, series)


@njit(inline="always")
def _betacf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, _MAXITER):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) <= _EPS:
            break
    return h


@njit(inline="always")
def _betainc1(a, b, x):
    if math.isnan(a) or math.isnan(b) or math.isnan(x) or a <= 0.0 or b <= 0.0 or x < 0.0 or x > 1.0:
        return math.nan
    if x == 0.0 or x == 1.0:
        return x
    flip = x > (a + 1.0) / (a + b + 2.0)
    if flip:
        a, b, x = b, a, 1.0 - x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    value = math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - value if flip else value


@njit
def _betainc_loop(a, b, x, out):
    for i in range(out.shape[0]):
        out[i] = _betainc1(a[i], b[i], x[i])


@njit(inline="always")
def _bessel1(x, order, scaled):
    """I_order(x) (order 0 or 1), times exp(-|x|) when ``scaled``."""
    if math.isnan(x):
        return math.nan
    ax = abs(x)
    if ax <= 30.0:
        q = ax * ax / 4.0
        term = 1.0 if order == 0 else ax / 2.0
        total = term
        k = 0.0
        while True:
            k += 1.0
            term *= q / (k * (k + order))
            total += term
            if term <= total * _EPS:
                break
        value = total * math.exp(-ax) if scaled else total
    else:
        mu = 4.0 * order * order
        term, total, k = 1.0, 1.0, 0.0
        while k < 60.0:
            k += 1.0
            term *= -(mu - (2.0 * k - 1.0) ** 2) / (k * 8.0 * ax)
            total += term
            if abs(term) <= abs(total) * _EPS:
                break
        value = total / math.sqrt(2.0 * math.pi * ax)
        if not scaled:
            value = value * math.exp(ax) if ax < 700.0 else value * math.exp(ax / 2.0) * math.exp(ax / 2.0)
    return -value if order == 1 and x < 0.0 else value


@njit
def _bessel_loop(x, out, order, scaled):
    for i in range(out.shape[0]):
        out[i] = _bessel1(x[i], order, scaled)


def _broadcast64(*arrays):
    arrays = [np.asarray(v) for v in arrays]
    shape = np.broadcast_shapes(*(v.shape for v in arrays))
    flat = [np.ascontiguousarray(np.broadcast_to(v, shape), np.float64).reshape(-1) for v in arrays]
    return shape, arrays[0].dtype, flat


def _igamma_kernel(a, x, which):
    shape, dt, (fa, fx) = _broadcast64(a, x)
    out = np.empty(fa.shape[0], np.float64)
    _igamma_loop(fa, fx, out, which, _PSI_SERIES)
    return out.reshape(shape).astype(dt)


@register_op("Igamma", inputs=("a", "x"), outputs=("z",), type_attrs={"T": ("a", "x")}, allowed={"T": _F32_64},
             shape=broadcast_rule("a", "x"))
def igamma(a, x):
    """z = P(a, x), the regularized lower incomplete gamma function."""
    return _igamma_kernel(a, x, 0)


@register_op("Igammac", inputs=("a", "x"), outputs=("z",), type_attrs={"T": ("a", "x")}, allowed={"T": _F32_64},
             shape=broadcast_rule("a", "x"))
def igammac(a, x):
    """z = Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    return _igamma_kernel(a, x, 1)


@register_op("IgammaGradA", inputs=("a", "x"), outputs=("z",), type_attrs={"T": ("a", "x")},
             allowed={"T": _F32_64}, shape=broadcast_rule("a", "x"))
def igamma_grad_a(a, x):
    """z = dP(a, x) / da."""
    return _igamma_kernel(a, x, 2)


def _betainc_shape(ins, attrs):
    shapes = [ins[n].shape for n in ("a", "b", "x")]
    known = [s for s in shapes if s.ndims is not None and s.ndims > 0]
    out = known[0] if known else shapes[0]
    for s in known[1:]:
        try:
            out = out.merge_with(s)
        except ValueError:
            raise ValueError(f"Shapes of a, b and x are inconsistent: {shapes[0]} vs. {shapes[1]} vs. {shapes[2]} "
                             f"for '{attrs['_op_name']}' (op: 'Betainc')") from None
    return [(ins["a"].dtype, out)]


@register_op("Betainc", inputs=("a", "b", "x"), outputs=("z",), type_attrs={"T": ("a", "b", "x")}, allowed={"T": _F32_64},
             shape=_betainc_shape)
def betainc(a, b, x):
    """z = I_x(a, b), the regularized incomplete beta function; a, b and x are
    scalars or of one shape (TF does not broadcast them otherwise)."""
    arrays = [np.asarray(v) for v in (a, b, x)]
    shapes = {v.shape for v in arrays if v.ndim > 0}
    if len(shapes) > 1:
        raise invalid_argument("Shapes of a, b, and x are inconsistent: "
                               + " vs. ".join(str(list(v.shape)) for v in arrays))
    shape, dt, (fa, fb, fx) = _broadcast64(*arrays)
    out = np.empty(fa.shape[0], np.float64)
    _betainc_loop(fa, fb, fx, out)
    return out.reshape(shape).astype(dt)


def _bessel(x, order, scaled):
    x = np.asarray(x)
    flat = np.ascontiguousarray(x, np.float64).reshape(-1)
    out = np.empty(flat.shape[0], np.float64)
    _bessel_loop(flat, out, order, scaled)
    return out.reshape(x.shape).astype(x.dtype)


@register_op("BesselI0", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F}, shape=unary_shape)
def bessel_i0(x):
    """y = I0(x), the modified Bessel function of order 0."""
    return _bessel(x, 0, False)


@register_op("BesselI0e", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F}, shape=unary_shape)
def bessel_i0e(x):
    """y = exp(-|x|) I0(x)."""
    return _bessel(x, 0, True)


@register_op("BesselI1", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F}, shape=unary_shape)
def bessel_i1(x):
    """y = I1(x), the modified Bessel function of order 1."""
    return _bessel(x, 1, False)


@register_op("BesselI1e", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F}, shape=unary_shape)
def bessel_i1e(x):
    """y = exp(-|x|) I1(x)."""
    return _bessel(x, 1, True)


@register_op("NextAfter", inputs=("x1", "x2"), type_attrs={"T": ("x1", "x2")}, allowed={"T": _F32_64},
             shape=broadcast_rule("x1", "x2"))
def next_after(x1, x2):
    """output = the representable number after x1 in the direction of x2 (C's nextafter)."""
    x1, x2 = np.asarray(x1), np.asarray(x2)
    return np.nextafter(x1, x2).astype(x1.dtype, copy=False)
