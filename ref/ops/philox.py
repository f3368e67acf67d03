"""TensorFlow's random numbers, bit for bit: Philox-4x32-10 and the samplers
TF builds on it (``tensorflow/core/lib/random/philox_random.h``,
``random_distributions.h``, ``kernels/random_op.cc``).

**The generator.** Philox-4x32-10 (Salmon et al., "Parallel random numbers:
as easy as 1, 2, 3", SC 2011) maps a 128-bit counter and a 64-bit key to four
32-bit words. One round, with ``mulhilo(a, b)`` the high and low halves of the
64-bit product::

    hi0, lo0 = mulhilo(0xD2511F53, c[0]);  hi1, lo1 = mulhilo(0xCD9E8D57, c[2])
    c = (hi1 ^ c[1] ^ k[0],  lo1,  hi0 ^ c[3] ^ k[1],  lo0)

ten rounds, the key raised by ``(0x9E3779B9, 0xBB67AE85)`` between them. An
op with attrs ``(seed, seed2)`` starts from key ``seed`` (low word first) and
counter ``seed2 << 64``; ``seed == seed2 == 0`` means unseeded: two fresh
random 64-bit seeds (``GuardedPhiloxRandom::Init``).

**Reservation.** Each run of a stateful random op reserves
``num_elements * 256`` counter values (``ReserveRandomOutputs(n, 256)``) and
the op's counter moves on by that much, so successive runs give new numbers and
a new Session replays the same ones. Output group ``g`` of a run (4 floats, or
2 doubles) comes from counter ``start + g``; a truncated-normal group, which
may reject samples, owns the 256 counters from ``start + 256 g``.

**Samplers** (one 32-bit word ``x`` per float, two per double):

* float in [0, 1): ``bits(0x3F800000 | (x & 0x7FFFFF)) - 1``, 23 random
  mantissa bits; double: ``bits(0x3FF << 52 | (x0 & 0xFFFFF) << 32 | x1) - 1``;
  half and bfloat16 likewise with 10 and 7 mantissa bits of ``x``.
* normal: Box-Muller on pairs, ``u1 = max(U(x0), 1e-7)``,
  ``v = 2 pi U(x1)``, ``r = sqrt(-2 log u1)``: ``(r sin v, r cos v)`` in float
  (computed with libm's ``logf``/``sinf``/``cosf``, as TF's kernel is) for
  float, half and bfloat16 (rounded), in double (four words per pair) for double.
* truncated normal: the same pairs, drawn one word at a time, keeping values
  with ``|x| < 2`` until the group is full.
* integers in ``[lo, hi)``: ``lo + x % (hi - lo)`` (int64: ``x = x0 | x1 << 32``).
* shuffle: Fisher-Yates from the front, ``swap(i, i + x % (n - i))``, one word
  per step, words from ``ReserveSamples32(n - 1)``.
* ``RandomShuffleQueue``: each dequeue takes element ``x % size``, one word a
  time from the queue's own generator (:class:`SingleSample`), and moves the
  last element into its place.
"""
from __future__ import annotations

import math
import os
import struct
import threading

import numpy as np

from ref.types import dtypes
from ref.ops._jit import libm, njit, numpy_tier, run_numpy_form

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
RESERVED_PER_OUTPUT = 256
_U64 = (1 << 64) - 1


@njit(inline="always")
def _rounds(c0, c1, c2, c3, k0, k1):
    """Philox-4x32-10 of counter (c0..c3) under key (k0, k1); uint64 holding 32-bit words."""
    mask = np.uint64(0xFFFFFFFF)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        n0 = (p1 >> np.uint64(32)) ^ c1 ^ k0
        n1 = p1 & mask
        n2 = (p0 >> np.uint64(32)) ^ c3 ^ k1
        n3 = p0 & mask
        c0, c1, c2, c3 = n0, n1, n2, n3
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    return c0, c1, c2, c3


