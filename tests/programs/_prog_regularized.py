"""Weight decay through variable regularizers (the 2017 "L2 regularization
in TensorFlow" posts' style, without ``tf.contrib``): a
``tf.variable_scope(..., regularizer=...)`` whose ``tf.get_variable``s
inherit a ``lambda w: scale * tf.nn.l2_loss(w)`` regularizer, one
``get_variable`` with its own ``regularizer=`` (an L1 term through
``tf.reduce_sum(tf.abs(w))``), a bias without; the penalty from
``tf.uniform_unit_scaling_initializer``, ``tf.losses.get_regularization_loss()`` checked against ``tf.add_n`` of the
``REGULARIZATION_LOSSES`` collection; ``tf.losses.softmax_cross_entropy``
with ``weights``; gradients clipped by ``tf.clip_by_global_norm`` and
applied by RMSProp with ``apply_gradients(global_step=...)``; a
``tf.train.polynomial_decay`` learning rate."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT

BATCH = 24
WEIGHTS = np.linspace(0.5, 1.5, BATCH).astype(np.float32)


def build(tf):
    tf.set_random_seed(99)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    global_step = tf.Variable(0, name="global_step", trainable=False, dtype=tf.int64)
    with tf.variable_scope("net", regularizer=lambda w: 1e-3 * tf.nn.l2_loss(w)):
        w1 = tf.get_variable("w1", [64, 32], initializer=tf.variance_scaling_initializer(scale=2.0))
        b1 = tf.get_variable("b1", [32], initializer=tf.zeros_initializer(), regularizer=None)
        w2 = tf.get_variable("w2", [32, 10], initializer=tf.uniform_unit_scaling_initializer(factor=1.15),
                             regularizer=lambda w: tf.multiply(1e-4, tf.reduce_sum(tf.abs(w)), name="l1"))
        b2 = tf.get_variable("b2", [10], initializer=tf.constant_initializer(0.01))
    hidden = tf.nn.elu(tf.matmul(x, w1) + b1)
    logits = tf.nn.xw_plus_b(hidden, w2, b2)
    data_loss = tf.losses.softmax_cross_entropy(y, logits, weights=WEIGHTS)
    reg_loss = tf.losses.get_regularization_loss()
    reg_sum = tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    loss = data_loss + reg_loss
    lr = tf.train.polynomial_decay(0.01, global_step, 10, end_learning_rate=0.002, power=2.0)
    optimizer = tf.train.RMSPropOptimizer(lr, decay=0.9, momentum=0.5)
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 2.0)
    train_op = optimizer.apply_gradients(list(zip(grads, tvars)), global_step=global_step)
    return {"x": x, "y": y, "loss": loss, "train": train_op, "reg": [reg_loss, reg_sum],
            "n_reg": len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, regs = [], []
        for i in range(steps):
            s = (i * BATCH) % 192
            _, loss, reg = sess.run([h["train"], h["loss"], h["reg"]],
                                    feed_dict={h["x"]: IMAGES[s:s + BATCH], h["y"]: ONE_HOT[s:s + BATCH]})
            losses.append(float(loss))
            regs.append([float(r) for r in reg])
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [h["n_reg"], regs]}
