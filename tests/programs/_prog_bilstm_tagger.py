"""A sequence tagger (2017 blog style) with a static bidirectional RNN:
``tf.nn.static_bidirectional_rnn`` of an ``LSTMCell(use_peepholes=True)``
forward and a ``GRUCell`` backward over ``tf.unstack``-ed embeddings with
``sequence_length``, outputs ``tf.stack``-ed and projected with
``tf.tensordot``, the loss masked by ``tf.sequence_mask`` through
``tf.boolean_mask``, gradients clipped element-wise with
``tf.clip_by_value`` in a ``compute_gradients``/``apply_gradients`` loop,
Adam; the masked token accuracy evaluated at the end."""
import numpy as np

from _corpus import variable_values

VOCAB, TAGS, STEPS, BATCH, EMB, HIDDEN = 15, 3, 5, 6, 4, 5
RNG = np.random.RandomState(141)
TOKENS = RNG.randint(VOCAB, size=(36, STEPS)).astype(np.int32)
TAG_OF = RNG.randint(TAGS, size=VOCAB)
TAG_SEQ = TAG_OF[TOKENS].astype(np.int32)
LENGTHS = RNG.randint(2, STEPS + 1, size=36).astype(np.int32)


def build(tf):
    tf.set_random_seed(142)
    words = tf.placeholder(tf.int32, [BATCH, STEPS], name="words")
    tags = tf.placeholder(tf.int32, [BATCH, STEPS], name="tags")
    lengths = tf.placeholder(tf.int32, [BATCH], name="lengths")
    embeddings = tf.get_variable("embeddings", [VOCAB, EMB])
    inputs = tf.unstack(tf.nn.embedding_lookup(embeddings, words), axis=1)
    fw = tf.nn.rnn_cell.LSTMCell(HIDDEN, use_peepholes=True)
    bw = tf.nn.rnn_cell.GRUCell(HIDDEN)
    outputs, _, _ = tf.nn.static_bidirectional_rnn(fw, bw, inputs, sequence_length=lengths, dtype=tf.float32)
    stacked = tf.stack(outputs, axis=1)
    proj = tf.get_variable("proj", [2 * HIDDEN, TAGS])
    logits = tf.tensordot(stacked, proj, axes=[[2], [0]])
    mask = tf.sequence_mask(lengths, STEPS)
    losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tags, logits=logits)
    loss = tf.reduce_mean(tf.boolean_mask(losses, mask))
    optimizer = tf.train.AdamOptimizer(0.05)
    grads_and_vars = optimizer.compute_gradients(loss)
    capped = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in grads_and_vars]
    train_op = optimizer.apply_gradients(capped)
    correct = tf.boolean_mask(tf.equal(tf.argmax(logits, 2, output_type=tf.int32), tags), mask)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    return {"words": words, "tags": tags, "lengths": lengths, "loss": loss, "train": train_op,
            "accuracy": accuracy}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, accs = [], []
        for i in range(steps):
            j = (i * BATCH) % 36
            feed = {h["words"]: TOKENS[j:j + BATCH], h["tags"]: TAG_SEQ[j:j + BATCH],
                    h["lengths"]: LENGTHS[j:j + BATCH]}
            _, loss = sess.run([h["train"], h["loss"]], feed)
            losses.append(float(loss))
            accs.append(np.float32(sess.run(h["accuracy"], feed)))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": accs}
