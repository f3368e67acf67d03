"""Random ops: normal, truncated normal, uniform, uniform integers, shuffle,
multinomial and gamma samples.

Every kernel is declared with ``ctx=True``. Inside a Session the context keeps
one generator per op, seeded from the op's ``(seed, seed2)`` attrs, so that,
as in TensorFlow:

* the same seeds give the same sequence of values in every new Session;
* successive runs of one op in one Session give different values (the
  generator advances);
* ``seed == seed2 == 0`` means "not seeded": fresh entropy each Session.

RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt and
RandomShuffle draw from ``ctx.philox``: TensorFlow's Philox-4x32-10 stream
with TF's samplers and reservation rule (:mod:`ref.ops.philox`), so they give
TensorFlow's values bit for bit -- run after run, and through every initializer
and ``random_*`` function built on them; Multinomial draws TF's stream too.
RandomGamma and RandomPoissonV2 draw TF's stream with TF's per-sample skips
(:func:`gamma_samples`, :func:`poisson_samples`). A pure ``ref.raw_ops`` call gets fresh
generators seeded from its seeds: its values are those of the op's first run.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.ops import philox
from ref.ops.registry import REQUIRED, invalid_argument, register_op, broadcast_rule, shape_input  # noqa: F401
from ref.types.shapes import TensorShape

_INDEX = (dtypes.int32, dtypes.int64)
_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_SEEDS = {"seed": 0, "seed2": 0}


def _shape_of(spec) -> TensorShape:
    """Static output shape given by a 1-D shape input."""
    return shape_input(spec)


def _dims(shape):
    dims = [int(d) for d in np.asarray(shape).reshape(-1)]
    if np.ndim(shape) != 1:
        raise invalid_argument(f"shape must be a vector of {{int32,int64}}, got shape {list(np.shape(shape))}")
    for d in dims:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    return dims


def _float_op_shape(ins, attrs):
    return [(attrs["dtype"], _shape_of(ins["shape"]))]


@register_op("RandomStandardNormal", inputs=("shape",), attrs={"dtype": REQUIRED, **_SEEDS},
             type_attrs={"T": "shape"}, allowed={"T": _INDEX, "dtype": _FLOATS}, shape=_float_op_shape,
             stateful=True, ctx=True)
def random_standard_normal(shape, dtype, seed=0, seed2=0, ctx=None):
    """Samples of N(0, 1) in ``dtype``."""
    dims, dt = _dims(shape), dtypes.as_dtype(dtype)
    return _draw(philox.normal, ctx, dims, dt)


def _draw(sampler, ctx, dims, dt):
    """``prod(dims)`` samples from the op's next reserved Philox counters."""
    n = int(np.prod(dims, dtype=np.int64))
    gen = ctx.philox
    return sampler(gen.key, gen.reserve_outputs(n), n, dt).reshape(dims)


@register_op("TruncatedNormal", inputs=("shape",), attrs={"dtype": REQUIRED, **_SEEDS},
             type_attrs={"T": "shape"}, allowed={"T": _INDEX, "dtype": _FLOATS}, shape=_float_op_shape,
             stateful=True, ctx=True)
def truncated_normal(shape, dtype, seed=0, seed2=0, ctx=None):
    """Samples of N(0, 1) conditioned on ``|x| <= 2``: values more than two
    standard deviations from the mean are dropped and re-drawn."""
    return _draw(philox.truncated_normal, ctx, _dims(shape), dtypes.as_dtype(dtype))


@register_op("RandomUniform", inputs=("shape",), attrs={"dtype": REQUIRED, **_SEEDS},
             type_attrs={"T": "shape"}, allowed={"T": _INDEX, "dtype": _FLOATS}, shape=_float_op_shape,
             stateful=True, ctx=True)
def random_uniform(shape, dtype, seed=0, seed2=0, ctx=None):
    """Samples of U[0, 1) in ``dtype``."""
    return _draw(philox.uniform, ctx, _dims(shape), dtypes.as_dtype(dtype))


def _uniform_int_shape(ins):
    for bound in ("minval", "maxval"):
        shape = ins[bound].shape
        if shape.ndims is not None and shape.ndims != 0:
            dims = "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
            raise ValueError(f"{bound} must be a scalar; got a tensor of shape {dims}")
    return [(ins["minval"].dtype, _shape_of(ins["shape"]))]


