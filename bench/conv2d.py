"""Conv2D forward, input gradient (Conv2DBackpropInput) and filter gradient
(Conv2DBackpropFilter): ref's im2col kernels against ``tf.raw_ops`` on the
same inputs, with the largest ULP distance of each pair.

    python bench/conv2d.py [--repeat 5] [--threads N]

Prints the best of ``--repeat`` wall times per shape and op, and ref/TF.
TF runs with oneDNN off (as the tests compare with it) unless
``TF_ENABLE_ONEDNN_OPTS`` is set. Not a test: numbers depend on the machine.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from ref.ops import registry  # noqa: E402
import ref.ops.conv  # noqa: E402,F401  (registers the ops)

# (name, input NHWC, filter HWIO, strides, padding)
SHAPES = [
    ("mnist-conv1", (64, 28, 28, 1), (5, 5, 1, 32), 1, "SAME"),
    ("mnist-conv2", (64, 14, 14, 32), (5, 5, 32, 64), 1, "SAME"),
    ("cifar-3x3", (32, 32, 32, 64), (3, 3, 64, 64), 1, "SAME"),
    ("stride2-valid", (32, 32, 32, 32), (3, 3, 32, 64), 2, "VALID"),
    ("1x1", (32, 16, 16, 128), (1, 1, 128, 128), 1, "VALID"),
]


def _best(fn, repeat):
    fn()  # warm-up (allocations, thread pools)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _ulp(a, b):
    ia = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    ib = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    return int(np.abs(ia - ib).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="TF intra-op threads (0: TF's default)")
    args = parser.parse_args()
    import tensorflow as tf
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    rng = np.random.default_rng(0)
    print(f"{'shape':<15}{'op':<22}{'ref ms':>10}{'tf ms':>10}{'ref/tf':>9}{'max ulp':>9}")
    for name, xs, fs, stride, padding in SHAPES:
        x = rng.uniform(0.5, 1.5, xs).astype(np.float32)
        f = rng.uniform(0.5, 1.5, fs).astype(np.float32)
        attrs = dict(strides=[1, stride, stride, 1], padding=padding)
        y = registry.call("Conv2D", input=x, filter=f, **attrs)
        dy = rng.uniform(0.5, 1.5, y.shape).astype(np.float32)
        tx, tf_f, tdy = tf.constant(x), tf.constant(f), tf.constant(dy)
        rows = [
            ("Conv2D", lambda: registry.call("Conv2D", input=x, filter=f, **attrs),
             lambda: tf.raw_ops.Conv2D(input=tx, filter=tf_f, **attrs).numpy()),
            ("Conv2DBackpropInput",
             lambda: registry.call("Conv2DBackpropInput", input_sizes=np.int32(xs), filter=f, out_backprop=dy,
                                   **attrs),
             lambda: tf.raw_ops.Conv2DBackpropInput(input_sizes=np.int32(xs), filter=tf_f, out_backprop=tdy,
                                                    **attrs).numpy()),
            ("Conv2DBackpropFilter",
             lambda: registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.int32(fs), out_backprop=dy,
                                   **attrs),
             lambda: tf.raw_ops.Conv2DBackpropFilter(input=tx, filter_sizes=np.int32(fs), out_backprop=tdy,
                                                     **attrs).numpy()),
        ]
        for op, ours, theirs in rows:
            t_ref, t_tf = _best(ours, args.repeat), _best(theirs, args.repeat)
            print(f"{name:<15}{op:<22}{t_ref * 1e3:>10.2f}{t_tf * 1e3:>10.2f}{t_ref / t_tf:>9.2f}"
                  f"{_ulp(ours(), theirs()):>9d}")


if __name__ == "__main__":
    main()
