"""A two-layer classifier whose losses are called by position, as scripts written
for TF 2.x's ``tf.compat.v1`` call them: ``softmax_cross_entropy_with_logits(Y,
logits)`` for the training cost (labels first, no TF1 sentinel argument) and
``sigmoid_cross_entropy_with_logits(Y, logits)`` and
``sparse_softmax_cross_entropy_with_logits(ids, logits)`` as monitored values; a
Xavier-initialized hidden layer (``glorot_uniform_initializer``), ``AdamOptimizer``;
the monitored losses as ``extra``."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS, ONE_HOT


def build(tf):
    tf.set_random_seed(11)
    X = tf.placeholder(tf.float32, [None, 64])
    Y = tf.placeholder(tf.float32, [None, 10])
    ids = tf.placeholder(tf.int32, [None])
    W1 = tf.get_variable("W1", shape=[64, 32], initializer=tf.glorot_uniform_initializer())
    b1 = tf.Variable(tf.random_normal([32]))
    W2 = tf.get_variable("W2", shape=[32, 10], initializer=tf.glorot_uniform_initializer())
    b2 = tf.Variable(tf.random_normal([10]))
    hidden = tf.nn.relu(tf.matmul(X, W1) + b1)
    logits = tf.matmul(hidden, W2) + b2
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(Y, logits))
    train = tf.train.AdamOptimizer(0.01).minimize(cost)
    sig = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(Y, logits))
    sparse = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(ids, logits))
    return {"X": X, "Y": Y, "ids": ids, "loss": cost, "train": train, "monitor": [sig, sparse]}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, extra = [], []
        for i in range(steps):
            j = (i * 40) % 160
            feed = {h["X"]: IMAGES[j:j + 40], h["Y"]: ONE_HOT[j:j + 40], h["ids"]: LABELS[j:j + 40]}
            _, loss, monitor = sess.run([h["train"], h["loss"], h["monitor"]], feed)
            losses.append(float(loss))
            extra.append([float(m) for m in monitor])
        final = variable_values(tf, sess)
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
