"""Highway and maxout layers (the 2016 "highway networks in
TensorFlow" posts' style): transform gates of ``tf.layers.dense(activation=
tf.sigmoid, bias_initializer=constant_initializer(-2.0))`` mixing ``H * T + x *
(1 - T)``, maxout by ``reduce_max(reshape(z, [-1, units, k]), -1)``, trained by
``AdagradDAOptimizer`` with ``get_or_create_global_step``."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)


def build(tf):
    tf.set_random_seed(209)
    x = tf.placeholder(tf.float32, [None, 16]); y = tf.placeholder(tf.int32, [None])

    def highway(t, name):
        with tf.variable_scope(name):
            hval = tf.layers.dense(t, 16, activation=tf.nn.relu, name="H")
            gate = tf.layers.dense(t, 16, activation=tf.sigmoid, bias_initializer=tf.constant_initializer(-2.0),
                                   name="T")
            return hval * gate + t * (1.0 - gate)

    def maxout(t, units, k):
        z = tf.layers.dense(t, units * k)
        return tf.reduce_max(tf.reshape(z, [-1, units, k]), axis=-1)

    h = highway(highway(x, "hw1"), "hw2")
    h = maxout(h, 6, 3)
    logits = tf.layers.dense(h, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step()).minimize(
        loss, global_step=tf.train.get_global_step())
    return {"loss": loss, "train": train, "feed": lambda s: {x: X16, y: Y10}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
