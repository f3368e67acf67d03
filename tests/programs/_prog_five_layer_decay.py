"""A five-layer ReLU classifier in the style of Google's "TensorFlow without a
PhD" MNIST codelab (2.2): weights from ``truncated_normal(stddev=0.1)``, biases
``tf.ones([n]) / 10``, the learning rate ``0.0001 + exponential_decay(0.003, step,
...)`` where ``step`` is an int32 placeholder fed each iteration, dropout with a
``pkeep`` placeholder, a cross entropy scaled by 100 and the weights and biases
flattened and concatenated for histograms (fetched as ``extra``)."""
import math

import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT


def build(tf):
    tf.set_random_seed(0)
    X = tf.placeholder(tf.float32, [None, 8, 8, 1])
    Y_ = tf.placeholder(tf.float32, [None, 10])
    step = tf.placeholder(tf.int32)
    pkeep = tf.placeholder(tf.float32)
    sizes = [64, 40, 30, 20, 16, 10]
    Ws = [tf.Variable(tf.truncated_normal([a, b], stddev=0.1)) for a, b in zip(sizes, sizes[1:])]
    Bs = [tf.Variable(tf.ones([b]) / 10) for b in sizes[1:-1]] + [tf.Variable(tf.zeros([10]))]
    Y = tf.reshape(X, [-1, 64])
    for W, B in zip(Ws[:-1], Bs[:-1]):
        Y = tf.nn.dropout(tf.nn.relu(tf.matmul(Y, W) + B), pkeep)
    logits = tf.matmul(Y, Ws[-1]) + Bs[-1]
    probs = tf.nn.softmax(logits)
    xent = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y_)) * 100
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(probs, 1), tf.argmax(Y_, 1)), tf.float32))
    allweights = tf.concat([tf.reshape(W, [-1]) for W in Ws], 0)
    allbiases = tf.concat([tf.reshape(B, [-1]) for B in Bs], 0)
    lr = 0.0001 + tf.train.exponential_decay(0.003, step, 20, 1 / math.e)
    train = tf.train.AdamOptimizer(lr).minimize(xent)
    return {"X": X, "Y_": Y_, "step": step, "pkeep": pkeep, "loss": xent, "train": train, "accuracy": accuracy,
            "lr": lr, "allweights": allweights, "allbiases": allbiases}


def train(tf, steps, workdir):
    h = build(tf)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    initial = variable_values(tf, sess)
    images = IMAGES.reshape(-1, 8, 8, 1)
    losses, extra = [], []
    for i in range(steps):
        j = (i * 25) % 200
        feed = {h["X"]: images[j:j + 25], h["Y_"]: ONE_HOT[j:j + 25], h["step"]: i}
        a, c, w, b, lr = sess.run([h["accuracy"], h["loss"], h["allweights"], h["allbiases"], h["lr"]],
                                  {**feed, h["pkeep"]: 1.0})
        extra += [np.float32(a), w, b, np.float32(lr)]
        _, loss = sess.run([h["train"], h["loss"]], {**feed, h["pkeep"]: 0.75})
        losses.append(float(loss))
    extra.append(sess.run(h["accuracy"], {h["X"]: images, h["Y_"]: ONE_HOT, h["pkeep"]: 1.0}))
    final = variable_values(tf, sess)
    sess.close()
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
