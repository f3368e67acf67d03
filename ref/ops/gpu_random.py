"""Philox random ops on the GPU (issue 30): ``RandomUniform``, ``RandomStandardNormal``
and ``TruncatedNormal`` giving the CPU kernels' stream (:mod:`ref.ops.philox`).

The op's counters are reserved on the host exactly as the CPU kernel reserves them
(``ctx.philox.reserve_outputs(n)``: ``n * 256`` counter values per run), so a run
on the GPU moves the op's stream on as a CPU run does and a graph may mix them.
One thread per output group runs Philox-4x32-10 from the same scalar rounds
(``philox._rounds``) on counter ``start + g`` (a truncated-normal group: its own 256
counters from ``start + 256 g``, drawn one word at a time).

Words to floats: ``(x & 0x7FFFFF) * 2**-23`` is exactly TF's
``bits(0x3F800000 | x & 0x7FFFFF) - 1`` (and the 52-bit double likewise), so
``RandomUniform`` gives the CPU kernel's bits. The normals use Box-Muller with
``log``, ``sin``, ``cos`` of the device (CUDA's ``logf``/``sinf``/``cosf``; Python's
double ``math`` rounded to float under the simulator) where the CPU uses libm's:
a few ULP apart (tests/ops/test_gpu_nn.py states the budget), and a truncated
normal within that of the bound 2 could in principle be kept on one side and
rejected on the other.
"""
from __future__ import annotations

import math

import numpy as np

from ref.ops import _cuda as cuda_loops, gpu, philox, random as random_ops
from ref.ops._cuda import simulating
from ref.types import dtypes

__all__ = ["random_uniform", "random_standard_normal", "truncated_normal"]

_KERNELS: dict = {}
_U64 = (1 << 64) - 1


def _device(fn):
    return fn if simulating() else gpu._cuda().jit(device=True)(fn)


