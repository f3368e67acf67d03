"""hunkim's DeepLearningZeroToAll lab 12 (char RNN "if you want you"), grown the
way people grew it: ``MultiRNNCell`` of ``BasicLSTMCell(state_is_tuple=True)``
wrapped in ``DropoutWrapper(output_keep_prob=keep_prob)`` with a scalar
``keep_prob`` placeholder fed as a Python float, ``cell.zero_state(batch_size,
tf.float32)`` from a ``tf.shape``, ``sequence_loss`` by hand (``weights`` of
ones, ``reduce_sum`` over time divided by the weights' sum), per-gradient
``tf.clip_by_norm``, ``tf.clip_by_average_norm`` and a Momentum optimizer with
``use_nesterov`` applying them with ``gate_gradients=GATE_GRAPH`` and
``colocate_gradients_with_ops``; predictions with ``argmax(axis=2)``."""
import numpy as np

from _hooked import hooked_train

SAMPLE = " if you want you"
CHARS = sorted(set(SAMPLE))
IDX = {c: i for i, c in enumerate(CHARS)}
SEQ = [IDX[c] for c in SAMPLE]
X_DATA = np.array([SEQ[:-1]], np.int32)
Y_DATA = np.array([SEQ[1:]], np.int32)
N_CLASS = len(CHARS)
T = len(SEQ) - 1


def build(tf):
    tf.set_random_seed(777)
    X = tf.placeholder(tf.int32, [None, T])
    Y = tf.placeholder(tf.int32, [None, T])
    keep_prob = tf.placeholder(tf.float32)
    x_one_hot = tf.one_hot(X, N_CLASS)
    batch_size = tf.shape(X)[0]

    def lstm_cell():
        cell = tf.nn.rnn_cell.BasicLSTMCell(8, state_is_tuple=True)
        return tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=keep_prob)

    multi = tf.nn.rnn_cell.MultiRNNCell([lstm_cell() for _ in range(2)], state_is_tuple=True)
    initial_state = multi.zero_state(batch_size, tf.float32)
    outputs, _ = tf.nn.dynamic_rnn(multi, x_one_hot, initial_state=initial_state, dtype=tf.float32)
    X_for_fc = tf.reshape(outputs, [-1, 8])
    outputs = tf.layers.dense(X_for_fc, N_CLASS, activation=None)
    outputs = tf.reshape(outputs, [batch_size, T, N_CLASS])
    weights = tf.ones([batch_size, T])
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=Y, logits=outputs)
    sequence_loss = tf.reduce_sum(xent * weights) / tf.reduce_sum(weights)
    loss = tf.reduce_mean(sequence_loss)
    opt = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)
    gvs = opt.compute_gradients(loss, gate_gradients=tf.train.Optimizer.GATE_GRAPH,
                                colocate_gradients_with_ops=True)
    clipped = []
    for i, (g, v) in enumerate(gvs):
        clipped.append((tf.clip_by_norm(g, 1.0) if i % 2 == 0 else tf.clip_by_average_norm(g, 0.05), v))
    train = opt.apply_gradients(clipped)
    prediction = tf.argmax(outputs, axis=2)

    def feed(step):
        return {X: X_DATA, Y: Y_DATA, keep_prob: 1.0}

    return {"loss": loss, "train": train, "feed": feed, "extra": prediction}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
