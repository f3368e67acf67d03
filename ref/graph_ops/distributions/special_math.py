"""The normal distribution's functions as TF's ``distributions/special_math.py``
builds them from ``erf``/``erfc``/``log``:

* ``ndtr(x) = 0.5 (1 + erf(x/sqrt2))`` for ``|x|/sqrt2 < 1/sqrt2``, else
  ``0.5 (2 - erfc(|w|))`` (w > 0) or ``0.5 erfc(|w|)``;
* ``log_ndtr``: ``-ndtr(-x)`` above 5 (float32; 8 for float64), ``log(ndtr(x))``
  above -10 (-20), below it the asymptotic series
  ``log(phi(x)/-x) + log(1 + sum_n (-1)^n (2n-1)!! / x^(2n))``;
* ``ndtri``: Cephes' rational approximations (three ranges of p);
* ``log_cdf_laplace(x) = x - log 2`` (x < 0) or ``log1p(-exp(-|x|)/2)``.
"""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, math_ops

__all__ = ["ndtr", "ndtri", "log_ndtr", "log_cdf_laplace"]

LOGNDTR_FLOAT64_LOWER = np.array(-20, np.float64)
LOGNDTR_FLOAT32_LOWER = np.array(-10, np.float32)
LOGNDTR_FLOAT64_UPPER = np.array(8, np.float64)
LOGNDTR_FLOAT32_UPPER = np.array(5, np.float32)


def ndtr(x, name="ndtr"):
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.as_numpy_dtype not in (np.float32, np.float64):
            raise TypeError(f"x.dtype={x.dtype} is not handled, see docstring for supported types.")
        return _ndtr(x)


