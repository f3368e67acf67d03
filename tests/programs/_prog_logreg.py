"""Logistic regression on MNIST-like synthetic data (8x8 "digits", 10
classes), softmax by hand with ``-reduce_sum(y * log(pred), reduction_indices=1)``,
a ``tf.summary.scalar`` merged and written by a FileWriter every step."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(0)
PROTOS = RNG.rand(10, 64).astype(np.float32)
LABELS = RNG.randint(10, size=200)
IMAGES = (PROTOS[LABELS] + 0.3 * RNG.rand(200, 64)).astype(np.float32)
ONE_HOT = np.eye(10, dtype=np.float32)[LABELS]


def build(tf):
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    W = tf.Variable(tf.zeros([64, 10]))
    b = tf.Variable(tf.zeros([10]))
    with tf.name_scope("Model"):
        pred = tf.nn.softmax(tf.matmul(x, W) + b)
    with tf.name_scope("Loss"):
        cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
    with tf.name_scope("SGD"):
        optimizer = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
    with tf.name_scope("Accuracy"):
        acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1)), tf.float32))
    tf.summary.scalar("loss", cost)
    tf.summary.scalar("accuracy", acc)
    merged = tf.summary.merge_all()
    return {"x": x, "y": y, "loss": cost, "train": optimizer, "summary": merged}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(workdir, graph=tf.get_default_graph())
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            i = (step * 25) % 200
            feed = {h["x"]: IMAGES[i:i + 25], h["y"]: ONE_HOT[i:i + 25]}
            _, c, s = sess.run([h["train"], h["loss"], h["summary"]], feed_dict=feed)
            writer.add_summary(s, step)
            losses.append(float(c))
        writer.close()
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess)}
