"""Linear regression fed one sample at a time (the 2016 "TensorFlow-Examples"
style: ``tf.placeholder("float")`` scalars, ``tf.Variable(rng.randn(),
name="weight")`` from a Python float, ``tf.add(tf.multiply(X, W), b)``,
``reduce_sum(tf.pow(pred - Y, 2)) / (2 * n)``), trained under a
``tf.train.Supervisor`` (``managed_session`` initializes, a final checkpoint
is written to its logdir on exit) with a ``tf.train.exponential_decay``
learning rate on the Supervisor's global step; the per-epoch cost printed by
the tutorial is collected, then a second Supervisor on the same logdir
restores the trained values instead of initializing."""
import os

import numpy as np

TRAIN_X = np.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167], dtype=np.float32)
TRAIN_Y = np.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221], dtype=np.float32)
N = TRAIN_X.shape[0]


def build(tf):
    rng = np.random.RandomState(81)
    X = tf.placeholder("float")
    Y = tf.placeholder("float")
    W = tf.Variable(rng.randn(), name="weight")
    b = tf.Variable(rng.randn(), name="bias")
    pred = tf.add(tf.multiply(X, W), b)
    cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * N)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    lr = tf.train.exponential_decay(0.01, global_step, 10, 0.9, staircase=False)
    optimizer = tf.train.GradientDescentOptimizer(lr).minimize(cost, global_step=global_step)
    return {"X": X, "Y": Y, "W": W, "b": b, "loss": cost, "train": optimizer, "global_step": global_step}


def train(tf, steps, workdir):
    h = build(tf)
    variables = [h["W"], h["b"], h["global_step"]]
    names = [v.op.name for v in variables]
    sv = tf.train.Supervisor(logdir=workdir, global_step=h["global_step"], save_model_secs=0,
                             save_summaries_secs=0)
    losses = []
    with sv.managed_session() as sess:
        initial = dict(zip(names, sess.run(variables)))
        for epoch in range(steps):
            for (x, y) in zip(TRAIN_X, TRAIN_Y):
                sess.run(h["train"], feed_dict={h["X"]: x, h["Y"]: y})
            losses.append(float(sess.run(h["loss"], feed_dict={h["X"]: TRAIN_X, h["Y"]: TRAIN_Y})))
        final = dict(zip(names, sess.run(variables)))
        sv.saver.save(sess, sv.save_path, global_step=h["global_step"])
    sv2 = tf.train.Supervisor(logdir=workdir, global_step=h["global_step"], save_model_secs=0,
                              save_summaries_secs=0)
    with sv2.managed_session() as sess:
        restored = dict(zip(names, sess.run(variables)))
    return {"initial": initial, "losses": losses, "final": final,
            "extra": [[restored[k] for k in names],
                      os.path.basename(tf.train.latest_checkpoint(workdir))]}
