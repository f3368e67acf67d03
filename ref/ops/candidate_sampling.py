"""Candidate samplers and ComputeAccidentalHits (TF's ``candidate_sampler_ops.cc``
and ``range_sampler.cc``), drawing TensorFlow's Philox words: the same seeds
give TF's samples bit for bit.

Each run reserves ``2048 * num_sampled`` 32-bit samples of the op's Philox
stream (``ReserveSamples32``: ``ceil(n / 4)`` blocks) and reads its words one
at a time (``SimplePhilox``). A sample is

* uniform: ``Uniform64(range_max)`` -- two words ``lo | hi << 32``, redrawn
  while below ``(2^64 - 1) % range_max + 1`` (a power of two masks instead),
  then taken modulo ``range_max``; probability ``float(1 / range_max)``;
* log-uniform (Zipfian): ``floor(exp(u * log(range_max + 1))) - 1`` with ``u``
  a double from two words; probability ``log((k + 2) / (k + 1)) / log(range_max + 1)``;
* learned unigram: a pick weighted by 1 + the number of times each class was
  a true class so far (the op's state, kept per Session), drawn as an unbiased
  ``Uniform(total_weight)`` over the cumulative weights;
* fixed unigram: Walker's alias method over ``unigrams ** distortion`` (TF's
  ``DistributionSampler``: one float word, then ``Uniform(n)``).

``unique=True`` redraws values already taken; the expected counts are then
``-expm1(num_tries * log1p(-p))`` in float32 (C's ``log1pf``/``expm1f``), else
``p * num_sampled``.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import struct

import numpy as np

from ref.types import dtypes
from ref.ops import _jit, philox
from ref.ops._jit import njit
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape

_U32, _U64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF
_F32 = struct.Struct("<f")
_ONE_EXPONENT = 1023 << 52
_SEEDS = {"seed": 0, "seed2": 0}
_NEAR = 2.0 ** -46
"""Relative distance within which NumPy's ``exp``/``log`` and C's (each within an
ULP or two of the exact value) may fall on two sides of a rounding boundary."""


SimplePhilox = philox.SimplePhilox


def _f32(x):
    """``x`` rounded to float32 (C's cast: to nearest, ties to even), as a Python float."""
    return _F32.unpack(_F32.pack(x))[0]


class UniformSampler:
    def __init__(self, range_max):
        self.range = range_max
        self.p = _f32(1.0 / range_max)

    def sample(self, rnd):
        return rnd.uniform64(self.range)

    def probability(self, value):
        return self.p

    def values(self, words):
        """The samples ``sample`` draws from the 32-bit ``words`` (an even count), in
        order: two words a draw, a rejected draw giving no sample."""
        n = self.range
        r = words[0::2].astype(np.uint64) | (words[1::2].astype(np.uint64) << np.uint64(32))
        if n & (n - 1) == 0:
            return (r & np.uint64(n - 1)).astype(np.int64)
        r = r[r >= np.uint64(_U64 % n + 1)]
        return (r % np.uint64(n)).astype(np.int64)

    def probabilities(self, values):
        return np.full(values.shape, self.p, np.float32)


class LogUniformSampler:
    def __init__(self, range_max):
        self.range = range_max
        self.log_range = math.log1p(range_max)

    def sample(self, rnd):
        return (int(math.exp(rnd.rand_double() * self.log_range)) - 1) % self.range

    def probability(self, value):
        return _f32(math.log((value + 2.0) / (value + 1.0)) / self.log_range)

    def values(self, words):
        """``sample`` over the 32-bit ``words`` (two a draw), all at once. NumPy's
        ``exp`` may differ from C's in the last bits: where that could move the
        floor, C's (``math.exp``) decides."""
        hi = (words[0::2] & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)
        u = (hi | words[1::2].astype(np.uint64) | np.uint64(_ONE_EXPONENT)).view(np.float64) - 1.0
        x = u * self.log_range
        y = np.exp(x)
        k = np.floor(y)
        margin = y * _NEAR
        for i in np.flatnonzero(np.floor(y - margin) != np.floor(y + margin)).tolist():
            k[i] = math.floor(math.exp(x[i]))
        return (k.astype(np.int64) - 1) % self.range

    def probabilities(self, values):
        """``probability`` of each of ``values`` (float32), C's ``log`` deciding where
        NumPy's could round to another float32."""
        v = values.astype(np.float64)
        q = np.log((v + 2.0) / (v + 1.0)) / self.log_range
        out = q.astype(np.float32)
        margin = q * _NEAR
        for i in np.flatnonzero((q - margin).astype(np.float32) != (q + margin).astype(np.float32)).tolist():
            out[i] = self.probability(int(values[i]))
        return out


class UnigramSampler:
    """TF's ``WeightedPicker``-backed sampler: weights start at 1; ``update``
    adds 1 per true class seen."""

    def __init__(self, range_max):
        self.range = range_max
        self.weights = np.ones(range_max, np.int64)
        self.total = range_max
        self._cum = None

    def sample(self, rnd):
        if self._cum is None:
            self._cum = np.cumsum(self.weights)
        if self.total == 0:
            return -1
        position = rnd.uniform(self.total)
        return int(np.searchsorted(self._cum, position, side="right"))

    def probability(self, value):
        return _f32(np.float32(self.weights[value]) / np.float32(self.total))

    def update(self, values):
        n = min(len(values), 2**31 - 1 - self.total)
        for v in values[:n]:
            self.weights[v] += 1
        self.total += n
        self._cum = None


class FixedUnigramSampler:
    """Weights ``w ** distortion`` (reserved ids weigh 0) of this shard's ids,
    sampled by Walker's alias table built as TF's ``DistributionSampler``."""

    def __init__(self, range_max, unigrams, distortion, num_reserved_ids, num_shards, shard):
        self.range = range_max
        weights, total = [], np.float32(0)
        for word in range(num_reserved_ids):
            if word % num_shards == shard:
                weights.append(np.float32(0))
        word = len(weights)
        for w in unigrams:
            if word % num_shards == shard:
                w = np.float32(np.float32(w) ** np.float32(distortion))
                total = np.float32(total + w)
                weights.append(w)
            word += 1
        if len(weights) != range_max:
            raise invalid_argument(f"range is {range_max} must be equal to weights size  {len(weights)}")
        self.weights, self.total = weights, total
        self.prob, self.alt = self._alias(weights)

    @staticmethod
    def _alias(weights):
        n = len(weights)
        s = 0.0
        for w in weights:
            s += float(w)
        pr = [float(np.float32(w) * np.float32(n)) / s for w in weights]  # float * int, then / double
        alt = [-1] * n
        low = [i for i in range(n) if pr[i] < 1.0]
        high = [i for i in range(n) if pr[i] >= 1.0]
        while high and low:
            lo, hi = low.pop(), high.pop()
            alt[lo] = hi
            pr[hi] = pr[hi] - (1.0 - pr[lo])
            (low if pr[hi] < 1.0 else high).append(hi)
        prob = [_f32(p) for p in pr]
        for idx in high + low:
            prob[idx], alt[idx] = 1.0, idx
        return prob, alt

    def sample(self, rnd):
        r = rnd.rand_float()
        idx = rnd.uniform(len(self.prob))
        return idx if r < self.prob[idx] else self.alt[idx]

    def probability(self, value):
        if value < 0 or value >= len(self.weights):
            return 0.0
        return _f32(self.weights[value] / self.total)


_LIBM = []


def _float_libm():
    """C's float ``log1pf``/``expm1f`` (what TF's ``std::log1p(float)`` calls;
    NumPy's float32 versions differ in the last bit), or None."""
    if not _LIBM:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            for fn in (lib.log1pf, lib.expm1f):
                fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
            _LIBM.append((lib.log1pf, lib.expm1f))
        except (OSError, AttributeError):
            _LIBM.append(None)
    return _LIBM[0]


@functools.lru_cache(maxsize=1 << 16)  # a pure function of its arguments: frequent classes repeat
def _expected(p, batch_size, num_tries):
    """TF's expected count in float32 arithmetic, on Python floats: a product of
    two float32 values (24-bit significands) is exact in a double, so rounding
    it once to float32 is float32's own product."""
    p = _f32(p)
    if num_tries == batch_size:
        return _f32(p * batch_size)
    libm = _float_libm()
    if libm is None:  # no C library: rounded once from double (within an ULP of TF)
        return _f32(-math.expm1(num_tries * math.log1p(-p)))
    log1pf, expm1f = libm
    return -expm1f(_f32(_f32(num_tries) * log1pf(-p)))


@njit
def _expected_unique(p, num_tries, out):
    """``out = -expm1f(float(num_tries) * log1pf(-p))`` element by element (C's float
    functions: Numba's ``math.log1p``/``math.expm1`` on float32 call them)."""
    t = np.float32(num_tries)
    for i in range(p.size):
        out[i] = -math.expm1(t * math.log1p(-p[i]))


def _expected_unique_numpy(p, num_tries, out):
    """:func:`_expected_unique` through C's ``log1pf``/``expm1f`` called from Python."""
    log1pf, expm1f = _jit.libm("log1p", np.float32), _jit.libm("expm1", np.float32)
    out[:] = -expm1f(np.float32(num_tries) * log1pf(-p))


def _expected_counts(p, batch_size, num_tries):
    """TF's expected counts of classes of float32 probabilities ``p``: ``p * batch_size``
    without ``unique``, else ``-expm1(num_tries * log1p(-p))`` in float32."""
    if num_tries == batch_size:  # a float32 times an integer, exact in a double: rounded once
        return (p.astype(np.float64) * batch_size).astype(np.float32)
    out = np.empty(p.shape, np.float32)
    if _jit.libm("log1p", np.float32) is None:  # no C library: the double formula, per element
        out.reshape(-1)[:] = [_expected(float(v), batch_size, num_tries) for v in p.reshape(-1).tolist()]
    elif _jit.numpy_tier(_expected_unique, p.size):
        _jit.run_numpy_form(_expected_unique, _expected_unique_numpy, p.reshape(-1), num_tries, out.reshape(-1))
    else:
        _expected_unique(p.reshape(-1), num_tries, out.reshape(-1))
    return out


def _draw_all(sampler, key, counter, num_sampled, unique):
    """The samples of a vectorised sampler (``values``) from the stream at ``counter``:
    the first ``num_sampled`` (with ``unique``, the first ``num_sampled`` distinct
    ones, each at its first draw), and the number of draws they took."""
    draws = num_sampled + (num_sampled >> 2) + 8
    while True:
        values = sampler.values(philox.words(key, counter, 0, (2 * draws + 3) // 4).reshape(-1)[:2 * draws])
        if not unique:
            if values.size >= num_sampled:
                return values[:num_sampled], num_sampled
        else:
            first = np.unique(values, return_index=True)[1]
            if first.size >= num_sampled:
                first.sort()
                first = first[:num_sampled]
                return values[first], int(first[-1]) + 1
        draws *= 2


def _sample(sampler, ctx, true_classes, num_true, num_sampled, unique, update=False):
    t = np.asarray(true_classes)
    if t.ndim != 2:
        raise invalid_argument("true_classes must be a matrix")
    if t.shape[1] != num_true:
        raise invalid_argument(f"true_classes must have num_true columns, expected: {t.shape[1]} was: {num_true}")
    if unique and num_sampled > sampler.range:
        raise invalid_argument("Sampler's range is too small.")
    flat = t.reshape(-1).astype(np.int64)
    bad = np.flatnonzero((flat < 0) | (flat >= sampler.range))
    if bad.size:
        raise invalid_argument(f"`true_candidate` out of range [0, {sampler.range}), received {int(flat[bad[0]])}")
    gen = ctx.philox
    counter = gen.reserve((2048 * num_sampled + 3) // 4)
    if hasattr(sampler, "values"):
        sampled, tries = _draw_all(sampler, gen.key, counter, num_sampled, unique)
        probs = sampler.probabilities(np.concatenate([sampled, flat]))
        expected = _expected_counts(probs, num_sampled, tries)
        sampled_expected, true_expected = expected[:num_sampled], expected[num_sampled:].reshape(t.shape)
    else:
        sampled, tries = _draw_each(sampler, SimplePhilox(gen.key, counter), num_sampled, unique)
        flat = flat.tolist()
        sampled_expected = np.array([_expected(sampler.probability(v), num_sampled, tries) for v in sampled],
                                    np.float32)
        true_expected = np.array([_expected(sampler.probability(v), num_sampled, tries) for v in flat],
                                 np.float32).reshape(t.shape)
        sampled = np.array(sampled, np.int64)
    if update:
        sampler.update(flat)
    return sampled, true_expected, sampled_expected


def _draw_each(sampler, rnd, num_sampled, unique):
    """The samples of ``sampler`` drawn one at a time (as ``_draw_all``), and the draws taken."""
    if not unique:
        return [sampler.sample(rnd) for _ in range(num_sampled)], num_sampled
    sampled, used, tries = [], set(), 0
    while len(sampled) < num_sampled:
        tries += 1
        v = sampler.sample(rnd)
        if v not in used:
            used.add(v)
            sampled.append(v)
    return sampled, tries


def _sampler_shape(ins, attrs):
    t = ins["true_classes"].shape
    if t.ndims is not None and t.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {t.ndims} for '{attrs.get('_op_name')}' "
                         f"with input shapes: {t}.")
    if t.ndims == 2 and t[1] is not None and t[1] != attrs["num_true"]:
        raise ValueError(f"Dimension 1 in both shapes must be equal, but are {t[1]} and {attrs['num_true']} for "
                         f"'{attrs.get('_op_name')}'")
    batch = t[0] if t.ndims == 2 else None
    n = attrs["num_sampled"]
    return [(dtypes.int64, TensorShape([n])), (dtypes.float32, TensorShape([batch, attrs["num_true"]])),
            (dtypes.float32, TensorShape([n]))]


_OUTS = ("sampled_candidates", "true_expected_count", "sampled_expected_count")
_COMMON = {"num_true": REQUIRED, "num_sampled": REQUIRED, "unique": REQUIRED, "range_max": REQUIRED, **_SEEDS}


def _check_common(num_true, num_sampled, range_max=1):
    if num_true < 1 or num_sampled < 1 or range_max < 1:
        raise invalid_argument(f"num_true, num_sampled and range_max must be >= 1, got {num_true}, {num_sampled}, "
                               f"{range_max}")


@register_op("UniformCandidateSampler", inputs=("true_classes",), outputs=_OUTS, attrs=dict(_COMMON),
             shape=_sampler_shape, stateful=True, ctx=True)
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0, seed2=0, ctx=None):
    """num_sampled classes drawn uniformly from [0, range_max), with their and
    the true classes' expected counts."""
    _check_common(num_true, num_sampled, range_max)
    return _sample(UniformSampler(range_max), ctx, true_classes, num_true, num_sampled, unique)


@register_op("LogUniformCandidateSampler", inputs=("true_classes",), outputs=_OUTS, attrs=dict(_COMMON),
             shape=_sampler_shape, stateful=True, ctx=True)
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0, seed2=0,
                                  ctx=None):
    """num_sampled classes drawn with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."""
    _check_common(num_true, num_sampled, range_max)
    return _sample(LogUniformSampler(range_max), ctx, true_classes, num_true, num_sampled, unique)


@register_op("LearnedUnigramCandidateSampler", inputs=("true_classes",), outputs=_OUTS, attrs=dict(_COMMON),
             shape=_sampler_shape, stateful=True, ctx=True)
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0, seed2=0,
                                      ctx=None):
    """num_sampled classes drawn with probability proportional to 1 + the
    number of times each was a true class in earlier runs of this op (its
    state lives in the Session); this run's true classes are counted after
    sampling."""
    _check_common(num_true, num_sampled, range_max)
    key = ("LearnedUnigramCandidateSampler", getattr(ctx, "op_name", None))
    sampler = ctx.resources.get(key)
    if sampler is None or sampler.range != range_max:
        sampler = ctx.resources.setdefault(key, UnigramSampler(range_max))
    return _sample(sampler, ctx, true_classes, num_true, num_sampled, unique, update=True)


