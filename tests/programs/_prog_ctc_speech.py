"""A CTC speech toy (the 2017 'ctc_tensorflow_example' style): time-major ``dynamic_rnn`` of an LSTMCell,
``tf.nn.ctc_loss`` on a ``sparse_placeholder`` fed a ``SparseTensorValue``, ``ctc_greedy_decoder`` and the
label error rate by ``edit_distance`` of the cast decoding."""
import numpy as np

from _hooked import hooked_train
from _inputs61 import CTCX


def build(tf):
    tf.set_random_seed(305)
    inputs = tf.placeholder(tf.float32, [None, None, 6])  # time-major
    seq_len = tf.placeholder(tf.int32, [None])
    targets = tf.sparse_placeholder(tf.int32)
    cell = tf.nn.rnn_cell.LSTMCell(8, state_is_tuple=True)
    outputs, _ = tf.nn.dynamic_rnn(cell, inputs, seq_len, dtype=tf.float32, time_major=True)
    shape = tf.shape(inputs)
    W = tf.Variable(tf.truncated_normal([8, 5], stddev=0.1)); b = tf.Variable(tf.constant(0., shape=[5]))
    logits = tf.reshape(tf.matmul(tf.reshape(outputs, [-1, 8]), W) + b, [shape[0], shape[1], 5])
    loss = tf.reduce_mean(tf.nn.ctc_loss(targets, logits, seq_len))
    decoded, log_prob = tf.nn.ctc_greedy_decoder(logits, seq_len)
    ler = tf.reduce_mean(tf.edit_distance(tf.cast(decoded[0], tf.int32), targets))
    train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    tv = tf.SparseTensorValue(np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64),
                              np.array([1, 2, 1, 3, 0], np.int32), np.array([2, 3], np.int64))
    return {"loss": loss, "train": train, "extra": [ler, log_prob],
            "feed": lambda s: {inputs: CTCX, seq_len: np.array([9, 7], np.int32), targets: tv}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
