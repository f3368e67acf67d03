"""A growing memory: ``tf.Variable(..., validate_shape=False)`` extended by ``tf.assign(..., validate_shape=False)``
of a ``concat``; its shape read back after training. (``mem_size``, the shape read under a control dependency on the
assign, is built but not fetched: TF's ``memory/read`` holds the buffer it read before the assign replaced it,
ref's readers of that Identity dereference the variable after -- see the fifth set's report.)"""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(403)
    memory = tf.Variable(tf.zeros([0, 5]), trainable=False, validate_shape=False, name="memory")
    x = tf.constant(XS[:4])
    w = tf.get_variable("w", [5, 5])
    h = tf.tanh(tf.matmul(x, w))
    grow = tf.assign(memory, tf.concat([memory, h], 0), validate_shape=False)
    with tf.control_dependencies([grow]):
        mem_size = tf.shape(memory)[0]
    loss = tf.reduce_mean(tf.square(h - 0.5))
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    train = tf.group(train, grow)
    return {"loss": loss, "train": train, "extra": [tf.shape(memory.read_value())]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
