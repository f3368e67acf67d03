"""Build and run the gradient graph of a 2-layer MLP loss: ref against
TensorFlow's compat.v1 on the same program, in the same process.

    python bench/gradients_bench.py [--repeats N]

Prints milliseconds to build ``tf.gradients`` (graph construction) and
microseconds per ``Session.run`` of the gradients, and the ratios.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

RNG = np.random.RandomState(0)
X = RNG.randn(64, 32).astype(np.float32)
Y = RNG.randint(0, 10, 64).astype(np.int32)
W1 = (RNG.randn(32, 128) * 0.1).astype(np.float32)
W2 = (RNG.randn(128, 10) * 0.1).astype(np.float32)


def program(tf):
    x = tf.placeholder(tf.float32, [None, 32])
    y = tf.placeholder(tf.int32, [None])
    w1 = tf.Variable(W1)
    b1 = tf.Variable(np.zeros(128, np.float32))
    w2 = tf.Variable(W2)
    b2 = tf.Variable(np.zeros(10, np.float32))
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return x, y, loss, [w1, b1, w2, b2]


def measure(tf, repeats):
    build = []
    for _ in range(repeats):
        g = tf.Graph()
        with g.as_default():
            x, y, loss, params = program(tf)
            t0 = time.perf_counter()
            grads = tf.gradients(loss, params)
            build.append(time.perf_counter() - t0)
    with g.as_default(), tf.Session(graph=g) as s:
        s.run(tf.global_variables_initializer())
        feed = {x: X, y: Y}
        for _ in range(20):
            s.run(grads, feed)
        n = 500
        t0 = time.perf_counter()
        for _ in range(n):
            out = s.run(grads, feed)
        run_us = (time.perf_counter() - t0) / n * 1e6
    return min(build) * 1e3, run_us, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    import ref

    rows = [("ref",) + measure(ref, args.repeats)[:2]]
    ref_out = measure(ref, 1)[2]
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf_real

        tf1 = tf_real.compat.v1
        b, r, tf_out = measure(tf1, args.repeats)
        rows.append(("tensorflow compat.v1", b, r))
        worst = max(float(np.max(np.abs(a - t))) for a, t in zip(ref_out, tf_out))
    except ImportError:
        worst = None
    print("gradient graph of a 2-layer MLP (64x32 -> 128 relu -> 10, sparse softmax cross-entropy)")
    print(f"{'':24s} {'build ms':>10s} {'run us':>10s}")
    for name, b, r in rows:
        print(f"{name:24s} {b:10.2f} {r:10.1f}")
    if len(rows) == 2:
        print(f"ref/TF: build {rows[0][1] / rows[1][1]:.2f}x, run {rows[0][2] / rows[1][2]:.2f}x; "
              f"max |grad difference| {worst:.2e}")


if __name__ == "__main__":
    main()
