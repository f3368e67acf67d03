"""Save, then continue from the meta graph (2017 "save and restore" style):
train a linear model a few steps, Saver.save (checkpoint + .meta), then in a
fresh graph import_meta_graph, restore, find the loss, train op and
placeholders by name / collection, and continue training."""
import os

import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(14)
X = RNG.rand(32, 5).astype(np.float32)
Y = (X.sum(1, keepdims=True) * 2 - 1).astype(np.float32)


def build(tf):
    tf.set_random_seed(15)
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.random_normal([5, 1], stddev=0.1), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
    step = tf.Variable(0, trainable=False, name="global_step")
    train_op = tf.train.MomentumOptimizer(0.1, 0.5).minimize(loss, global_step=step, name="train")
    tf.add_to_collection("train_op", train_op)
    return {"x": x, "y": y, "loss": loss, "train": train_op}


def _feed(i):
    j = (i * 8) % 32
    return X[j:j + 8], Y[j:j + 8]


def train(tf, steps, workdir):
    half = steps // 2
    h = build(tf)
    saver = tf.train.Saver()
    path = os.path.join(workdir, "model")
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        for i in range(half):
            xs, ys = _feed(i)
            losses.append(float(sess.run([h["train"], h["loss"]], {h["x"]: xs, h["y"]: ys})[1]))
        saver.save(sess, path, global_step=half)
    with tf.Graph().as_default() as g:
        restorer = tf.train.import_meta_graph(f"{path}-{half}.meta")
        train_op = tf.get_collection("train_op")[0]
        loss, x, y = (g.get_tensor_by_name(n) for n in ("loss:0", "x:0", "y:0"))
        with tf.Session() as sess:
            restorer.restore(sess, tf.train.latest_checkpoint(workdir))
            for i in range(half, steps):
                xs, ys = _feed(i)
                losses.append(float(sess.run([train_op, loss], {x: xs, y: ys})[1]))
            return {"initial": initial, "losses": losses, "final": variable_values(tf, sess)}
