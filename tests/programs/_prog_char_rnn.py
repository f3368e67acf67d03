"""A character-level RNN in the 2016-2017 char-rnn ports' style: one-hot
characters, a two-layer ``MultiRNNCell`` (a GRU under an LSTM with tuple
state) run by ``static_rnn``, per-step logits through a shared softmax layer,
``sequence_loss``-style mean cross entropy, scalar and histogram summaries
merged and written by a ``FileWriter``, ``clip_by_global_norm`` and RMSProp."""
import numpy as np

from _corpus import variable_values

VOCAB, STEPS, BATCH, HIDDEN = 11, 6, 3, 10
TEXT = np.array([(i * 5 + i // 7) % VOCAB for i in range(300)])


def build(tf):
    tf.set_random_seed(31)
    chars = tf.placeholder(tf.int32, [BATCH, STEPS + 1], name="chars")
    inputs = tf.one_hot(chars[:, :-1], VOCAB)
    targets = chars[:, 1:]
    cells = [tf.nn.rnn_cell.GRUCell(HIDDEN), tf.nn.rnn_cell.LSTMCell(HIDDEN, state_is_tuple=True)]
    cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=True)
    steps = tf.unstack(inputs, axis=1)
    outputs, _ = tf.nn.static_rnn(cell, steps, dtype=tf.float32, scope="rnn")
    with tf.variable_scope("softmax"):
        w = tf.get_variable("w", [HIDDEN, VOCAB], initializer=tf.truncated_normal_initializer(stddev=0.1))
        b = tf.get_variable("b", [VOCAB], initializer=tf.constant_initializer(0.1))
    logits = [tf.matmul(o, w) + b for o in outputs]
    losses = [tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t, logits=l)
              for t, l in zip(tf.unstack(targets, axis=1), logits)]
    loss = tf.reduce_mean(tf.add_n(losses) / STEPS, name="loss")
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("softmax_w", w)
    tvars = tf.trainable_variables()
    grads, norm = tf.clip_by_global_norm(tf.gradients(loss, tvars), 1.0)
    tf.summary.scalar("grad_norm", norm)
    train_op = tf.train.RMSPropOptimizer(0.01, decay=0.9).apply_gradients(zip(grads, tvars))
    return {"chars": chars, "loss": loss, "train": train_op, "summaries": tf.summary.merge_all()}


def train(tf, steps, workdir):
    h = build(tf)
    writer = tf.summary.FileWriter(workdir)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        for i in range(steps):
            start = (i * BATCH * STEPS) % 200
            batch = np.stack([TEXT[start + k * STEPS:start + k * STEPS + STEPS + 1] for k in range(BATCH)])
            _, loss, summary = sess.run([h["train"], h["loss"], h["summaries"]], {h["chars"]: batch})
            writer.add_summary(summary, i)
            losses.append(float(loss))
        writer.close()
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess)}
