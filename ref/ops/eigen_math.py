"""TF's float32 ``exp``, ``log``, ``tanh`` and logistic, as its CPU kernels compute them.

TF's element-wise kernels are Eigen tensor expressions. TF's x86-64 package is
compiled for AVX without FMA, so Eigen evaluates a float32 tensor in packets
of :data:`PACKET` (``Packet8f``) with its own polynomial approximations, and
each ``pmadd(a, b, c)`` is a product rounded to float32 and then a sum rounded
again. The last ``n % PACKET`` elements of an ``n``-element tensor are
evaluated one by one with the scalar functor: the C library's ``expf``/``logf``
for ``Exp``/``Log``, the same rational function for ``Tanh``, and
``e / (1 + e)`` with ``e = expf(min(x, 16.6355324))`` for ``Sigmoid``. TF's
thread pool cuts a tensor into blocks whose sizes are multiples of the packet,
so only the end of the tensor has scalar elements. (Measured against
tensorflow-cpu 2.21 on this machine: every element equal, oneDNN on or off;
``tests/ops/test_eigen_math.py``.)

The algorithms (Eigen's ``GenericPacketMathFunctions.h`` and
``scalar_logistic_op<float>``), each operation rounded to float32:

* ``pexp_float``: ``x = min(x, 88.723)``; ``m = floor(x * log2(e) + 1/2)``;
  ``r = (x + m * -0.693359375) + m * 2.12194440e-4``; with ``r2 = r * r``, the
  polynomial ``y = r2 * (r * (r2 * p5 + p3) + ((r2 * p6 + p4) * r2 + p2)) + (r + 1)``;
  ``exp(x) = max(y * 2^m, x)``, 0 below -104; ``y * 2^m`` is one product while
  ``|x| <= 87``, else ``((y * 2^b) * 2^b) * 2^b * 2^(m - 3b)``, ``b = floor(m / 4)``.
* ``plog_float``: ``x = f * 2^e``, ``f`` in [1/2, 1); below ``sqrt(1/2)``,
  ``f = 2f`` and ``e = e - 1``; ``u = f - 1``; ``log(x) = e * ln 2 + u * P(u) / Q(u)``
  with ``P`` of degree 2 and ``Q`` of degree 3 in Horner form; 0 gives -inf,
  +inf gives +inf, negatives and NaN give NaN.
* ``ptanh_float``: ``x`` clamped to +-7.90738964080810547;
  ``tanh(x) = (x^3 * A(x^2) + x) / B(x^2)``, ``A`` of degree 3, ``B`` of degree 4.
* logistic: ``x = min(x, 16.6355324) / 2``; ``exp(x)`` as in ``pexp_float`` with
  a degree-5 polynomial (``p = r2 * (r * (r2 * q5 + q3) + (r2 * q4 + q2)) + (r + 1)``,
  ``e = (p * 2^m)^2``); ``sigmoid = e / (1 + e)``, 0 below -104.

float16 and bfloat16 ``Exp``/``Log``/``Tanh`` are these on the values widened to
float32, rounded back (Eigen's half packets convert to ``Packet8f``).
"""
from __future__ import annotations

import math

import numpy as np

from ref.ops import _jit
from ref.ops._jit import LazyIntrinsic, njit, numpy_tier, run_numpy_form
from ref.ops.libm_exp import exp as _libm_expf


def _make_bitcasts(numba):
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def from_bits(typingctx, i):
        if not isinstance(i, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.bitcast(builder.trunc(args[0], ir.IntType(32)) if i.bitwidth > 32 else
                                   builder.sext(args[0], ir.IntType(32)) if i.bitwidth < 32 else args[0],
                                   ir.FloatType())
        return types.float32(i), codegen

    @intrinsic
    def to_bits(typingctx, x):
        if x != types.float32:
            return None

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], ir.IntType(32))
        return types.int32(x), codegen

    return from_bits, to_bits


_from_bits = LazyIntrinsic(lambda numba: _make_bitcasts(numba)[0])
"""float32 with the given 32 bits (in compiled kernels)."""
_to_bits = LazyIntrinsic(lambda numba: _make_bitcasts(numba)[1])
"""A float32's 32 bits as int32 (in compiled kernels)."""

