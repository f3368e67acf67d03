"""Capsule-network style dynamic routing: ``squash``, tiled ``matmul`` predictions, two routing iterations in
a ``tf.while_loop`` on ``stop_gradient`` predictions, margin loss on capsule lengths (``tf.norm``)."""
from _hooked import hooked_train
from _inputs61 import XS, YS


def build(tf):
    tf.set_random_seed(304)
    x = tf.constant(XS)
    u = tf.reshape(tf.layers.dense(x, 6 * 4, name="primary"), [-1, 6, 1, 4, 1])

    def squash(s, axis=-2):
        sq = tf.reduce_sum(tf.square(s), axis, keepdims=True)
        return sq / (1. + sq) * s / tf.sqrt(sq + 1e-9)

    W = tf.get_variable("W", [1, 6, 2, 8, 4], initializer=tf.random_normal_initializer(stddev=0.1))
    u_hat = tf.matmul(tf.tile(W, [tf.shape(x)[0], 1, 1, 1, 1]), tf.tile(u, [1, 1, 2, 1, 1]))
    u_hat_sg = tf.stop_gradient(u_hat)
    b0 = tf.zeros([tf.shape(x)[0], 6, 2, 1, 1])

    def body(i, b):
        c = tf.nn.softmax(b, axis=2)
        v = squash(tf.reduce_sum(c * u_hat_sg, axis=1, keepdims=True))
        return i + 1, b + tf.reduce_sum(u_hat_sg * v, axis=3, keepdims=True)

    _, b = tf.while_loop(lambda i, b: i < 2, body, [tf.constant(0), b0])
    c = tf.nn.softmax(b, axis=2)
    v = squash(tf.reduce_sum(c * u_hat, axis=1, keepdims=True))
    lengths = tf.norm(tf.squeeze(v, [1, 4]), axis=-1)
    T = tf.one_hot(tf.cast(YS > 0, tf.int32), 2)
    loss = tf.reduce_mean(tf.reduce_sum(T * tf.square(tf.maximum(0., 0.9 - lengths)) +
                                        0.5 * (1 - T) * tf.square(tf.maximum(0., lengths - 0.1)), 1))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train, "extra": lengths}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
