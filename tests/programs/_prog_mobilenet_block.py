"""A MobileNet-style block (the 2017-2018 mobile-CNN posts' style):
``tf.nn.depthwise_conv2d`` then unfused and fused ``tf.layers.batch_normalization``
with a ``placeholder_with_default(True)`` training flag and ``relu6``, a 1x1
``tf.layers.conv2d``, ``tf.layers.separable_conv2d(strides=2)``, ``avg_pool``,
``softmax_cross_entropy_with_logits_v2`` of ``one_hot`` labels, RMSProp with
momentum under ``control_dependencies(UPDATE_OPS)``; ``tf.nn.top_k(...).indices``
fetched."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)


def build(tf):
    tf.set_random_seed(206)
    x = tf.placeholder(tf.float32, [None, 8, 8, 3]); y = tf.placeholder(tf.int32, [None])
    is_training = tf.placeholder_with_default(True, [], name="is_training")
    dw = tf.get_variable("dw", [3, 3, 3, 2], initializer=tf.truncated_normal_initializer(stddev=0.09))
    net = tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME")
    net = tf.layers.batch_normalization(net, training=is_training, fused=False)
    net = tf.nn.relu6(net)
    net = tf.layers.conv2d(net, 8, 1, use_bias=False)
    net = tf.nn.relu6(tf.layers.batch_normalization(net, training=is_training))
    net = tf.layers.separable_conv2d(net, 8, 3, strides=2, padding="same", depth_multiplier=1,
                                     activation=tf.nn.relu6)
    net = tf.nn.avg_pool(net, ksize=[1, 4, 4, 1], strides=[1, 1, 1, 1], padding="VALID")
    logits = tf.layers.dense(tf.layers.flatten(net), 5)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.one_hot(y, 5), logits=logits))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.9, epsilon=1.0).minimize(loss)
    return {"loss": loss, "train": train, "extra": tf.nn.top_k(logits, 2).indices,
            "feed": lambda s: {x: IMG, y: [0, 1, 2, 3]}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