PACKET = 8
"""Elements per Eigen packet in TF's x86-64 build (AVX ``Packet8f``)."""

_F = np.float32
_ZERO, _ONE, _HALF = _F(0.0), _F(1.0), _F(0.5)
_LOG2E = _F(1.44269504088896341)
_C1, _C2 = _F(-0.693359375), _F(2.12194440e-4)  # -ln 2 in two parts (Cody-Waite)
_EXP_HI, _EXP_LO, _LDEXP_SAFE = _F(88.723), _F(-104.0), _F(87.0)
_EXP_P2, _EXP_P3, _EXP_P4 = _F(0.49999988079071044921875), _F(0.16666518151760101318359375), _F(4.166965186595916748046875e-2)
_EXP_P5, _EXP_P6 = _F(8.36894474923610687255859375e-3), _F(1.37449637986719608306884765625e-3)
_SQRTHF, _LN2 = _F(0.707106781186547524), _F(0.693147180559945309417232121458176568)
_LOG_P = (_F(0.18256296349849254), _F(1.0000000190281063), _F(1.0000000190281136))
_LOG_Q = (_F(0.049616247954120038), _F(0.59923249590823520), _F(1.4999999999999927), _F(1.0))
_TANH_CLAMP = _F(7.90738964080810547)
_TANH_A = (_F(1.394553628e-8), _F(2.102733560e-5), _F(3.520756727e-3), _F(1.340216100e-1))
_TANH_B = (_F(8.015776984e-7), _F(3.326951409e-4), _F(2.597254514e-2), _F(4.673548340e-1), _F(1.0))
_SIG_HI = _F(16.6355324)
_SIG_Q2, _SIG_Q3 = _F(0.49999141693115234375), _F(0.16666877269744873046875)
_SIG_Q4, _SIG_Q5 = _F(4.1898667812347412109375e-2), _F(8.33471305668354034423828125e-3)
_INF = _F(np.inf)
_BIG = _F(2.0 ** 23)  # from here on every float32 is an integer


# ---------------------------------------------------------------------------
# One element (compiled kernels)
# ---------------------------------------------------------------------------

@njit(inline="always")
def _floor(t):
    """pfloor: float32 floor (``t`` itself when already integral, inf or NaN)."""
    return np.floor(t)


@njit(inline="always")
def _pow2(k):
    """2^k as float32 for -126 <= k <= 127 (exact): the exponent field k + 127."""
    return _from_bits((k + 127) << 23)


@njit(inline="always")
def _ldexp_fast(y, m):
    """pldexp_fast: y * 2^m, the biased exponent m + 127 clamped to [0, 255] (0: times 0,
    255: times inf; NaN: times 0)."""
    e = m + _F(127.0)
    e = e if e >= _ZERO else _ZERO
    e = e if e <= _F(255.0) else _F(255.0)
    return y * _from_bits(np.int32(e) << 23)


@njit(inline="always")
def _ldexp_generic(y, m):
    """pldexp_generic: ((y * 2^b) * 2^b) * 2^b * 2^(e - 3b), e = m clamped to +-278, b = floor(e / 4)."""
    if m != m:
        return y + m
    e = int(min(max(m, _F(-278.0)), _F(278.0)))
    b = e >> 2
    c = _pow2(b)
    out = ((y * c) * c) * c
    return out * _pow2(e - 3 * b)


@njit(inline="always")
def exp_packet(x0):
    """Eigen's ``pexp_float`` on one lane (see the module docstring)."""
    x = _EXP_HI if x0 > _EXP_HI else x0
    m = _floor(x * _LOG2E + _HALF)
    r = m * _C1 + x
    r = m * _C2 + r
    r2 = r * r
    p_even = r2 * _EXP_P6 + _EXP_P4
    p_odd = r2 * _EXP_P5 + _EXP_P3
    p_even = r2 * p_even + _EXP_P2
    p_low = r + _ONE
    y = r * p_odd + p_even
    y = r2 * y + p_low
    if abs(x) <= _LDEXP_SAFE:
        out = _ldexp_fast(y, m)
    else:
        if x0 < _EXP_LO:
            return _ZERO
        out = _ldexp_generic(y, m)
    return x0 if x0 > out else out


