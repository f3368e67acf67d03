"""Linear SVM (the 'TensorFlow Machine Learning Cookbook' style): soft-margin hinge loss written by hand,
L2 term, plus ``tf.losses.hinge_loss`` with per-example weights and ``SUM_BY_NONZERO_WEIGHTS``; accuracy of
``tf.sign`` as the extra."""
from _hooked import hooked_train
from _inputs61 import XS, YS, W8


def build(tf):
    tf.set_random_seed(301)
    x = tf.placeholder(tf.float32, [None, 3]); y = tf.placeholder(tf.float32, [None, 1])
    A = tf.Variable(tf.random_normal(shape=[3, 1])); b = tf.Variable(tf.random_normal(shape=[1, 1]))
    out = tf.subtract(tf.matmul(x, A), b)
    l2 = tf.reduce_sum(tf.square(A))
    alpha = tf.constant([0.01])
    class_term = tf.reduce_mean(tf.maximum(0., tf.subtract(1., tf.multiply(out, y))))
    hinge = tf.losses.hinge_loss(labels=(y + 1.0) / 2.0, logits=out, weights=tf.constant(W8[:, None]),
                                 reduction=tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS)
    loss = tf.add(class_term, tf.multiply(alpha, l2)) + 0.1 * hinge
    loss = tf.squeeze(loss)
    pred = tf.sign(out)
    acc = tf.reduce_mean(tf.cast(tf.equal(pred, y), tf.float32))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    return {"loss": loss, "train": train, "extra": acc, "feed": lambda s: {x: XS, y: YS[:, None]}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
