"""A residual block (the 2017 official ResNet model's style, tiny):
``tf.layers.conv2d(use_bias=False, kernel_initializer=
variance_scaling_initializer())``, a 1x1 strided projection shortcut,
``tf.layers.batch_normalization(momentum=0.997, epsilon=1e-5, fused=True,
training=<bool placeholder>)``, global average pooling by ``reduce_mean(axis=
[1, 2], keepdims=True)`` and ``squeeze``, weight decay ``1e-4 * add_n(l2_loss)``
over the non-BN variables, the train op under ``control_dependencies(UPDATE_OPS)``,
Nesterov momentum with a global step."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(41)
SRC = R.randint(1, 12, (4, 5)).astype(np.int32)
TGT = R.randint(1, 12, (4, 6)).astype(np.int32)
TLEN = np.array([6, 4, 5, 2], np.int32)
STATES = R.randn(8, 4).astype(np.float32)
ACTIONS = R.randint(0, 3, 8).astype(np.int32)
REWARDS = R.randn(8).astype(np.float32)
DONE = (R.rand(8) > 0.7).astype(np.float32)
NEXT = R.randn(8, 4).astype(np.float32)
X16 = R.rand(10, 16).astype(np.float32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)
LAB = R.randint(0, 5, 4).astype(np.int64)


def build(tf):
    tf.set_random_seed(104)
    x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    training = tf.placeholder(tf.bool, name="training")

    def bn(t, name):
        return tf.layers.batch_normalization(t, momentum=0.997, epsilon=1e-5, training=training, fused=True, name=name)

    net = tf.layers.conv2d(x, 8, 3, padding="same", use_bias=False,
                           kernel_initializer=tf.variance_scaling_initializer(), name="conv0")
    shortcut = tf.layers.conv2d(net, 16, 1, strides=2, use_bias=False, name="proj")
    net = tf.nn.relu(bn(net, "bn1"))
    net = tf.layers.conv2d(net, 16, 3, strides=2, padding="same", use_bias=False, name="conv1")
    net = tf.nn.relu(bn(net, "bn2"))
    net = tf.layers.conv2d(net, 16, 3, padding="same", use_bias=False, name="conv2")
    net = tf.nn.relu(net + shortcut)
    net = tf.reduce_mean(net, [1, 2], keepdims=True)
    net = tf.squeeze(net, [1, 2])
    logits = tf.layers.dense(net, 5)
    xent = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    l2 = 1e-4 * tf.add_n([tf.nn.l2_loss(tf.cast(v, tf.float32)) for v in tf.trainable_variables()
                          if "batch_normalization" not in v.name and "bn" not in v.name])
    loss = xent + l2
    gs = tf.train.get_or_create_global_step()
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(loss, gs)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    return {"loss": loss, "train": train, "extra": [acc, logits],
            "feed": lambda i: {x: IMG, y: LAB, training: True}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
