"""Special functions (TF's cwise Lgamma, Digamma, Zeta, Polygamma kernels):
each evaluated in float64 and rounded to the input's dtype.

* ``lgamma(x) = log|Gamma(x)|`` (C's ``lgamma``); +inf at the non-positive integers.
* ``digamma(x)``: shifted up by ``psi(x) = psi(x + 1) - 1/x`` until ``x >= 10``,
  then the asymptotic series ``log x - 1/(2x) - sum_k B_2k / (2k x^2k)``;
  below 0 the reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)``; NaN at the
  non-positive integers.
* ``zeta(x, q) = sum_{k>=0} (q + k)^-x`` (Hurwitz), by Euler-Maclaurin summation:
  the first terms directly, the tail as an integral plus Bernoulli corrections.
  NaN for ``x < 1``, +inf for ``x == 1`` and for ``q`` a non-positive integer,
  NaN for negative ``q`` with non-integer ``x``.
* ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` for integer ``n >= 1``,
  ``digamma(x)`` for ``n == 0``, NaN for other ``n``.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.ops._jit import njit
from ref.ops.registry import broadcast_rule, register_op, unary_shape

_F = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)
_F32_64 = (dtypes.float32, dtypes.float64)

# B_2k / (2k) for k = 1..8, the digamma asymptotic series' coefficients.
_PSI_SERIES = np.array([1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12, -3617 / 8160])
# (2k)! / B_2k for k = 1..12: the Euler-Maclaurin correction denominators of zeta.
_ZETA_A = np.array([12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
                    -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
                    1.8152105401943546773e17, -7.1661652561756670113e18])
_EPS = 1.1102230246251565e-16


@njit(inline="always")
def _digamma1(x, series):
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    shift = 0.0
    if x <= 0.0:
        if x == math.floor(x):
            return math.nan
        shift = -math.pi / math.tan(math.pi * x)  # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
        x = 1.0 - x
    while x < 10.0:
        shift -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    poly = 0.0
    for k in range(series.shape[0] - 1, -1, -1):
        poly = poly * z + series[k]
    return shift + math.log(x) - 0.5 / x - z * poly


@njit(inline="always")
def _zeta1(x, q, a_tab):
    if x == 1.0:
        return math.inf
    if x < 1.0 or math.isnan(x) or math.isnan(q):
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan  # (q + k)^-x is not real
    s = math.pow(q, -x)
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = math.pow(a, -x)
        s += b
        if abs(b / s) < _EPS:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    fact = 1.0
    k = 0.0
    for j in range(a_tab.shape[0]):
        fact *= x + k
        b /= w
        t = fact * b / a_tab[j]
        s += t
        if abs(t / s) < _EPS:
            return s
        k += 1.0
        fact *= x + k
        b /= w
        k += 1.0
    return s


@njit
def _lgamma_loop(x, out):
    for i in range(x.size):
        out[i] = math.lgamma(x[i]) if not (x[i] <= 0.0 and x[i] == math.floor(x[i])) else math.inf
    return out


@njit
def _digamma_loop(x, out, series):
    for i in range(x.size):
        out[i] = _digamma1(x[i], series)
    return out


@njit
def _zeta_loop(x, q, out, a_tab):
    for i in range(x.size):
        out[i] = _zeta1(x[i], q[i], a_tab)
    return out


@njit
def _polygamma_loop(n, x, out, series, a_tab):
    for i in range(x.size):
        m = n[i]
        if m != math.floor(m) or m < 0.0 or math.isnan(m):
            out[i] = math.nan
        elif m == 0.0:
            out[i] = _digamma1(x[i], series)
        else:
            sign = 1.0 if int(m) % 2 == 1 else -1.0
            out[i] = sign * math.exp(math.lgamma(m + 1.0)) * _zeta1(m + 1.0, x[i], a_tab)
    return out


def _flat64(*arrays):
    """The arrays broadcast together, as contiguous float64 vectors, and their shape."""
    b = np.broadcast_arrays(*[np.asarray(a) for a in arrays])
    return [np.ascontiguousarray(a, dtype=np.float64).reshape(-1) for a in b], b[0].shape


@register_op("Lgamma", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F}, shape=unary_shape)
def lgamma(x):
    """y = log|Gamma(x)| (C's ``lgamma`` in double, rounded to x's dtype)."""
    x = np.asarray(x)
    (flat,), shape = _flat64(x)
    return _lgamma_loop(flat, np.empty_like(flat)).astype(x.dtype).reshape(shape)


@register_op("Digamma", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F}, shape=unary_shape)
def digamma(x):
    """y = psi(x), the logarithmic derivative of Gamma (module docstring: recurrence,
    asymptotic series, reflection)."""
    x = np.asarray(x)
    (flat,), shape = _flat64(x)
    return _digamma_loop(flat, np.empty_like(flat), _PSI_SERIES).astype(x.dtype).reshape(shape)


@register_op("Zeta", inputs=("x", "q"), outputs=("z",), type_attrs={"T": ("x", "q")}, allowed={"T": _F32_64},
             shape=broadcast_rule("x", "q"))
def zeta(x, q):
    """z = sum_{k>=0} (q + k) ** -x, the Hurwitz zeta function (broadcasting)."""
    dt = np.asarray(x).dtype
    (fx, fq), shape = _flat64(x, q)
    return _zeta_loop(fx, fq, np.empty_like(fx), _ZETA_A).astype(dt).reshape(shape)


@register_op("Polygamma", inputs=("a", "x"), outputs=("z",), type_attrs={"T": ("a", "x")}, allowed={"T": _F32_64},
             shape=broadcast_rule("a", "x"))
def polygamma(a, x):
    """z = psi^(a)(x) = (-1) ** (a + 1) * a! * zeta(a + 1, x) (digamma for a == 0; broadcasting)."""
    dt = np.asarray(x).dtype
    (fa, fx), shape = _flat64(a, x)
    return _polygamma_loop(fa, fx, np.empty_like(fx), _PSI_SERIES, _ZETA_A).astype(dt).reshape(shape)


@njit
def _ndtri_loop(p, out):
    """The standard normal quantile by Newton's method on C's ``erf``/``erfc`` in
    double: in the centre ``erf(x / sqrt 2) = 2p - 1`` (exact for p in [1/4, 3/4],
    so Phi^-1(1/2) = 0 exactly), in the tails ``erfc(|x| / sqrt 2) / 2 = min(p, 1 - p)``."""
    r2 = math.sqrt(2.0)
    for i in range(p.size):
        y = p[i]
        if math.isnan(y) or y < 0.0 or y > 1.0:
            out[i] = math.nan
            continue
        if y == 0.0:
            out[i] = -math.inf
            continue
        if y == 1.0:
            out[i] = math.inf
            continue
        if 0.25 <= y <= 0.75:
            a = 2.0 * y - 1.0
            x = a * 1.2533141373155003  # sqrt(pi / 2) a: the slope at 0
            for _ in range(60):
                step = (math.erf(x / r2) - a) / (math.sqrt(2.0 / math.pi) * math.exp(-0.5 * x * x))
                x -= step
                if abs(step) <= 1e-17 * abs(x) or x == 0.0:
                    break
            out[i] = x
            continue
        q = y if y < 0.5 else 1.0 - y
        t = math.sqrt(-2.0 * math.log(q))
        z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1.0 + 1.432788 * t + 0.189269 * t * t
                                                                + 0.001308 * t * t * t)  # z = |x| > 0
        for _ in range(60):  # Newton on erfc(z / sqrt 2) / 2 - q, the upper tail mass at z
            dens = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
            if dens == 0.0:
                break
            step = (0.5 * math.erfc(z / r2) - q) / -dens
            z -= step
            if abs(step) <= 1e-17 * z:
                break
        out[i] = -z if y < 0.5 else z
    return out


_F16_64 = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)


@register_op("Ndtri", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F16_64},
             shape=unary_shape)
def ndtri(x):
    """y = the x-quantile of the standard normal distribution (Phi^-1): -inf at 0,
    +inf at 1, NaN outside [0, 1]."""
    x = np.asarray(x)
    (flat,), shape = _flat64(x)
    return _ndtri_loop(flat, np.empty_like(flat)).astype(x.dtype).reshape(shape)


@register_op("Erfinv", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _F16_64},
             shape=unary_shape)
def erfinv(x):
    """y with erf(y) = x: ``ndtri((x + 1) / 2) / sqrt(2)`` (+-inf at +-1, NaN beyond)."""
    x = np.asarray(x)
    (flat,), shape = _flat64(x)
    q = _ndtri_loop((flat + 1.0) / 2.0, np.empty_like(flat)) / math.sqrt(2.0)
    return q.astype(x.dtype).reshape(shape)