def _ndtr(x):
    half_sqrt_2 = constant(0.5 * np.sqrt(2.), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = math_ops.abs(w)
    y = array_ops.where_v2(math_ops.less(z, half_sqrt_2), 1. + math_ops.erf(w),
                           array_ops.where_v2(math_ops.greater(w, 0.), 2. - math_ops.erfc(z), math_ops.erfc(z)))
    return 0.5 * y


# Cephes ndtri's coefficients, highest power first: p0/q0 for |p - 1/2| <= 3/8,
# p1/q1 for z = sqrt(-2 log p) < 8, p2/q2 beyond.
_P0 = [-1.23916583867381258016E0, 1.39312609387279679503E1, -5.66762857469070293439E1,
       9.80010754185999661536E1, -5.99633501014107895267E1]
_Q0 = [-1.18331621121330003142E0, 1.59056225126211695515E1, -8.20372256168333339912E1,
       2.00260212380060660359E2, -2.25462687854119370527E2, 8.63602421390890590575E1,
       4.67627912898881538453E0, 1.95448858338141759834E0, 1.0]
_P1 = [-8.57456785154685413611E-4, -3.50424626827848203418E-2, -1.40256079171354495875E-1,
       2.18663306850790267539E0, 1.46849561928858024014E1, 4.40805073893200834700E1,
       5.71628192246421288162E1, 3.15251094599893866154E1, 4.05544892305962419923E0]
_Q1 = [-9.33259480895457427372E-4, -3.80806407691578277194E-2, -1.42182922854787788574E-1,
       2.50464946208309415979E0, 1.50425385692907503408E1, 4.13172038254672030440E1,
       4.53907635128879210584E1, 1.57799883256466749731E1, 1.0]
_P2 = [6.23974539184983293730E-9, 2.65806974686737550832E-6, 3.01581553508235416007E-4,
       1.23716634817820021358E-2, 2.01485389549179081538E-1, 1.33303460815807542389E0,
       3.93881025292474443415E0, 6.91522889068984211695E0, 3.23774891776946035970E0]
_Q2 = [6.79019408009981274425E-9, 2.89247864745380683936E-6, 3.28014464682127739104E-4,
       1.34204006088543189037E-2, 2.16236993594496635890E-1, 1.37702099489081330271E0,
       3.67983563856160859403E0, 6.02427039364742014255E0, 1.0]


def ndtri(p, name="ndtri"):
    with name_scope(name, values=[p]):
        p = convert_to_tensor(p, name="p")
        if p.dtype.as_numpy_dtype not in (np.float32, np.float64):
            raise TypeError(f"p.dtype={p.dtype} is not handled, see docstring for supported types.")
        return _ndtri(p)


def _polynomial(var, coeffs):
    """``c0 + var (c1 + var (c2 + ...))``, built innermost last as TF builds it."""
    coeffs = np.array(coeffs, var.dtype.as_numpy_dtype)
    if not coeffs.size:
        return array_ops.zeros_like(var)
    return coeffs[0] + _polynomial(var, coeffs[1:]) * var


def _ndtri(p):
    maybe_complement_p = array_ops.where_v2(p > -np.expm1(-2.), 1. - p, p)
    sanitized_mcp = array_ops.where_v2(maybe_complement_p <= 0.,
                                       array_ops.fill(array_ops.shape(p), np.array(0.5, p.dtype.as_numpy_dtype)),
                                       maybe_complement_p)
    w = sanitized_mcp - 0.5
    ww = w ** 2
    x_for_big_p = w + w * ww * (_polynomial(ww, _P0) / _polynomial(ww, _Q0))
    x_for_big_p *= -np.sqrt(2. * np.pi)
    z = math_ops.sqrt(-2. * math_ops.log(sanitized_mcp))
    first_term = z - math_ops.log(z) / z
    second_term_small_p = _polynomial(1. / z, _P2) / _polynomial(1. / z, _Q2) / z
    second_term_otherwise = _polynomial(1. / z, _P1) / _polynomial(1. / z, _Q1) / z
    x_for_small_p = first_term - second_term_small_p
    x_otherwise = first_term - second_term_otherwise
    x = array_ops.where_v2(sanitized_mcp > np.exp(-2.), x_for_big_p,
                           array_ops.where_v2(z >= 8., x_for_small_p, x_otherwise))
    x = array_ops.where_v2(p > 1. - np.exp(-2.), x, -x)
    infinity_scalar = constant(np.inf, dtype=p.dtype)  # made before the shape, as TF
    infinity = array_ops.fill(array_ops.shape(p), infinity_scalar)
    return array_ops.where_v2(p <= 0., -infinity, array_ops.where_v2(p >= 1., infinity, x))


def log_ndtr(x, series_order=3, name="log_ndtr"):
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.as_numpy_dtype == np.float64:
            lower, upper = LOGNDTR_FLOAT64_LOWER, LOGNDTR_FLOAT64_UPPER
        elif x.dtype.as_numpy_dtype == np.float32:
            lower, upper = LOGNDTR_FLOAT32_LOWER, LOGNDTR_FLOAT32_UPPER
        else:
            raise TypeError(f"x.dtype={x.dtype} is not supported.")
        return array_ops.where_v2(
            math_ops.greater(x, upper), -_ndtr(-x),
            array_ops.where_v2(math_ops.greater(x, lower), math_ops.log(_ndtr(math_ops.maximum(x, lower))),
                               _log_ndtr_lower(math_ops.minimum(x, lower), series_order)))


def _log_ndtr_lower(x, series_order):
    x_2 = math_ops.square(x)
    log_scale = -0.5 * x_2 - math_ops.log(-x) - 0.5 * np.log(2. * np.pi)
    return log_scale + math_ops.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x, series_order):
    dtype = x.dtype.as_numpy_dtype
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = math_ops.square(x)
    even_sum = array_ops.zeros_like(x)
    odd_sum = array_ops.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.array(_double_factorial(2 * n - 1), dtype) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return 1. + even_sum - odd_sum


def _double_factorial(n):
    return np.prod(np.arange(n, 1, -2))


def log_cdf_laplace(x, name="log_cdf_laplace"):
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.) + x
        safe_exp_neg_x = math_ops.exp(-math_ops.abs(x))
        upper_solution = math_ops.log1p(-0.5 * safe_exp_neg_x)
        return array_ops.where_v2(x < 0., lower_solution, upper_solution)
