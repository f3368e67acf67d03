"""The per-step floor: one GradientDescent step of a 32x10 logistic regression
(x fed, W [10, 1], sigmoid cross entropy) through ``Session.run``, against a
hand-written NumPy step and TensorFlow's compat.v1 on the same program, all in
one process, interleaved over several repeats so machine noise hits each alike.

    python bench/step_floor.py [--round-ms MS] [--rounds R] [--warmup-s S]

Each contender first runs steps for S seconds (default 3): the steady state of
a training loop. ref's small kernels start in their exact NumPy forms and move
to their compiled Numba loops once a form has spent its budget
(``REF_NUMPY_BUDGET_S``, 0.25 s of its own time: ~1-2 s of this program's
steps; see ``ref/ops/_jit.py``); ``--warmup-s 0`` (200 steps only) times the
first seconds of a script instead, in the NumPy forms. Then each round times
every contender in turn, for about MS milliseconds of steps; prints
microseconds per step (median over the rounds and best, wall clock; and the
median CPU time of the calling thread, which a busy machine barely disturbs)
and the ratios ref/NumPy (target <= 4) and ref/TF. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # this checkout's ref
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from step_bench import BATCH, FEATURES, X, Y, build  # noqa: E402


class Framework:
    """The program built under ``tf`` (TensorFlow or ref), stepped through ``Session.run``
    (or the callable ``make_callable`` returns)."""

    def __init__(self, tf, callable_=False):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.train_op, self.loss, x, y = build(tf)
            init = tf.global_variables_initializer()
        self.sess = tf.Session(graph=self.graph)
        self.sess.run(init)
        self.feed = {x: X, y: Y}
        self.call = self.sess.make_callable(self.train_op, feed_list=[x, y]) if callable_ else None

    def steps(self, n):
        if self.call is not None:
            call = self.call
            for _ in range(n):
                call(X, Y)
            return
        run, op, feed = self.sess.run, self.train_op, self.feed
        for _ in range(n):
            run(op, feed)


class NumpyStep:
    """The same step by hand: logits, sigmoid, the mean loss's gradient, two updates."""

    def __init__(self):
        self.w = np.zeros((FEATURES, 1), np.float32)
        self.b = np.zeros((1,), np.float32)

    def steps(self, n):
        lr, inv = np.float32(0.1), np.float32(1.0 / BATCH)
        w, b = self.w, self.b
        for _ in range(n):
            z = X @ w + b
            p = 1 / (1 + np.exp(-z))
            dz = (p - Y) * inv
            w = w - lr * (X.T @ dz)
            b = b - lr * dz.sum(0)
        self.w, self.b = w, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--round-ms", type=float, default=1.0, help="CPU milliseconds per contender per round")
    ap.add_argument("--rounds", type=int, default=300, help="rounds, each timing every contender in turn")
    ap.add_argument("--warmup-s", type=float, default=3.0, help="seconds of steps per contender before timing")
    args = ap.parse_args()
    import ref

    contenders = [("numpy by hand", NumpyStep()), ("ref Session.run", Framework(ref)),
                  ("ref make_callable", Framework(ref, callable_=True))]
    try:
        import tensorflow as tf_real

        contenders.append(("tensorflow compat.v1", Framework(tf_real.compat.v1)))
    except ImportError:
        pass
    per_round = {}
    for name, c in contenders:
        c.steps(200)  # warm up: compile, plan; then run to the steady state (see the docstring)
        end = time.perf_counter() + args.warmup_s
        while time.perf_counter() < end:
            c.steps(200)
        c0 = time.thread_time()
        c.steps(50)
        # steps per round: about --round-ms of CPU time each, so that a busy machine's
        # preemptions hit every contender's rounds alike
        per_round[name] = max(5, int(args.round_ms * 1e-3 / max((time.thread_time() - c0) / 50, 1e-7)))
    wall = {name: [] for name, _ in contenders}
    cpu = {name: [] for name, _ in contenders}
    for _ in range(args.rounds):
        for name, c in contenders:
            n = per_round[name]
            t0, c0 = time.perf_counter(), time.thread_time()
            c.steps(n)
            cpu[name].append((time.thread_time() - c0) / n * 1e6)
            wall[name].append((time.perf_counter() - t0) / n * 1e6)
    print(f"one logistic-regression step, batch {BATCH}x{FEATURES} ({args.rounds} rounds of "
          f"~{args.round_ms:g} ms per contender, interleaved, after {args.warmup_s:g} s of warm-up each)")
    print(f"{'':24s} {'wall median':>12s} {'wall best':>10s} {'cpu median':>11s}   (us per step; cpu: this "
          f"thread's CPU time, TF's own threads not counted)")
    med = {n: statistics.median(t) for n, t in wall.items()}
    cmed = {n: statistics.median(t) for n, t in cpu.items()}
    for name, _ in contenders:
        print(f"{name:24s} {med[name]:12.1f} {min(wall[name]):10.1f} {cmed[name]:11.1f}")
    ref_t, np_t = med["ref Session.run"], med["numpy by hand"]
    per = sorted(r / n for r, n in zip(wall["ref Session.run"], wall["numpy by hand"]))
    q = len(per) // 4
    line = (f"ref/numpy: {ref_t / np_t:.2f}x wall (per-round quartiles {per[q]:.2f}-{per[-q - 1]:.2f}), "
            f"{cmed['ref Session.run'] / cmed['numpy by hand']:.2f}x cpu, target <= 4   "
            f"make_callable/numpy: {med['ref make_callable'] / np_t:.2f}x")
    if "tensorflow compat.v1" in med:
        line += f"   ref/TF: {ref_t / med['tensorflow compat.v1']:.2f}x wall"
    print(line)


if __name__ == "__main__":
    main()
