"""One training step of logistic regression on a fed 32x10 batch, through
``Session.run`` and ``make_callable``, against TensorFlow's compat.v1 on the
same graph (same process) and a hand-written NumPy step; plus ``import ref``
wall time and the first ``run`` of a fresh process (cold and warm Numba cache).

    python bench/step_bench.py [--iters N]

Prints microseconds per step and ratios. Not a test: numbers vary on shared
machines, so everything is measured side by side in one run.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

BATCH, FEATURES = 32, 10
RNG = np.random.RandomState(0)
X = RNG.randn(BATCH, FEATURES).astype(np.float32)
Y = (RNG.rand(BATCH, 1) > 0.5).astype(np.float32)


def build(tf):
    """The same TF1 program under TensorFlow or ref: returns (train_op, loss, x, y)."""
    x = tf.placeholder(tf.float32, [BATCH, FEATURES], name="x")
    y = tf.placeholder(tf.float32, [BATCH, 1], name="y")
    w = tf.Variable(np.zeros((FEATURES, 1), np.float32), name="w")
    b = tf.Variable(np.zeros((1,), np.float32), name="b")
    logits = tf.nn.bias_add(tf.matmul(x, w), b)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return train_op, loss, x, y


def time_framework(tf, iters):
    g = tf.Graph()
    with g.as_default():
        train_op, loss, x, y = build(tf)
        init = tf.global_variables_initializer()
        with tf.Session(graph=g) as s:
            s.run(init)
            feed = {x: X, y: Y}
            for _ in range(50):
                s.run(train_op, feed)
            t0 = time.perf_counter()
            for _ in range(iters):
                s.run(train_op, feed)
            run_us = (time.perf_counter() - t0) / iters * 1e6
            f = s.make_callable(train_op, feed_list=[x, y])
            for _ in range(50):
                f(X, Y)
            t0 = time.perf_counter()
            for _ in range(iters):
                f(X, Y)
            call_us = (time.perf_counter() - t0) / iters * 1e6
            final = float(s.run(loss, feed))
    return run_us, call_us, final


def time_numpy(iters):
    w = np.zeros((FEATURES, 1), np.float32)
    b = np.zeros((1,), np.float32)
    lr = np.float32(0.1)

    def step():
        nonlocal w, b
        z = X @ w + b
        p = 1 / (1 + np.exp(-z))
        dz = (p - Y) / np.float32(BATCH)
        w = w - lr * (X.T @ dz)
        b = b - lr * dz.sum(0)

    for _ in range(50):
        step()
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    return (time.perf_counter() - t0) / iters * 1e6


def fresh_process_times():
    """`import ref` wall time, and first run of a fresh process with a cold and a warm Numba cache."""
    code_import = "import time; t=time.perf_counter(); import ref; print(time.perf_counter()-t)"
    code_first = ("import time, sys; sys.path.insert(0, 'bench'); t=time.perf_counter(); import ref as tf; "
                  "import step_bench as sb; g=tf.Graph();\n"
                  "with g.as_default():\n op, loss, x, y = sb.build(tf); init = tf.global_variables_initializer()\n"
                  " with tf.Session() as s: s.run(init); s.run(op, {x: sb.X, y: sb.Y})\n"
                  "print(time.perf_counter()-t)")
    env = dict(os.environ)
    imports = [float(subprocess.check_output([sys.executable, "-c", code_import], env=env)) for _ in range(3)]
    cache = tempfile.mkdtemp(prefix="ref-numba-cache-")
    env["NUMBA_CACHE_DIR"] = cache
    try:
        cold = float(subprocess.check_output([sys.executable, "-c", code_first], env=env).split()[-1])
        warm = float(subprocess.check_output([sys.executable, "-c", code_first], env=env).split()[-1])
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return min(imports), cold, warm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=2000)
    args = ap.parse_args()
    import ref

    rows = [("numpy by hand", time_numpy(args.iters), None, None)]
    r_run, r_call, r_loss = time_framework(ref, args.iters)
    rows.append(("ref Session.run", r_run, r_call, r_loss))
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf_real

        tf1 = tf_real.compat.v1
        t_run, t_call, t_loss = time_framework(tf1, max(args.iters // 4, 200))
        rows.append(("tensorflow compat.v1", t_run, t_call, t_loss))
    except ImportError:
        t_run = None
    print(f"one logistic-regression step, batch {BATCH}x{FEATURES}")
    print(f"{'':24s} {'run us':>10s} {'callable us':>12s} {'final loss':>12s}")
    for name, run_us, call_us, loss in rows:
        print(f"{name:24s} {run_us:10.1f} {'' if call_us is None else f'{call_us:12.1f}'} "
              f"{'' if loss is None else f'{loss:12.6f}'}")
    if t_run:
        print(f"ref/TF run ratio: {r_run / t_run:.2f}x   ref/numpy: {r_run / rows[0][1]:.2f}x   "
              f"target <= 60 us per run")
    imp, cold, warm = fresh_process_times()
    print(f"import ref: {imp * 1000:.0f} ms (target <= 500)   first run in a fresh process: "
          f"cold cache {cold:.2f} s, warm cache {warm:.2f} s")


if __name__ == "__main__":
    main()