@njit
def _blocks(key, lo, hi, first, stride, count, out):
    """out[g] = philox(counter + first + g * stride) for g < count (128-bit counter lo/hi)."""
    mask = np.uint64(0xFFFFFFFF)
    k0 = np.uint64(key) & mask
    k1 = np.uint64(key) >> np.uint64(32)
    for g in range(count):
        add = np.uint64(first) + np.uint64(g) * np.uint64(stride)
        clo = lo + add
        chi = hi + np.uint64(1) if clo < lo else hi
        r0, r1, r2, r3 = _rounds(clo & mask, clo >> np.uint64(32), chi & mask, chi >> np.uint64(32), k0, k1)
        out[g, 0] = np.uint32(r0)
        out[g, 1] = np.uint32(r1)
        out[g, 2] = np.uint32(r2)
        out[g, 3] = np.uint32(r3)


def _blocks_numpy(key, lo, hi, first, stride, count, out):
    """:func:`_blocks` as NumPy integer arithmetic on all blocks at once (the
    same bits: uint64 products of 32-bit words never overflow, and sums wrap
    modulo 2**64 as Numba's do). Small draws use it so that they do not load Numba."""
    out[:] = _philox_numpy(key, lo, hi, np.uint64(first) + np.arange(count, dtype=np.uint64) * np.uint64(stride))


def _philox_numpy(key, lo, hi, add):
    """The blocks at offsets ``add`` (uint64 array) from counter (lo, hi), shape ``(len(add), 4)``."""
    count = add.size
    out = np.empty((count, 4), np.uint32)
    mask = np.uint64(0xFFFFFFFF)
    k0, k1 = int(key) & 0xFFFFFFFF, int(key) >> 32
    clo = np.uint64(lo) + add
    chi = np.full(count, np.uint64(hi))
    chi[clo < np.uint64(lo)] += np.uint64(1)
    c0, c1, c2, c3 = clo & mask, clo >> np.uint64(32), chi & mask, chi >> np.uint64(32)
    m0, m1, s32 = np.uint64(M0), np.uint64(M1), np.uint64(32)
    for _ in range(10):
        p0 = m0 * c0
        p1 = m1 * c2
        c0, c1, c2, c3 = (p1 >> s32) ^ c1 ^ np.uint64(k0), p1 & mask, (p0 >> s32) ^ c3 ^ np.uint64(k1), p0 & mask
        k0 = (k0 + W0) & 0xFFFFFFFF
        k1 = (k1 + W1) & 0xFFFFFFFF
    for j, c in enumerate((c0, c1, c2, c3)):
        out[:, j] = c
    return out


def words(key, counter, first, groups, stride=1):
    """The 4 uint32 words of each of ``groups`` Philox blocks, shape ``(groups, 4)``."""
    out = np.empty((groups, 4), np.uint32)
    if groups:
        args = (np.uint64(key & _U64), np.uint64(counter & _U64), np.uint64(counter >> 64),
                np.uint64(first & _U64), np.uint64(stride), groups, out)
        if numpy_tier(_blocks, groups * 4):
            run_numpy_form(_blocks, _blocks_numpy, *args)
        else:
            _blocks(*args)
    return out


class PhiloxRandom:
    """One op's generator: key, counter, and TF's reservation rule (thread safe)."""

    def __init__(self, seed=0, seed2=0):
        seed, seed2 = int(seed or 0) & _U64, int(seed2 or 0) & _U64
        if seed == 0 and seed2 == 0:  # unseeded: random seeds (random::New64)
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self.key = seed
        self.counter = seed2 << 64
        self._lock = threading.Lock()

    def reserve(self, samples128: int) -> int:
        """The counter to start from; the state skips ``samples128`` blocks."""
        with self._lock:
            start = self.counter
            self.counter = (self.counter + samples128) & ((1 << 128) - 1)
            return start

    def reserve_outputs(self, n: int) -> int:
        return self.reserve(n * RESERVED_PER_OUTPUT)


