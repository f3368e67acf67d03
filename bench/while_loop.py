"""TF 1.x while loops through the frames executor (issue 31/26): ref against
TensorFlow's compat.v1 on the same programs, alternating in one process.

Programs (``--iters`` iterations each, default 1000):

* ``counter``: ``i = 0; while i < n: i += 1`` (an int32 counter);
* ``counter_grad``: a float loop ``x = x * 1.0001 + 0.5`` with ``tf.gradients``
  of the result with respect to ``x0`` (stack pushes and pops every iteration);
* ``rnn``: ``h = tanh(h @ W + x)`` over ``--rnn-iters`` steps (default 100),
  W [32, 32], batch 8: a cell written with ``tf.while_loop`` and no TensorArray;
* ``rnn_grad``: its gradient with respect to W and h0.

Each round times every (program, framework) pair in turn; prints the median and
best milliseconds per ``Session.run``, the ratios ref/TF of the medians and of
the bests, and the load average. A benchmark, not a test.

    PYTHONPATH=$PWD python bench/while_loop.py [--rounds R] [--iters N] [--only NAME] [--no-tf] [--profile NAME]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's ref

import numpy as np  # noqa: E402

PROGRAMS = ("counter", "counter_grad", "rnn", "rnn_grad")


def build(tf, name, iters, rnn_iters):
    """The fetches of program ``name`` built under ``tf`` (TF's compat.v1 or ref)."""
    if name == "counter":
        return tf.while_loop(lambda i: i < iters, lambda i: i + 1, [tf.constant(0)])
    if name == "counter_grad":
        x0 = tf.constant(1.0)
        _, x = tf.while_loop(lambda i, x: i < iters, lambda i, x: (i + 1, x * 1.0001 + 0.5), [tf.constant(0), x0])
        return [x, tf.gradients(x, x0)[0]]
    rng = np.random.RandomState(0)
    w = tf.constant(rng.randn(32, 32).astype(np.float32) * 0.2)
    x = tf.constant(rng.randn(8, 32).astype(np.float32))
    h0 = tf.constant(np.zeros((8, 32), np.float32))
    _, h = tf.while_loop(lambda i, h: i < rnn_iters, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + x)),
                         [tf.constant(0), h0])
    if name == "rnn":
        return h
    return [h] + tf.gradients(tf.reduce_sum(h), [w, h0])


class Program:
    def __init__(self, tf, name, iters, rnn_iters):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.fetches = build(tf, name, iters, rnn_iters)
        self.sess = tf.Session(graph=self.graph)
        self.sess.run(self.fetches)  # warm: plans, kernels' compiled forms

    def time(self, reps):
        t0 = time.perf_counter()
        for _ in range(reps):
            self.sess.run(self.fetches)
        return (time.perf_counter() - t0) / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--rnn-iters", type=int, default=100)
    ap.add_argument("--only", choices=PROGRAMS, action="append")
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--profile", choices=PROGRAMS, help="cProfile ref on one program instead")
    args = ap.parse_args()
    import ref
    if args.profile:
        import cProfile
        import pstats
        p = Program(ref, args.profile, args.iters, args.rnn_iters)
        prof = cProfile.Profile()
        prof.enable()
        p.time(args.reps)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    names = args.only or PROGRAMS
    frameworks = {"ref": ref}
    if not args.no_tf:
        import tensorflow.compat.v1 as tf1
        tf1.disable_v2_behavior()
        frameworks["tf"] = tf1
    progs = {(n, f): Program(mod, n, args.iters, args.rnn_iters) for n in names for f, mod in frameworks.items()}
    times = {k: [] for k in progs}
    for _ in range(args.rounds):
        for k, p in progs.items():
            times[k].append(p.time(args.reps))
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds x {args.reps} runs; "
          f"counter loops {args.iters} iterations, rnn {args.rnn_iters}")
    for n in names:
        med = {f: statistics.median(times[(n, f)]) * 1e3 for f in frameworks}
        line = "  ".join(f"{f} {med[f]:8.2f} ms (best {min(times[(n, f)]) * 1e3:.2f})" for f in frameworks)
        ratio = (f"  ref/tf {med['ref'] / med['tf']:.2f}x (best/best "
                 f"{min(times[(n, 'ref')]) / min(times[(n, 'tf')]):.2f}x)" if "tf" in med else "")
        print(f"{n:13s} {line}{ratio}")


if __name__ == "__main__":
    main()
