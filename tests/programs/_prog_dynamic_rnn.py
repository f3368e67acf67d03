"""A sequence classifier in the style of the 2017 dynamic_rnn tutorials:
variable-length sequences (``sequence_length`` fed), a ``BasicLSTMCell`` run
by ``tf.nn.dynamic_rnn`` (a TF 1.x while loop over TensorArrays), the final
state's ``h`` through a dense softmax layer, mean softmax cross entropy and
momentum SGD with ``clip_by_global_norm``."""
import numpy as np

from _corpus import simple_train

BATCH, TIME, DEPTH, HIDDEN, CLASSES = 6, 7, 3, 8, 3
RNG = np.random.RandomState(5)
X = RNG.uniform(-1, 1, size=(60, TIME, DEPTH)).astype(np.float32)
LENGTHS = RNG.randint(2, TIME + 1, size=60).astype(np.int32)
LABELS = (np.abs(X[:, :, 0].sum(axis=1) * 3).astype(np.int64) % CLASSES)


def build(tf):
    tf.set_random_seed(11)
    x = tf.placeholder(tf.float32, [None, TIME, DEPTH], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    cell = tf.nn.rnn_cell.BasicLSTMCell(HIDDEN)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    with tf.variable_scope("softmax"):
        w = tf.get_variable("w", [HIDDEN, CLASSES], initializer=tf.truncated_normal_initializer(stddev=0.3))
        b = tf.get_variable("b", [CLASSES], initializer=tf.zeros_initializer())
    logits = tf.matmul(state.h, w) + b + 0.1 * tf.reduce_sum(outputs, axis=1)[:, :CLASSES]
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    train_op = tf.train.MomentumOptimizer(0.3, 0.9).apply_gradients(zip(grads, tvars))

    def feed(i):
        s = (i * BATCH) % 54
        return {x: X[s:s + BATCH], lengths: LENGTHS[s:s + BATCH], labels: LABELS[s:s + BATCH]}

    return {"loss": loss, "train": train_op, "feed": feed}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
