"""TF's float32 ``Expm1``, ``Log1p``, ``Erf``, ``Softplus``, ``Elu``, ``Selu``,
``SigmoidGrad`` and float16/bfloat16 ``Sigmoid``, as its CPU kernels compute them.

The same setting as :mod:`ref.ops.eigen_math` (whose ``exp_packet``/``log_packet``
these reuse): TF's x86-64 build evaluates a float32 tensor in Eigen packets of
:data:`~ref.ops.eigen_math.PACKET` elements (AVX, no FMA: every ``pmadd`` is a
rounded product, then a rounded sum) and its last ``n % 8`` elements with the
scalar functor, which calls the C library. float16/bfloat16 packets are widened
to float32, computed so and rounded back, each packet function and each
arithmetic operation on its own. Measured against tensorflow-cpu 2.21
(``tests/ops/test_eigen_unary.py``), every element equal.

The functors (Eigen's ``GenericPacketMathFunctions.h``, ``SpecialFunctionsImpl.h``;
TF's ``cwise_ops.h``, ``softplus_op.h``, ``relu_op_functor.h``,
``cwise_ops_gradients.h``), each operation rounded to float32:

* ``Expm1`` (``generic_expm1``): ``u = exp(x)``; ``expm1 = (u - 1) * (x / log(u))``,
  ``u`` where ``log(u) == u`` (+inf), -1 where ``u - 1 == -1``, ``x`` where
  ``u == 1`` (the later rules win); ``exp``/``log`` are ``pexp_float``/``plog_float``.
  Scalar tail: ``expm1f``.
* ``Log1p`` (``generic_log1p``): ``u = x + 1``; ``log1p = x * (log(u) / (u - 1))``,
  ``x`` where ``u == 1`` or ``log(u) == u``. Scalar tail: ``log1pf``.
* ``Erf`` (``generic_fast_erf<float>``, packets and scalars alike):
  ``x2 = min(x * x, 16)`` (16 for NaN); ``erf = x * P(x2) / Q(x2)`` (Horner, degree 5
  each) clamped to [-1, 1] (NaN stays NaN).
* ``Softplus``: ``t = logf(eps) + 2`` in T; ``x`` where ``x > -t``, else ``exp(x)``
  where ``x < t``, else ``log1p(exp(x))`` (exp rounded to T before log1p).
* ``Elu``: ``exp(x) - 1`` where ``x < 0``, else ``x``; ``Selu``: ``scale_alpha * (exp(x) - 1)``
  where ``x < 0``, else ``scale * x`` (TF's constants rounded to T).
* ``SigmoidGrad``: ``dy * (y * (1 - y))`` on packets (``packetOp``),
  ``(dy * y) * (1 - y)`` on the scalar tail (``operator()``). (``TanhGrad`` is
  ``dy * (1 - y * y)`` both ways: plain IEEE, :mod:`ref.ops.math` as it was.)
* float16/bfloat16 ``Sigmoid`` (``scalar_logistic_op_impl``, not the float one):
  ``e = exp(x)`` rounded to T; 1 where ``e`` is +inf, else ``e / (1 + e)`` in T.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ref.ops import _jit, eigen_math, fpenv
from ref.ops._jit import njit, numpy_tier, run_numpy_form
from ref.ops.eigen_math import (PACKET, _libm_tail, _tail_split, exp_packet, exp_packet_numpy, log_packet,
                                log_packet_numpy)

_F = np.float32
_ONE, _NEG_ONE, _SIXTEEN = _F(1.0), _F(-1.0), _F(16.0)
_ERF_ALPHA = (_F(2.123732201653183437883853912353515625e-06), _F(2.861979592125862836837768554687500000e-04),
              _F(3.658048342913389205932617187500000000e-03), _F(5.243302136659622192382812500000000000e-02),
              _F(1.874160766601562500000000000000000000e-01), _F(1.128379106521606445312500000000000000e+00))
_ERF_BETA = (_F(3.89185734093189239501953125000e-05), _F(1.14329601638019084930419921875e-03),
             _F(1.47520881146192550659179687500e-02), _F(1.12945675849914550781250000000e-01),
             _F(4.99425798654556274414062500000e-01), _F(1.0))
SELU_SCALE = 1.0507009873554804934193349852946
SELU_SCALE_ALPHA = 1.7580993408473768599402175208123  # scale * alpha, as TF folds it


# ---------------------------------------------------------------------------
# One element (compiled kernels)
# ---------------------------------------------------------------------------

@njit(inline="always")
def expm1_packet(x):
    """Eigen's ``generic_expm1`` on one lane."""
    u = exp_packet(x)
    um1 = u - _ONE
    logu = log_packet(u)
    out = um1 * (x / logu)
    out = u if logu == u else out
    out = _NEG_ONE if um1 == _NEG_ONE else out
    return x if u == _ONE else out


@njit(inline="always")
def log1p_packet(x):
    """Eigen's ``generic_log1p`` on one lane."""
    u = x + _ONE
    log_u = log_packet(u)
    out = x * (log_u / (u - _ONE))
    return x if (u == _ONE) | (u == log_u) else out


