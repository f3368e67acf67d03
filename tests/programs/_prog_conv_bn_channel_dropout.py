"""A small batch-normalised convnet in the style of Google's "TensorFlow without a
PhD" MNIST codelab (4.2): batch norm written by hand with ``tf.nn.moments`` over
``[0, 1, 2]``, an ``ExponentialMovingAverage(0.999, iteration)`` whose ``apply``
op is grouped into an ``update_ema`` run after each step, the statistics chosen by
``tf.cond(is_test, ...)``, ``tf.nn.batch_normalization`` with an offset and no
scale, and channel-wise dropout whose ``noise_shape`` is a tensor computed from
``tf.shape`` (one mask value per channel). Test-mode loss and accuracy are the
``extra``."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT


def _batchnorm(tf, logits, is_test, iteration, offset, convolutional):
    ema = tf.train.ExponentialMovingAverage(0.999, iteration)
    mean, variance = tf.nn.moments(logits, [0, 1, 2] if convolutional else [0])
    update = ema.apply([mean, variance])
    m = tf.cond(is_test, lambda: ema.average(mean), lambda: mean)
    v = tf.cond(is_test, lambda: ema.average(variance), lambda: variance)
    return tf.nn.batch_normalization(logits, m, v, offset, None, 1e-5), update


def _channel_noise(tf, y):
    return tf.shape(y) * tf.constant([1, 0, 0, 1]) + tf.constant([0, 1, 1, 0])


def build(tf):
    tf.set_random_seed(2)
    X = tf.placeholder(tf.float32, [None, 8, 8, 1])
    Y_ = tf.placeholder(tf.float32, [None, 10])
    tst = tf.placeholder(tf.bool)
    it = tf.placeholder(tf.int32)
    pkeep = tf.placeholder(tf.float32)
    pkeep_conv = tf.placeholder(tf.float32)
    W1 = tf.Variable(tf.truncated_normal([3, 3, 1, 6], stddev=0.1))
    B1 = tf.Variable(tf.constant(0.1, tf.float32, [6]))
    W2 = tf.Variable(tf.truncated_normal([3, 3, 6, 8], stddev=0.1))
    B2 = tf.Variable(tf.constant(0.1, tf.float32, [8]))
    W3 = tf.Variable(tf.truncated_normal([4 * 4 * 8, 20], stddev=0.1))
    B3 = tf.Variable(tf.constant(0.1, tf.float32, [20]))
    W4 = tf.Variable(tf.truncated_normal([20, 10], stddev=0.1))
    B4 = tf.Variable(tf.constant(0.1, tf.float32, [10]))
    Y1l = tf.nn.conv2d(X, W1, strides=[1, 1, 1, 1], padding="SAME")
    Y1bn, u1 = _batchnorm(tf, Y1l, tst, it, B1, convolutional=True)
    Y1 = tf.nn.dropout(tf.nn.relu(Y1bn), pkeep_conv, _channel_noise(tf, tf.nn.relu(Y1bn)))
    Y2l = tf.nn.conv2d(Y1, W2, strides=[1, 2, 2, 1], padding="SAME")
    Y2bn, u2 = _batchnorm(tf, Y2l, tst, it, B2, convolutional=True)
    Y2r = tf.nn.relu(Y2bn)
    Y2 = tf.nn.dropout(Y2r, pkeep_conv, _channel_noise(tf, Y2r))
    YY = tf.reshape(Y2, shape=[-1, 4 * 4 * 8])
    Y3l = tf.matmul(YY, W3)
    Y3bn, u3 = _batchnorm(tf, Y3l, tst, it, B3, convolutional=False)
    Y3 = tf.nn.dropout(tf.nn.relu(Y3bn), pkeep)
    logits = tf.matmul(Y3, W4) + B4
    update_ema = tf.group(u1, u2, u3)
    xent = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y_)) * 100
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(Y_, 1)), tf.float32))
    lr = 0.0001 + tf.train.exponential_decay(0.02, it, 16, 1 / 2.718281828)
    train = tf.train.AdamOptimizer(lr).minimize(xent)
    return {"X": X, "Y_": Y_, "tst": tst, "it": it, "pkeep": pkeep, "pkeep_conv": pkeep_conv, "loss": xent,
            "train": train, "update_ema": update_ema, "accuracy": accuracy}


def train(tf, steps, workdir):
    h = build(tf)
    images = IMAGES.reshape(-1, 8, 8, 1)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    initial = variable_values(tf, sess)
    losses, extra = [], []
    for i in range(steps):
        j = (i * 25) % 200
        feed = {h["X"]: images[j:j + 25], h["Y_"]: ONE_HOT[j:j + 25], h["it"]: i}
        _, loss = sess.run([h["train"], h["loss"]],
                           {**feed, h["tst"]: False, h["pkeep"]: 0.75, h["pkeep_conv"]: 0.9})
        sess.run(h["update_ema"], {**feed, h["tst"]: False, h["pkeep"]: 1.0, h["pkeep_conv"]: 1.0})
        losses.append(float(loss))
        extra += sess.run([h["accuracy"], h["loss"]], {h["X"]: images, h["Y_"]: ONE_HOT, h["tst"]: True,
                                                       h["it"]: i, h["pkeep"]: 1.0, h["pkeep_conv"]: 1.0})
    final = variable_values(tf, sess)
    sess.close()
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
