"""Dilated and space/depth convolutions (the 2017 DeepLab / WaveNet style posts): ``tf.nn.atrous_conv2d``
(SpaceToBatchND / Conv2D / BatchToSpaceND), ``tf.nn.convolution`` with ``dilation_rate``, ``space_to_depth`` /
``depth_to_space`` around a 1x1 ``tf.layers.conv2d``, ``resize_nearest_neighbor`` and
``extract_image_patches``; a reconstruction loss trained by Adam."""
from _hooked import hooked_train
from _inputs61 import IMG


def build(tf):
    tf.set_random_seed(306)
    x = tf.constant(IMG)
    k1 = tf.get_variable("k1", [3, 3, 3, 4]); k2 = tf.get_variable("k2", [3, 3, 4, 4])
    a = tf.nn.relu(tf.nn.atrous_conv2d(x, k1, rate=2, padding="SAME"))
    b = tf.nn.convolution(a, k2, "VALID", dilation_rate=[2, 2])
    s = tf.space_to_depth(b, 2)
    d = tf.depth_to_space(tf.layers.conv2d(s, 12, 1), 2)
    up = tf.image.resize_nearest_neighbor(d, [12, 12])
    patches = tf.extract_image_patches(up, ksizes=[1, 3, 3, 1], strides=[1, 2, 2, 1], rates=[1, 1, 1, 1], padding="VALID")
    loss = tf.reduce_mean(tf.square(up[..., :3] - x)) + 0.01 * tf.reduce_mean(patches)
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