@register_op("RandomUniformInt", inputs=("shape", "minval", "maxval"), attrs=dict(_SEEDS),
             type_attrs={"T": "shape", "Tout": ("minval", "maxval")}, allowed={"T": _INDEX, "Tout": _INDEX},
             shape=lambda ins, attrs: _uniform_int_shape(ins), stateful=True, ctx=True)
def random_uniform_int(shape, minval, maxval, seed=0, seed2=0, ctx=None):
    """Integers uniform in ``[minval, maxval)`` (scalars; ``minval < maxval``)."""
    dims = _dims(shape)
    lo, hi = np.asarray(minval), np.asarray(maxval)
    if lo.ndim or hi.ndim:
        raise invalid_argument(f"minval must be 0-D, got shape {list(lo.shape)}" if lo.ndim else
                               f"maxval must be 0-D, got shape {list(hi.shape)}")
    n = int(np.prod(dims, dtype=np.int64))
    if n and not lo < hi:
        raise invalid_argument(f"Need minval < maxval, got {int(lo)} >= {int(hi)}")
    if not n:
        return np.zeros(dims, lo.dtype)
    return _draw(lambda key, counter, n, dt: philox.uniform_int(key, counter, n, lo, hi, dt), ctx, dims, lo.dtype)


@register_op("RandomShuffle", inputs=("value",), attrs=dict(_SEEDS), type_attrs={"T": "value"},
             shape=lambda ins, attrs: [(ins["value"].dtype, ins["value"].shape)], stateful=True, ctx=True)
