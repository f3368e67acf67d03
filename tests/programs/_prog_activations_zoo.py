"""An MLP comparison script of the kind blog posts on activation functions ran:
``selu``, ``crelu``, ``elu``, ``softsign``, ``log_sigmoid``, ``tf.erf``-based
GELU, ``tf.nn.swish``-free ``x * sigmoid(x)`` -- each a branch of one network,
``tf.initializers.he_uniform`` and ``variance_scaling_initializer(mode='fan_avg',
distribution='uniform')`` weights (not ``orthogonal_initializer``: its ``Qr`` is
LAPACK's, a few ULPs from Eigen's, as tests/ops/test_qr_vs_tf.py measures), ``tf.cumsum`` (``exclusive``, ``reverse``)
and ``tf.cumprod`` features, ``tf.lgamma``/``tf.digamma`` in a Poisson-ish
loss; Adagrad."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(21)
XS = R.randn(24, 6).astype(np.float32)
COUNTS = R.poisson(2.0, (24, 1)).astype(np.float32)


def build(tf):
    tf.set_random_seed(2024)
    x = tf.placeholder("float", [None, 6])
    y = tf.placeholder("float", [None, 1])
    feats = tf.concat([x, tf.cumsum(x, axis=1, exclusive=True), tf.cumsum(x, axis=1, reverse=True),
                       tf.cumprod(tf.sigmoid(x), axis=1)], 1)
    w0 = tf.get_variable("w0", [24, 8], initializer=tf.initializers.he_uniform(seed=3))
    w1 = tf.get_variable("w1", [8, 8], initializer=tf.variance_scaling_initializer(
        scale=1.0, mode="fan_avg", distribution="uniform"))
    h = tf.matmul(feats, w0)
    branches = [tf.nn.selu(h), tf.nn.elu(h), tf.nn.softsign(h), tf.log_sigmoid(h),
                0.5 * h * (1.0 + tf.erf(h / np.sqrt(2.0).astype(np.float32))), h * tf.sigmoid(h)]
    mixed = tf.add_n(branches) / len(branches)
    c = tf.nn.crelu(tf.matmul(mixed, w1))
    rate = tf.exp(tf.layers.dense(c, 1, name="rate"))
    nll = rate - y * tf.log(rate) + tf.lgamma(y + 1.0)
    loss = tf.reduce_mean(nll) + 1e-3 * tf.reduce_mean(tf.digamma(rate + 1.0))
    train = tf.train.AdagradOptimizer(0.1).minimize(loss)
    return {"loss": loss, "train": train, "feed": lambda s: {x: XS, y: COUNTS}, "extra": [rate, feats]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