@njit(inline="always")
def erf_lane(x):
    """Eigen's ``generic_fast_erf<float>`` (packets and scalars alike)."""
    t = x * x
    x2 = t if t < _SIXTEEN else _SIXTEEN  # _mm256_min_ps(x * x, 16): 16 for NaN
    a, b = _ERF_ALPHA, _ERF_BETA
    p = ((((a[0] * x2 + a[1]) * x2 + a[2]) * x2 + a[3]) * x2 + a[4]) * x2 + a[5]
    q = ((((b[0] * x2 + b[1]) * x2 + b[2]) * x2 + b[3]) * x2 + b[4]) * x2 + b[5]
    r = (x * p) / q
    r = _ONE if _ONE < r else r  # min_ps(1, r), max_ps(-1, r): NaN stays NaN
    return _NEG_ONE if _NEG_ONE > r else r


# ---------------------------------------------------------------------------
# Whole tensors: packets, then the scalar tail
# ---------------------------------------------------------------------------

@njit(nogil=True)
def _expm1_loop(x, out, body):
    n = x.size
    for i in range(body):
        out[i] = expm1_packet(x[i])
    for i in range(body, n):
        out[i] = math.expm1(x[i])
    return out


@njit(nogil=True)
def _log1p_loop(x, out, body):
    n = x.size
    for i in range(body):
        out[i] = log1p_packet(x[i])
    for i in range(body, n):
        out[i] = math.log1p(x[i])
    return out


@njit(nogil=True)
def _erf_loop(x, out, body):
    for i in range(x.size):
        out[i] = erf_lane(x[i])
    return out


# ---------------------------------------------------------------------------
# The same operations as NumPy array passes (exact forms)
# ---------------------------------------------------------------------------

def expm1_packet_numpy(x):
    u = exp_packet_numpy(x)
    um1 = u - _ONE
    logu = log_packet_numpy(u)
    out = um1 * (x / logu)
    out = np.where(logu == u, u, out)
    out = np.where(um1 == _NEG_ONE, _NEG_ONE, out)
    return np.where(u == _ONE, x, out).astype(_F)


def log1p_packet_numpy(x):
    u = x + _ONE
    log_u = log_packet_numpy(u)
    out = x * (log_u / (u - _ONE))
    return np.where((u == _ONE) | (u == log_u), x, out).astype(_F)


def erf_numpy(x):
    t = x * x
    x2 = np.where(t < _SIXTEEN, t, _SIXTEEN)
    a, b = _ERF_ALPHA, _ERF_BETA
    p = ((((a[0] * x2 + a[1]) * x2 + a[2]) * x2 + a[3]) * x2 + a[4]) * x2 + a[5]
    q = ((((b[0] * x2 + b[1]) * x2 + b[2]) * x2 + b[3]) * x2 + b[4]) * x2 + b[5]
    r = (x * p) / q
    r = np.where(_ONE < r, _ONE, r)
    return np.where(_NEG_ONE > r, _NEG_ONE, r).astype(_F)


def _subnormal(x):
    """Where float32 ``x`` is subnormal, read from its bits (comparisons read it as 0 under DAZ)."""
    bits = x.view(np.uint32) & np.uint32(0x7FFFFFFF)
    return (bits != 0) & (bits < np.uint32(0x00800000))


def _log1pf_numpy(x):
    """``log1pf`` on each element; a subnormal is its own ``log1pf`` (glibc tests the bits
    first), kept so here too: the C call's argument, a double narrowed to float, would be
    flushed to 0 under :func:`ref.ops.fpenv.flush_denormals`."""
    out = _libm_tail("log1p")(x)
    return np.where(_subnormal(x), x, out).astype(_F)


_FORMS = {
    _expm1_loop: _tail_split(expm1_packet_numpy, _libm_tail("expm1")),
    _log1p_loop: _tail_split(log1p_packet_numpy, _log1pf_numpy),
    _erf_loop: lambda x, out, body: np.copyto(out, erf_numpy(x)) or out,
}


def _apply(loop, x):
    """``loop`` over ``x`` (float32, or float16/bfloat16 widened to float32 and rounded
    back) as one flat tensor in C order: packets, then the last ``size % PACKET`` as scalars."""
    x = np.asarray(x)
    flat = np.ascontiguousarray(x, dtype=_F).reshape(-1)
    out = np.empty_like(flat)
    body = flat.size - flat.size % PACKET
    with np.errstate(all="ignore"):
        if numpy_tier(loop, flat.size):
            run_numpy_form(loop, _FORMS[loop], flat, out, body)
        else:
            loop(flat, out, body)
    out = out.reshape(x.shape)
    return out if x.dtype == _F else out.astype(x.dtype)


def expm1(x):
    """TF's ``Expm1`` of a float32 (float16, bfloat16) tensor."""
    return _apply(_expm1_loop, x)


