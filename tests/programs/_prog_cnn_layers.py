"""A small CNN with the layers API (2017's "Layers tutorial" style):
conv2d -> max_pooling2d -> conv2d -> max_pooling2d -> flatten -> dense ->
dropout(training=<bool placeholder>) -> dense logits, sparse softmax cross
entropy from ``tf.losses``, momentum SGD with a global step."""
import numpy as np

from _corpus import simple_train

RNG = np.random.RandomState(1)
LABELS = RNG.randint(4, size=64).astype(np.int32)
IMAGES = (RNG.rand(64, 8, 8, 1) + 0.5 * LABELS[:, None, None, None] / 4).astype(np.float32)


def build(tf):
    tf.set_random_seed(7)
    x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    training = tf.placeholder(tf.bool, name="training")
    conv1 = tf.layers.conv2d(x, filters=4, kernel_size=[3, 3], padding="same", activation=tf.nn.relu)
    pool1 = tf.layers.max_pooling2d(conv1, pool_size=[2, 2], strides=2)
    conv2 = tf.layers.conv2d(pool1, filters=8, kernel_size=[3, 3], padding="same", activation=tf.nn.relu)
    pool2 = tf.layers.max_pooling2d(conv2, pool_size=[2, 2], strides=2)
    flat = tf.layers.flatten(pool2)
    dense = tf.layers.dense(flat, units=16, activation=tf.nn.relu)
    dropout = tf.layers.dropout(dense, rate=0.3, training=training)
    logits = tf.layers.dense(dropout, units=4)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=step)

    def feed(i):
        j = (i * 16) % 64
        return {x: IMAGES[j:j + 16], y: LABELS[j:j + 16], training: True}

    return {"loss": loss, "train": train_op, "feed": feed}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
