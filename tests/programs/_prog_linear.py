"""One-variable linear regression, fed one scalar at a time (the classic
2016 tutorial): ``"float"`` placeholders, ``reduce_sum`` of the squared error
over a scalar, numpy-valued variables, plain gradient descent."""
import numpy as np

from _corpus import variable_values

TRAIN_X = np.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167])
TRAIN_Y = np.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221])


def build(tf):
    X = tf.placeholder("float")
    Y = tf.placeholder("float")
    W = tf.Variable(0.3, name="weight")
    b = tf.Variable(-0.2, name="bias")
    pred = tf.add(tf.multiply(X, W), b)
    cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * TRAIN_X.shape[0])
    optimizer = tf.train.GradientDescentOptimizer(0.01).minimize(cost)
    return {"X": X, "Y": Y, "loss": cost, "train": optimizer}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            for x, y in zip(TRAIN_X, TRAIN_Y):
                sess.run(h["train"], feed_dict={h["X"]: x, h["Y"]: y})
            losses.append(float(sess.run(h["loss"], feed_dict={h["X"]: TRAIN_X, h["Y"]: TRAIN_Y})))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess)}