@njit(inline="always")
def log_packet(x0):
    """Eigen's ``plog_float`` on one lane."""
    if x0 == _ZERO:
        return -_INF
    if not x0 >= _ZERO:
        return _F(np.nan)
    if x0 == _INF:
        return _INF
    bits = _to_bits(x0)
    field = (bits >> 23) & 0xFF
    if field == 0:  # a subnormal: frexp by the C library
        f, k = math.frexp(x0)
        x = _F(f)
        e = _F(k)
    else:  # f in [1/2, 1) with x0's mantissa; e = exponent + 1
        x = _from_bits((bits & 0x807FFFFF) | 0x3F000000)
        e = _F(field - 126)
    if x < _SQRTHF:
        e = e - _ONE
        x = (x - _ONE) + x
    else:
        x = x - _ONE
    p = (_LOG_P[0] * x + _LOG_P[1]) * x + _LOG_P[2]
    p = x * p
    q = ((_LOG_Q[0] * x + _LOG_Q[1]) * x + _LOG_Q[2]) * x + _LOG_Q[3]
    x = p / q
    return e * _LN2 + x


@njit(inline="always")
def tanh_lane(a):
    """Eigen's ``ptanh_float`` (packets and scalars alike)."""
    x = _TANH_CLAMP if a > _TANH_CLAMP else a
    x = -_TANH_CLAMP if x < -_TANH_CLAMP else x
    x2 = x * x
    x3 = x2 * x
    p = ((_TANH_A[0] * x2 + _TANH_A[1]) * x2 + _TANH_A[2]) * x2 + _TANH_A[3]
    q = (((_TANH_B[0] * x2 + _TANH_B[1]) * x2 + _TANH_B[2]) * x2 + _TANH_B[3]) * x2 + _TANH_B[4]
    p = x3 * p + x
    return p / q


@njit(inline="always")
def sigmoid_packet(x0):
    """``scalar_logistic_op<float>::packetOp`` on one lane."""
    if x0 < _EXP_LO:
        return _ZERO
    x = _SIG_HI if x0 > _SIG_HI else x0
    x = x * _HALF
    m = _floor(x * _LOG2E + _HALF)
    r = m * _C1 + x
    r = m * _C2 + r
    r2 = r * r
    p_even = r2 * _SIG_Q4 + _SIG_Q2
    p_odd = r2 * _SIG_Q5 + _SIG_Q3
    p_low = r + _ONE
    p = r * p_odd + p_even
    p = r2 * p + p_low
    e = _ldexp_fast(p, m)
    e = e * e
    return e / (_ONE + e)


@njit(inline="always")
def sigmoid_scalar(x):
    """``scalar_logistic_op<float>::operator()``: e / (1 + e), e = expf(min(x, 16.6355324))."""
    e = _libm_expf(_SIG_HI if _SIG_HI < x else x)
    return e / (_ONE + e)


# ---------------------------------------------------------------------------
# Whole tensors: packets, then the scalar tail
# ---------------------------------------------------------------------------

@njit(nogil=True)
def _exp_loop(x, out, body):
    n = x.size
    for i in range(body):
        out[i] = exp_packet(x[i])
    for i in range(body, n):
        out[i] = _libm_expf(x[i])
    return out


@njit(nogil=True)
def _log_loop(x, out, body):
    n = x.size
    for i in range(body):
        out[i] = log_packet(x[i])
    for i in range(body, n):
        out[i] = math.log(x[i])
    return out


@njit(nogil=True)
def _tanh_loop(x, out, body):
    for i in range(x.size):
        out[i] = tanh_lane(x[i])
    return out


@njit(nogil=True)
def _sigmoid_loop(x, out, body):
    n = x.size
    for i in range(body):
        out[i] = sigmoid_packet(x[i])
    for i in range(body, n):
        out[i] = sigmoid_scalar(x[i])
    return out


