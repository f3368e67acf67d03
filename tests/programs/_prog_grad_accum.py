"""Gradient accumulation (the 2018 blog posts' recipe): non-trainable zero buffers from
``zeros_like(v.initialized_value())``, ``assign_add`` of each gradient per step, an Adam update of the
averaged buffers then the buffers zeroed under a control dependency."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(402)
    x = tf.placeholder(tf.float32, [None, 5]); y = tf.placeholder(tf.float32, [None, 1])
    pred = tf.layers.dense(tf.layers.dense(x, 6, activation=tf.nn.sigmoid), 1)
    loss = tf.losses.mean_squared_error(y, pred)
    opt = tf.train.AdamOptimizer(0.05)
    tvs = tf.trainable_variables()
    accum = [tf.Variable(tf.zeros_like(tv.initialized_value()), trainable=False) for tv in tvs]
    zero_ops = [tv.assign(tf.zeros_like(tv)) for tv in accum]
    gvs = opt.compute_gradients(loss, tvs)
    accum_ops = [accum[i].assign_add(gv[0]) for i, gv in enumerate(gvs)]
    apply = opt.apply_gradients([(accum[i] / 2.0, gv[1]) for i, gv in enumerate(gvs)])
    with tf.control_dependencies([apply]):
        after = tf.group(*zero_ops)
    return {"loss": loss, "train": accum_ops, "after": after, "init": zero_ops,
            "feed": lambda s: {x: XS[(s % 2) * 8:(s % 2) * 8 + 8], y: YR[(s % 2) * 8:(s % 2) * 8 + 8]}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
