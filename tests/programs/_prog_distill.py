"""Knowledge distillation (the 2017-2018 "distilling the knowledge" posts'
style): a frozen teacher (``trainable=False`` layers), soft targets
``stop_gradient(softmax(teacher / T))``, the student's
``softmax_cross_entropy_with_logits_v2`` at temperature ``T`` scaled by ``T^2``
plus the hard-label loss, Adadelta; ``in_top_k`` accuracy and ``top_k``
values and indices fetched."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)


def build(tf):
    tf.set_random_seed(207)
    x = tf.placeholder(tf.float32, [None, 16]); y = tf.placeholder(tf.int32, [None])
    T = 3.0
    with tf.variable_scope("teacher"):
        t_logits = tf.layers.dense(tf.layers.dense(x, 20, tf.nn.relu, trainable=False), 3, trainable=False)
    with tf.variable_scope("student"):
        s_logits = tf.layers.dense(x, 3)
    soft = tf.stop_gradient(tf.nn.softmax(t_logits / T))
    distill = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=soft, logits=s_logits / T)) * T ** 2
    hard = tf.losses.sparse_softmax_cross_entropy(y, s_logits)
    loss = 0.7 * distill + 0.3 * hard
    train = tf.train.AdadeltaOptimizer(1.0, rho=0.9).minimize(loss)
    correct = tf.nn.in_top_k(s_logits, y, 1)
    acc = tf.reduce_mean(tf.cast(correct, tf.float32))
    top2 = tf.nn.top_k(tf.nn.softmax(s_logits), k=2)
    return {"loss": loss, "train": train, "extra": [acc, top2.values, top2.indices],
            "feed": lambda s: {x: X16, y: Y10}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
