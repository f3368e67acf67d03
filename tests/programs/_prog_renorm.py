"""Batch renormalization and ghost batch norm (the 2017-2018 papers'
``tf.layers`` knobs): an MLP whose first ``tf.layers.batch_normalization``
uses ``renorm=True`` with ``renorm_clipping`` (rmax, rmin, dmax) and
``renorm_momentum``, the second ``virtual_batch_size`` (ghost batches of
4), the third an ``adjustment`` callable drawing a random scale and bias
per feature; the update ops run under ``control_dependencies``; gradient
descent with momentum; the layers' moving statistics (and renorm's
mean/stddev trackers) are compared after training, and an inference pass
(``training=False`` copies sharing the variables) at the end. The dense
layers feeding the batch norms have no bias (a zero gradient up to rounding)."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS

BATCH = 16


def _net(tf, x, training, reuse):
    h = tf.layers.dense(x, 12, use_bias=False, name="d1", reuse=reuse)
    h = tf.layers.batch_normalization(h, training=training, renorm=True, renorm_momentum=0.9,
                                      renorm_clipping={"rmax": 1.5, "rmin": 0.5, "dmax": 0.8}, name="bn_renorm",
                                      reuse=reuse)
    h = tf.layers.dense(tf.nn.relu(h), 12, use_bias=False, name="d2", reuse=reuse)
    h = tf.layers.batch_normalization(h, training=training, virtual_batch_size=4, name="bn_ghost", reuse=reuse)
    h = tf.layers.dense(tf.nn.relu(h), 10, use_bias=False, name="d3", reuse=reuse)
    return tf.layers.batch_normalization(
        h, training=training, name="bn_adjust", reuse=reuse,
        adjustment=lambda shape: (tf.random_uniform(shape[-1:], 0.9, 1.1), tf.random_uniform(shape[-1:], -0.1, 0.1)))


def build(tf):
    tf.set_random_seed(2018)
    x = tf.placeholder(tf.float32, [BATCH, 64], name="x")
    y = tf.placeholder(tf.int64, [BATCH], name="y")
    logits = _net(tf, x, True, None)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_op = tf.train.MomentumOptimizer(0.02, 0.9).minimize(loss)
    eval_logits = _net(tf, x, False, True)
    return {"x": x, "y": y, "loss": loss, "train": train_op, "eval_logits": eval_logits}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            s = (i * BATCH) % 192
            _, loss = sess.run([h["train"], h["loss"]], feed_dict={h["x"]: IMAGES[s:s + BATCH],
                                                                   h["y"]: LABELS[s:s + BATCH]})
            losses.append(float(loss))
        logits = sess.run(h["eval_logits"], feed_dict={h["x"]: IMAGES[:BATCH]})
        # The Momentum slots are left out of the final comparison: they sum raw
        # gradients whose small entries come from the cancellations of the batch
        # norm gradient over ghost batches of 4 (equal up to rounding of the
        # gradients' scale, not to 1e-5 of each entry); the weights they moved are
        # compared.
        final = {k: v for k, v in variable_values(tf, sess).items() if not k.endswith("/Momentum")}
        return {"initial": initial, "losses": losses, "final": final, "extra": [logits]}
