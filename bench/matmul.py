"""Large matrix products: ref's kernel (``ref.ops.gemm``) against NumPy's BLAS
and TensorFlow's ``MatMul`` on the same operands, side by side in one process.

    python bench/matmul.py [--rounds R] [--dtype float32|float64] [--threads N]

Shapes are those of an MLP step (784-256-256-10, batch 128: forward products
and the two gradients of each) and of an im2col convolution (``tforder``: ``ref.ops.eigen_gemm``, float32 ``MatMul``'s
path on AVX2 CPUs, TF's order, and its time over ref's kernel). Each round times
one call of each contender in turn; a row prints the best time of each over
the rounds, its GFLOP/s, and ref/NumPy, ref/TF. ``--threads`` sets ref's
threads (``REF_MATMUL_THREADS``) and TF's intra-op threads; NumPy's BLAS runs
on its own threads. The header names NumPy's OpenBLAS kernels
(``OPENBLAS_CORETYPE`` pins them: ``Haswell`` runs AVX2 kernels on an
AVX-512 CPU). A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's ref

SHAPES = [  # (name, m, k, n, transpose a, transpose b)
    ("mlp x@w0", 128, 784, 256, False, False),
    ("mlp x.T@d0", 784, 128, 256, True, False),
    ("mlp d1@w1.T", 128, 256, 256, False, True),
    ("mlp h0@w1", 128, 256, 256, False, False),
    ("im2col 5x5x32->64", 6272, 800, 64, False, False),
    ("square 1024", 1024, 1024, 1024, False, False),
]


def _args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--threads", type=int, default=0, help="ref's and TF's threads (0: all cores)")
    return ap.parse_args()


def _openblas_core():
    import numpy as np

    for path in glob.glob(os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs", "*openblas*")):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return "?"


def main():
    args = _args()
    if args.threads:
        os.environ["REF_MATMUL_THREADS"] = str(args.threads)
    import numpy as np

    from ref.ops import eigen_gemm, eigen_reduce, gemm

    dtype = np.dtype(args.dtype)
    try:
        import tensorflow as tf

        if args.threads:
            tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf_matmul = tf.raw_ops.MatMul
    except ImportError:
        tf = tf_matmul = None
    print(f"# {dtype.name}, ref's threads: {gemm.workers()}, numpy {np.__version__} (OpenBLAS core: "
          f"{_openblas_core()}, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')})"
          + (f", tensorflow {tf.__version__}" if tf else ""))
    print(f"{'shape':20s} {'ref us':>8s} {'GF/s':>6s} {'numpy us':>9s} {'GF/s':>6s} {'tf us':>8s} {'GF/s':>6s}"
          f" {'ref/numpy':>9s} {'ref/tf':>7s} {'tforder us':>10s} {'/ref':>5s}")
    rng = np.random.RandomState(0)
    for name, m, k, n, ta, tb in SHAPES:
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
        av, bv = (a.T if ta else a), (b.T if tb else b)
        cases = {"ref": lambda: gemm.matmul(av, bv), "numpy": lambda: np.matmul(av, bv)}
        if dtype == np.float32 and eigen_gemm.applies():  # MatMul's float32 path on AVX2 CPUs: TF's order
            cases["tforder"] = lambda: eigen_gemm.product(av, bv, eigen_reduce.pool_threads())
        if tf_matmul is not None:
            ta_, tb_ = tf.constant(a), tf.constant(b)
            cases["tf"] = lambda: tf_matmul(a=ta_, b=tb_, transpose_a=ta, transpose_b=tb).numpy()
        best = {}
        for f in cases.values():
            f()
        for _ in range(args.rounds):
            for key, f in cases.items():
                t = time.perf_counter()
                f()
                best[key] = min(best.get(key, 1e9), time.perf_counter() - t)
        flops = 2.0 * m * n * k

        def cell(key):
            return f"{best[key] * 1e6:8.0f} {flops / best[key] / 1e9:6.0f}" if key in best else f"{'-':>8s} {'-':>6s}"

        ratio_tf = f"{best['ref'] / best['tf']:7.2f}" if "tf" in best else f"{'-':>7s}"
        order = f"{best['tforder'] * 1e6:10.0f} {best['tforder'] / best['ref']:5.2f}" if "tforder" in best else ""
        print(f"{name:20s} {cell('ref')} {cell('numpy'):>15s} {cell('tf')} {best['ref'] / best['numpy']:9.2f} {ratio_tf}"
              f" {order}")


if __name__ == "__main__":
    main()
