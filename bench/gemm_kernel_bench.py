"""ref's GEMM kernel against NumPy's OpenBLAS, both on one thread, side by side.

    python bench/gemm_kernel_bench.py [--rounds R] [--runs N] [--dtype float32|float64] [--only NAME]

Sets ``OPENBLAS_NUM_THREADS=1`` and ``NUMBA_NUM_THREADS=1`` before NumPy loads
and calls :func:`ref.ops.gemm_kernel.gemm` directly (one call, one thread, no
size threshold). Each round times one call of each contender in turn (ref,
then NumPy), ``--rounds`` rounds per run; a row prints the median time of each
over the rounds, GFLOP/s, and ref/NumPy. ``--runs`` repeats the table and ends
with the median of the runs' ratios. Shapes: those of ``bench/models.py``
(MLP products and their gradients, im2col convolutions, LSTM gates). The
header names OpenBLAS's kernel family (``OPENBLAS_CORETYPE`` overrides it).
A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["NUMBA_NUM_THREADS"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

SHAPES = [  # (name, m, k, n, a transposed, b transposed)
    ("mlp x@w0", 256, 784, 512, False, False),
    ("mlp h@w1", 256, 512, 512, False, False),
    ("mlp d@w1.T", 256, 512, 512, False, True),
    ("mlp x.T@d", 784, 256, 512, True, False),
    ("mlp h.T@d", 512, 256, 512, True, False),
    ("lenet conv2 im2col", 3136, 800, 64, False, False),
    ("lenet conv2 dW", 800, 3136, 64, True, False),
    ("lenet conv2 dX", 3136, 64, 800, False, True),
    ("vgg conv 3x3x32", 65536, 288, 32, False, False),
    ("vgg conv 3x3x64", 16384, 576, 64, False, False),
    ("lstm gates", 20, 400, 800, False, False),
    ("lstm dx", 20, 800, 400, False, True),
    ("lstm dW", 400, 20, 800, True, False),
    ("lm softmax", 400, 200, 10000, False, False),
    ("lm softmax dW", 200, 400, 10000, True, False),
    ("lm softmax dX", 400, 10000, 200, False, True),
    ("square 1024", 1024, 1024, 1024, False, False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    from matmul import _openblas_core

    from ref.ops import gemm

    dtype = np.dtype(args.dtype)
    print(f"# {dtype.name}, one thread each; numpy {np.__version__}, OpenBLAS core {_openblas_core()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    rng = np.random.RandomState(0)
    ratios = {}
    for run in range(args.runs):
        print(f"{'shape':22s} {'ref us':>9s} {'GF/s':>6s} {'numpy us':>9s} {'GF/s':>6s} {'ref/numpy':>9s}")
        for name, m, k, n, ta, tb in SHAPES:
            if args.only and args.only not in name:
                continue
            a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
            b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
            av, bv = (a.T if ta else a), (b.T if tb else b)
            out = np.empty((m, n), dtype)
            product = gemm._KernelProduct(av, bv, out, 0)
            cases = {"ref": lambda: product.into_result(0, m), "numpy": lambda: np.matmul(av, bv, out=out)}
            times = {key: [] for key in cases}
            for f in cases.values():
                f()
            for _ in range(args.rounds):
                for key, f in cases.items():
                    t = time.perf_counter()
                    f()
                    times[key].append(time.perf_counter() - t)
            med = {key: statistics.median(v) for key, v in times.items()}
            flops = 2.0 * m * n * k
            r = med["ref"] / med["numpy"]
            ratios.setdefault(name, []).append(r)
            print(f"{name:22s} {med['ref'] * 1e6:9.1f} {flops / med['ref'] / 1e9:6.1f} "
                  f"{med['numpy'] * 1e6:9.1f} {flops / med['numpy'] / 1e9:6.1f} {r:9.2f}")
    if args.runs > 1:
        print("median ref/numpy over runs: " + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in ratios.items()))


if __name__ == "__main__":
    main()