_FIXED = {**_COMMON, "vocab_file": "", "distortion": 1.0, "num_reserved_ids": 0, "num_shards": 1, "shard": 0,
          "unigrams": []}


def _read_vocab(path):
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split(",") for line in f]
    try:
        return [float(cols[-1]) for cols in rows if cols and cols != [""]]
    except ValueError as e:
        raise invalid_argument(f"Wrong vocabulary format in {path}: {e}") from None


@register_op("FixedUnigramCandidateSampler", inputs=("true_classes",), outputs=_OUTS, attrs=_FIXED,
             shape=_sampler_shape, stateful=True, ctx=True)
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(), seed=0,
                                    seed2=0, ctx=None):
    """num_sampled classes drawn with probability proportional to
    ``unigrams[k] ** distortion`` (or the last column of each line of
    ``vocab_file``); the first ``num_reserved_ids`` ids weigh 0; with
    ``num_shards`` > 1 only this shard's ids (``id % num_shards == shard``)."""
    _check_common(num_true, num_sampled, range_max)
    vocab_file = vocab_file.decode() if isinstance(vocab_file, bytes) else vocab_file
    if not vocab_file and not len(unigrams):
        raise invalid_argument("Must provide either vocab_file or unigrams.")
    if vocab_file and len(unigrams):
        raise invalid_argument("Must only provide one of vocab_file and unigrams.")
    key = ("FixedUnigramCandidateSampler", getattr(ctx, "op_name", None))
    sampler = ctx.resources.get(key)
    if sampler is None:
        weights = _read_vocab(vocab_file) if vocab_file else list(unigrams)
        sampler = ctx.resources.setdefault(key, FixedUnigramSampler(range_max, weights, distortion,
                                                                    num_reserved_ids, num_shards, shard))
    return _sample(sampler, ctx, true_classes, num_true, num_sampled, unique)


