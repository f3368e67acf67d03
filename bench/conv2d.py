"""Conv2D forward, input gradient (Conv2DBackpropInput) and filter gradient
(Conv2DBackpropFilter), and the 2x2 pooling ops of a LeNet-like step: ref's
kernels against ``tf.raw_ops`` on the same inputs, side by side in one process.

    python bench/conv2d.py [--runs 3] [--rounds 7] [--dtype float32] [--only NAME]

Each round times one call of ref's kernel and then one of TF's (after a
warm-up call of each, and a 5 ms pause before each call so that neither runs
while the other's idle threads still spin), so both see the same machine load; a row prints the
best ref and TF times over ``--rounds`` rounds, their ratio, the median of
the per-round ratios, and the largest ULP distance between the two results
(of their dtype). ``--runs`` repeats the whole table in the same process and ends
with the worst and median best-of-rounds ratio per row over the runs, and the
median of the runs' per-round medians (steadier when the machine is shared). TF runs with oneDNN off
(as the tests compare with it) unless ``TF_ENABLE_ONEDNN_OPTS`` is set. The
header names NumPy's OpenBLAS kernel family (``OPENBLAS_CORETYPE`` overrides
its CPU detection); ref's products no longer use it above ``gemm.SERIAL_WORK``
multiply-adds (``ref/ops/gemm_kernel.py``). Not a test: numbers depend on the machine.
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import os
import statistics
import sys
import time


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="tables printed (same process)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved ref/TF calls per row and run")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--only", default="", help="rows whose shape name contains this")
    parser.add_argument("--threads", type=int, default=0,
                        help="threads for TF (intra- and inter-op), ref's matrix kernel, OpenBLAS and Numba "
                             "(0: each library's default)")
    return parser.parse_args()


ARGS = _args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.threads:  # read by OpenBLAS and Numba when they load
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["NUMBA_NUM_THREADS"] = str(ARGS.threads)
    os.environ["REF_MATMUL_THREADS"] = str(ARGS.threads)  # ref's matrix kernel (ref.ops.gemm)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from ref.ops import registry  # noqa: E402
import ref.ops.conv  # noqa: E402,F401  (registers the ops)
import ref.ops.pooling  # noqa: E402,F401

# (name, input NHWC, filter HWIO, stride, padding, dilation)
SHAPES = [
    ("lenet-conv1", (32, 28, 28, 1), (5, 5, 1, 32), 1, "SAME", 1),
    ("lenet-conv2", (32, 14, 14, 32), (5, 5, 32, 64), 1, "SAME", 1),
    ("mnist-conv1", (64, 28, 28, 1), (5, 5, 1, 32), 1, "SAME", 1),
    ("mnist-conv2", (64, 14, 14, 32), (5, 5, 32, 64), 1, "SAME", 1),
    ("cifar-3x3", (32, 32, 32, 64), (3, 3, 64, 64), 1, "SAME", 1),
    ("3x3-valid", (64, 16, 16, 64), (3, 3, 64, 128), 1, "VALID", 1),
    ("stride2-valid", (32, 32, 32, 32), (3, 3, 32, 64), 2, "VALID", 1),
    ("stride2-same", (32, 32, 32, 64), (3, 3, 64, 128), 2, "SAME", 1),
    ("dilated-3x3", (32, 32, 32, 32), (3, 3, 32, 32), 1, "SAME", 2),  # TF's CPU backprops take no dilations
    ("1x1", (32, 16, 16, 128), (1, 1, 128, 128), 1, "VALID", 1),
    ("1x1-b64", (64, 8, 8, 256), (1, 1, 256, 64), 1, "VALID", 1),
]

# (name, input NHWC): 2x2 windows at stride 2, SAME (LeNet's pools)
POOLS = [
    ("pool-28", (64, 28, 28, 32)),
    ("pool-14", (64, 14, 14, 64)),
]


def _openblas_core():
    """OpenBLAS's kernel family as numpy's OpenBLAS reports it (or '?')."""
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "*openblas*"))
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                     "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return "?"


def _ulp(a, b):
    a, b = np.asarray(a), np.asarray(b)
    bits = {np.dtype(np.float32): (np.int32, 31), np.dtype(np.float64): (np.int64, 63)}[a.dtype]
    ia = a.view(bits[0]).astype(np.int64)
    ib = b.view(bits[0]).astype(np.int64)
    ia = np.where(ia < 0, -(2**bits[1]) - ia, ia)  # monotone integer order of the floats
    ib = np.where(ib < 0, -(2**bits[1]) - ib, ib)
    return int(np.abs(ia - ib).max())


PAUSE_S = 0.005
"""Pause before each timed call: TF's pool threads spin for a while after a call
and would take the second core from ref's next call (and ref's helpers from TF's)."""


def _side_by_side(ours, theirs, rounds):
    """(best ref s, best TF s, median per-round ref/TF)."""
    ours()
    theirs()
    t_ref, t_tf = [], []
    for _ in range(rounds):
        time.sleep(PAUSE_S)
        t = time.perf_counter()
        ours()
        t_ref.append(time.perf_counter() - t)
        time.sleep(PAUSE_S)
        t = time.perf_counter()
        theirs()
        t_tf.append(time.perf_counter() - t)
    return min(t_ref), min(t_tf), statistics.median(a / b for a, b in zip(t_ref, t_tf))


