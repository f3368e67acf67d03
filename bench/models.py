"""Models people train, side by side with TensorFlow: steady-state step, first
step, peak memory.

    python bench/models.py [--models mlp,lenet,...] [--steps N] [--rounds R] [--no-tf]
                           [--cache env|empty|warmup|both]

Each (model, library) pair runs in a fresh process of its own, ref and TF
alternating round after round, so that machine noise hits both alike. In the
child: build the TF1 program with ``import ref as tf`` or
``tensorflow.compat.v1`` (v2 behaviour disabled), run the initializer, time the
*first step* (the first ``sess.run(train_op)``: planning, kernel compiles),
step until the warm-up time is spent, then time ``--steps`` steps and report
the median per-step time; *worst* is the slowest step after the first (a
compile stall); *peak* is the child's maximum resident set size. ``--cache``
chooses ref's Numba cache: the environment's, an empty one per process (a
fresh clone without the set-up command's warm-up), or a copy of one filled by
``python -m ref warmup`` (the README's set-up command).
The same program text builds both graphs (see :data:`MODELS`); data are
synthetic, drawn from a NumPy generator seeded per model.

Rows (batch): MNIST MLP 784-512-512-10 Adam (256); LeNet-style convnet 28x28
with dropout, Adam (64); VGG-style convnet 32x32x3, momentum, L2, decayed
rate (64); 2-layer LSTM language model, vocabulary 10k, 20 steps x 20,
global-norm clipping, SGD; word2vec skip-gram with NCE, 50k x 128 (128);
logistic regression 32x10, gradient descent. The distributed row is
``bench/distributed_step.py``. A benchmark, not a test: it prints ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# -- the programs: f(tf, rng) -> (train_op, feeds); the same text for both libraries --

def mlp(tf, rng):
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    h = tf.layers.dense(x, 512, activation=tf.nn.relu)
    h = tf.layers.dense(h, 512, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    return train, {x: rng.rand(256, 784).astype(np.float32), y: rng.randint(0, 10, 256)}


def lenet(tf, rng):
    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    keep = tf.placeholder_with_default(0.5, [], name="keep_prob")
    h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.dense(tf.layers.flatten(h), 1024, activation=tf.nn.relu)
    h = tf.nn.dropout(h, keep_prob=keep)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    return train, {x: rng.rand(64, 28, 28, 1).astype(np.float32), y: rng.randint(0, 10, 64)}


def vgg(tf, rng):
    x = tf.placeholder(tf.float32, [None, 32, 32, 3], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    h = x
    for width in (32, 32, "pool", 64, 64, "pool"):
        if width == "pool":
            h = tf.layers.max_pooling2d(h, 2, 2)
        else:
            h = tf.layers.conv2d(h, width, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.dense(tf.layers.flatten(h), 256, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    l2 = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "kernel" in v.name])
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.01, step, 1000, 0.96, staircase=True)
    train = tf.train.MomentumOptimizer(lr, 0.9).minimize(loss + 5e-4 * l2, global_step=step)
    return train, {x: rng.rand(64, 32, 32, 3).astype(np.float32), y: rng.randint(0, 10, 64)}


def lstm(tf, rng, vocab=10000, hidden=200, steps=20, batch=20):
    words = tf.placeholder(tf.int32, [batch, steps], name="words")
    targets = tf.placeholder(tf.int32, [batch, steps], name="targets")
    emb = tf.get_variable("embedding", [vocab, hidden], tf.float32)
    inputs = tf.unstack(tf.nn.embedding_lookup(emb, words), num=steps, axis=1)
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(hidden) for _ in range(2)])
    outputs, _ = tf.nn.static_rnn(cell, inputs, initial_state=cell.zero_state(batch, tf.float32))
    out = tf.reshape(tf.concat(outputs, 1), [-1, hidden])
    w = tf.get_variable("softmax_w", [hidden, vocab], tf.float32)
    b = tf.get_variable("softmax_b", [vocab], tf.float32)
    logits = tf.nn.xw_plus_b(out, w, b) if hasattr(tf.nn, "xw_plus_b") else tf.matmul(out, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.reshape(targets, [-1]), logits=logits))
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(grads, tvars))
    return train, {words: rng.randint(0, vocab, (batch, steps)), targets: rng.randint(0, vocab, (batch, steps))}


def word2vec(tf, rng, vocab=50000, dim=128, batch=128, sampled=64):
    inputs = tf.placeholder(tf.int32, [batch], name="inputs")
    labels = tf.placeholder(tf.int64, [batch, 1], name="labels")
    emb = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0), name="embeddings")
    nce_w = tf.Variable(tf.truncated_normal([vocab, dim], stddev=1.0 / np.sqrt(dim)), name="nce_w")
    nce_b = tf.Variable(tf.zeros([vocab]), name="nce_b")
    embed = tf.nn.embedding_lookup(emb, inputs)
    loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_w, biases=nce_b, labels=labels, inputs=embed,
                                         num_sampled=sampled, num_classes=vocab))
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    return train, {inputs: rng.randint(0, vocab, batch), labels: rng.randint(0, vocab, (batch, 1))}


def logreg(tf, rng):
    x = tf.placeholder(tf.float32, [None, 32], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    w = tf.Variable(tf.zeros([32, 10]))
    b = tf.Variable(tf.zeros([10]))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(x, w) + b))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return train, {x: rng.rand(32, 32).astype(np.float32), y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 32)]}


MODELS = {"mlp": mlp, "lenet": lenet, "vgg": vgg, "lstm": lstm, "word2vec": word2vec, "logreg": logreg}


# -- one child process: one (model, library) -----------------------------------------

def child(model, lib, steps, warmup_s):
    if lib == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
    else:
        sys.path.insert(0, ROOT)
        import ref as tf
    rng = np.random.RandomState(1234)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        train, feeds = MODELS[model](tf, rng)
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            t0 = time.perf_counter()
            sess.run(train, feeds)
            first = time.perf_counter() - t0
            end = time.perf_counter() + warmup_s
            worst = 0.0  # the slowest later step: a compile stall after the first
            while time.perf_counter() < end:
                t0 = time.perf_counter()
                sess.run(train, feeds)
                worst = max(worst, time.perf_counter() - t0)
            times = []
            for _ in range(steps):
                t0 = time.perf_counter()
                sess.run(train, feeds)
                times.append(time.perf_counter() - t0)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"first_s": first, "step_s": statistics.median(times), "best_s": min(times),
                      "worst_s": max(worst, *times), "peak_mb": peak_mb}))


def run_child(model, lib, steps, warmup_s, cache_dir=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", model, lib, str(steps), str(warmup_s)]
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{model}/{lib} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    p.add_argument("--steps", type=int, default=20, help="timed steps per process")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds of untimed steps after the first")
    p.add_argument("--rounds", type=int, default=2, help="processes per (model, library), alternating")
    p.add_argument("--no-tf", action="store_true", help="ref only")
    p.add_argument("--cache", choices=("env", "empty", "warmup", "both"), default="env", help=(
        "ref's Numba cache: the environment's (env); a new empty NUMBA_CACHE_DIR for every process (empty: "
        "a fresh clone that skipped the set-up command's warm-up); one filled by `python -m ref warmup` "
        "first, untimed, as the README's set-up command does (warmup); both: a row for each"))
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        model, lib, steps, warmup = a.child
        return child(model, lib, int(steps), float(warmup))
    caches = {"env": ["env"], "empty": ["empty"], "warmup": ["warmup"], "both": ["empty", "warmup"]}[a.cache]
    libs = [("ref" if c == "env" else f"ref/{c}") for c in caches] + ([] if a.no_tf else ["tf"])
    tmp = tempfile.mkdtemp(prefix="ref-models-cache-")
    try:
        warmed = None
        if "warmup" in caches:
            warmed = os.path.join(tmp, "warmed")
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ref", "warmup"], cwd=ROOT, capture_output=True, check=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": warmed, "PYTHONPATH": ROOT})
            print(f"python -m ref warmup (untimed for the rows): {time.perf_counter() - t0:.1f} s")
        return _table(a, libs, tmp, warmed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _table(a, libs, tmp, warmed):
    ratios = []
    print(f"{'model':10s} {'lib':10s} {'step ms (median of rounds)':>27s} {'first s':>8s} {'worst s':>8s}"
          f" {'peak MB':>8s}")
    for model in a.models.split(","):
        res = {lib: [] for lib in libs}
        for _ in range(a.rounds):
            for lib in libs:
                cache = None
                if lib == "ref/empty":
                    cache = tempfile.mkdtemp(dir=tmp)
                elif lib == "ref/warmup":
                    cache = tempfile.mkdtemp(dir=tmp)
                    shutil.rmtree(cache)
                    shutil.copytree(warmed, cache)  # each process finds the set-up command's cache alone
                res[lib].append(run_child(model, lib.split("/")[0], a.steps, a.warmup, cache))
        med = {}
        for lib in libs:
            steps = [r["step_s"] * 1e3 for r in res[lib]]
            med[lib] = statistics.median(steps)
            print(f"{model:10s} {lib:10s} {med[lib]:12.2f} ({', '.join(f'{s:.2f}' for s in steps)})"
                  f" {statistics.median(r['first_s'] for r in res[lib]):8.2f}"
                  f" {max(r['worst_s'] for r in res[lib]):8.2f}"
                  f" {max(r['peak_mb'] for r in res[lib]):8.0f}")
        if "tf" in med:
            ratios.append(med[libs[0]] / med["tf"])
            print(f"{model:10s} {libs[0]}/TF step {ratios[-1]:.2f}")
    if ratios:
        print(f"geometric mean ref/TF over {len(ratios)} models: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
