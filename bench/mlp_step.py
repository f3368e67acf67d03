"""One Adam training step of a 784-256-256-10 MLP (relu, softmax cross
entropy, batch 128) through ``Session.run``: ``ref`` against TensorFlow's
compat.v1 on the same program (same process, same run) and a hand-written
NumPy step, interleaved round by round so machine noise hits all three alike.

    python bench/mlp_step.py [--steps N] [--rounds R] [--warmup S]

Every contender first steps for S seconds (the steady state: graphs planned,
kernels compiled, ref's small kernels past their NumPy forms); then each round
times every contender for N steps in turn; prints microseconds per
step (median over the rounds, and best) and the ratios ref/TF (target <= 0.9)
and ref/NumPy. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's ref

BATCH, SIZES = 128, (784, 256, 256, 10)
RNG = np.random.RandomState(0)
X = RNG.rand(BATCH, SIZES[0]).astype(np.float32)
Y = np.eye(SIZES[-1], dtype=np.float32)[RNG.randint(0, SIZES[-1], BATCH)]
INIT = [(RNG.randn(a, b).astype(np.float32) * np.float32(np.sqrt(2.0 / a)), np.zeros(b, np.float32))
        for a, b in zip(SIZES[:-1], SIZES[1:])]


def build(tf):
    """The same TF1 program under TensorFlow or ref: returns (train_op, loss, x, y)."""
    x = tf.placeholder(tf.float32, [None, SIZES[0]], name="x")
    y = tf.placeholder(tf.float32, [None, SIZES[-1]], name="y")
    h = x
    for i, (w0, b0) in enumerate(INIT):
        w = tf.Variable(w0, name=f"w{i}")
        b = tf.Variable(b0, name=f"b{i}")
        h = tf.nn.bias_add(tf.matmul(h, w), b)
        if i < len(INIT) - 1:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    return train_op, loss, x, y


class Framework:
    """A built graph and an open session, stepped on demand."""

    def __init__(self, tf):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.train_op, self.loss, self.x, self.y = build(tf)
            init = tf.global_variables_initializer()
        self.sess = tf.Session(graph=self.graph)
        self.sess.run(init)
        self.feed = {self.x: X, self.y: Y}

    def steps(self, n):
        run, op, feed = self.sess.run, self.train_op, self.feed
        for _ in range(n):
            run(op, feed)

    def final_loss(self):
        return float(self.sess.run(self.loss, self.feed))


class NumpyMLP:
    """The same step written by hand: forward, backward, Adam (TF's update order)."""

    def __init__(self):
        self.params = [p.copy() for wb in INIT for p in wb]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.b1p, self.b2p = np.float32(0.9), np.float32(0.999)

    def steps(self, n):
        f32 = np.float32
        lr, b1, b2, eps = f32(1e-3), f32(0.9), f32(0.999), f32(1e-8)
        for _ in range(n):
            w0, b0, w1, b1_, w2, b2_ = self.params
            a0 = X @ w0 + b0
            h0 = np.maximum(a0, f32(0))
            a1 = h0 @ w1 + b1_
            h1 = np.maximum(a1, f32(0))
            z = h1 @ w2 + b2_
            e = np.exp(z - z.max(1, keepdims=True))
            p = e / e.sum(1, keepdims=True)
            dz = (p - Y) / f32(BATCH)
            g_w2, g_b2 = h1.T @ dz, dz.sum(0)
            d1 = (dz @ w2.T) * (a1 > 0)
            g_w1, g_b1 = h0.T @ d1, d1.sum(0)
            d0 = (d1 @ w1.T) * (a0 > 0)
            g_w0, g_b0 = X.T @ d0, d0.sum(0)
            alpha = lr * np.sqrt(f32(1) - self.b2p) / (f32(1) - self.b1p)
            for p_, m, v, g in zip(self.params, self.m, self.v, (g_w0, g_b0, g_w1, g_b1, g_w2, g_b2)):
                m += (g - m) * (f32(1) - b1)
                v += (g * g - v) * (f32(1) - b2)
                p_ -= (m * alpha) / (np.sqrt(v) + eps)
            self.b1p, self.b2p = self.b1p * b1, self.b2p * b2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20, help="steps per timed round")
    ap.add_argument("--rounds", type=int, default=60, help="rounds, each timing every contender in turn")
    ap.add_argument("--warmup", type=float, default=1.5, help="seconds of steps per contender before timing")
    args = ap.parse_args()
    import ref

    try:
        from ref.ops import gemm
    except ImportError:  # a checkout from before ref.ops.gemm (for before/after numbers)
        gemm = None

    contenders = [("numpy by hand", NumpyMLP()), ("ref Session.run", Framework(ref))]
    try:
        import tensorflow as tf_real

        contenders.append(("tensorflow compat.v1", Framework(tf_real.compat.v1)))
    except ImportError:
        pass
    blas = gemm._openblas() if gemm else None
    for _, c in contenders:
        # warm up to the steady state: compile, plan, allocate, and run past ref's NumPy
        # tier (ref.ops._jit.numpy_tier: small kernels' exact NumPy forms until Numba builds them)
        start = time.perf_counter()
        while time.perf_counter() - start < args.warmup:
            c.steps(10)
    times = {name: [] for name, _ in contenders}
    for _ in range(args.rounds):
        for name, c in contenders:
            if name == "numpy by hand" and blas:
                # one BLAS thread: OpenBLAS's spinning threads would otherwise steal the next contender's cores
                before = blas[1]()
                blas[0](1)
            t0 = time.perf_counter()
            c.steps(args.steps)
            times[name].append((time.perf_counter() - t0) / args.steps * 1e6)
            if name == "numpy by hand" and blas:
                blas[0](before)
    print(f"one Adam step of a {'-'.join(map(str, SIZES))} MLP, batch {BATCH} "
          f"({args.rounds} rounds x {args.steps} steps, contenders interleaved; ref's matmul threads: "
          f"{gemm.workers() if gemm else 'BLAS own'}; numpy by hand on one BLAS thread; "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')})")
    print(f"{'':24s} {'median us':>10s} {'best us':>10s} {'final loss':>11s}")
    med = {n: statistics.median(t) for n, t in times.items()}
    for name, c in contenders:
        loss = f"{c.final_loss():11.5f}" if hasattr(c, "final_loss") else ""
        print(f"{name:24s} {med[name]:10.1f} {min(times[name]):10.1f} {loss}")
    ref_t = med["ref Session.run"]
    line = f"ref/numpy: {ref_t / med['numpy by hand']:.2f}x"
    if "tensorflow compat.v1" in med:
        per = sorted(r / t for r, t in zip(times["ref Session.run"], times["tensorflow compat.v1"]))
        q = len(per) // 4
        line = (f"ref/TF: {ref_t / med['tensorflow compat.v1']:.2f}x median, "
                f"{min(times['ref Session.run']) / min(times['tensorflow compat.v1']):.2f}x best "
                f"(per-round quartiles {per[q]:.2f}-{per[-q - 1]:.2f}), target <= 0.90   " + line)
    print(line)


if __name__ == "__main__":
    main()
