"""``python -m ref demo``: train a small network end to end with the TF1 API.

A two-layer network learns to tell apart three interleaved spirals (a data set
generated from a fixed seed, so nothing is downloaded). The run uses what a
TF1 training script uses: variables, an optimizer with an exponentially
decaying learning rate driven by the global step, gradient clipping by global
norm, an exponential moving average of the weights (used for evaluation),
scalar and histogram summaries written to an event file, and a Saver. Run it
again with the same ``--logdir`` and it resumes from the latest checkpoint.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import ref as tf

OPTIMIZERS = {
    "gradient_descent": lambda tf, lr: tf.train.GradientDescentOptimizer(lr),
    "momentum": lambda tf, lr: tf.train.MomentumOptimizer(lr, 0.9),
    "adam": lambda tf, lr: tf.train.AdamOptimizer(lr * 0.1),
    "adagrad": lambda tf, lr: tf.train.AdagradOptimizer(lr),
    "rmsprop": lambda tf, lr: tf.train.RMSPropOptimizer(lr * 0.1),
    "ftrl": lambda tf, lr: tf.train.FtrlOptimizer(lr),
    "adadelta": lambda tf, lr: tf.train.AdadeltaOptimizer(lr * 100.0),
}


def spirals(n_per_class=200, classes=3, seed=0):
    """Three interleaved spirals in the plane: (points float32 [n, 2], labels int32 [n])."""
    rng = np.random.RandomState(seed)
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.randn(n_per_class) * 0.2
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(n_per_class, c))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int32)
    order = rng.permutation(len(y))
    return x[order], y[order]


def build(tf, optimizer_name, hidden=64, classes=3):
    """The training graph; returns a dict of the tensors and ops the loop uses."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    global_step = tf.train.get_or_create_global_step()
    with tf.variable_scope("layer1"):
        w1 = tf.get_variable("weights", [2, hidden], initializer=tf.glorot_uniform_initializer(seed=1))
        b1 = tf.get_variable("biases", [hidden], initializer=tf.zeros_initializer())
    with tf.variable_scope("layer2"):
        w2 = tf.get_variable("weights", [hidden, classes], initializer=tf.glorot_uniform_initializer(seed=2))
        b2 = tf.get_variable("biases", [classes], initializer=tf.zeros_initializer())
    params = [w1, b1, w2, b2]

    def logits_of(ws):
        h = tf.tanh(tf.matmul(x, ws[0]) + ws[1])
        return tf.matmul(h, ws[2]) + ws[3]

    logits = logits_of(params)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    lr = tf.train.exponential_decay(1.0, global_step, decay_steps=200, decay_rate=0.7, staircase=False)
    opt = OPTIMIZERS[optimizer_name](tf, lr)
    grads, variables = zip(*opt.compute_gradients(loss, var_list=params))
    clipped, norm = tf.clip_by_global_norm(grads, 5.0)
    apply = opt.apply_gradients(zip(clipped, variables), global_step=global_step)
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=global_step)
    with tf.control_dependencies([apply]):
        train_op = ema.apply(params)
    averaged = [ema.average(p) for p in params]
    eval_logits = logits_of(averaged)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(eval_logits, 1), tf.int32), y), tf.float32))
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("learning_rate", lr)
    tf.summary.scalar("gradient_norm", norm)
    tf.summary.scalar("accuracy", accuracy)
    tf.summary.histogram("layer1_weights", w1)
    return dict(x=x, y=y, loss=loss, accuracy=accuracy, train_op=train_op, global_step=global_step,
                summaries=tf.summary.merge_all(), init=tf.global_variables_initializer())


def _progress(step, total, loss, width=30, stream=sys.stderr):
    done = int(width * step / max(total, 1))
    stream.write(f"\r[{'#' * done}{'.' * (width - done)}] step {step}/{total} loss {loss:.4f}")
    stream.flush()


def run(logdir="runs/demo", steps=600, optimizer="momentum", batch=128, quiet=False, out=sys.stdout):
    """Trains (or resumes) and returns a dict with the final step, loss, accuracy and paths."""
    x_data, y_data = spirals()
    os.makedirs(logdir, exist_ok=True)
    graph = tf.Graph()
    with graph.as_default():
        m = build(tf, optimizer)
        saver = tf.train.Saver(max_to_keep=3)
        writer = tf.summary.FileWriter(logdir, graph)
        rng = np.random.RandomState(int(time.time()) % 2**31)
        with tf.Session() as sess:
            latest = tf.train.latest_checkpoint(logdir)
            if latest:
                saver.restore(sess, latest)
                print(f"resumed from {latest}", file=out)
            else:
                sess.run(m["init"])
            start = int(sess.run(m["global_step"]))
            target = start + steps
            full = {m["x"]: x_data, m["y"]: y_data}
            loss = float("nan")
            step = start
            while step < target:
                idx = rng.randint(0, len(y_data), batch)
                _, loss, step = sess.run([m["train_op"], m["loss"], m["global_step"]],
                                         {m["x"]: x_data[idx], m["y"]: y_data[idx]})
                step = int(step)
                if step % 20 == 0 or step == target:
                    writer.add_summary(sess.run(m["summaries"], full), step)
                    if not quiet:
                        _progress(step - start, steps, loss)
                if step % 200 == 0 or step == target:
                    saver.save(sess, os.path.join(logdir, "model.ckpt"), global_step=step)
            if not quiet:
                sys.stderr.write("\n")
            loss, acc = sess.run([m["loss"], m["accuracy"]], full)
        writer.close()
    ckpt = tf.train.latest_checkpoint(logdir)
    print(f"step {step}: loss {loss:.4f}, accuracy {acc:.3f} (moving-average weights, {len(y_data)} points)",
          file=out)
    print(f"checkpoint: {ckpt}", file=out)
    print(f"event files: {logdir}", file=out)
    print(f"view them with: tensorboard --logdir {logdir}", file=out)
    return dict(step=int(step), loss=float(loss), accuracy=float(acc), checkpoint=ckpt, logdir=logdir)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ref demo", description=__doc__.splitlines()[0])
    ap.add_argument("--logdir", default="runs/demo")
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--optimizer", default="momentum", choices=sorted(OPTIMIZERS))
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    run(args.logdir, args.steps, args.optimizer, quiet=args.quiet)
    return 0
