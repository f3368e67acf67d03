"""Training/inference switches through ``placeholder_with_default(False)``: ``tf.cond`` around dropout and
around two spellings of the loss, ``batch_normalization(training=is_training)`` with UPDATE_OPS, ``in_top_k``."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(407)
    x = tf.placeholder(tf.float32, [None, 5]); y = tf.placeholder(tf.int32, [None])
    is_training = tf.placeholder_with_default(False, [], name="is_training")
    h = tf.layers.dense(x, 10, activation=tf.nn.relu)
    h = tf.cond(is_training, lambda: tf.nn.dropout(h, keep_prob=0.7, seed=3), lambda: h)
    h = tf.layers.batch_normalization(h, training=is_training)
    logits = tf.layers.dense(h, 3)
    loss = tf.cond(is_training,
                   lambda: tf.losses.sparse_softmax_cross_entropy(y, logits),
                   lambda: tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
    correct = tf.nn.in_top_k(logits, y, 2)
    return {"loss": loss, "train": train, "extra": tf.reduce_mean(tf.cast(correct, tf.float32)),
            "feed": lambda s: {x: XS, y: YS, is_training: s % 3 != 2}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
