"""A siamese network with a contrastive loss (the 2017 MNIST-siamese
posts' style): one tower in ``variable_scope('siamese')`` built twice (``reuse=
True``), ``tf.nn.xw_plus_b``, ``tf.nn.l2_normalize`` embeddings, the Euclidean
distance with an epsilon under the square root, ``y * d^2 + (1 - y) *
max(margin - d, 0)^2``, momentum."""
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


def _tower(tf, x, reuse):
    with tf.variable_scope("siamese", reuse=reuse):
        w1 = tf.get_variable("w1", [16, 8], initializer=tf.truncated_normal_initializer(stddev=0.1))
        b1 = tf.get_variable("b1", [8], initializer=tf.constant_initializer(0.01))
        h = tf.nn.relu(tf.nn.xw_plus_b(x, w1, b1))
        w2 = tf.get_variable("w2", [8, 4])
        return tf.nn.l2_normalize(tf.matmul(h, w2), axis=1)


def build(tf):
    tf.set_random_seed(109)
    x1 = tf.placeholder(tf.float32, [None, 16]); x2 = tf.placeholder(tf.float32, [None, 16])
    same = tf.placeholder(tf.float32, [None])
    o1 = _tower(tf, x1, False); o2 = _tower(tf, x2, True)
    d = tf.sqrt(tf.reduce_sum(tf.square(o1 - o2), 1) + 1e-6)
    margin = 1.0
    loss = tf.reduce_mean(same * tf.square(d) + (1 - same) * tf.square(tf.maximum(margin - d, 0.0))) / 2
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    return {"loss": loss, "train": train, "extra": d,
            "feed": lambda i: {x1: X16, x2: X16[::-1], same: (np.arange(10) % 2).astype(np.float32)}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
