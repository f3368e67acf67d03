"""A DCGAN-style generator with ``tf.nn.conv2d_transpose`` (the 2016-2017
DCGAN ports' style): ``batch = tf.shape(z)[0]``, the projection reshaped to
``[-1, 2, 2, 8]``, transposed convolutions whose ``output_shape`` is
``tf.stack([batch, 4, 4, 4])`` or a list holding the batch tensor (static
shape ``[?, 4, 4, 4]`` from the packed dimensions), ``bias_add`` reshaped to
``tf.shape(h)``, tanh output, an L1 loss to fixed images, Adam(beta1=0.5)."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(47)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)


def build(tf):
    tf.set_random_seed(302)
    z = tf.placeholder(tf.float32, [None, 4])
    batch = tf.shape(z)[0]
    w0 = tf.get_variable("g_w0", [4, 2 * 2 * 8], initializer=tf.random_normal_initializer(stddev=0.02))
    h = tf.reshape(tf.matmul(z, w0), [-1, 2, 2, 8])
    h = tf.nn.relu(h)
    w1 = tf.get_variable("g_w1", [3, 3, 4, 8], initializer=tf.random_normal_initializer(stddev=0.02))
    h = tf.nn.conv2d_transpose(h, w1, output_shape=tf.stack([batch, 4, 4, 4]), strides=[1, 2, 2, 1])
    b1 = tf.get_variable("g_b1", [4], initializer=tf.constant_initializer(0.0))
    h = tf.nn.relu(tf.reshape(tf.nn.bias_add(h, b1), tf.shape(h)))
    w2 = tf.get_variable("g_w2", [3, 3, 3, 4], initializer=tf.random_normal_initializer(stddev=0.02))
    out = tf.nn.tanh(tf.nn.conv2d_transpose(h, w2, [batch, 8, 8, 3], [1, 2, 2, 1]))
    target = tf.constant(IMG * 2 - 1)
    loss = tf.reduce_mean(tf.abs(out - target))
    train = tf.train.AdamOptimizer(0.01, beta1=0.5).minimize(loss)
    return {"loss": loss, "train": train, "extra": out[0, :2, :2],
            "feed": lambda s: {z: np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