@register_op("AllCandidateSampler", inputs=("true_classes",), outputs=_OUTS,
             attrs={"num_true": REQUIRED, "num_sampled": REQUIRED, "unique": REQUIRED, **_SEEDS},
             shape=_sampler_shape, stateful=True, ctx=True)
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=0, seed2=0, ctx=None):
    """Every class in [0, num_sampled), expected count 1 each."""
    t = np.asarray(true_classes)
    if t.ndim != 2 or t.shape[1] != num_true:
        raise invalid_argument("true_classes must be a batch_size * num_true matrix")
    return (np.arange(num_sampled, dtype=np.int64), np.ones(t.shape, np.float32),
            np.ones(num_sampled, np.float32))


def _hits_shape(ins, attrs):
    return [(dtypes.int32, TensorShape([None])), (dtypes.int64, TensorShape([None])),
            (dtypes.float32, TensorShape([None]))]


@register_op("ComputeAccidentalHits", inputs=("true_classes", "sampled_candidates"),
             outputs=("indices", "ids", "weights"), attrs={"num_true": REQUIRED, **_SEEDS}, shape=_hits_shape)
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=0, seed2=0):
    """For every true class true_classes[i, j] that was also sampled (at its
    last position p in sampled_candidates): indices i, ids p, weights
    -FLT_MAX, in row-major order of (i, j)."""
    t, s = np.asarray(true_classes), np.asarray(sampled_candidates)
    if t.ndim != 2 or t.shape[1] != num_true:
        raise invalid_argument("true_candidates must be a batch_size * num_true matrix")
    if s.ndim != 1:
        raise invalid_argument("sampled_candidates must be a vector, which is typically an output from "
                               "CandidateSampler")
    pos = {int(v): i for i, v in enumerate(s)}
    hits = [(i, pos[int(v)]) for i in range(t.shape[0]) for v in t[i] if int(v) in pos]
    indices = np.array([h[0] for h in hits], np.int32)
    ids = np.array([h[1] for h in hits], np.int64)
    return indices, ids, np.full(len(hits), -np.finfo(np.float32).max, np.float32)
