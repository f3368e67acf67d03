"""A LeNet-style training step whose dropout is gated by a ``training`` tensor
(``tf.layers.dropout`` -> ``smart_cond`` -> TF 1.x cond: Switch/Merge), run with
the plan as steps (conds only) and with every control-flow plan in the frames
executor (as before cond-only plans went back to steps). Alternates the two in
one process and prints the best step time of each and their ratio.

    PYTHONPATH=$PWD python bench/cond_step.py [--steps N] [--rounds R]
"""
import argparse
import time

import numpy as np

import ref as tf
from ref.session.interpreter import frames

_INIT = frames.FramePlan.__init__


def _force_frames(on):
    def init(self, *a):
        _INIT(self, *a)
        self.has_loops = self.has_loops or on
    frames.FramePlan.__init__ = init


def step_time(in_frames, steps):
    _force_frames(in_frames)
    rng = np.random.RandomState(0)
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        training = tf.placeholder_with_default(True, [], name="training")
        h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.dense(tf.layers.flatten(h), 1024, activation=tf.nn.relu)
        h = tf.layers.dropout(h, 0.5, training=training)
        logits = tf.layers.dense(h, 10)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.AdamOptimizer(1e-4).minimize(loss)
        assert {"Switch", "Merge"} <= {op.type for op in g.get_operations()}
        feeds = {x: rng.rand(64, 28, 28, 1).astype(np.float32), y: rng.randint(0, 10, 64)}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train, feeds)
            t0 = time.perf_counter()
            for _ in range(steps):
                s.run(train, feeds)
            return (time.perf_counter() - t0) / steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    best = {True: float("inf"), False: float("inf")}
    for _ in range(args.rounds):
        for in_frames in (True, False):
            best[in_frames] = min(best[in_frames], step_time(in_frames, args.steps))
    print(f"frames executor {best[True] * 1e3:.1f} ms/step, steps {best[False] * 1e3:.1f} ms/step, "
          f"ratio {best[True] / best[False]:.2f}x")


if __name__ == "__main__":
    main()