# ---------------------------------------------------------------------------
# The same operations as NumPy array passes (exact forms, for small inputs and
# while the loops compile)
# ---------------------------------------------------------------------------

def _np_floor(t):
    return np.floor(t)


def _np_ldexp_fast(y, m):
    e = np.clip(np.nan_to_num(m, nan=0.0) + _F(127.0), 0, 255).astype(np.int32)
    scale = (e.astype(np.uint32) << 23).view(np.float32)
    return y * scale


def _np_ldexp_generic(y, m):
    e = np.clip(np.nan_to_num(m, nan=0.0), -278, 278).astype(np.int32)
    b = e >> 2
    c = ((b + 127).astype(np.uint32) << 23).view(np.float32)
    out = ((y * c) * c) * c
    return out * ((e - 3 * b + 127).astype(np.uint32) << 23).view(np.float32)


def exp_packet_numpy(x0):
    x = np.minimum(x0, _EXP_HI)
    x = np.where(np.isnan(x0), x0, x)
    m = _np_floor(x * _LOG2E + _HALF)
    r = m * _C1 + x
    r = m * _C2 + r
    r2 = r * r
    p_even = r2 * _EXP_P6 + _EXP_P4
    p_odd = r2 * _EXP_P5 + _EXP_P3
    p_even = r2 * p_even + _EXP_P2
    y = r2 * (r * p_odd + p_even) + (r + _ONE)
    out = np.where(np.abs(x) <= _LDEXP_SAFE, _np_ldexp_fast(y, m), _np_ldexp_generic(y, m))
    out = np.where(x0 > out, x0, out)
    return np.where(x0 < _EXP_LO, _ZERO, out).astype(_F)


def log_packet_numpy(x0):
    f, k = np.frexp(x0)
    x, e = f.astype(_F), k.astype(_F)
    low = x < _SQRTHF
    e = np.where(low, e - _ONE, e)
    x = np.where(low, (x - _ONE) + x, x - _ONE)
    p = x * ((_LOG_P[0] * x + _LOG_P[1]) * x + _LOG_P[2])
    q = ((_LOG_Q[0] * x + _LOG_Q[1]) * x + _LOG_Q[2]) * x + _LOG_Q[3]
    out = e * _LN2 + p / q
    out = np.where(x0 == _INF, _INF, out)
    out = np.where(x0 >= _ZERO, out, _F(np.nan))
    return np.where(x0 == _ZERO, -_INF, out).astype(_F)


def tanh_numpy(a):
    x = np.where(a > _TANH_CLAMP, _TANH_CLAMP, a)
    x = np.where(x < -_TANH_CLAMP, -_TANH_CLAMP, x)
    x2 = x * x
    x3 = x2 * x
    p = ((_TANH_A[0] * x2 + _TANH_A[1]) * x2 + _TANH_A[2]) * x2 + _TANH_A[3]
    q = (((_TANH_B[0] * x2 + _TANH_B[1]) * x2 + _TANH_B[2]) * x2 + _TANH_B[3]) * x2 + _TANH_B[4]
    return ((x3 * p + x) / q).astype(_F)


def sigmoid_packet_numpy(x0):
    x = np.where(x0 > _SIG_HI, _SIG_HI, x0) * _HALF
    m = _np_floor(x * _LOG2E + _HALF)
    r = m * _C1 + x
    r = m * _C2 + r
    r2 = r * r
    p = r2 * (r * (r2 * _SIG_Q5 + _SIG_Q3) + (r2 * _SIG_Q4 + _SIG_Q2)) + (r + _ONE)
    e = _np_ldexp_fast(p, m)
    e = e * e
    return np.where(x0 < _EXP_LO, _ZERO, e / (_ONE + e)).astype(_F)


def _tail_split(packet, scalar):
    def form(x, out, body):
        n = x.size
        out[:body] = packet(x[:body])
        if body < n:
            out[body:] = scalar(x[body:])
        return out
    return form


def _libm_tail(name):
    def tail(x):
        fn = _jit.libm(name, np.float32)
        if fn is None:  # no C library to call: NumPy's function (the compiled loop is used instead)
            return getattr(np, name)(x).astype(_F)
        return fn(x)
    return tail


