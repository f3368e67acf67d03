"""A mixture density network (the 2016-2017 "MDN in TensorFlow" posts'
style): a tanh hidden layer, the output split into mixture logits, means and
log standard deviations by ``tf.split(out, 3, axis=1)``, ``log_softmax``
weights, the Gaussian log densities, ``-reduce_mean(reduce_logsumexp(...))``,
Adam."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)
USERS = R.randint(0, 7, 24).astype(np.int32)
ITEMS = R.randint(0, 9, 24).astype(np.int32)
RATINGS = (R.rand(24) * 4 + 1).astype(np.float32)
XMDN = np.linspace(-1, 1, 20).astype(np.float32)[:, None]
YMDN = (np.sin(3 * XMDN) + 0.1 * R.randn(20, 1)).astype(np.float32)


def build(tf):
    tf.set_random_seed(201)
    K = 3
    x = tf.placeholder(tf.float32, [None, 1]); y = tf.placeholder(tf.float32, [None, 1])
    h = tf.layers.dense(x, 12, activation=tf.nn.tanh)
    out = tf.layers.dense(h, 3 * K)
    pi_logits, mu, log_sigma = tf.split(out, 3, axis=1)
    log_pi = tf.nn.log_softmax(pi_logits)
    sigma = tf.exp(log_sigma)
    log_n = -0.5 * tf.square((y - mu) / sigma) - log_sigma - 0.5 * np.log(2 * np.pi)
    loss = -tf.reduce_mean(tf.reduce_logsumexp(log_pi + log_n, axis=1))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train, "extra": tf.nn.softmax(pi_logits)[:3],
            "feed": lambda i: {x: XMDN, y: YMDN}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
