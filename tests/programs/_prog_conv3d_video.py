"""A small video classifier / clip autoencoder (C3D style) with ``tf.layers``:
``conv3d`` with ``padding='same'``, ``max_pooling3d`` and ``average_pooling3d``,
``conv3d_transpose`` back to the clip, ``tf.layers.flatten``, a reconstruction
loss plus a sparse softmax loss, ``tf.nn.conv3d`` by hand with a
``truncated_normal_initializer`` filter, Adam."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(3)
CLIPS = R.rand(4, 4, 8, 8, 2).astype(np.float32)
LABELS = np.array([0, 1, 2, 1], np.int32)


def build(tf):
    tf.set_random_seed(33)
    x = tf.placeholder(tf.float32, [None, 4, 8, 8, 2])
    y = tf.placeholder(tf.int32, [None])
    w = tf.get_variable("w3", [2, 3, 3, 2, 4], initializer=tf.truncated_normal_initializer(stddev=0.1))
    h = tf.nn.relu(tf.nn.conv3d(x, w, strides=[1, 1, 1, 1, 1], padding="SAME"))
    h = tf.layers.conv3d(h, 6, 3, padding="same", activation=tf.nn.relu, name="c1")
    p = tf.layers.max_pooling3d(h, 2, 2, name="mp")
    q = tf.layers.average_pooling3d(h, [1, 2, 2], [1, 2, 2], padding="same", name="ap")
    d = tf.layers.conv3d_transpose(p, 2, [2, 2, 2], strides=2, padding="valid", name="up")
    rec = tf.reduce_mean(tf.squared_difference(d, x))
    logits = tf.layers.dense(tf.layers.flatten(q), 3, name="cls")
    xent = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    loss = rec + xent
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    feed = lambda step: {x: CLIPS, y: LABELS}
    return {"loss": loss, "train": train, "feed": feed, "extra": [logits, d]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
