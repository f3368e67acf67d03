"""A small CNN with an ``is_training`` flag (the 2018 batch-norm blog
style): ``tf.placeholder_with_default(False, [])`` fed ``True`` while
training, raw ``tf.nn.conv2d`` then ``tf.layers.batch_normalization(training=
is_training)`` (the moving averages updated under a ``tf.cond``-selected
momentum), ``tf.layers.dropout(training=is_training)``, input noise added
only in training through ``tf.cond(is_training, ...)``, the optimizer made
under ``control_dependencies(get_collection(UPDATE_OPS))``; evaluation runs
with the default flag (moving statistics, no dropout, no noise). The dense
layer before a batch norm has no bias (its gradient is zero up to rounding,
which Adam would blow up into full steps: noise, not a difference)."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS

BATCH = 16


def build(tf):
    tf.set_random_seed(303)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    is_training = tf.placeholder_with_default(False, [], name="is_training")
    images = tf.reshape(x, [-1, 8, 8, 1])
    images = tf.cond(is_training, lambda: images + tf.random_normal(tf.shape(images), stddev=0.05),
                     lambda: images)
    w1 = tf.Variable(tf.truncated_normal([3, 3, 1, 6], stddev=0.2), name="w1")
    h = tf.nn.conv2d(images, w1, strides=[1, 1, 1, 1], padding="SAME")
    h = tf.nn.relu(tf.layers.batch_normalization(h, training=is_training, momentum=0.9, name="bn1"))
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    h = tf.reshape(h, [-1, 4 * 4 * 6])
    h = tf.layers.dense(h, 16, use_bias=False, name="fc1")  # a bias before BN: a zero gradient up to rounding
    h = tf.nn.relu(tf.layers.batch_normalization(h, training=is_training, name="bn2"))
    h = tf.layers.dropout(h, rate=0.25, training=is_training)
    logits = tf.layers.dense(h, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    correct = tf.equal(tf.argmax(logits, 1), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {"x": x, "y": y, "is_training": is_training, "loss": loss, "train": train_op, "accuracy": accuracy,
            "logits": logits}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            s = (i * BATCH) % 192
            _, loss = sess.run([h["train"], h["loss"]], feed_dict={h["x"]: IMAGES[s:s + BATCH],
                                                                   h["y"]: LABELS[s:s + BATCH],
                                                                   h["is_training"]: True})
            losses.append(float(loss))
        acc, logits = sess.run([h["accuracy"], h["logits"]], feed_dict={h["x"]: IMAGES[:64], h["y"]: LABELS[:64]})
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [float(acc), logits]}
