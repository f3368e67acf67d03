"""A two-expert mixture routed by ``dynamic_partition`` / ``dynamic_stitch`` on the gate's argmax, with
``reverse_sequence`` and a ``matrix_band_part`` causal mask in the loss."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(406)
    x = tf.constant(XS)
    gate = tf.layers.dense(x, 2, name="gate")
    expert = tf.argmax(gate, 1, output_type=tf.int32)
    parts = tf.dynamic_partition(x, expert, 2)
    idx = tf.dynamic_partition(tf.range(tf.shape(x)[0]), expert, 2)
    outs = [tf.layers.dense(p, 1, name="expert%d" % i) for i, p in enumerate(parts)]
    y = tf.dynamic_stitch(idx, outs)
    gp = tf.reduce_max(tf.nn.softmax(gate), 1, keepdims=True)
    rev = tf.reverse_sequence(tf.reshape(x, [16, 5, 1]), tf.constant([5, 3] * 8, tf.int64), seq_axis=1, batch_axis=0)
    band = tf.matrix_band_part(tf.ones([5, 5]), -1, 0)
    att = tf.reduce_sum(tf.matmul(tf.squeeze(rev, 2)[:, None, :], band), [1])
    loss = tf.reduce_mean(tf.square(y * gp - tf.constant(YR))) + 0.001 * tf.reduce_mean(att)
    train = tf.train.AdamOptimizer(0.03).minimize(loss)
    return {"loss": loss, "train": train, "extra": expert}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