def _sigmoid_scalar_numpy(x):
    e = _libm_tail("exp")(np.where(_SIG_HI < x, _SIG_HI, x))
    return (e / (_ONE + e)).astype(_F)


_FORMS = {
    _exp_loop: _tail_split(exp_packet_numpy, _libm_tail("exp")),
    _log_loop: _tail_split(log_packet_numpy, _libm_tail("log")),
    _tanh_loop: lambda x, out, body: np.copyto(out, tanh_numpy(x)) or out,
    _sigmoid_loop: _tail_split(sigmoid_packet_numpy, _sigmoid_scalar_numpy),
}


def _apply(loop, x, body=None):
    """``loop`` over ``x`` (float32, or float16/bfloat16 widened to float32 and
    rounded back), as one flat tensor in C order: its first ``body`` elements
    as packets (default: all but the last ``size % PACKET``), the rest as scalars."""
    x = np.asarray(x)
    dtype = x.dtype
    flat = np.ascontiguousarray(x, dtype=_F).reshape(-1)
    out = np.empty_like(flat)
    body = flat.size - flat.size % PACKET if body is None else body
    with np.errstate(all="ignore"):
        if numpy_tier(loop, flat.size):
            run_numpy_form(loop, _FORMS[loop], flat, out, body)
        else:
            loop(flat, out, body)
    out = out.reshape(x.shape)
    return out if dtype == _F else out.astype(dtype)


def exp(x):
    """TF's ``Exp`` of a float32 (float16, bfloat16) tensor."""
    return _apply(_exp_loop, x)


def log(x):
    """TF's ``Log`` of a float32 (float16, bfloat16) tensor."""
    return _apply(_log_loop, x)


def tanh(x):
    """TF's ``Tanh`` of a float32 (float16, bfloat16) tensor."""
    return _apply(_tanh_loop, x)


def sigmoid(x):
    """TF's ``Sigmoid`` of a float32 tensor."""
    return _apply(_sigmoid_loop, x)


def exp_rows(x):
    """``exp`` of a float32 matrix as Eigen computes it inside a row reduction
    (``x.exp().sum(along_class)``): each row's packets from its own start, its
    last ``n % PACKET`` values with the C library's ``expf``."""
    rows, n = x.shape
    if n % PACKET == 0:
        return exp(x)
    v = n - n % PACKET
    out = np.empty((rows, n), _F)
    out[:, :v] = _apply(_exp_loop, x[:, :v], body=rows * v).reshape(rows, v)
    out[:, v:] = _apply(_exp_loop, x[:, v:], body=0).reshape(rows, n - v)
    return out


def logf(x):
    """The C library's ``logf`` on every element (Eigen's scalar path)."""
    return _apply(_log_loop, x, body=0)


def _sample(loop):
    return lambda: loop(np.linspace(-2, 2, 9).astype(_F) + _F(3), np.empty(9, _F), 8)


# The NumPy forms serve every size while a loop builds in the background (a first step with
# an empty cache pays the forms' ~10 array passes, not a compile).
for _loop in _FORMS:
    _jit.compiles_in_background(_loop, _sample(_loop), any_size=True)


def log1p(x):
    """TF's float32 ``Log1p``: Eigen's ``generic_plog1p`` on whole packets --
    ``u = x + 1``; ``x`` itself where ``u == 1`` or ``log(u) == u`` (inf), else
    ``x * (log(u) / (u - 1))`` with ``log`` :func:`log`'s packets -- and C's
    ``log1pf`` on the last ``size % PACKET`` elements."""
    x = np.asarray(x)
    flat = np.ascontiguousarray(x, dtype=_F).reshape(-1)
    body = flat.size - flat.size % PACKET
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        xb = flat[:body]
        u = xb + _ONE
        lu = log(u)  # a whole number of packets: no scalar tail
        out[:body] = np.where((u == _ONE) | (u == lu), xb, xb * (lu / (u - _ONE)))
        out[body:] = _libm_tail("log1p")(flat[body:])
    return out.reshape(x.shape)
