"""Learning-rate schedules on one global step (the 2017-2018 blog posts'
style): ``tf.Variable(0, trainable=False, name='global_step')``,
``exponential_decay(staircase=True)``, ``piecewise_constant``,
``polynomial_decay(power=2, cycle=True)`` and a linear warm-up through
``tf.cond(gs < 2, ...)``, averaged and logged by ``tf.summary.scalar``, momentum
``minimize(global_step=gs)``."""
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
    tf.set_random_seed(105)
    x = tf.constant(X16[:, :3]); t = tf.constant(X16[:, 3:4] * 2.0 - 1.0)
    gs = tf.Variable(0, trainable=False, name="global_step")
    lr1 = tf.train.exponential_decay(0.1, gs, 2, 0.5, staircase=True)
    lr2 = tf.train.piecewise_constant(gs, [3, 5], [0.1, 0.05, 0.01])
    lr3 = tf.train.polynomial_decay(0.1, gs, 4, end_learning_rate=0.001, power=2.0, cycle=True)
    warm = tf.cond(gs < 2, lambda: 0.1 * tf.cast(gs + 1, tf.float32) / 2.0, lambda: lr1)
    lr = (lr2 + lr3 + warm) / 3.0
    tf.summary.scalar("lr", lr)
    pred = tf.layers.dense(x, 1)
    loss = tf.losses.mean_squared_error(t, pred)
    train = tf.train.MomentumOptimizer(lr, 0.5).minimize(loss, global_step=gs)
    return {"loss": loss, "train": train, "extra": [lr1, lr2, lr3, warm]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
