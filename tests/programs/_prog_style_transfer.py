"""Optimizing an image (the 2016-2017 neural style transfer ports'
style, tiny): the image a ``tf.Variable(tf.random_uniform(...))``, fixed
convolution features, a Gram matrix ``matmul(flat, flat, transpose_a=True) /
size`` of ``reshape(f, [-1, shape[3]])``, content and style losses plus
``tf.image.total_variation``, Adam on ``var_list=[image]`` and ``tf.assign(image,
clip_by_value(image, 0, 1))`` after every step."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)


def build(tf):
    tf.set_random_seed(204)
    content = tf.constant(IMG[:1])
    style = tf.constant(IMG[1:2])
    filt = tf.constant(np.random.RandomState(5).randn(3, 3, 3, 4).astype(np.float32) * 0.3)
    image = tf.Variable(tf.random_uniform([1, 8, 8, 3], 0.0, 1.0), name="image")

    def features(t):
        return tf.nn.relu(tf.nn.conv2d(t, filt, strides=[1, 1, 1, 1], padding="SAME"))

    def gram(f):
        shape = tf.shape(f)
        flat = tf.reshape(f, [-1, shape[3]])
        return tf.matmul(flat, flat, transpose_a=True) / tf.cast(tf.size(flat), tf.float32)

    fi = features(image)
    content_loss = tf.reduce_mean(tf.square(fi - features(content)))
    style_loss = tf.reduce_sum(tf.square(gram(fi) - gram(features(style))))
    tv = tf.reduce_sum(tf.image.total_variation(image))
    loss = content_loss + 10.0 * style_loss + 1e-3 * tv
    train = tf.train.AdamOptimizer(0.02, beta1=0.99, epsilon=1e-1).minimize(loss, var_list=[image])
    clip = tf.assign(image, tf.clip_by_value(image, 0.0, 1.0))
    return {"loss": loss, "train": train, "after": clip, "extra": tf.reduce_mean(image)}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
