"""Throughput of a few math/nn kernels against the bare NumPy expression, at
1e6 and 1e7 float32 elements. Prints ``ref time / NumPy time`` per kernel (<= 1
means at least NumPy's speed). A benchmark, not a test: ``python bench/kernels_bench.py``.
"""
from __future__ import annotations

import time

import numpy as np

import ref.raw_ops as raw


def _best(fn, repeat=5):
    fn()  # warm up (Numba compiles on first call)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _cases(n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    m = x.reshape(-1, 1000)
    ax = np.int32(1)
    one = np.float32(1)
    return [
        ("AddV2", lambda: raw.AddV2(x=x, y=y), lambda: x + y),
        ("Mul", lambda: raw.Mul(x=x, y=y), lambda: x * y),
        ("Exp", lambda: raw.Exp(x=x), lambda: np.exp(x)),
        ("Sigmoid", lambda: raw.Sigmoid(x=x), lambda: one / (one + np.exp(-x))),
        ("Relu", lambda: raw.Relu(features=x), lambda: np.maximum(x, np.float32(0))),
        ("Sum(all)", lambda: raw.Sum(input=x, axis=np.int32(0)), lambda: x.sum()),
        ("Sum(rows)", lambda: raw.Sum(input=m, axis=ax), lambda: m.sum(axis=1)),
        ("Max(rows)", lambda: raw.Max(input=m, axis=ax), lambda: m.max(axis=1)),
        ("Mean(all)", lambda: raw.Mean(input=x, axis=np.int32(0)), lambda: x.mean(dtype=np.float32)),
        ("Softmax", lambda: raw.Softmax(logits=m),
         lambda: (lambda e: e / e.sum(1, keepdims=True))(np.exp(m - m.max(1, keepdims=True)))),
    ]


def main():
    for n in (10**6, 10**7):
        print(f"n = {n:.0e} float32 elements: ref time / NumPy time (<= 1 is at least NumPy's speed)")
        for name, ours, numpy_expr in _cases(n):
            t_ref, t_np = _best(ours), _best(numpy_expr)
            print(f"  {name:12s} ref {t_ref * 1e3:8.2f} ms  numpy {t_np * 1e3:8.2f} ms  ratio {t_ref / t_np:5.2f}")


if __name__ == "__main__":
    main()
