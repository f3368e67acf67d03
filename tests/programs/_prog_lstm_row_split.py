"""An image-rows LSTM classifier in the style of nlintz's "07_lstm": each 8x8 image
is a sequence of 8 rows, turned time-major with ``transpose``, flattened with
``reshape``, cut with ``tf.split`` into a list of steps for ``static_rnn`` over a
``BasicLSTMCell(forget_bias=1.0, state_is_tuple=True)``; the last output times
a weight matrix is the logits; ``RMSPropOptimizer(0.001, 0.9)``; ``argmax``
predictions on the whole set as ``extra``."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT


def build(tf):
    tf.set_random_seed(5)
    X = tf.placeholder("float", [None, 8, 8])
    Y = tf.placeholder("float", [None, 10])
    W = tf.Variable(tf.random_normal([16, 10], stddev=0.01))
    B = tf.Variable(tf.random_normal([10], stddev=0.01))
    XT = tf.transpose(X, [1, 0, 2])
    XR = tf.reshape(XT, [-1, 8])
    X_split = tf.split(XR, 8, 0)
    cell = tf.nn.rnn_cell.BasicLSTMCell(16, forget_bias=1.0, state_is_tuple=True)
    outputs, _states = tf.nn.static_rnn(cell, X_split, dtype=tf.float32)
    py_x = tf.matmul(outputs[-1], W) + B
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=py_x, labels=Y))
    train = tf.train.RMSPropOptimizer(0.001, 0.9).minimize(cost)
    predict = tf.argmax(py_x, 1)
    return {"X": X, "Y": Y, "loss": cost, "train": train, "predict": predict}


def train(tf, steps, workdir):
    h = build(tf)
    images = IMAGES.reshape(-1, 8, 8)
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            j = (i * 32) % 192
            _, loss = sess.run([h["train"], h["loss"]], {h["X"]: images[j:j + 32], h["Y"]: ONE_HOT[j:j + 32]})
            losses.append(float(loss))
        extra = [sess.run(h["predict"], {h["X"]: images})]
        final = variable_values(tf, sess)
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
