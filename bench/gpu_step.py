"""MLP training step on /gpu:0 (ref/ops/gpu.py, ref/session/devices.py) against the
same step on the CPU path; prints ms per step, the ratio and the copies per step.

Without a GPU, run it under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): every
GPU thread is then a Python thread, so the figure is the simulator's, not a GPU's
(it says so). The convnet step is not here yet: conv2d/pooling have no GPU kernels.

    PYTHONPATH=$PWD python bench/gpu_step.py [--batch 64] [--steps 20]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import ref as tf
from ref.ops import gpu
from ref.session.devices import gpu_count


def mlp(device, batch, width):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, width])
        y = tf.placeholder(tf.int64, [None])
        with tf.device(device):
            w1 = tf.Variable(tf.random_normal([width, width], seed=1))
            b1 = tf.Variable(tf.zeros([width]))
            w2 = tf.Variable(tf.random_normal([width, 10], seed=2))
            b2 = tf.Variable(tf.zeros([10]))
            logits = tf.matmul(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1)), w2) + b2
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, y, loss, train, init


def time_steps(device, batch, width, steps):
    g, x, y, loss, train, init = mlp(device, batch, width)
    rng = np.random.RandomState(0)
    feed = {x: rng.randn(batch, width).astype(np.float32), y: rng.randint(0, 10, batch)}
    with tf.Session(graph=g, config=tf.ConfigProto(allow_soft_placement=True)) as s:
        s.run(init)
        s.run([loss, train], feed)
        gpu.reset_copies()
        start = time.perf_counter()
        for _ in range(steps):
            s.run([loss, train], feed)
        return (time.perf_counter() - start) / steps * 1e3, sum(gpu.COPIES.values()) / steps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--width", type=int, default=16)
    p.add_argument("--steps", type=int, default=3)
    a = p.parse_args()
    if gpu_count() == 0:
        print("no GPU (numba.cuda sees none, simulator off): nothing to compare")
        return
    from numba import config
    where = "CUDA SIMULATOR (not a GPU: Python threads)" if config.ENABLE_CUDASIM else "GPU"
    cpu_ms, _ = time_steps("/cpu:0", a.batch, a.width, a.steps)
    gpu_ms, copies = time_steps("/gpu:0", a.batch, a.width, a.steps)
    print(f"MLP step batch={a.batch} width={a.width}: CPU {cpu_ms:.2f} ms, {where} {gpu_ms:.2f} ms, "
          f"ratio {gpu_ms / cpu_ms:.1f}x, host<->device copies per step {copies:g}")


if __name__ == "__main__":
    main()
