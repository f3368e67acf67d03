"""MNIST for beginners (2016 style): ``tf.placeholder("float", ...)`` with a
dtype string, softmax regression ``tf.nn.softmax(tf.matmul(x, W) + b)``,
the hand-written cross entropy ``-tf.reduce_sum(y_ * tf.log(y))``, plain
gradient descent, ``tf.initialize_all_variables()``, and the
``argmax``/``equal``/``cast("float")`` accuracy evaluated after training."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT


def build(tf):
    x = tf.placeholder("float", [None, 64])
    W = tf.Variable(tf.zeros([64, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder("float", [None, 10])
    cross_entropy = -tf.reduce_sum(y_ * tf.log(y))
    train_step = tf.train.GradientDescentOptimizer(0.01).minimize(cross_entropy)
    correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
    return {"x": x, "y_": y_, "loss": cross_entropy, "train": train_step, "accuracy": accuracy}


def train(tf, steps, workdir):
    h = build(tf)
    init = tf.initialize_all_variables()
    sess = tf.Session()
    sess.run(init)
    initial = variable_values(tf, sess)
    losses = []
    for i in range(steps):
        j = (i * 25) % 200
        _, loss = sess.run([h["train"], h["loss"]], feed_dict={h["x"]: IMAGES[j:j + 25], h["y_"]: ONE_HOT[j:j + 25]})
        losses.append(float(loss))
    acc = sess.run(h["accuracy"], feed_dict={h["x"]: IMAGES, h["y_"]: ONE_HOT})
    final = variable_values(tf, sess)
    sess.close()
    return {"initial": initial, "losses": losses, "final": final, "extra": [np.float32(acc)]}
