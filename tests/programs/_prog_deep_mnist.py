"""Deep MNIST for experts (2016 style) inside an ``InteractiveSession``: flat
784-style input reshaped to NHWC, ``weight_variable``/``bias_variable`` and
``conv2d``/``max_pool_2x2`` helpers, dropout through a ``keep_prob``
placeholder, Adam 1e-4, and the tutorial's loop of
``accuracy.eval(feed_dict=...)`` and ``train_step.run(feed_dict=...)``."""
import numpy as np

from _corpus import variable_values
from _prog_cnn_layers import IMAGES, LABELS

FLAT = IMAGES.reshape(len(IMAGES), -1)
ONE_HOT = np.eye(4, dtype=np.float32)[LABELS]


def build(tf):
    tf.set_random_seed(21)

    def weight_variable(shape):
        initial = tf.truncated_normal(shape, stddev=0.1)
        return tf.Variable(initial)

    def bias_variable(shape):
        initial = tf.constant(0.1, shape=shape)
        return tf.Variable(initial)

    def conv2d(x, W):
        return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")

    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    x = tf.placeholder(tf.float32, shape=[None, 64])
    y_ = tf.placeholder(tf.float32, shape=[None, 4])
    x_image = tf.reshape(x, [-1, 8, 8, 1])
    W_conv1 = weight_variable([5, 5, 1, 8])
    b_conv1 = bias_variable([8])
    h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1))
    W_conv2 = weight_variable([5, 5, 8, 16])
    b_conv2 = bias_variable([16])
    h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))
    W_fc1 = weight_variable([2 * 2 * 16, 32])
    b_fc1 = bias_variable([32])
    h_pool2_flat = tf.reshape(h_pool2, [-1, 2 * 2 * 16])
    h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)
    keep_prob = tf.placeholder(tf.float32)
    h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    W_fc2 = weight_variable([32, 4])
    b_fc2 = bias_variable([4])
    y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
    train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    return {"x": x, "y_": y_, "keep_prob": keep_prob, "loss": cross_entropy, "train": train_step,
            "accuracy": accuracy}


def train(tf, steps, workdir):
    h = build(tf)
    sess = tf.InteractiveSession()
    try:
        tf.global_variables_initializer().run()
        initial = variable_values(tf, sess)
        losses, accuracies = [], []
        for i in range(steps):
            j = (i * 16) % 64
            batch = (FLAT[j:j + 16], ONE_HOT[j:j + 16])
            if i % 5 == 0:
                accuracies.append(h["accuracy"].eval(feed_dict={h["x"]: batch[0], h["y_"]: batch[1],
                                                                h["keep_prob"]: 1.0}))
            losses.append(float(h["loss"].eval(feed_dict={h["x"]: batch[0], h["y_"]: batch[1],
                                                           h["keep_prob"]: 1.0})))
            h["train"].run(feed_dict={h["x"]: batch[0], h["y_"]: batch[1], h["keep_prob"]: 0.5})
        accuracies.append(h["accuracy"].eval(feed_dict={h["x"]: FLAT, h["y_"]: ONE_HOT, h["keep_prob"]: 1.0}))
        final = variable_values(tf, sess)
    finally:
        sess.close()
    return {"initial": initial, "losses": losses, "final": final, "extra": [np.float32(a) for a in accuracies]}
