"""An AlexNet-style CNN in raw ``tf.nn`` (the 2016 "ImageNet classification
from scratch" blog style, tiny): ``tf.Variable(tf.truncated_normal(...))``
filters, strided ``conv2d`` with VALID and SAME padding, ``bias_add``,
``tf.nn.local_response_normalization`` after the first conv and ``tf.nn.lrn``
after the second, ``max_pool`` 3x3/2 and ``avg_pool``, the flattened size
computed from ``get_shape()[i].value``, weight decay ``wd * tf.add_n([tf.nn.l2_loss(v)
...])`` over the non-bias trainables, ``tf.train.exponential_decay`` with
``staircase=True`` on an int32 ``global_step`` variable, and
``MomentumOptimizer(lr, 0.9)``; the decayed learning rate is fetched too."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(17)
IMAGES = RNG.rand(48, 12, 12, 3).astype(np.float32)
LABELS = (IMAGES[:, :6, :6, 0].mean(axis=(1, 2)) * 10).astype(np.int32) % 5
BATCH = 8


def _conv(tf, x, shape, stride, padding, name):
    with tf.name_scope(name):
        kernel = tf.Variable(tf.truncated_normal(shape, dtype=tf.float32, stddev=0.1), name="weights")
        biases = tf.Variable(tf.constant(0.1, shape=[shape[-1]], dtype=tf.float32), name="biases")
        conv = tf.nn.conv2d(x, kernel, [1, stride, stride, 1], padding=padding)
        return tf.nn.relu(tf.nn.bias_add(conv, biases), name="relu")


def build(tf):
    tf.set_random_seed(1234)
    images = tf.placeholder(tf.float32, [None, 12, 12, 3], name="images")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    global_step = tf.Variable(0, trainable=False, name="global_step")
    conv1 = _conv(tf, images, [3, 3, 3, 8], 1, "VALID", "conv1")
    lrn1 = tf.nn.local_response_normalization(conv1, depth_radius=2, bias=1.0, alpha=2e-5, beta=0.75, name="norm1")
    pool1 = tf.nn.max_pool(lrn1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool1")
    conv2 = _conv(tf, pool1, [3, 3, 8, 12], 1, "SAME", "conv2")
    lrn2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm2")
    pool2 = tf.nn.avg_pool(lrn2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME", name="pool2")
    dim = pool2.get_shape()[1].value * pool2.get_shape()[2].value * pool2.get_shape()[3].value
    flat = tf.reshape(pool2, [-1, dim])
    with tf.name_scope("fc"):
        w = tf.Variable(tf.truncated_normal([dim, 5], stddev=0.1), name="weights")
        b = tf.Variable(tf.zeros([5]), name="biases")
        logits = tf.matmul(flat, w) + b
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    wd = 5e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "biases" not in v.name])
    loss = tf.add(xent, wd, name="total_loss")
    lr = tf.train.exponential_decay(0.05, global_step, 4, 0.5, staircase=True)
    train_op = tf.train.MomentumOptimizer(lr, 0.9).minimize(loss, global_step=global_step)
    return {"images": images, "labels": labels, "loss": loss, "train": train_op, "lr": lr}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, rates = [], []
        for i in range(steps):
            s = (i * BATCH) % 48
            _, loss, lr = sess.run([h["train"], h["loss"], h["lr"]],
                                   feed_dict={h["images"]: IMAGES[s:s + BATCH], h["labels"]: LABELS[s:s + BATCH]})
            losses.append(float(loss))
            rates.append(float(lr))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": rates}