def log1p(x):
    """TF's ``Log1p`` of a float32 (float16, bfloat16) tensor. Under TF's subnormal
    flushing (:func:`ref.ops.fpenv.flush_denormals`) a subnormal input in a packet gives
    a zero of its sign (measured: TF's compiled select does not pass ``x`` through
    unchanged there), while the scalar tail's ``log1pf`` returns it."""
    out = _apply(_log1p_loop, x)
    if fpenv.active():
        flat, x = out.reshape(-1), np.asarray(x).reshape(-1)
        body = x.size - x.size % PACKET
        sub = _subnormal(x[:body].astype(_F))
        if sub.any():
            negative = (x[:body].astype(_F).view(np.uint32) >> np.uint32(31)).astype(bool)[sub]
            flat[:body][sub] = np.where(negative, -np.zeros((), out.dtype), np.zeros((), out.dtype))
    return out


def erf(x):
    """TF's ``Erf`` of a float32 (float16, bfloat16) tensor."""
    return _apply(_erf_loop, x)


def _const(value, dtype):
    return np.asarray(value, dtype=_F).astype(dtype)  # a C++ static_cast<T>(double) via float


@functools.lru_cache(maxsize=None)
def softplus_threshold(dtype):
    """``numext::log(NumTraits<T>::epsilon()) + T(2)`` in T: ``logf`` of Eigen's epsilon
    of T rounded to T, plus 2 rounded to T. Eigen's epsilons: 2^-23 (float32), 2^-7
    (bfloat16) and 2^-13 for float16 (``0x0800``, not the machine epsilon 2^-10), so
    float16's thresholds are -7.01 and 7.01."""
    dtype = np.dtype(dtype)
    eps = _F(2.0 ** -23) if dtype == _F else _F(2.0 ** -13) if dtype == np.float16 else _F(2.0 ** -7)
    logf = _jit.libm("log", _F)
    log_eps = (logf or np.log)(np.asarray([eps], _F))[0]  # (no C library: NumPy's log, the same here)
    return (np.asarray(log_eps, _F).astype(dtype) + np.asarray(2, dtype)).astype(dtype)


def softplus(x):
    """TF's ``Softplus`` (float32, float16, bfloat16): the thresholded selects of
    ``softplus_op.h`` over Eigen's ``exp`` and ``log1p``."""
    x = np.asarray(x)
    t = softplus_threshold(x.dtype)
    e = eigen_math.exp(x)
    mid = log1p(e)
    return np.where(x > -t, x, np.where(x < t, e, mid)).astype(x.dtype)


def elu(x):
    """TF's ``Elu`` (float32, float16, bfloat16): ``exp(x) - 1`` (Eigen's ``exp``) where x < 0."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.where(x < 0, eigen_math.exp(x) - np.asarray(1, x.dtype), x).astype(x.dtype)


def selu(x):
    """TF's ``Selu`` (float32, float16, bfloat16)."""
    x = np.asarray(x)
    one = np.asarray(1, x.dtype)
    with np.errstate(all="ignore"):
        neg = _const(SELU_SCALE_ALPHA, x.dtype) * (eigen_math.exp(x) - one)
        return np.where(x < 0, neg, _const(SELU_SCALE, x.dtype) * x).astype(x.dtype)


def sigmoid_half(x):
    """TF's ``Sigmoid`` of a float16/bfloat16 tensor (``scalar_logistic_op_impl``)."""
    x = np.asarray(x)
    one = np.asarray(1, x.dtype)
    e = eigen_math.exp(x)
    with np.errstate(all="ignore"):
        return np.where(e == np.inf, one, e / (one + e)).astype(x.dtype)


_PACKET_OF = {np.dtype(np.float32): PACKET, np.dtype(np.float16): PACKET, np.dtype(np.float64): PACKET // 2}


def sigmoid_grad(y, dy):
    """TF's ``SigmoidGrad`` of real floating tensors of one shape: ``dy * (y * (1 - y))``
    on packets (8 float32/float16/bfloat16 elements, 4 float64), ``(dy * y) * (1 - y)`` on
    the last ``n % packet`` elements."""
    y, dy = np.asarray(y), np.asarray(dy)
    shape = y.shape
    y, dy = np.ascontiguousarray(y).reshape(-1), np.ascontiguousarray(dy).reshape(-1)  # TF's flat order
    one = np.asarray(1, y.dtype)
    packet = _PACKET_OF.get(y.dtype, PACKET)
    body = y.size - y.size % packet
    out = np.empty(y.shape, y.dtype)
    np.multiply(dy[:body], np.multiply(y[:body], np.subtract(one, y[:body])), out=out[:body])
    np.multiply(np.multiply(dy[body:], y[body:]), np.subtract(one, y[body:]), out=out[body:])
    return out.reshape(shape)


def _sample(loop):
    return lambda: loop(np.linspace(-2, 2, 9).astype(_F), np.empty(9, _F), 8)


for _loop in _FORMS:
    _jit.compiles_in_background(_loop, _sample(_loop), any_size=True)