def random_shuffle(value, seed=0, seed2=0, ctx=None):
    """``value`` with its slices along the first dimension in a random order."""
    x = np.asarray(value)
    if x.size <= 1 or x.shape[0] <= 1:
        return np.array(x)
    gen = ctx.philox
    size = x.shape[0]
    return x[philox.shuffle_permutation(gen.key, gen.reserve((size - 1 + 3) // 4), size)]


def _multinomial_shape(ins, attrs):
    logits = ins["logits"].shape
    n = ins["num_samples"].value
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'Multinomial') with input shapes: {logits}, [].")
    batch = logits[0] if logits.ndims == 2 else None
    return [(attrs["output_dtype"], TensorShape([batch, None if n is None else int(n)]))]


@register_op("Multinomial", inputs=("logits", "num_samples"), attrs={**_SEEDS, "output_dtype": dtypes.int64},
             type_attrs={"T": "logits"}, allowed={"T": dtypes.REALS, "output_dtype": _INDEX},
             shape=_multinomial_shape, stateful=True, ctx=True)
def multinomial(logits, num_samples, seed=0, seed2=0, output_dtype=dtypes.int64, ctx=None):
    """``num_samples`` class indices per row of ``logits`` ([batch, classes]),
    drawn with probabilities ``softmax(logits[b])`` (computed in float64;
    ``-inf`` logits are never drawn; an all ``-inf`` row gives ``num_classes``,
    as TF's CPU kernel)."""
    logits = np.asarray(logits)
    n = int(np.asarray(num_samples))
    if logits.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {list(logits.shape)}")
    if n < 0:
        raise invalid_argument(f"num_samples should be nonnegative, got {n}")
    batch, classes = logits.shape
    if classes == 0 and batch and n:
        raise invalid_argument("num_classes should be positive, got 0")
    # TF's CPU kernel: reserve batch * ceil4(n) * 2 outputs (two words per double),
    # then each row, in order, draws n doubles from one SimplePhilox stream
    # (x0, x1 words -> uint64_to_double) and takes upper_bound in the
    # unnormalised cdf of exp(logit - max finite logit). TF shards rows over its
    # thread pool only when batch * cost passes 2 * 10000 cycles; one stream
    # covers every row here (TF's values wherever TF runs one shard).
    gen = ctx.philox
    start = gen.reserve_outputs(batch * ((n + 3) // 4 * 4) * 2)
    return multinomial_draws(logits, n, gen.key, start, output_dtype)


def multinomial_draws(logits, n, key, start, output_dtype):
    """TF's CPU MultinomialFunctor from Philox counter ``start`` (also StatelessMultinomial's)."""
    batch, classes = logits.shape
    out = np.zeros((batch, n), dtype=dtypes.as_dtype(output_dtype).np)
    if not (batch and n):
        return out
    w = philox.words(key, start, 0, (2 * batch * n + 3) // 4).reshape(-1)[:2 * batch * n]
    uniforms = philox.uint64_to_double(w[0::2], w[1::2]).reshape(batch, n)
    for b in range(batch):
        row = logits[b]
        finite = np.isfinite(row)
        top = row[finite].max() if finite.any() else np.finfo(row.dtype).min
        cdf = np.cumsum(np.where(finite, np.exp(row.astype(np.float64) - np.float64(top)), 0.0))
        total = cdf[-1] if classes else 0.0
        out[b] = np.searchsorted(cdf, uniforms[b] * total, side="right")
    return out


def _gamma_shape(ins, attrs):
    return [(ins["alpha"].dtype, _shape_of(ins["shape"]).concatenate(ins["alpha"].shape))]


@register_op("RandomGamma", inputs=("shape", "alpha"), attrs=dict(_SEEDS),
             type_attrs={"S": "shape", "T": "alpha"},
             allowed={"S": _INDEX, "T": (dtypes.float16, dtypes.float32, dtypes.float64)},
             shape=_gamma_shape, stateful=True, ctx=True)
def random_gamma(shape, alpha, seed=0, seed2=0, ctx=None):
    """Samples of Gamma(``alpha``, 1), shape ``shape + alpha.shape``: TF's
    RandomGammaOp bit for bit (see :func:`gamma_samples`)."""
    dims = _dims(shape)
    alpha = np.asarray(alpha)
    per_alpha = int(np.prod(dims, dtype=np.int64))
    if per_alpha * alpha.size == 0:  # TF returns an empty output before looking at alpha
        return np.zeros(dims + list(alpha.shape), alpha.dtype)
    gen = ctx.philox
    start = gen.reserve(per_alpha * alpha.size * philox.RESERVED_PER_OUTPUT)
    return gamma_samples(gen.key, start, alpha, per_alpha).reshape(dims + list(alpha.shape))


def gamma_samples(key, start, alpha, per_alpha):
    """Marsaglia and Tsang's transformation-rejection sampler as TF runs it, in
    double: output ``o = alpha_index * per_alpha + sample`` draws Philox blocks from
    ``start + 256 o``; normals (Box-Muller pairs) and uniforms (two per block) are
    taken last first. ``alpha == 1``: ``-log1p(-u)`` of one uniform. Otherwise
    ``d = alpha - 1/3`` (``alpha + 2/3`` below 1), ``c = 1 / (3 sqrt d)``; draw x
    until ``v = (1 + c x)^3 > 0`` and ``u < 1 - 0.0331 x^4`` or
    ``log u < x^2 / 2 + d (1 - v + log v)``; the sample is ``d v``, times
    ``u'^(1/alpha)`` of one more uniform below 1. Sample ``s`` of alpha ``a``
    lands at ``s * num_alphas + a``."""
    flat = alpha.reshape(-1)
    num_alphas = flat.size
    out = np.empty(per_alpha * num_alphas, np.float64)
    for a_idx in range(num_alphas):
        a = float(flat[a_idx])
        less = a < 1.0
        d = a + (2.0 / 3 if less else -1.0 / 3)
        c = 1.0 / 3 / math.sqrt(d) if a != 1.0 else 0.0
        for s in range(per_alpha):
            gen = philox.BlockStream(key, start + philox.RESERVED_PER_OUTPUT * (a_idx * per_alpha + s))
            uniform = philox.Remaining(gen.uniform_doubles)
            if a == 1.0:
                out[s * num_alphas + a_idx] = -math.log1p(-uniform())
                continue
            normal = philox.Remaining(gen.normal_doubles)
            while True:
                x = normal()
                v = 1 + c * x
                if v <= 0:
                    continue
                v = v * v * v
                u = uniform()
                if u < 1 - 0.0331 * (x * x) * (x * x) or math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
                    res = d * v
                    if less:
                        res *= math.pow(uniform(), 1 / a if a else math.inf)  # C++: 1 / 0.0 is inf
                    out[s * num_alphas + a_idx] = res
                    break
    return out.astype(alpha.dtype)


def _poisson_shape(ins, attrs):
    return [(attrs["dtype"], _shape_of(ins["shape"]).concatenate(ins["rate"].shape))]


_POISSON_OUT = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


@register_op("RandomPoissonV2", inputs=("shape", "rate"), attrs={**_SEEDS, "dtype": dtypes.int64},
             type_attrs={"S": "shape", "R": "rate"},
             allowed={"S": _INDEX, "R": _POISSON_OUT, "dtype": _POISSON_OUT},
             shape=_poisson_shape, stateful=True, ctx=True)
def random_poisson_v2(shape, rate, seed=0, seed2=0, dtype=dtypes.int64, ctx=None):
    """Samples of Poisson(``rate``), shape ``shape + rate.shape``: TF's
    RandomPoissonOp bit for bit (see :func:`poisson_samples`)."""
    dims = _dims(shape)
    rate = np.asarray(rate)
    out_np = dtypes.as_dtype(dtype).np
    per_rate = int(np.prod(dims, dtype=np.int64))
    if per_rate == 0 or rate.size == 0:
        return np.zeros(dims + list(rate.shape), out_np)
    gen = ctx.philox
    start = gen.reserve(per_rate * rate.size * philox.RESERVED_PER_OUTPUT)
    return poisson_samples(gen.key, start, rate, per_rate, out_np).reshape(dims + list(rate.shape))


def poisson_samples(key, start, rate, per_rate, out_np):
    """TF's Poisson sampler in double, output ``o`` drawing uniforms (two per
    Philox block, last first) from ``start + 256 o``. ``rate < 10``: Knuth's
    method, the count of uniforms whose running product stays above
    ``exp(-rate)``. Otherwise Hormann's transformed rejection: ``b = 0.931 +
    2.53 sqrt(rate)``, ``a = -0.059 + 0.02483 b``, ``inv_alpha = 1.1239 +
    1.1328 / (b - 3.4)``; per try ``u = U - 0.5``, ``v = U``, ``us = 0.5 - |u|``,
    ``k = floor((2a / us + b) u + rate + 0.43)``; accept ``k`` when ``us >= 0.07``
    and ``v <= 0.9277 - 3.6224 / (b - 2)``, retry when ``k < 0`` or ``us < 0.013 <
    ...`` (``v > us``), else accept when ``log(v inv_alpha / (a / us^2 + b)) <=
    -rate + k log(rate) - lgamma(k + 1)``."""
    flat = rate.reshape(-1)
    num_rate = flat.size
    highest = float(np.finfo(out_np).max) if np.issubdtype(out_np, np.floating) else float(np.iinfo(out_np).max)
    out = np.empty(per_rate * num_rate, np.float64)
    for r_idx in range(num_rate):
        lam = float(flat[r_idx])
        if lam == math.inf:  # TF: +inf rates give infinity() of the output type (0 for integers)
            out[r_idx::num_rate] = math.inf if np.issubdtype(out_np, np.floating) else 0
            continue
        for s in range(per_rate):
            gen = philox.BlockStream(key, start + philox.RESERVED_PER_OUTPUT * (r_idx * per_rate + s))
            uniform = philox.Remaining(gen.uniform_doubles)
            out[s * num_rate + r_idx] = _knuth(lam, uniform, highest) if lam < 10 else _hormann(lam, uniform, highest)
    return out.astype(out_np)


def _knuth(lam, uniform, highest):
    limit = math.exp(-lam)
    prod, x = 1.0, 0.0
    while True:
        prod *= uniform()
        if prod <= limit and x <= highest:
            return x
        x += 1


def _hormann(lam, uniform, highest):
    log_rate = math.log(lam)
    b = 0.931 + 2.53 * math.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = (2 * a / us + b) * u + lam + 0.43 if us else -math.inf  # us == 0: C's -inf, retried below
        k = math.floor(k) if math.isfinite(k) else k
        if k > highest:
            continue
        if us >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
            return k
        if k < 0 or (us < 0.013 and v > us):
            continue
        if math.log(v * inv_alpha / (a / (us * us) + b)) <= -lam + k * log_rate - math.lgamma(k + 1):
            return k


# -- RandomGammaGrad: d sample / d alpha of a Gamma(alpha, 1) sample ------------

from ref.ops._jit import njit  # noqa: E402

_EPS = 2.0 ** -53
_BIG, _BIGINV = 2.0 ** 52, 2.0 ** -52


@njit(inline="always")
def _digamma(x):
    """psi(x) for x > 0: recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the
    asymptotic series ln x - 1/(2x) - sum_k B_2k / (2k x^2k)."""
    acc = 0.0
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (
        691.0 / 32760 - z / 12.0))))))
    return acc + math.log(x) - 0.5 / x - tail


