"""A denoising autoencoder with tied weights (the 2016 Theano-port
tutorials' style): ``tf.Variable(tf.random_uniform(..., -a, a))`` with the
Glorot-for-sigmoid bound ``4 * sqrt(6 / (n_in + n_h))``, masking noise by
``tf.nn.dropout(x, keep) * keep`` with a ``placeholder_with_default`` keep
probability, the decoder using ``tf.transpose(W)``, sigmoid cross entropy
reconstruction, Adam."""
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


def build(tf):
    tf.set_random_seed(103)
    x = tf.placeholder(tf.float32, [None, 16], name="x")
    keep = tf.placeholder_with_default(1.0, [], name="keep")
    corrupted = tf.nn.dropout(x, keep) * keep
    a = 4 * np.sqrt(6.0 / (16 + 6))
    W = tf.Variable(tf.random_uniform([16, 6], minval=-a, maxval=a), name="W")
    bh = tf.Variable(tf.zeros([6]), name="bh")
    bv = tf.Variable(tf.zeros([16]), name="bv")
    h = tf.nn.sigmoid(tf.matmul(corrupted, W) + bh)
    logits = tf.matmul(h, tf.transpose(W)) + bv
    recon = tf.nn.sigmoid(logits)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train, "extra": tf.reduce_mean(tf.square(recon - x)),
            "feed": lambda i: {x: X16, keep: 0.7}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
