"""MLP and convnet training steps on /gpu:0 (ref/ops/gpu.py, gpu_nn.py, gpu_training.py,
ref/session/devices.py) against the same steps on the CPU path; prints ms per step,
the ratio and the host<->device copies per step.

Without a GPU, run it under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): every
GPU thread is then a Python thread, so the figure is the simulator's, not a GPU's
(it says so). The convnet step: conv 3x3 -> relu -> maxpool 2x2 -> dense ->
sparse softmax cross entropy, Adam (tests/session/test_gpu_convnet.py's model, with
``--image`` pixels a side and ``--filters`` filters).

    PYTHONPATH=$PWD python bench/gpu_step.py [--batch 64] [--steps 20] [--image 28] [--filters 16]
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


def convnet(device, image, filters):
    g = tf.Graph()
    side = image // 2
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, image, image, 1])
        y = tf.placeholder(tf.int64, [None])
        with tf.device(device):
            k = tf.Variable(tf.truncated_normal([3, 3, 1, filters], stddev=0.3, seed=1))
            b = tf.Variable(tf.zeros([filters]))
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), b))
            p = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            w = tf.Variable(tf.random_normal([side * side * filters, 10], stddev=0.1, seed=2))
            logits = tf.matmul(tf.reshape(p, [-1, side * side * filters]), w)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, y, loss, train, init


def time_steps(device, batch, width, steps, model="mlp", image=8, filters=4):
    rng = np.random.RandomState(0)
    if model == "mlp":
        g, x, y, loss, train, init = mlp(device, batch, width)
        feed = {x: rng.randn(batch, width).astype(np.float32), y: rng.randint(0, 10, batch)}
    else:
        g, x, y, loss, train, init = convnet(device, image, filters)
        feed = {x: rng.randn(batch, image, image, 1).astype(np.float32), y: rng.randint(0, 10, batch)}
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
    p.add_argument("--image", type=int, default=8)
    p.add_argument("--filters", type=int, default=4)
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
    cpu_ms, _ = time_steps("/cpu:0", a.batch, a.width, a.steps, "convnet", a.image, a.filters)
    gpu_ms, copies = time_steps("/gpu:0", a.batch, a.width, a.steps, "convnet", a.image, a.filters)
    print(f"convnet step (Adam) batch={a.batch} image={a.image} filters={a.filters}: CPU {cpu_ms:.2f} ms, "
          f"{where} {gpu_ms:.2f} ms, ratio {gpu_ms / cpu_ms:.1f}x, host<->device copies per step {copies:g}")


if __name__ == "__main__":
    main()
