"""A message-passing graph network (the 2018 "graph nets from scratch"
posts' style): edges as ``senders``/``receivers`` index constants, messages
``tf.layers.dense(tf.gather(h, senders))`` aggregated per node by
``tf.unsorted_segment_sum`` (``num_segments = tf.shape(h)[0]``) and
``tf.unsorted_segment_max``, node updates over ``tf.concat``, graph readout by
``tf.segment_mean``, RMSProp."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(53)
X16 = R.rand(10, 16).astype(np.float32)


def build(tf):
    tf.set_random_seed(406)
    senders = tf.constant([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 3])
    receivers = tf.constant([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 5, 8])
    x = tf.placeholder(tf.float32, [None, 16])
    h = tf.layers.dense(x, 6, activation=tf.nn.relu)
    for i in range(2):
        msg = tf.layers.dense(tf.gather(h, senders), 6, name=f"msg{i}")
        agg = tf.unsorted_segment_sum(msg, receivers, tf.shape(h)[0])
        mx = tf.unsorted_segment_max(msg, receivers, 10)
        h = tf.nn.relu(tf.layers.dense(tf.concat([h, agg, tf.maximum(mx, -1.0)], 1), 6, name=f"upd{i}"))
    g = tf.segment_mean(h, tf.constant([0] * 5 + [1] * 5))
    logits = tf.layers.dense(g, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.constant([0, 1]), logits)
    train = tf.train.RMSPropOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train, "extra": g, "feed": lambda s: {x: X16}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