class SingleSample:
    """TF's ``SingleSampleAdapter<PhiloxRandom>``: the generator's 32-bit words one
    at a time, block after block (``RandomShuffleQueue`` draws its indices so)."""

    _BATCH = 64  # blocks computed at once; only the order of the words is observable

    def __init__(self, seed=0, seed2=0):
        gen = PhiloxRandom(seed, seed2)
        self.key, self.counter = gen.key, gen.counter
        self._words = np.empty(0, np.uint32)
        self._next = 0

    def __call__(self) -> int:
        if self._next >= self._words.size:
            self._words = words(self.key, self.counter, 0, self._BATCH).reshape(-1)
            self.counter = (self.counter + self._BATCH) & ((1 << 128) - 1)
            self._next = 0
        w = int(self._words[self._next])
        self._next += 1
        return w


# -- word -> float ---------------------------------------------------------------

def uint32_to_float(x):
    """[0, 1) from the 23 low bits of each word."""
    return ((np.uint32(0x3F800000) | (x & np.uint32(0x7FFFFF))).view(np.float32) - np.float32(1)).astype(np.float32)


def uint64_to_double(x0, x1):
    """[0, 1) from 52 bits: the low 20 of ``x0`` above all of ``x1``."""
    man = ((x0.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | x1.astype(np.uint64)
    return (man | (np.uint64(1023) << np.uint64(52))).view(np.float64) - 1.0


def _uint16_to_half(x):
    bits = (np.uint16(15 << 10) | (x.astype(np.uint16) & np.uint16(0x3FF)))
    return bits.view(np.float16) - np.float16(1)


def _uint16_to_bfloat16(x):
    bf16 = dtypes.bfloat16.as_numpy_dtype
    bits = (np.uint16(127 << 7) | (x.astype(np.uint16) & np.uint16(0x7F)))
    return (bits.view(bf16).astype(np.float32) - np.float32(1)).astype(bf16)


@njit(inline="always")
def _bits_to_float(x):
    """bits 0x3F800000 | 23 mantissa bits of ``x``: a float in [1, 2)."""
    b = np.empty(1, np.uint32)
    b[0] = np.uint32(0x3F800000) | (x & np.uint32(0x7FFFFF))
    return b.view(np.float32)[0]


@njit(inline="always")
def _bits_to_double(x0, x1):
    """bits 0x3FF << 52 | 20 bits of ``x0`` | 32 of ``x1``: a double in [1, 2)."""
    b = np.empty(1, np.uint64)
    b[0] = (np.uint64(1023) << np.uint64(52)) | ((np.uint64(x0) & np.uint64(0xFFFFF)) << np.uint64(32)) \
        | np.uint64(x1)
    return b.view(np.float64)[0]


@njit(inline="always")
def _box_muller32(x0, x1):
    """TF's BoxMullerFloat: two float32 normals from two words (libm logf, sinf, cosf)."""
    u1 = _bits_to_float(x0) - np.float32(1)
    if u1 < np.float32(1e-7):
        u1 = np.float32(1e-7)
    v1 = np.float32(2.0 * math.pi * np.float64(_bits_to_float(x1) - np.float32(1)))
    u2 = math.sqrt(np.float32(-2.0) * math.log(u1))
    return math.sin(v1) * u2, math.cos(v1) * u2


@njit(inline="always")
def _box_muller64(x0, x1, x2, x3):
    """TF's BoxMullerDouble: two float64 normals from four words."""
    u1 = _bits_to_double(x0, x1) - 1.0
    v1 = 2.0 * math.pi * (_bits_to_double(x2, x3) - 1.0)
    if u1 < 1e-7:
        u1 = 1e-7
    u2 = math.sqrt(-2.0 * math.log(u1))
    return math.sin(v1) * u2, math.cos(v1) * u2


@njit
def _box_muller_float(w, out):
    for i in range(w.size // 2):
        out[2 * i], out[2 * i + 1] = _box_muller32(w[2 * i], w[2 * i + 1])


@njit
def _box_muller_double(w, out):
    for i in range(w.size // 4):
        out[2 * i], out[2 * i + 1] = _box_muller64(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3])


def _box_muller_float_numpy(w, out):
    """:func:`_box_muller_float` in NumPy: the same float32 operations, libm's
    ``logf``/``sinf``/``cosf`` (see ref.ops._jit: NumPy forms of small draws)."""
    f32 = np.float32
    log, sin, cos = libm("log", f32), libm("sin", f32), libm("cos", f32)
    x0, x1 = w[0:w.size // 2 * 2:2], w[1:w.size // 2 * 2:2]
    u1 = uint32_to_float(x0)
    u1 = np.where(u1 < f32(1e-7), f32(1e-7), u1)
    v1 = (2.0 * math.pi * uint32_to_float(x1).astype(np.float64)).astype(f32)
    u2 = np.sqrt(f32(-2.0) * log(u1))
    out[0:x0.size * 2:2] = sin(v1) * u2
    out[1:x0.size * 2:2] = cos(v1) * u2


def _box_muller_double_numpy(w, out):
    """:func:`_box_muller_double` in NumPy (libm's ``log``/``sin``/``cos``)."""
    log, sin, cos = libm("log", np.float64), libm("sin", np.float64), libm("cos", np.float64)
    k = w.size // 4
    u1 = uint64_to_double(w[0:4 * k:4], w[1:4 * k:4])
    v1 = 2.0 * math.pi * uint64_to_double(w[2:4 * k:4], w[3:4 * k:4])
    u1 = np.where(u1 < 1e-7, 1e-7, u1)
    u2 = np.sqrt(-2.0 * log(u1))
    out[0:2 * k:2] = sin(v1) * u2
    out[1:2 * k:2] = cos(v1) * u2


def _libm_ready(dtype):
    return all(libm(f, dtype) is not None for f in ("log", "sin", "cos"))


def _box_muller(kernel, form, w, out):
    if numpy_tier(kernel, w.size) and _libm_ready(out.dtype):
        run_numpy_form(kernel, form, w, out)
    else:
        kernel(w, out)


def _words_for(key, counter, groups):
    return words(key, counter, 0, groups).reshape(-1)


def uniform(key, counter, n, dtype):
    """RandomUniform's ``n`` samples of [0, 1) in ``dtype``."""
    dt = dtypes.as_dtype(dtype)
    if dt == dtypes.float64:
        w = _words_for(key, counter, (n + 1) // 2)
        return uint64_to_double(w[0::2], w[1::2])[:n]
    w = _words_for(key, counter, (n + 3) // 4)[:n]
    if dt == dtypes.float32:
        return uint32_to_float(w)
    if dt == dtypes.float16:
        return _uint16_to_half(w)
    return _uint16_to_bfloat16(w)


def normal(key, counter, n, dtype):
    """RandomStandardNormal's ``n`` samples of N(0, 1) in ``dtype``."""
    dt = dtypes.as_dtype(dtype)
    if dt == dtypes.float64:
        w = _words_for(key, counter, (n + 1) // 2)
        out = np.empty(w.size // 2, np.float64)
        _box_muller(_box_muller_double, _box_muller_double_numpy, w, out)
        return out[:n]
    w = _words_for(key, counter, (n + 3) // 4)
    out = np.empty(w.size, np.float32)
    _box_muller(_box_muller_float, _box_muller_float_numpy, w, out)
    return out[:n].astype(dt.np)


@njit(inline="always")
def _next_word(key, lo, hi, first, blk, pos):
    """One word of a SingleSampleAdapter reading blocks ``first``, ``first + 1``, ...;
    ``pos`` = (words used of ``blk``, blocks drawn)."""
    if pos[0] == 4:
        _blocks(key, lo, hi, first + pos[1], 1, 1, blk)
        pos[1] += 1
        pos[0] = 0
    w = blk[0, pos[0]]
    pos[0] += 1
    return w


@njit
def _truncated_loop(key, lo, hi, n, double, out):
    """Groups of 4 float32 (2 float64) truncated normals; group g draws words from
    counter ``start + 256 g`` on and keeps Box-Muller values with ``|x| < 2``."""
    group = 2 if double else 4
    stride = 256 * group // 4
    blk = np.empty((1, 4), np.uint32)
    pos = np.empty(2, np.int64)
    for g in range((n + group - 1) // group):
        first = g * stride
        pos[0] = 4
        pos[1] = 0
        index = 0
        while index < group and g * group + index < n:
            if double:
                a, b = _box_muller64(_next_word(key, lo, hi, first, blk, pos), _next_word(key, lo, hi, first, blk, pos),
                                     _next_word(key, lo, hi, first, blk, pos), _next_word(key, lo, hi, first, blk, pos))
            else:
                a, b = _box_muller32(_next_word(key, lo, hi, first, blk, pos), _next_word(key, lo, hi, first, blk, pos))
            for f in (a, b):
                if abs(f) < 2.0 and index < group:
                    if g * group + index < n:
                        out[g * group + index] = f
                    index += 1


_TRUNCATED_FIRST_BLOCKS = 2
"""Blocks a group of :func:`_truncated_numpy` draws first (a float32 group then
fails to fill with probability ~1e-6, a float64 one ~4e-4)."""


def _truncated_numpy(key, lo, hi, n, double, out):
    """:func:`_truncated_loop` in NumPy: every group's first blocks at once, the
    Box-Muller values in the loop's order, the first ``group`` of them with
    ``|x| < 2`` kept; a group that has too few draws twice as many blocks again."""
    group = 2 if double else 4
    stride = 256 * group // 4
    groups = (n + group - 1) // group
    todo = np.arange(groups, dtype=np.uint64)
    nblocks = _TRUNCATED_FIRST_BLOCKS
    while todo.size:
        offsets = (todo[:, None] * np.uint64(stride) + np.arange(nblocks, dtype=np.uint64)).reshape(-1)
        words = _philox_numpy(key, lo, hi, offsets).reshape(-1)
        vals = np.empty(words.size // (4 if double else 2) * 2, np.float64 if double else np.float32)
        (_box_muller_double_numpy if double else _box_muller_float_numpy)(words, vals)
        vals = vals.reshape(todo.size, -1)
        kept = np.abs(vals) < 2.0
        rank = np.cumsum(kept, axis=1)
        start = todo.astype(np.int64) * group
        need = np.minimum(group, n - start)
        done = rank[:, -1] >= need
        take = kept & (rank <= need[:, None]) & done[:, None]
        out[(start[:, None] + rank - 1)[take]] = vals[take]
        todo = todo[~done]
        nblocks *= 2


def truncated_normal(key, counter, n, dtype):
    """TruncatedNormal's ``n`` samples of N(0, 1) restricted to ``|x| < 2``."""
    dt = dtypes.as_dtype(dtype)
    double = dt == dtypes.float64
    out = np.empty(n, np.float64 if double else np.float32)
    if n:
        args = (np.uint64(key & _U64), np.uint64(counter & _U64), np.uint64(counter >> 64), n, double, out)
        if numpy_tier(_truncated_loop, n) and _libm_ready(out.dtype):
            run_numpy_form(_truncated_loop, _truncated_numpy, *args)
        else:
            _truncated_loop(*args)
    return out if double else out.astype(dt.np)


def uniform_int(key, counter, n, lo, hi, dtype):
    """RandomUniformInt's ``n`` integers in ``[lo, hi)``."""
    if np.dtype(dtype) == np.int64:
        w = _words_for(key, counter, (n + 1) // 2).astype(np.uint64)
        bits = w[0::2] | (w[1::2] << np.uint64(32))
        span = np.uint64((int(hi) - int(lo)) & _U64)
        return (np.int64(lo) + (bits % span).astype(np.int64))[:n]
    w = _words_for(key, counter, (n + 3) // 4)[:n]
    span = np.uint32((int(hi) - int(lo)) & 0xFFFFFFFF)
    return (np.int32(lo) + (w % span).astype(np.int32)).astype(np.int32)


@njit
def _shuffle_permutation(w, size):
    perm = np.arange(size)
    for i in range(size - 1):
        j = i + np.int64(w[i] % np.uint32(size - i))
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    return perm


def shuffle_permutation(key, counter, size):
    """RandomShuffle's order of ``size`` rows: Fisher-Yates with one word a step."""
    if size <= 1:
        return np.arange(size)
    w = _words_for(key, counter, (size - 1 + 3) // 4)
    return _shuffle_permutation(w, size)


class BlockStream:
    """TF's ``PhiloxRandom`` called block after block from counter ``start``: each
    call gives the next block's 4 words (RandomGamma and RandomPoisson draw their
    doubles so, each sample from its own skipped-to region)."""

    _BATCH = 8

    def __init__(self, key, start):
        self.key, self.start = key, start
        self._pos = 0
        self._buf = np.empty((0, 4), np.uint32)
        self._next = 0

    def __call__(self):
        if self._next == len(self._buf):
            self._buf = words(self.key, self.start, self._pos, self._BATCH)
            self._pos += self._BATCH
            self._next = 0
        self._next += 1
        return self._buf[self._next - 1]

    def uniform_doubles(self):
        """One block as TF's ``UniformDistribution<double>``: 2 doubles in [0, 1)."""
        w = self()
        return uint64_to_double(w[0::2], w[1::2])

    def normal_doubles(self):
        """One block as TF's ``NormalDistribution<double>``: Box-Muller's (sin, cos) pair."""
        w = self()
        u1 = max(float(uint64_to_double(w[0:1], w[1:2])[0]), 1e-7)
        v1 = 2.0 * math.pi * float(uint64_to_double(w[2:3], w[3:4])[0])
        r = math.sqrt(-2.0 * math.log(u1))
        return (math.sin(v1) * r, math.cos(v1) * r)


class Remaining:
    """TF's ``UNIFORM``/``NORMAL`` macros: a block's results are taken last first,
    a new block drawn when they run out."""

    def __init__(self, draw):
        self._draw = draw
        self._vals = ()
        self._left = 0

    def __call__(self):
        if self._left == 0:
            self._vals = self._draw()
            self._left = len(self._vals)
        self._left -= 1
        return float(self._vals[self._left])


_U32 = 0xFFFFFFFF
_U64_AS_F64 = struct.Struct("<Q"), struct.Struct("<d")
_ONE_EXPONENT = 1023 << 52


class SimplePhilox:
    """TF's ``SimplePhilox`` over a reserved counter: 32-bit words in order.

    ``uniform(n)`` is TF's ``ExactUniformInt``: a power of two masks the low bits,
    any other ``n`` rejects words below ``(2^32 - 1) % n + 1`` and takes ``r % n``.
    Every kernel drawing through TF's SimplePhilox (candidate samplers, random
    crops, bounding boxes, multinomial's rows) draws through this class."""

    _BATCH = 256

    def __init__(self, key, counter):
        self.key, self.counter = key, counter
        self._words, self._next = (), 0

    def rand32(self):
        if self._next >= len(self._words):
            self._words = words(self.key, self.counter, 0, self._BATCH).reshape(-1).tolist()
            self.counter = (self.counter + self._BATCH) & ((1 << 128) - 1)
            self._next = 0
        w = self._words[self._next]
        self._next += 1
        return w

    def rand64(self):
        lo = self.rand32()
        return lo | (self.rand32() << 32)

    def rand_float(self):
        return float(uint32_to_float(np.uint32(self.rand32())))

    def rand_double(self):
        """philox.uint64_to_double on Python ints: [0, 1) from the low 20 bits of
        the first word above all of the second, as a double in [1, 2) minus 1."""
        x0 = self.rand32()
        bits = ((x0 & 0xFFFFF) << 32) | self.rand32() | _ONE_EXPONENT
        pack, unpack = _U64_AS_F64
        return unpack.unpack(pack.pack(bits))[0] - 1.0

    def _exact_uniform(self, n, draw, mask):
        if n == 0:  # TF consumes a word anyway
            draw()
            return 0
        if n & (n - 1) == 0:
            return draw() & (n - 1)
        rem = (mask % n) + 1  # rejects [0, rem): what would skew r % n towards 0
        while True:
            r = draw()
            if r >= rem:
                return r % n

    def uniform(self, n):
        return self._exact_uniform(n, self.rand32, _U32)

    def uniform64(self, n):
        return self._exact_uniform(n, self.rand64, _U64)
