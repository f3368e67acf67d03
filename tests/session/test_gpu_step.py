"""An MLP training step placed on /gpu:0 under numba's CUDA simulator
(ref/session/devices.py, ref/ops/gpu.py) against the same step on the CPU.

The worker (this file run as a script with NUMBA_ENABLE_CUDASIM=1) builds the MLP
twice (``tf.device('/cpu:0')`` and ``'/gpu:0'``; the initializers' random ops
run on the GPU too), runs STEPS steps and reports
the losses, the variables, the placement log and the copies counted during the
steps. Budget: the GPU's matmul and reductions add in another order than the CPU's
(tests/ops/test_gpu_ops.py), so values agree to 1e-6 relative, not bit for bit.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ref.session.devices import GPU0

ROOT = Path(__file__).resolve().parents[2]
STEPS = 3


def build(tf, device):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        with tf.device(device):
            w1 = tf.Variable(tf.random_normal([4, 8], seed=1), name="w1")
            b1 = tf.Variable(tf.zeros([8]), name="b1")
            h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
            w2 = tf.Variable(tf.random_normal([8, 3], seed=2), name="w2")
            b2 = tf.Variable(tf.zeros([3]), name="b2")
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, y, loss, train, init, [w1, b1, w2, b2]


def _worker():
    import io
    import contextlib
    import ref as tf
    from ref.ops import gpu

    rng = np.random.RandomState(0)
    X, Y = rng.randn(5, 4).astype(np.float32), rng.randint(0, 3, 5)
    report = {}
    for device in ("/cpu:0", "/gpu:0"):
        g, x, y, loss, train, init, vs = build(tf, device)
        log = io.StringIO()
        config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=True)
        with contextlib.redirect_stdout(log), tf.Session(graph=g, config=config) as s:
            s.run(init)
            s.run([loss, train], {x: X, y: Y})  # the plan (and its constants' one copy) is made here
            gpu.reset_copies()
            losses = [float(s.run([loss, train], {x: X, y: Y})[0]) for _ in range(STEPS)]
            copies = dict(gpu.COPIES)
            values = [v.tolist() for v in s.run(vs)]
        report[device] = dict(losses=losses, copies=copies, values=values, log=log.getvalue().splitlines())
    print("REPORT " + json.dumps(report))


@pytest.fixture(scope="module")
def report():
    try:
        from numba.cuda import simulator  # noqa: F401
    except ImportError as e:
        pytest.skip(f"numba's CUDA simulator is unavailable ({e})")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, __file__], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT ")]
    assert proc.returncode == 0 and lines, f"worker failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(lines[-1][len("REPORT "):])


def test_gpu_step_equals_cpu_step(report):
    cpu, gpu = report["/cpu:0"], report["/gpu:0"]
    np.testing.assert_allclose(gpu["losses"], cpu["losses"], rtol=1e-6)
    assert cpu["losses"][-1] < cpu["losses"][0]
    for a, b in zip(gpu["values"], cpu["values"]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["MatMul", "BiasAdd", "Relu",
                                "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits", "Mean",
                                "gradients/Relu_grad/ReluGrad", "gradients/BiasAdd_grad/BiasAddGrad",
                                "GradientDescent/update_w1/ApplyGradientDescent"])
def test_training_ops_logged_on_gpu(report, op):
    lines = [ln for ln in report["/gpu:0"]["log"] if ln.startswith(op + ": (")]
    assert lines and all(ln.endswith(GPU0) for ln in lines)


def test_initializers_placed_on_gpu(report):
    # RandomStandardNormal has a GPU kernel (ref/ops/gpu_random.py: the CPU's Philox stream)
    lines = [ln for ln in report["/gpu:0"]["log"] if "(RandomStandardNormal)" in ln]
    assert lines and all(ln.endswith(GPU0) for ln in lines)


def test_copies_only_at_feeds_and_fetches(report):
    # per step: x and y to the device (each once, though two GPU ops read x), the loss back
    assert report["/gpu:0"]["copies"] == {"host_to_device": 2 * STEPS, "device_to_host": STEPS}
    assert report["/cpu:0"]["copies"] == {}


if __name__ == "__main__":
    _worker()
