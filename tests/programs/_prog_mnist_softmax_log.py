"""The TF r1 "MNIST for ML beginners" tutorial (``mnist_softmax.py``) as first
published: ``y = tf.nn.softmax(tf.matmul(x, W) + b)`` and the cross-entropy
written by hand, ``-reduce_sum(y_ * log(y))`` averaged over the batch; plain
gradient descent on fixed synthetic batches; the cost evaluated alone on a
held-out batch after each step (TF runs ``Log(Softmax)`` as ``LogSoftmax``
there, since nothing else reads the softmax) and the final test accuracy and
probabilities as ``extra``."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(2018)
IMAGES = RNG.rand(240, 784).astype(np.float32)
LABELS = np.eye(10, dtype=np.float32)[RNG.randint(0, 10, 240)]


def build(tf):
    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    return {"x": x, "y_": y_, "y": y, "loss": cross_entropy, "train": train_step, "accuracy": accuracy}


def train(tf, steps, workdir):
    h = build(tf)
    held_out = {h["x"]: IMAGES[200:], h["y_"]: LABELS[200:]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            i = (step * 50) % 200
            sess.run(h["train"], {h["x"]: IMAGES[i:i + 50], h["y_"]: LABELS[i:i + 50]})
            losses.append(float(sess.run(h["loss"], held_out)))
        acc, probs = sess.run([h["accuracy"], h["y"]], held_out)
        extra = [float(acc), probs.tolist()]
        final = variable_values(tf, sess)
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
