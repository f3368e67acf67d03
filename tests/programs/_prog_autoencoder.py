"""A dense autoencoder in the 2017 ``tf.layers`` tutorials' style: encoder
and decoder of ``tf.layers.dense`` (one with a kernel regularizer), the
reconstruction loss from ``tf.losses.mean_squared_error`` plus
``tf.losses.get_regularization_loss()``, Adam with an exponentially decayed
learning rate (staircase off), and mid-training a ``Saver`` checkpoint that a
fresh session restores before training on."""
import os

import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(21)
X = RNG.rand(48, 12).astype(np.float32)


def build(tf):
    tf.set_random_seed(22)
    x = tf.placeholder(tf.float32, [None, 12], name="x")
    with tf.variable_scope("encoder"):
        h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="hidden",
                            kernel_regularizer=tf.contrib.layers.l2_regularizer(0.01)
                            if hasattr(tf, "contrib") else _l2(tf, 0.01))
        code = tf.layers.dense(h, 4, activation=tf.nn.tanh, name="code")
    with tf.variable_scope("decoder"):
        h2 = tf.layers.dense(code, 8, activation=tf.nn.relu, name="hidden")
        out = tf.layers.dense(h2, 12, activation=tf.nn.sigmoid, name="out")
    loss = tf.losses.mean_squared_error(labels=x, predictions=out) + tf.losses.get_regularization_loss()
    global_step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.05, global_step, 4, 0.9)
    train_op = tf.train.AdamOptimizer(lr).minimize(loss, global_step=global_step)
    return {"x": x, "loss": loss, "train": train_op}


def _l2(tf, scale):
    """tf.contrib.layers.l2_regularizer(scale) written out (TF 2 has no contrib)."""
    def regularizer(w):
        with tf.name_scope("l2_regularizer", values=[w]) as name:
            return tf.multiply(tf.convert_to_tensor(scale, dtype=w.dtype.base_dtype, name="scale"),
                               tf.nn.l2_loss(w), name=name)
    return regularizer


def _feed(h, i):
    j = (i * 12) % 48
    return {h["x"]: X[j:j + 12]}


def train(tf, steps, workdir):
    h = build(tf)
    saver = tf.train.Saver(max_to_keep=2)
    path = os.path.join(workdir, "ae")
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        for i in range(steps // 2):
            losses.append(float(sess.run([h["train"], h["loss"]], _feed(h, i))[1]))
        saver.save(sess, path, global_step=tf.train.get_global_step())
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(workdir))
        for i in range(steps // 2, steps):
            losses.append(float(sess.run([h["train"], h["loss"]], _feed(h, i))[1]))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess)}
