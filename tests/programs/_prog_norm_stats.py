"""Normalisation written out by hand, as pre-``tf.contrib.layers.layer_norm``
repos did: ``tf.nn.moments(..., keep_dims=True)`` layer norm, batch statistics
through ``tf.nn.sufficient_statistics`` + ``tf.nn.normalize_moments`` fed to
``tf.nn.batch_normalization``, ``tf.nn.weighted_moments``, ``tf.nn.l2_normalize``
(``dim=``) cosine scores, an L2 penalty over ``tf.trainable_variables()`` that
skips biases by name, and a learning rate from ``tf.train.piecewise_constant``
on an int64 global step times ``polynomial_decay(cycle=True)``; proximal
gradient descent with L1/L2."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(55)
XS = (R.randn(16, 6) * np.array([1, 3, 0.5, 2, 1, 4])).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int64)
WTS = R.rand(16, 1).astype(np.float32)


def build(tf):
    tf.set_random_seed(5555)
    x = tf.placeholder("float", [None, 6])
    y = tf.placeholder(tf.int64, [None])
    w = tf.placeholder("float", [None, 1])
    gs = tf.train.get_or_create_global_step()
    W1 = tf.Variable(tf.truncated_normal([6, 8], stddev=0.3), name="W1")
    b1 = tf.Variable(tf.constant(0.1, shape=[8]), name="bias1")
    gamma = tf.Variable(tf.ones([8]), name="gamma")
    beta = tf.Variable(tf.zeros([8]), name="beta")
    counts, m_ss, v_ss, _ = tf.nn.sufficient_statistics(x, [0], keep_dims=False)
    bmean, bvar = tf.nn.normalize_moments(counts, m_ss, v_ss, shift=None)
    xn = tf.nn.batch_normalization(x, bmean, bvar, None, None, 1e-3)
    h = tf.matmul(xn, W1) + b1
    mean, var = tf.nn.moments(h, axes=[1], keep_dims=True)
    h = tf.nn.relu(gamma * (h - mean) / tf.sqrt(var + 1e-5) + beta)
    wmean, wvar = tf.nn.weighted_moments(h, [0], w)
    protos = tf.Variable(tf.random_uniform([3, 8], -1.0, 1.0), name="protos")
    scores = tf.matmul(tf.nn.l2_normalize(h, dim=1), tf.nn.l2_normalize(protos, dim=1), transpose_b=True) * 5.0
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=scores))
    l2 = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "bias" not in v.name]) * 1e-3
    loss = xent + l2 + 1e-2 * tf.reduce_mean(wvar)
    boundaries = [np.int64(2), np.int64(5)]
    lr = tf.train.piecewise_constant(gs, boundaries, [0.5, 0.3, 0.1]) * tf.train.polynomial_decay(
        1.0, gs, 3, end_learning_rate=0.2, power=2.0, cycle=True)
    train = tf.train.ProximalGradientDescentOptimizer(lr, l1_regularization_strength=1e-3,
                                                      l2_regularization_strength=1e-3).minimize(loss, global_step=gs)
    feed = lambda s: {x: np.roll(XS, s, 0), y: np.roll(YS, s), w: WTS}
    return {"loss": loss, "train": train, "feed": feed, "extra": [lr, wmean, bvar, scores]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
