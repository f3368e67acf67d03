"""A hand-rolled decoder with ``tf.nn.raw_rnn`` (the loop_fn of TF's docstring:
``elements_finished = time >= sequence_length``, a ``TensorArray`` unstacked
from time-major inputs, ``emit_output`` None), ``tf.foldl`` / ``tf.foldr``
summaries over time, ``tf.scan`` with an ``initializer`` tuple, and a
``GRUCell`` trained with Adadelta."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(17)
T, B, D = 5, 3, 4
INPUTS = R.randn(T, B, D).astype(np.float32)
LENS = np.array([5, 3, 4], np.int32)
TARGET = R.randn(B, 6).astype(np.float32)


def build(tf):
    tf.set_random_seed(1717)
    inputs = tf.placeholder(shape=(T, None, D), dtype=tf.float32)
    sequence_length = tf.placeholder(shape=(None,), dtype=tf.int32)
    target = tf.placeholder(tf.float32, [None, 6])
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=T)
    inputs_ta = inputs_ta.unstack(inputs)
    cell = tf.nn.rnn_cell.GRUCell(6)

    def loop_fn(time, cell_output, cell_state, loop_state):
        emit_output = cell_output
        if cell_output is None:
            next_cell_state = cell.zero_state(tf.shape(inputs)[1], tf.float32)
        else:
            next_cell_state = cell_state
        elements_finished = (time >= sequence_length)
        finished = tf.reduce_all(elements_finished)
        next_input = tf.cond(finished, lambda: tf.zeros([tf.shape(inputs)[1], D], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        return (elements_finished, next_input, next_cell_state, emit_output, None)

    outputs_ta, final_state, _ = tf.nn.raw_rnn(cell, loop_fn)
    outputs = outputs_ta.stack()
    total = tf.foldl(lambda a, o: a + o, outputs, initializer=tf.zeros_like(final_state))
    last = tf.foldr(lambda a, o: 0.5 * a + o, outputs)
    run_max, run_sum = tf.scan(lambda acc, o: (tf.maximum(acc[0], o), acc[1] + o), outputs,
                               initializer=(tf.fill([tf.shape(inputs)[1], 6], -1e9),
                                            tf.zeros([tf.shape(inputs)[1], 6])))
    pred = final_state + 0.1 * total + 0.1 * last + 0.05 * run_max[-1]
    loss = tf.reduce_mean(tf.square(pred - target)) + 1e-3 * tf.reduce_mean(run_sum)
    train = tf.train.AdadeltaOptimizer(1.0).minimize(loss)
    feed = lambda s: {inputs: INPUTS, sequence_length: LENS, target: TARGET}
    return {"loss": loss, "train": train, "feed": feed, "extra": [outputs, final_state]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
