"""A seq2seq model with a statically unrolled decoder (the 2016-2017
"sequence to sequence from scratch" posts' style): an embedding shared by
encoder and decoder, a ``GRUCell`` encoder run by ``static_rnn`` over
``tf.unstack``-ed steps, a GO column built with ``tf.fill([tf.shape(tgt)[0],
1], 0)`` and concatenated to the shifted targets (teacher forcing), a
``BasicLSTMCell`` decoder called step by step under one ``variable_scope``
with ``scope.reuse_variables()`` after the first, an output projection from
``get_variable``, the masked sequence loss by reshapes to ``[-1, V]`` and
``sequence_mask`` weights, Adam on ``clip_by_global_norm``-ed gradients."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(41)
SRC = R.randint(1, 12, (4, 5)).astype(np.int32)
TGT = R.randint(1, 12, (4, 6)).astype(np.int32)
TLEN = np.array([6, 4, 5, 2], np.int32)


def build(tf):
    tf.set_random_seed(101)
    V, H, T = 12, 8, 6
    src = tf.placeholder(tf.int32, [None, 5], name="src")
    tgt = tf.placeholder(tf.int32, [None, T], name="tgt")
    tlen = tf.placeholder(tf.int32, [None], name="tlen")
    emb = tf.get_variable("embedding", [V, H], initializer=tf.random_uniform_initializer(-0.1, 0.1))
    with tf.variable_scope("encoder"):
        cell = tf.nn.rnn_cell.GRUCell(H)
        inputs = tf.unstack(tf.nn.embedding_lookup(emb, src), axis=1)
        _, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    go = tf.fill([tf.shape(tgt)[0], 1], 0)
    dec_in = tf.unstack(tf.nn.embedding_lookup(emb, tf.concat([go, tgt[:, :-1]], 1)), axis=1)
    w = tf.get_variable("proj_w", [H, V]); b = tf.get_variable("proj_b", [V], initializer=tf.zeros_initializer())
    logits = []
    with tf.variable_scope("decoder") as scope:
        dcell = tf.nn.rnn_cell.BasicLSTMCell(H, state_is_tuple=True)
        st = tf.nn.rnn_cell.LSTMStateTuple(state, state)
        for t, x in enumerate(dec_in):
            if t > 0:
                scope.reuse_variables()
            out, st = dcell(x, st)
            logits.append(tf.matmul(out, w) + b)
    logits = tf.stack(logits, axis=1)
    mask = tf.sequence_mask(tlen, T, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(tgt, [-1]), logits=tf.reshape(logits, [-1, V]))
    loss = tf.reduce_sum(xent * tf.reshape(mask, [-1])) / tf.reduce_sum(mask)
    opt = tf.train.AdamOptimizer(0.01)
    grads, tvars = zip(*opt.compute_gradients(loss))
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    train = opt.apply_gradients(zip(grads, tvars))
    pred = tf.argmax(logits, axis=2, output_type=tf.int32)
    return {"loss": loss, "train": train, "extra": pred,
            "feed": lambda s: {src: SRC, tgt: TGT, tlen: TLEN}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
