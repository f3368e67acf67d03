"""FarmHash's ``Fingerprint128`` (= CityHash128 v1.1, farmhash's ``farmhashcc``)
on bytes, in pure Python integers mod 2**64: the hash TF's ``SdcaFprint`` uses.

Verified against ``tf.raw_ops.SdcaFprint`` on strings of every length 0..299
and a few longer (tests/graph_ops/test_sdca_ops.py).
"""
from __future__ import annotations

import struct

M = (1 << 64) - 1
k0 = 0xc3a5c85c97cb3127
k1 = 0xb492b66fbe98f273
k2 = 0x9ae16a3b2f90404f
kMul = 0x9ddfea08eb382d69


def f64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def f32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def rot(v, n):
    return v if n == 0 else ((v >> n) | (v << (64 - n))) & M


def smix(v):
    return v ^ (v >> 47)


def hl16(u, v, mul=kMul):
    a = ((u ^ v) * mul) & M
    a ^= a >> 47
    b = ((v ^ a) * mul) & M
    b ^= b >> 47
    return (b * mul) & M


def hl0to16(s, off, n):
    if n >= 8:
        mul = (k2 + n * 2) & M
        a = (f64(s, off) + k2) & M
        b = f64(s, off + n - 8)
        c = (rot(b, 37) * mul + a) & M
        d = ((rot(a, 25) + b) * mul) & M
        return hl16(c, d, mul)
    if n >= 4:
        mul = (k2 + n * 2) & M
        a = f32(s, off)
        return hl16((n + (a << 3)) & M, f32(s, off + n - 4), mul)
    if n > 0:
        a, b, c = s[off], s[off + (n >> 1)], s[off + n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (smix(((y * k2) ^ (z * k0)) & M) * k2) & M
    return k2


def weak32(s, off, a, b):
    w, x, y, z = f64(s, off), f64(s, off + 8), f64(s, off + 16), f64(s, off + 24)
    a = (a + w) & M
    b = rot((b + a + z) & M, 21)
    c = a
    a = (a + x + y) & M
    b = (b + rot(a, 44)) & M
    return (a + z) & M, (b + c) & M


def _round64(s, off, x, y, z, v0, v1, w0, w1):
    """One 64-byte round of CityHash/FarmHash's long-input loop (the state
    after reading ``s[off:off + 64]``; x and z swap at its end)."""
    x = (rot((x + y + v0 + f64(s, off + 8)) & M, 37) * k1) & M
    y = (rot((y + v1 + f64(s, off + 48)) & M, 42) * k1) & M
    x ^= w1
    y = (y + v0 + f64(s, off + 40)) & M
    z = (rot((z + w0) & M, 33) * k1) & M
    v0, v1 = weak32(s, off, (v1 * k1) & M, (x + w0) & M)
    w0, w1 = weak32(s, off + 32, (z + w1) & M, (y + f64(s, off + 16)) & M)
    return z, y, x, v0, v1, w0, w1


def murmur(s, off, n, lo, hi):
    a, b, c, d = lo, hi, 0, 0
    l = n - 16
    if l <= 0:
        a = (smix((a * k1) & M) * k1) & M
        c = (b * k1 + hl0to16(s, off, n)) & M
        d = smix((a + (f64(s, off) if n >= 8 else c)) & M)
    else:
        c = hl16((f64(s, off + n - 8) + k1) & M, a)
        d = hl16((b + n) & M, (c + f64(s, off + n - 16)) & M)
        a = (a + d) & M
        while True:
            a ^= (smix((f64(s, off) * k1) & M) * k1) & M
            a = (a * k1) & M
            b ^= a
            c ^= (smix((f64(s, off + 8) * k1) & M) * k1) & M
            c = (c * k1) & M
            d ^= c
            off += 16
            l -= 16
            if l <= 0:
                break
    a = hl16(a, c)
    b = hl16(d, b)
    return a ^ b, hl16(b, a)


def city128_seed(s, off, n, lo, hi):
    if n < 128:
        return murmur(s, off, n, lo, hi)
    x, y, z = lo, hi, (n * k1) & M
    v0 = (rot(y ^ k1, 49) * k1 + f64(s, off)) & M
    v1 = (rot(v0, 42) * k1 + f64(s, off + 8)) & M
    w0 = (rot((y + z) & M, 35) * k1 + x) & M
    w1 = (rot((x + f64(s, off + 88)) & M, 53) * k1) & M
    while True:
        for _ in range(2):
            x, y, z, v0, v1, w0, w1 = _round64(s, off, x, y, z, v0, v1, w0, w1)
            off += 64
        n -= 128
        if n < 128:
            break
    x = (x + rot((v0 + z) & M, 49) * k0) & M
    y = (y * k0 + rot(w1, 37)) & M
    z = (z * k0 + rot(w0, 27)) & M
    w0 = (w0 * 9) & M
    v0 = (v0 * k0) & M
    done = 0
    while done < n:
        done += 32
        y = (rot((x + y) & M, 42) * k0 + v1) & M
        w0 = (w0 + f64(s, off + n - done + 16)) & M
        x = (x * k0 + w0) & M
        z = (z + w1 + f64(s, off + n - done)) & M
        w1 = (w1 + v0) & M
        v0, v1 = weak32(s, off + n - done, (v0 + z) & M, v1)
        v0 = (v0 * k0) & M
    x = hl16(x, v0)
    y = hl16((y + z) & M, w0)
    return (hl16((x + v1) & M, w1) + y) & M, hl16((x + w1) & M, (y + v1) & M)


def fingerprint128(s: bytes) -> tuple:
    """(low64, high64) of farmhash ``Fingerprint128(s)``, unsigned."""
    n = len(s)
    if n >= 16:
        return city128_seed(s, 16, n - 16, f64(s, 0), (f64(s, 8) + k0) & M)
    return city128_seed(s, 0, n, k0, k1)


# -- Fingerprint64 (farmhash's farmhashna::Hash64): TF's StringToHashBucketFast and Fingerprint ------------

def _hl17to32(s, n):
    mul = (k2 + n * 2) & M
    a = (f64(s, 0) * k1) & M
    b = f64(s, 8)
    c = (f64(s, n - 8) * mul) & M
    d = (f64(s, n - 16) * k2) & M
    return hl16((rot((a + b) & M, 43) + rot(c, 30) + d) & M, (a + rot((b + k2) & M, 18) + c) & M, mul)


def _hl33to64(s, n):
    mul = (k2 + n * 2) & M
    a = (f64(s, 0) * k2) & M
    b = f64(s, 8)
    c = (f64(s, n - 8) * mul) & M
    d = (f64(s, n - 16) * k2) & M
    y = (rot((a + b) & M, 43) + rot(c, 30) + d) & M
    z = hl16(y, (a + rot((b + k2) & M, 18) + c) & M, mul)
    e = (f64(s, 16) * mul) & M
    f = f64(s, 24)
    g = ((y + f64(s, n - 32)) * mul) & M
    h = ((z + f64(s, n - 24)) * mul) & M
    return hl16((rot((e + f) & M, 43) + rot(g, 30) + h) & M, (e + rot((f + a) & M, 18) + g) & M, mul)


def fingerprint64(s: bytes) -> int:
    """farmhash ``Fingerprint64(s)`` as an unsigned Python int."""
    n = len(s)
    if n <= 16:
        return hl0to16(s, 0, n)
    if n <= 32:
        return _hl17to32(s, n)
    if n <= 64:
        return _hl33to64(s, n)
    seed = 81
    x = seed
    y = (seed * k1 + 113) & M
    z = (smix((y * k2 + 113) & M) * k2) & M
    v0 = v1 = w0 = w1 = 0
    x = (x * k2 + f64(s, 0)) & M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    off = 0
    while True:
        x, y, z, v0, v1, w0, w1 = _round64(s, off, x, y, z, v0, v1, w0, w1)
        off += 64
        if off == end:
            break
    mul = (k1 + ((z & 0xff) << 1)) & M
    off = last64
    w0 = (w0 + ((n - 1) & 63)) & M
    v0 = (v0 + w0) & M
    w0 = (w0 + v0) & M
    x = (rot((x + y + v0 + f64(s, off + 8)) & M, 37) * mul) & M
    y = (rot((y + v1 + f64(s, off + 48)) & M, 42) * mul) & M
    x ^= (w1 * 9) & M
    y = (y + v0 * 9 + f64(s, off + 40)) & M
    z = (rot((z + w0) & M, 33) * mul) & M
    v0, v1 = weak32(s, off, (v1 * mul) & M, (x + w0) & M)
    w0, w1 = weak32(s, off + 32, (z + w1) & M, (y + f64(s, off + 16)) & M)
    z, x = x, z
    return hl16((hl16(v0, w0, mul) + smix(y) * k0 + z) & M, (hl16(v1, w1, mul) + x) & M, mul)


# -- TF's own Hash64 (core/lib/hash: MurmurHash64A, seed 0xDECAFCAFFE): StringToHashBucket ----------------

def tf_hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TensorFlow's ``Hash64(s)`` (a MurmurHash64A) as an unsigned Python int."""
    m, r = 0xc6a4a7935bd1e995, 47
    n = len(s)
    h = (seed ^ (n * m)) & M
    full = n - n % 8
    for i in range(0, full, 8):
        k = (f64(s, i) * m) & M
        k ^= k >> r
        k = (k * m) & M
        h = ((h ^ k) * m) & M
    rest = n % 8
    if rest:
        for j in range(rest - 1, -1, -1):
            h ^= s[full + j] << (8 * j)
        h = (h * m) & M
    h ^= h >> r
    h = (h * m) & M
    h ^= h >> r
    return h
