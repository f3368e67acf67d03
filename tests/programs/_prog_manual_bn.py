"""Batch normalization by hand (the 2016 blog-post style, before
``tf.layers``): ``tf.nn.moments`` over the batch, an
``ExponentialMovingAverage`` of the batch mean and variance applied inside
``mean_var_with_update`` under ``control_dependencies`` and returned through
``tf.identity``, ``tf.cond(phase_train, mean_var_with_update, lambda:
(ema.average(batch_mean), ema.average(batch_var)))`` selecting training or
inference statistics, ``tf.nn.batch_normalization`` with beta/gamma
variables, a conv layer then a dense layer, Momentum with Nesterov; the
training loop feeds ``phase_train=True``, evaluation ``False``."""
import numpy as np

from _corpus import variable_values
from _prog_cnn_layers import IMAGES, LABELS


def batch_norm(tf, x, n_out, phase_train, axes):
    with tf.variable_scope("bn"):
        beta = tf.Variable(tf.constant(0.0, shape=[n_out]), name="beta", trainable=True)
        gamma = tf.Variable(tf.constant(1.0, shape=[n_out]), name="gamma", trainable=True)
        batch_mean, batch_var = tf.nn.moments(x, axes, name="moments")
        ema = tf.train.ExponentialMovingAverage(decay=0.5)

        def mean_var_with_update():
            ema_apply_op = ema.apply([batch_mean, batch_var])
            with tf.control_dependencies([ema_apply_op]):
                return tf.identity(batch_mean), tf.identity(batch_var)

        mean, var = tf.cond(phase_train, mean_var_with_update,
                            lambda: (ema.average(batch_mean), ema.average(batch_var)))
        return tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3)


def build(tf):
    tf.set_random_seed(91)
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int32, [None])
    phase_train = tf.placeholder(tf.bool, name="phase_train")
    with tf.variable_scope("conv"):
        kernel = tf.Variable(tf.truncated_normal([3, 3, 1, 6], stddev=0.3), name="kernel")
        conv = tf.nn.conv2d(x, kernel, [1, 1, 1, 1], padding="SAME")
        h = tf.nn.relu(batch_norm(tf, conv, 6, phase_train, [0, 1, 2]))
    with tf.variable_scope("fc"):
        flat = tf.reshape(h, [-1, 8 * 8 * 6])
        w = tf.Variable(tf.truncated_normal([8 * 8 * 6, 4], stddev=0.05), name="w")
        logits = tf.matmul(flat, w)
        logits = batch_norm(tf, logits, 4, phase_train, [0])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(loss)
    return {"x": x, "y": y, "phase_train": phase_train, "loss": loss, "train": train_op, "logits": logits}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            j = (i * 16) % 64
            _, loss = sess.run([h["train"], h["loss"]], {h["x"]: IMAGES[j:j + 16], h["y"]: LABELS[j:j + 16],
                                                         h["phase_train"]: True})
            losses.append(float(loss))
        logits, eval_loss = sess.run([h["logits"], h["loss"]], {h["x"]: IMAGES, h["y"]: LABELS,
                                                                h["phase_train"]: False})
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [np.float32(eval_loss), logits]}
