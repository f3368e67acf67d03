"""``python -m ref demo``: train a small network end to end with the TF1 API.

A two-layer network learns to tell apart three interleaved spirals (a data set
generated from a fixed seed, so nothing is downloaded). The run uses what a
TF1 training script uses: variables, an optimizer with an exponentially
decaying learning rate driven by the global step, gradient clipping by global
norm, an exponential moving average of the weights (used for evaluation),
scalar and histogram summaries written to an event file, and a Saver. Run it
again with the same ``--logdir`` and it resumes from the latest checkpoint.
Each optimizer has its own default log directory (``runs/demo/<optimizer>``),
since a checkpoint holds the optimizer's slots; a directory holding another
model's checkpoint is refused with a one-line message.

The run is reproducible bit for bit: the weights start from fixed seeds and the
batch of step ``s`` is drawn from ``RandomState([seed, s])`` (``--seed``, 0
unless given, printed first), so two runs with the same seed print the same
losses, and a run resumed from a checkpoint draws the batches an uninterrupted
run would have.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from ref.types import cli
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


class DemoError(Exception):
    """A user mistake the demo reports in one line (``error: ...``, exit status 1)."""


def default_logdir(optimizer: str) -> str:
    return os.path.join("runs", "demo", optimizer)


def _writable_logdir(logdir):
    try:
        os.makedirs(logdir, exist_ok=True)
    except OSError as e:
        raise DemoError(f"cannot create --logdir {logdir}: {e.strerror or e}") from None
    if not os.path.isdir(logdir) or not os.access(logdir, os.W_OK | os.X_OK):
        raise DemoError(f"cannot write to --logdir {logdir}: permission denied")


def _check_compatible(checkpoint, variables, optimizer):
    """DemoError unless ``checkpoint`` holds every variable of this graph."""
    saved = {name for name, _ in tf.train.list_variables(checkpoint)}
    missing = sorted(v.op.name for v in variables if v.op.name not in saved)
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise DemoError(f"{checkpoint} was not written by this model with --optimizer {optimizer} "
                        f"(it lacks {shown}); use another --logdir, or the optimizer it was trained with")


def _progress(step, total, loss, width=30, stream=sys.stderr):
    done = int(width * step / max(total, 1))
    stream.write(f"\r[{'#' * done}{'.' * (width - done)}] step {step}/{total} loss {loss:.4f}")
    stream.flush()


DEFAULT_SEED = 0
"""The batch seed when ``--seed`` is not given."""


def batch_indices(seed: int, step: int, n: int, batch: int) -> np.ndarray:
    """The example indices of the batch that trains step ``step`` (0-based)."""
    return np.random.RandomState([seed, step]).randint(0, n, batch)


def run(logdir=None, steps=600, optimizer="momentum", batch=128, quiet=False, out=sys.stdout,
        seed=DEFAULT_SEED):
    """Trains (or resumes) and returns a dict with the final step, loss, accuracy and paths.
    Batches are drawn from ``seed`` (see :func:`batch_indices`). The progress bar
    is drawn only when stderr is a terminal (and not ``quiet``)."""
    if not 0 <= int(seed) < 2**32:
        raise DemoError(f"--seed must be in [0, 2**32), got {seed}")
    if optimizer not in OPTIMIZERS:
        raise DemoError(f"unknown optimizer {optimizer!r}; one of: {', '.join(sorted(OPTIMIZERS))}")
    if int(steps) < 1:
        raise DemoError(f"steps must be a positive integer, got {steps}")
    logdir = default_logdir(optimizer) if logdir is None else logdir
    _writable_logdir(logdir)
    show = not quiet and sys.stderr.isatty()
    x_data, y_data = spirals()
    graph = tf.Graph()
    with graph.as_default():
        m = build(tf, optimizer)
        saver = tf.train.Saver(max_to_keep=3)
        latest = tf.train.latest_checkpoint(logdir)
        if latest:
            _check_compatible(latest, tf.global_variables(), optimizer)
        writer = tf.summary.FileWriter(logdir, graph)
        print(f"seed {seed} (batches; --seed to change)", file=out)
        with tf.Session() as sess:
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
                idx = batch_indices(seed, step, len(y_data), batch)
                _, loss, step = sess.run([m["train_op"], m["loss"], m["global_step"]],
                                         {m["x"]: x_data[idx], m["y"]: y_data[idx]})
                step = int(step)
                if step % 20 == 0 or step == target:
                    writer.add_summary(sess.run(m["summaries"], full), step)
                    if show:
                        _progress(step - start, steps, loss)
                if step % 200 == 0 or step == target:
                    saver.save(sess, os.path.join(logdir, "model.ckpt"), global_step=step)
            if show:
                sys.stderr.write("\n")
            loss, acc = sess.run([m["loss"], m["accuracy"]], full)
        writer.close()
    ckpt = tf.train.latest_checkpoint(logdir)
    print(f"step {step}: loss {loss:.4f}, accuracy {acc:.3f} (moving-average weights, {len(y_data)} points)",
          file=out)
    print(f"checkpoint: {ckpt}", file=out)
    print(f"event files: {logdir}", file=out)
    print(f"view them with: python -m ref events {logdir}", file=out)
    print(f"  or in TensorBoard: pip install tensorboard && tensorboard --logdir {logdir}", file=out)
    return dict(step=int(step), loss=float(loss), accuracy=float(acc), checkpoint=ckpt, logdir=logdir,
                seed=int(seed))


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _seed(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 2**32), got {text!r}")
    return value


def main(argv=None) -> int:
    ap = cli.Parser(prog="python -m ref demo",
                                 description="Train a small network end to end with the TF1 API.")
    ap.add_argument("--logdir", default=None, help="event files and checkpoints (default: runs/demo/OPTIMIZER)")
    ap.add_argument("--steps", type=_positive_int, default=600, help="training steps to run (default: 600)")
    ap.add_argument("--optimizer", default="momentum", choices=sorted(OPTIMIZERS),
                    help="the optimizer to train with (default: momentum)")
    ap.add_argument("--seed", type=_seed, default=DEFAULT_SEED,
                    help=f"seed of the batches; the same seed gives the same bits (default: {DEFAULT_SEED})")
    ap.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only on a terminal)")
    args = ap.parse_args(argv)
    try:
        run(args.logdir, args.steps, args.optimizer, quiet=args.quiet, seed=args.seed)
    except DemoError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