def _build(kind, double):
    cu = gpu._cuda()
    globals()["cuda"] = cu  # the kernels name ``cuda`` as a global (the simulator swaps it inside a kernel)
    rounds = cuda_loops.device_function(philox._rounds)
    u32, u64 = np.uint32, np.uint64
    T = np.float64 if double else np.float32

    def block(k0, k1, lo, hi, add):
        """The 4 words of the block at offset ``add`` from the 128-bit counter (lo, hi)."""
        mask = u64(0xFFFFFFFF)
        clo = u64(lo + add)
        chi = u64(hi + u64(1)) if clo < lo else u64(hi)
        return rounds(clo & mask, clo >> u64(32), chi & mask, chi >> u64(32), k0, k1)

    def unit32(x):
        return np.float32(u64(x) & u64(0x7FFFFF)) * np.float32(1.1920928955078125e-07)

    def unit64(x0, x1):
        man = ((u64(x0) & u64(0xFFFFF)) << u64(32)) | u64(x1)
        return np.float64(man) * 2.220446049250313e-16

    def box32(x0, x1):
        u1 = unit32(x0)
        if u1 < np.float32(1e-7):
            u1 = np.float32(1e-7)
        v1 = np.float32(2.0 * math.pi * np.float64(unit32(x1)))
        u2 = np.float32(math.sqrt(np.float32(-2.0) * np.float32(math.log(u1))))
        return np.float32(np.float32(math.sin(v1)) * u2), np.float32(np.float32(math.cos(v1)) * u2)

    def box64(x0, x1, x2, x3):
        u1 = unit64(x0, x1)
        v1 = 2.0 * math.pi * unit64(x2, x3)
        if u1 < 1e-7:
            u1 = 1e-7
        u2 = math.sqrt(-2.0 * math.log(u1))
        return math.sin(v1) * u2, math.cos(v1) * u2

    block, unit32, unit64, box32, box64 = map(_device, (block, unit32, unit64, box32, box64))

    if kind == "uniform":
        def k(out, k0, k1, lo, hi, groups):
            n = out.size
            for g in range(cuda.grid(1), groups, cuda.gridsize(1)):
                w0, w1, w2, w3 = block(k0, k1, lo, hi, u64(g))
                if double:
                    if 2 * g < n:
                        out[2 * g] = unit64(w0, w1)
                    if 2 * g + 1 < n:
                        out[2 * g + 1] = unit64(w2, w3)
                else:
                    if 4 * g < n:
                        out[4 * g] = unit32(w0)
                    if 4 * g + 1 < n:
                        out[4 * g + 1] = unit32(w1)
                    if 4 * g + 2 < n:
                        out[4 * g + 2] = unit32(w2)
                    if 4 * g + 3 < n:
                        out[4 * g + 3] = unit32(w3)
    elif kind == "normal":
        def k(out, k0, k1, lo, hi, groups):
            n = out.size
            for g in range(cuda.grid(1), groups, cuda.gridsize(1)):
                w0, w1, w2, w3 = block(k0, k1, lo, hi, u64(g))
                if double:
                    a, b = box64(w0, w1, w2, w3)
                    if 2 * g < n:
                        out[2 * g] = a
                    if 2 * g + 1 < n:
                        out[2 * g + 1] = b
                else:
                    a, b = box32(w0, w1)
                    c, d = box32(w2, w3)
                    if 4 * g < n:
                        out[4 * g] = a
                    if 4 * g + 1 < n:
                        out[4 * g + 1] = b
                    if 4 * g + 2 < n:
                        out[4 * g + 2] = c
                    if 4 * g + 3 < n:
                        out[4 * g + 3] = d
    else:
        group = 2 if double else 4
        per = 4 if double else 2  # words per Box-Muller pair
        stride = 256 * group // 4

        def k(out, k0, k1, lo, hi, groups):
            n = out.size
            words = cuda.local.array(4, np.uint32)
            taken = cuda.local.array(4, np.uint32)
            for g in range(cuda.grid(1), groups, cuda.gridsize(1)):
                first = g * stride
                used = 4  # words used of the current block
                drawn = 0  # blocks drawn
                index = 0
                while index < group and g * group + index < n:
                    for t in range(per):
                        if used == 4:
                            w0, w1, w2, w3 = block(k0, k1, lo, hi, u64(first + drawn))
                            words[0] = w0
                            words[1] = w1
                            words[2] = w2
                            words[3] = w3
                            drawn += 1
                            used = 0
                        taken[t] = words[used]
                        used += 1
                    if double:
                        a, b = box64(taken[0], taken[1], taken[2], taken[3])
                    else:
                        a, b = box32(taken[0], taken[1])
                    if abs(a) < 2.0 and index < group:
                        if g * group + index < n:
                            out[g * group + index] = a
                        index += 1
                    if abs(b) < 2.0 and index < group:
                        if g * group + index < n:
                            out[g * group + index] = b
                        index += 1
    return cu.jit(k)


def _draw(kind, shape, dtype, ctx):
    dims = random_ops._dims(shape)
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"no GPU kernel for dtype {dt.name} (float32 and float64 only)")
    double = dt == dtypes.float64
    n = int(np.prod(dims, dtype=np.int64))
    gen = ctx.philox
    counter = gen.reserve_outputs(n)
    out = gpu._empty(dims, dt.as_numpy_dtype)
    if n:
        per_group = 2 if double else 4
        groups = -(-n // per_group)
        key = (kind, double, simulating())
        k = _KERNELS.get(key)
        if k is None:
            k = _KERNELS.setdefault(key, _build(kind, double))
        key_ = int(gen.key) & _U64
        k[gpu._launch(groups)](out.reshape(n), np.uint64(key_ & 0xFFFFFFFF), np.uint64(key_ >> 32),
                               np.uint64(counter & _U64), np.uint64(counter >> 64), groups)
    return out


def random_uniform(shape, dtype, seed=0, seed2=0, ctx=None):
    return _draw("uniform", shape, dtype, ctx)


def random_standard_normal(shape, dtype, seed=0, seed2=0, ctx=None):
    return _draw("normal", shape, dtype, ctx)


def truncated_normal(shape, dtype, seed=0, seed2=0, ctx=None):
    return _draw("truncated", shape, dtype, ctx)


gpu._register("RandomUniform", random_uniform, host=("shape",))
gpu._register("RandomStandardNormal", random_standard_normal, host=("shape",))
gpu._register("TruncatedNormal", truncated_normal, host=("shape",))
