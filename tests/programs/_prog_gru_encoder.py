"""A seq2seq-style encoder (2017 NMT-tutorial style, encoder half): token
embeddings from ``tf.get_variable`` looked up with ``embedding_lookup``, a
``MultiRNNCell`` of two ``GRUCell`` layers each in a ``DropoutWrapper``
(``input_keep_prob`` / ``output_keep_prob`` from a ``placeholder_with_default``,
seeded), ``tf.nn.dynamic_rnn`` with ``sequence_length`` and
``parallel_iterations=1``, the last layer's final state to a dense classifier;
``compute_gradients``, ``tf.clip_by_global_norm`` and
``apply_gradients(global_step=...)`` of Adam; evaluation with keep 1.0.

Why ``parallel_iterations=1``: the dropout masks are drawn inside the loop,
and with TF's default of 32 parallel iterations TF's executor runs the
draws of the iterations in flight in an order of its own (measured: a
``random_uniform`` in a 12-step ``while_loop`` with ``parallel_iterations=10``
draws for steps 9, 8, ..., 0, then 10, 11), which ref's interpreter -- one
iteration after the other -- does not reproduce. With one iteration in
flight both draw in step order."""
import numpy as np

from _corpus import variable_values

VOCAB, EMB, HIDDEN, TIME, CLASSES, BATCH = 20, 6, 8, 6, 3, 8
RNG = np.random.RandomState(23)
TOKENS = RNG.randint(1, VOCAB, size=(48, TIME)).astype(np.int32)
LENGTHS = RNG.randint(2, TIME + 1, size=48).astype(np.int32)
LABELS = (TOKENS[:, 0] + TOKENS[:, 1]) % CLASSES


def build(tf):
    tf.set_random_seed(2017)
    tokens = tf.placeholder(tf.int32, [None, TIME], name="tokens")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")
    global_step = tf.train.get_or_create_global_step()
    embedding = tf.get_variable("embedding", [VOCAB, EMB], initializer=tf.random_uniform_initializer(-0.5, 0.5))
    inputs = tf.nn.embedding_lookup(embedding, tokens)
    cells = []
    for i in range(2):
        cell = tf.nn.rnn_cell.GRUCell(HIDDEN)
        cells.append(tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=keep_prob, output_keep_prob=keep_prob,
                                                   seed=100 + i))
    cell = tf.nn.rnn_cell.MultiRNNCell(cells)
    with tf.variable_scope("encoder"):
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, dtype=tf.float32,
                                           parallel_iterations=1)
    logits = tf.layers.dense(state[-1], CLASSES, name="classifier")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    optimizer = tf.train.AdamOptimizer(0.02)
    grads, variables = zip(*optimizer.compute_gradients(loss))
    grads, global_norm = tf.clip_by_global_norm(grads, 1.0)
    train_op = optimizer.apply_gradients(zip(grads, variables), global_step=global_step)
    return {"tokens": tokens, "lengths": lengths, "labels": labels, "keep_prob": keep_prob, "loss": loss,
            "train": train_op, "global_norm": global_norm, "outputs": outputs, "global_step": global_step}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, norms = [], []
        for i in range(steps):
            s = (i * BATCH) % 48
            feed = {h["tokens"]: TOKENS[s:s + BATCH], h["lengths"]: LENGTHS[s:s + BATCH],
                    h["labels"]: LABELS[s:s + BATCH], h["keep_prob"]: 0.8}
            _, loss, norm = sess.run([h["train"], h["loss"], h["global_norm"]], feed_dict=feed)
            losses.append(float(loss))
            norms.append(float(norm))
        outputs, step = sess.run([h["outputs"], h["global_step"]],
                                 feed_dict={h["tokens"]: TOKENS[:8], h["lengths"]: LENGTHS[:8]})
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [norms, outputs, int(step)]}