@njit(inline="always")
def _gamma_sample_der_alpha(a, x):
    """d x / d a at fixed P(a, x) (the regularized lower incomplete gamma):
    -(dP/da) / (dP/dx), with dP/dx = x^(a-1) e^-x / Gamma(a).

    x <= 1 or x <= a: the series P = x^a e^-x / Gamma(a+1) * S,
    S = sum_n x^n / ((a+1)...(a+n)), so the result is -(S' + S (ln x - psi(a+1))) x / a.
    Otherwise the continued fraction Q = 1 - P = x^a e^-x / Gamma(a) * F (Cephes
    igamc's recurrence, differentiated term by term), so the result is
    (F' + F (ln x - psi(a))) x."""
    if x == 0.0:
        return 0.0
    if not (x > 0.0 and a > 0.0):
        return math.nan
    if x <= 1.0 or x <= a:
        r = a
        c = 1.0
        dc = 0.0
        s = 1.0
        ds = 0.0
        for _ in range(2000):
            r += 1.0
            dc = dc * (x / r) - c * x / (r * r)
            c *= x / r
            s += c
            ds += dc
            if abs(c) <= abs(s) * _EPS and abs(dc) <= abs(ds) * _EPS:
                break
        return -(ds + s * (math.log(x) - _digamma(a + 1.0))) * x / a
    y = 1.0 - a
    z = x + y + 1.0
    c = 0.0
    pkm2, qkm2, pkm1, qkm1 = 1.0, x, x + 1.0, z * x
    dpkm2, dqkm2, dpkm1, dqkm1 = 0.0, 0.0, 0.0, -x
    ans = pkm1 / qkm1
    dans = (dpkm1 - ans * dqkm1) / qkm1
    for _ in range(2000):
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
            dr = (dpk - r * dqk) / qk
            done = abs(ans - r) <= _EPS * abs(r) and abs(dans - dr) <= _EPS * abs(dr)
            ans, dans = r, dr
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
        if abs(pk) > _BIG:
            pkm2 *= _BIGINV
            pkm1 *= _BIGINV
            qkm2 *= _BIGINV
            qkm1 *= _BIGINV
            dpkm2 *= _BIGINV
            dpkm1 *= _BIGINV
            dqkm2 *= _BIGINV
            dqkm1 *= _BIGINV
        if done:
            break
    return (dans + ans * (math.log(x) - _digamma(a))) * x


@njit
def _gamma_grad_loop(a, x, out):
    for i in range(out.size):
        out[i] = _gamma_sample_der_alpha(a[i], x[i])
    return out


@register_op("RandomGammaGrad", inputs=("alpha", "sample"), outputs=("output",),
             type_attrs={"T": ("alpha", "sample")}, allowed={"T": (dtypes.float32, dtypes.float64)},
             shape=broadcast_rule("alpha", "sample"))
def random_gamma_grad(alpha, sample):
    """d sample / d alpha for Gamma(alpha, 1) samples by implicit differentiation
    of the CDF: -(dP(alpha, sample)/d alpha) / p(sample; alpha) (Figurnov et al.,
    2018), computed in float64 and rounded to the inputs' dtype; broadcasting."""
    alpha, sample = np.asarray(alpha), np.asarray(sample)
    a, x = np.broadcast_arrays(alpha.astype(np.float64), sample.astype(np.float64))
    a, x = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(x).reshape(-1)
    out = _gamma_grad_loop(a, x, np.empty_like(a))
    return out.reshape(np.broadcast_shapes(alpha.shape, sample.shape)).astype(alpha.dtype)
