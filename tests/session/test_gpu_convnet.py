"""A small convnet training step (conv -> relu -> maxpool -> dense -> softmax cross
entropy, Adam) and an embedding step (embedding_lookup, its IndexedSlices gradient
through ScatterSub) placed whole on /gpu:0 under numba's CUDA simulator, against
the same steps on the CPU (ref/session/devices.py; ref/ops/gpu_nn.py, gpu_sparse.py,
gpu_training.py, gpu_random.py).

The worker (this file run as a script with NUMBA_ENABLE_CUDASIM=1) builds each model
twice (``tf.device('/cpu:0')`` and ``'/gpu:0'``, no soft placement: every op, the
initializers' random ops included, has a GPU kernel), runs STEPS steps and reports
losses, variables, the placement log and the copies counted during the steps.

Budget: the initial variables are the CPU's Philox stream (uniform: the same bits;
normals within test_gpu_nn.py's 2 ULP);
the convolutions, matmuls and reductions add in another order than the CPU's
(tests/ops/test_gpu_nn.py), so losses and variables agree to 1e-5 relative after
STEPS Adam steps, not bit for bit. The embedding step's gather, scatter and element-wise ops are exact, its mean
is not (1e-6 relative).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ref.golden.ulp import max_ulp
from ref.session import devices as _under_test  # noqa: F401
from ref.session.devices import GPU0

ROOT = Path(__file__).resolve().parents[2]
STEPS = 2


def convnet(tf, device):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 6, 6, 1], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        with tf.device(device):
            k = tf.Variable(tf.truncated_normal([3, 3, 1, 4], stddev=0.5, seed=1), name="k")
            b = tf.Variable(tf.zeros([4]), name="b")
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), b))
            p = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            w = tf.Variable(tf.random_normal([36, 3], stddev=0.3, seed=2), name="w")
            logits = tf.matmul(tf.reshape(p, [-1, 36]), w)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    return g, (x, y), loss, train, init, [k, b, w]


def embedding(tf, device):
    g = tf.Graph()
    with g.as_default():
        ids = tf.placeholder(tf.int32, [None], name="ids")
        t = tf.placeholder(tf.float32, [None, 3], name="t")
        with tf.device(device):
            e = tf.Variable(tf.random_uniform([7, 3], -1.0, 1.0, seed=3), name="e")
            loss = tf.reduce_mean(tf.square(tf.nn.embedding_lookup(e, ids) - t))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        init = tf.global_variables_initializer()
    return g, (ids, t), loss, train, init, [e]


def _worker():
    import contextlib
    import io

    import ref as tf
    from ref.ops import gpu

    rng = np.random.RandomState(0)
    feeds = {"convnet": (rng.randn(3, 6, 6, 1).astype(np.float32), rng.randint(0, 3, 3)),
             "embedding": (np.array([1, 4, 1, 6], np.int32), rng.randn(4, 3).astype(np.float32))}
    report = {}
    for name, model in (("convnet", convnet), ("embedding", embedding)):
        for device in ("/cpu:0", "/gpu:0"):
            g, phs, loss, train, init, vs = model(tf, device)
            feed = dict(zip(phs, feeds[name]))
            log = io.StringIO()
            config = tf.ConfigProto(log_device_placement=True)
            with contextlib.redirect_stdout(log), tf.Session(graph=g, config=config) as s:
                s.run(init)
                initial = [v.tolist() for v in s.run(vs)]
                s.run([loss, train], feed)  # the plan (and its constants' one copy) is made here
                gpu.reset_copies()
                losses = [float(s.run([loss, train], feed)[0]) for _ in range(STEPS)]
                copies = dict(gpu.COPIES)
                values = [v.tolist() for v in s.run(vs)]
            report[f"{name}{device}"] = dict(losses=losses, copies=copies, values=values, initial=initial,
                                             log=log.getvalue().splitlines())
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


@pytest.mark.parametrize("model,rtol", [("convnet", 1e-5), ("embedding", 1e-6)])
def test_gpu_step_equals_cpu_step(report, model, rtol):
    cpu, gpu = report[f"{model}/cpu:0"], report[f"{model}/gpu:0"]
    for a, b in zip(gpu["initial"], cpu["initial"]):  # the random initializers ran on the GPU: the CPU's stream
        assert max_ulp(np.array(a, np.float32), np.array(b, np.float32)) <= 2  # Box-Muller: test_gpu_nn.py's budget
    np.testing.assert_allclose(gpu["losses"], cpu["losses"], rtol=rtol)
    assert cpu["losses"][-1] < cpu["losses"][0]
    for a, b in zip(gpu["values"], cpu["values"]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("model", ["convnet", "embedding"])
def test_every_op_logged_on_gpu(report, model):
    lines = [ln for ln in report[f"{model}/gpu:0"]["log"] if ": (" in ln]
    assert lines and all(ln.endswith(GPU0) for ln in lines if not ln.startswith(("x:", "y:", "ids:", "t:"))), \
        [ln for ln in lines if not ln.endswith(GPU0)]


@pytest.mark.parametrize("op", ["Conv2D", "MaxPool", "gradients/Conv2D_grad/Conv2DBackpropFilter",
                                "gradients/MaxPool_grad/MaxPoolGrad", "Adam/update_k/ApplyAdam",
                                "truncated_normal/TruncatedNormal"])
def test_convnet_ops_logged_on_gpu(report, op):
    lines = [ln for ln in report["convnet/gpu:0"]["log"] if ln.startswith(op + ": (")]
    assert lines and all(ln.endswith(GPU0) for ln in lines)


@pytest.mark.parametrize("model,feeds", [("convnet", 2), ("embedding", 2)])
def test_copies_only_at_feeds_and_fetches(report, model, feeds):
    # per step: each fed placeholder to the device once, the loss back
    assert report[f"{model}/gpu:0"]["copies"] == {"host_to_device": feeds * STEPS, "device_to_host": STEPS}
    assert report[f"{model}/cpu:0"]["copies"] == {}


if __name__ == "__main__":
    _worker()
