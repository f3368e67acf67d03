"""Custom iterative logic in graph loops (the 2017 "tf.while_loop"
tutorials' style): a learned fixed-point refinement ``h <- tanh(h W + x U +
b)`` run a fed number of times by ``tf.while_loop`` (TF 1.x frames), the
iterates collected in a ``TensorArray`` and averaged, gradients taken
through the loop (TF1's stack-based while gradient) by Adam; plus a
``tf.while_loop`` that counts, with ``tf.cond`` in its body, how many
samples' predictions are right, and ``tf.scan`` of a running sum."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS

BATCH, HIDDEN = 16, 12


def build(tf):
    tf.set_random_seed(4321)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    n_iter = tf.placeholder(tf.int32, [], name="n_iter")
    U = tf.Variable(tf.random_normal([64, HIDDEN], stddev=0.1), name="U")
    W = tf.Variable(tf.random_normal([HIDDEN, HIDDEN], stddev=0.3), name="W")
    b = tf.Variable(tf.zeros([HIDDEN]), name="b")
    V = tf.Variable(tf.random_normal([HIDDEN, 10], stddev=0.3), name="V")
    xu = tf.matmul(x, U)
    h0 = tf.zeros_like(xu)
    ta = tf.TensorArray(tf.float32, size=n_iter)

    def cond(i, h, ta):
        return i < n_iter

    def body(i, h, ta):
        h_new = tf.tanh(tf.matmul(h, W) + xu + b)
        return i + 1, h_new, ta.write(i, h_new)

    _, h_final, ta = tf.while_loop(cond, body, [tf.constant(0), h0, ta])
    h_mean = tf.reduce_mean(ta.stack(), axis=0)
    logits = tf.matmul(h_final + h_mean, V)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.AdamOptimizer(0.02).minimize(loss)
    predictions = tf.cast(tf.argmax(logits, 1), tf.int32)
    n = tf.shape(y)[0]

    def count_body(j, c):
        right = tf.equal(predictions[j], y[j])
        return j + 1, tf.cond(right, lambda: c + 1, lambda: c)

    _, n_right = tf.while_loop(lambda j, c: j < n, count_body, [tf.constant(0), tf.constant(0)])
    running = tf.scan(lambda acc, v: acc + v, tf.reduce_sum(logits, 1), initializer=tf.constant(0.0))
    return {"x": x, "y": y, "n_iter": n_iter, "loss": loss, "train": train_op, "n_right": n_right,
            "running": running}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            s = (i * BATCH) % 192
            _, loss = sess.run([h["train"], h["loss"]], feed_dict={h["x"]: IMAGES[s:s + BATCH],
                                                                   h["y"]: LABELS[s:s + BATCH],
                                                                   h["n_iter"]: 2 + i % 3})
            losses.append(float(loss))
        n_right, running = sess.run([h["n_right"], h["running"]],
                                    feed_dict={h["x"]: IMAGES[:50], h["y"]: LABELS[:50], h["n_iter"]: 3})
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [int(n_right), running]}
