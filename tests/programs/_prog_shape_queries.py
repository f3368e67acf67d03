"""Static shape queries with unknown dimensions (TF1 user code of 2016-2018
everywhere): a ``[None, None, FEATURES]`` placeholder of padded sequences;
``x.shape[-1].value`` and ``x.get_shape()[2].value`` size the weights,
``x.shape[1].value is None`` chooses ``tf.shape(x)[1]`` for the time
dimension, ``x.get_shape().as_list()``, ``[d.value for d in x.shape]`` and
``x.shape.dims[0].value`` are recorded, ``tf.reshape(x, [-1, features])``
and back through ``tf.stack([batch, time, units])``, a mask from
``tf.sequence_mask(lengths, time)`` for a masked mean over time, and
``tf.train.AdamOptimizer``."""
import numpy as np

from _corpus import variable_values

FEATURES, UNITS, CLASSES = 5, 7, 3
RNG = np.random.RandomState(31)
LENGTHS = RNG.randint(1, 7, size=40).astype(np.int32)
SEQS = RNG.randn(40, 6, FEATURES).astype(np.float32) * (np.arange(6)[None, :, None] < LENGTHS[:, None, None])
LABELS = (SEQS.sum(axis=(1, 2)) > 0).astype(np.int32) + (LENGTHS > 4)


def build(tf):
    tf.set_random_seed(8)
    x = tf.placeholder(tf.float32, [None, None, FEATURES], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    y = tf.placeholder(tf.int32, [None], name="y")
    features = x.shape[-1].value
    queries = [x.shape[1].value, x.get_shape()[0].value, x.get_shape()[2].value, x.get_shape().as_list(),
               [d.value for d in x.shape], x.shape.dims[0].value, x.shape.ndims]
    batch = tf.shape(x)[0]
    time = tf.shape(x)[1] if x.shape[1].value is None else x.shape[1].value
    w = tf.get_variable("w", [x.get_shape()[2].value, UNITS], initializer=tf.glorot_normal_initializer())
    b = tf.get_variable("b", [UNITS], initializer=tf.zeros_initializer())
    flat = tf.reshape(x, [-1, features])
    hidden = tf.reshape(tf.nn.relu(tf.matmul(flat, w) + b), tf.stack([batch, time, UNITS]))
    queries.append(hidden.shape.as_list())
    mask = tf.cast(tf.sequence_mask(lengths, time), tf.float32)
    pooled = tf.reduce_sum(hidden * tf.expand_dims(mask, -1), 1) / tf.expand_dims(tf.cast(lengths, tf.float32), -1)
    queries.append(pooled.get_shape().as_list())
    logits = tf.layers.dense(pooled, CLASSES, name="out")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
    return {"x": x, "lengths": lengths, "y": y, "loss": loss, "train": train_op, "queries": queries}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            s = (i * 8) % 40
            t = int(LENGTHS[s:s + 8].max())
            _, loss = sess.run([h["train"], h["loss"]], feed_dict={h["x"]: SEQS[s:s + 8, :t],
                                                                   h["lengths"]: LENGTHS[s:s + 8],
                                                                   h["y"]: LABELS[s:s + 8]})
            losses.append(float(loss))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": h["queries"]}
