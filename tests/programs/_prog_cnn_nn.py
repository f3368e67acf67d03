"""The same kind of CNN written with raw ``tf.nn`` (the 2016 "Deep MNIST for
experts" style): weight_variable/bias_variable helpers, conv2d with SAME
padding, max_pool 2x2, a fully connected layer, ``tf.nn.dropout`` with a
``keep_prob`` placeholder, Adam on softmax cross entropy."""
import numpy as np

from _corpus import simple_train
from _prog_cnn_layers import IMAGES, LABELS

ONE_HOT = np.eye(4, dtype=np.float32)[LABELS]


def build(tf):
    tf.set_random_seed(11)

    def weight_variable(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias_variable(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    def conv2d(x, W):
        return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")

    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    x = tf.placeholder(tf.float32, shape=[None, 8, 8, 1])
    y_ = tf.placeholder(tf.float32, shape=[None, 4])
    W_conv1 = weight_variable([3, 3, 1, 4])
    b_conv1 = bias_variable([4])
    h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x, W_conv1) + b_conv1))
    W_conv2 = weight_variable([3, 3, 4, 8])
    b_conv2 = bias_variable([8])
    h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))
    W_fc1 = weight_variable([2 * 2 * 8, 16])
    b_fc1 = bias_variable([16])
    h_fc1 = tf.nn.relu(tf.matmul(tf.reshape(h_pool2, [-1, 2 * 2 * 8]), W_fc1) + b_fc1)
    keep_prob = tf.placeholder(tf.float32)
    h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    W_fc2 = weight_variable([16, 4])
    b_fc2 = bias_variable([4])
    y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y_conv))
    train_step = tf.train.AdamOptimizer(1e-3).minimize(cross_entropy)

    def feed(i):
        j = (i * 16) % 64
        return {x: IMAGES[j:j + 16], y_: ONE_HOT[j:j + 16], keep_prob: 0.7}

    return {"loss": cross_entropy, "train": train_step, "feed": feed}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
