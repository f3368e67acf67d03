"""Comparing optimizers and schedules on one model (the 2017 "which
optimizer" blog style): the same softmax regression copied under a
``variable_scope`` per optimizer, each with its own global step and
schedule -- Momentum with ``piecewise_constant``, Adadelta, Ftrl with L1/L2,
ProximalAdagrad, RMSProp with momentum under ``polynomial_decay``, Adam
under ``inverse_time_decay``, GradientDescent under ``natural_exp_decay``
and ``cosine_decay`` -- trained together by ``tf.group`` of the train ops;
the loss is the sum, and every model's loss is returned."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT

BATCH = 25


def _model(tf, x, y, scope):
    with tf.variable_scope(scope):
        w = tf.get_variable("w", [64, 10], initializer=tf.truncated_normal_initializer(stddev=0.05))
        b = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
        step = tf.Variable(0, trainable=False, name="global_step")
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(x, w) + b))
    return loss, step


def build(tf):
    tf.set_random_seed(151)
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    makers = {
        "momentum": lambda s: tf.train.MomentumOptimizer(
            tf.train.piecewise_constant(s, [3, 6], [0.1, 0.05, 0.01]), 0.9),
        "adadelta": lambda s: tf.train.AdadeltaOptimizer(1.0, rho=0.9),
        "ftrl": lambda s: tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.001,
                                                 l2_regularization_strength=0.01),
        "proximal_adagrad": lambda s: tf.train.ProximalAdagradOptimizer(0.2, l1_regularization_strength=0.001),
        "rmsprop": lambda s: tf.train.RMSPropOptimizer(
            tf.train.polynomial_decay(0.01, s, 10, end_learning_rate=0.001, power=0.5), momentum=0.5),
        "adam": lambda s: tf.train.AdamOptimizer(tf.train.inverse_time_decay(0.02, s, 2, 0.5)),
        "sgd_exp": lambda s: tf.train.GradientDescentOptimizer(tf.train.natural_exp_decay(0.5, s, 3, 0.2)),
        "sgd_cos": lambda s: tf.train.GradientDescentOptimizer(tf.train.cosine_decay(0.5, s, 10, alpha=0.1)),
    }
    losses, train_ops = {}, []
    for name, make in makers.items():
        loss, step = _model(tf, x, y, name)
        losses[name] = loss
        train_ops.append(make(step).minimize(loss, global_step=step))
    total = tf.add_n(list(losses.values()))
    train_op = tf.group(*train_ops)

    def feed(i):
        j = (i * BATCH) % len(IMAGES)
        return {x: IMAGES[j:j + BATCH], y: ONE_HOT[j:j + BATCH]}

    return {"loss": total, "train": train_op, "feed": feed, "losses": losses}


def train(tf, steps, workdir):
    h = build(tf)
    names = sorted(h["losses"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, each = [], []
        for i in range(steps):
            _, total, per = sess.run([h["train"], h["loss"], [h["losses"][n] for n in names]], h["feed"](i))
            losses.append(float(total))
            each.append([np.float32(v) for v in per])
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": [names, each]}
