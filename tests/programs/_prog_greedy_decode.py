"""Training with teacher forcing and greedy decoding in a graph loop (the
2017-2018 NMT-tutorial style without ``tf.contrib.seq2seq``): a ``GRUCell`` and
a ``tf.layers.Dense`` projection object shared by ``dynamic_rnn`` over the
shifted targets and by a ``tf.while_loop`` that feeds back
``argmax(proj(output))`` into ``embedding_lookup`` and writes a
``TensorArray`` (the layer's later calls re-enter its first name scope),
sparse softmax cross entropy, Adam; the decoded ids fetched."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(53)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)
SEQ = R.randint(1, 9, (4, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(401)
    V, H, T = 9, 6, 6
    tgt = tf.placeholder(tf.int32, [None, T])
    emb = tf.get_variable("emb", [V, H])
    cell = tf.nn.rnn_cell.GRUCell(H, name="dec")
    proj = tf.layers.Dense(V, name="proj")
    batch = tf.shape(tgt)[0]
    inp = tf.nn.embedding_lookup(emb, tf.concat([tf.zeros([batch, 1], tf.int32), tgt[:, :-1]], 1))
    out, _ = tf.nn.dynamic_rnn(cell, inp, dtype=tf.float32)
    logits = proj(out)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tgt, logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)

    def body(t, prev, state, ta):
        o, state = cell(tf.nn.embedding_lookup(emb, prev), state)
        nxt = tf.argmax(proj(o), axis=1, output_type=tf.int32)
        return t + 1, nxt, state, ta.write(t, nxt)

    _, _, _, ta = tf.while_loop(lambda t, *_: t < T, body,
                                [tf.constant(0), tf.zeros([batch], tf.int32), cell.zero_state(batch, tf.float32),
                                 tf.TensorArray(tf.int32, size=T)])
    decoded = tf.transpose(ta.stack())
    return {"loss": loss, "train": train, "extra": decoded, "feed": lambda s: {tgt: SEQ}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
