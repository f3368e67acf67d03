"""An attention classifier over a bidirectional RNN (the 2017-2018
"attention for text classification" posts' style): ``tf.nn.embedding_lookup``,
``tf.layers.conv1d`` n-gram features, ``tf.nn.bidirectional_dynamic_rnn`` of
an ``LSTMCell`` (forward) and a ``GRUCell`` (backward) with
``sequence_length``, the two outputs concatenated, additive attention
scores ``v . tanh(W h)`` written with ``tf.einsum`` and ``tf.tensordot``,
padding masked with ``tf.sequence_mask`` and ``tf.where`` before
``tf.nn.softmax(axis=1)``, the context by ``reduce_sum`` of the weighted
states, logits, ``tf.losses.sparse_softmax_cross_entropy``, Adam under
``tf.train.cosine_decay_restarts`` on the global step; the attention
weights are returned."""
import numpy as np

from _corpus import variable_values

VOCAB, EMB, HIDDEN, TIME, CLASSES, BATCH = 16, 5, 6, 7, 3, 6
RNG = np.random.RandomState(41)
TOKENS = RNG.randint(1, VOCAB, size=(36, TIME)).astype(np.int32)
LENGTHS = RNG.randint(3, TIME + 1, size=36).astype(np.int32)
LABELS = (TOKENS[:, 0] * 2 + TOKENS[:, 2]) % CLASSES


def build(tf):
    tf.set_random_seed(808)
    tokens = tf.placeholder(tf.int32, [None, TIME], name="tokens")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    global_step = tf.train.get_or_create_global_step()
    embeddings = tf.Variable(tf.random_uniform([VOCAB, EMB], -1.0, 1.0), name="embeddings")
    inputs = tf.nn.embedding_lookup(embeddings, tokens)
    inputs = tf.layers.conv1d(inputs, 6, 3, padding="same", activation=tf.nn.relu, name="ngram")
    fw = tf.nn.rnn_cell.LSTMCell(HIDDEN, name="fw")
    bw = tf.nn.rnn_cell.GRUCell(HIDDEN, name="bw")
    (out_fw, out_bw), _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, inputs, sequence_length=lengths, dtype=tf.float32)
    states = tf.concat([out_fw, out_bw], axis=2)
    with tf.variable_scope("attention"):
        w = tf.get_variable("W", [2 * HIDDEN, 8], initializer=tf.glorot_uniform_initializer())
        v = tf.get_variable("v", [8], initializer=tf.random_normal_initializer(stddev=0.5))
        projected = tf.tanh(tf.einsum("btd,da->bta", states, w))
        scores = tf.tensordot(projected, v, axes=1)
    mask = tf.sequence_mask(lengths, TIME)
    scores = tf.where(mask, scores, tf.ones_like(scores) * -1e9)
    alphas = tf.nn.softmax(scores, axis=1, name="alphas")
    context = tf.reduce_sum(states * tf.expand_dims(alphas, -1), axis=1)
    logits = tf.layers.dense(context, CLASSES, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    lr = tf.train.cosine_decay_restarts(0.05, global_step, 4, t_mul=2.0, m_mul=0.8, alpha=0.1)
    train_op = tf.train.AdamOptimizer(lr).minimize(loss, global_step=global_step)
    return {"tokens": tokens, "lengths": lengths, "labels": labels, "loss": loss, "train": train_op,
            "alphas": alphas, "lr": lr}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, rates = [], []
        for i in range(steps):
            s = (i * BATCH) % 36
            feed = {h["tokens"]: TOKENS[s:s + BATCH], h["lengths"]: LENGTHS[s:s + BATCH],
                    h["labels"]: LABELS[s:s + BATCH]}
            _, loss, lr = sess.run([h["train"], h["loss"], h["lr"]], feed_dict=feed)
            losses.append(float(loss))
            rates.append(float(lr))
        alphas = sess.run(h["alphas"], feed_dict={h["tokens"]: TOKENS[:6], h["lengths"]: LENGTHS[:6]})
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": [rates, alphas]}
