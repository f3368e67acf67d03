"""Gradient clipping by hand (the 2017 "exploding gradients" answers'
style): ``compute_gradients`` over every trainable variable (one unused: its
gradient None is skipped), ``clip_by_value`` then ``clip_by_norm`` per
gradient, ``tf.global_norm`` of the clipped list fetched, ``apply_gradients``
of Adagrad with an ``initial_accumulator_value``."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(41)
SRC = R.randint(1, 12, (4, 5)).astype(np.int32)
TGT = R.randint(1, 12, (4, 6)).astype(np.int32)
TLEN = np.array([6, 4, 5, 2], np.int32)
STATES = R.randn(8, 4).astype(np.float32)
ACTIONS = R.randint(0, 3, 8).astype(np.int32)
REWARDS = R.randn(8).astype(np.float32)
DONE = (R.rand(8) > 0.7).astype(np.float32)
NEXT = R.randn(8, 4).astype(np.float32)
X16 = R.rand(10, 16).astype(np.float32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)
LAB = R.randint(0, 5, 4).astype(np.int64)


def build(tf):
    tf.set_random_seed(106)
    x = tf.constant(X16); y = tf.constant(LAB.tolist() * 2 + [0, 1])
    h = tf.layers.dense(x, 8, activation=tf.nn.elu)
    tf.get_variable("unused", [3])  # a variable the loss does not use: its gradient is None
    logits = tf.layers.dense(h, 5)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    opt = tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.5)
    gvs = opt.compute_gradients(loss)
    capped = [(tf.clip_by_value(g, -0.1, 0.1), v) for g, v in gvs if g is not None]
    capped = [(tf.clip_by_norm(g, 0.5), v) for g, v in capped]
    norm = tf.global_norm([g for g, _ in capped])
    train = opt.apply_gradients(capped)
    return {"loss": loss, "train": train, "extra": norm}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