def _rows(tf, rng, dtype, only):
    for name, xs, fs, stride, padding, dil in SHAPES:
        if only and only not in name:
            continue
        x = rng.uniform(0.5, 1.5, xs).astype(dtype)
        f = rng.uniform(0.5, 1.5, fs).astype(dtype)
        attrs = dict(strides=[1, stride, stride, 1], padding=padding, dilations=[1, dil, dil, 1])
        y = registry.call("Conv2D", input=x, filter=f, **attrs)
        dy = rng.uniform(0.5, 1.5, y.shape).astype(dtype)
        tx, tf_f, tdy = tf.constant(x), tf.constant(f), tf.constant(dy)
        xsz, fsz = np.int32(xs), np.int32(fs)
        yield (name, "Conv2D", lambda x=x, f=f, a=attrs: registry.call("Conv2D", input=x, filter=f, **a),
               lambda tx=tx, tf_f=tf_f, a=attrs: tf.raw_ops.Conv2D(input=tx, filter=tf_f, **a).numpy())
        if dil != 1:
            continue
        yield (name, "Conv2DBackpropInput",
               lambda xsz=xsz, f=f, dy=dy, a=attrs: registry.call(
                   "Conv2DBackpropInput", input_sizes=xsz, filter=f, out_backprop=dy, **a),
               lambda xsz=xsz, tf_f=tf_f, tdy=tdy, a=attrs: tf.raw_ops.Conv2DBackpropInput(
                   input_sizes=xsz, filter=tf_f, out_backprop=tdy, **a).numpy())
        yield (name, "Conv2DBackpropFilter",
               lambda x=x, fsz=fsz, dy=dy, a=attrs: registry.call(
                   "Conv2DBackpropFilter", input=x, filter_sizes=fsz, out_backprop=dy, **a),
               lambda tx=tx, fsz=fsz, tdy=tdy, a=attrs: tf.raw_ops.Conv2DBackpropFilter(
                   input=tx, filter_sizes=fsz, out_backprop=tdy, **a).numpy())
    for name, xs in POOLS:
        if only and only not in name:
            continue
        x = rng.uniform(-1, 1, xs).astype(dtype)
        attrs = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        y = registry.call("MaxPool", input=x, **attrs)
        dy = rng.uniform(-1, 1, y.shape).astype(dtype)
        tx, ty, tdy = tf.constant(x), tf.constant(y), tf.constant(dy)
        xsz = np.int32(xs)
        yield (name, "MaxPool", lambda x=x: registry.call("MaxPool", input=x, **attrs),
               lambda tx=tx: tf.raw_ops.MaxPool(input=tx, **attrs).numpy())
        yield (name, "MaxPoolGrad",
               lambda x=x, y=y, dy=dy: registry.call("MaxPoolGrad", orig_input=x, orig_output=y, grad=dy, **attrs),
               lambda tx=tx, ty=ty, tdy=tdy: tf.raw_ops.MaxPoolGrad(orig_input=tx, orig_output=ty, grad=tdy,
                                                                    **attrs).numpy())
        yield (name, "AvgPool", lambda x=x: registry.call("AvgPool", value=x, **attrs),
               lambda tx=tx: tf.raw_ops.AvgPool(value=tx, **attrs).numpy())
        yield (name, "AvgPoolGrad",
               lambda xsz=xsz, dy=dy: registry.call("AvgPoolGrad", orig_input_shape=xsz, grad=dy, **attrs),
               lambda xsz=xsz, tdy=tdy: tf.raw_ops.AvgPoolGrad(orig_input_shape=xsz, grad=tdy, **attrs).numpy())


def main():
    args = ARGS
    import tensorflow as tf
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    dtype = np.dtype(args.dtype)
    print(f"# {args.dtype}, numpy {np.__version__} (OpenBLAS core: {_openblas_core()}), tensorflow {tf.__version__} "
          f"(oneDNN {'on' if os.environ['TF_ENABLE_ONEDNN_OPTS'] == '1' else 'off'}), {os.cpu_count()} CPUs, "
          f"threads: {args.threads or 'default'}")
    rows = list(_rows(tf, np.random.default_rng(0), dtype, args.only))
    ratios = {}
    for run in range(args.runs):
        print(f"\nrun {run + 1}/{args.runs}")
        print(f"{'shape':<15}{'op':<22}{'ref ms':>9}{'tf ms':>9}{'ref/tf':>8}{'median':>8}{'max ulp':>9}")
        for name, op, ours, theirs in rows:
            t_ref, t_tf, med = _side_by_side(ours, theirs, args.rounds)
            ratios.setdefault((name, op), []).append((t_ref / t_tf, med))
            ulp = _ulp(ours(), theirs()) if run == 0 else ""
            print(f"{name:<15}{op:<22}{t_ref * 1e3:>9.2f}{t_tf * 1e3:>9.2f}{t_ref / t_tf:>8.2f}{med:>8.2f}"
                  f"{ulp:>9}", flush=True)
    print(f"\nref/tf (best-of-rounds ratio) over {args.runs} runs, and the median of the runs' per-round medians")
    print(f"{'shape':<15}{'op':<22}{'worst':>8}{'median':>8}{'rounds':>8}")
    for (name, op), r in ratios.items():
        best = [a for a, _ in r]
        print(f"{name:<15}{op:<22}{max(best):>8.2f}{statistics.median(best):>8.2f}"
              f"{statistics.median(m for _, m in r):>8.2f}")


if __name__ == "__main__":
    main()
