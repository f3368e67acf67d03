"""In-graph vocabulary building for a bag-of-words classifier: ``tf.unique`` and
``tf.unique_with_counts`` of token ids, ``tf.bincount`` (``minlength``,
``weights``) features, ``tf.setdiff1d`` of stop words, ``tf.invert_permutation``
of a ``tf.nn.top_k`` ordering, ``tf.scatter_update`` / ``tf.scatter_add`` into a
non-trainable count table after each step, ``tf.gather`` of embeddings by the
unique ids and ``tf.unsorted_segment_sum`` back to documents; FTRL."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(4)
DOCS = R.randint(0, 12, (6, 7)).astype(np.int32)
LABELS = np.array([0, 1, 1, 0, 1, 0], np.int32)
STOP = np.array([0, 3, 7], np.int32)


def build(tf):
    tf.set_random_seed(404)
    docs = tf.placeholder(tf.int32, [None, 7])
    labels = tf.placeholder(tf.int32, [None])
    flat = tf.reshape(docs, [-1])
    doc_ids = tf.reshape(tf.tile(tf.expand_dims(tf.range(tf.shape(docs)[0]), 1), [1, 7]), [-1])
    uniq, idx = tf.unique(flat)
    _, _, counts = tf.unique_with_counts(flat)
    kept, _ = tf.setdiff1d(tf.range(12), tf.constant(STOP))
    bow = tf.cast(tf.stack([tf.bincount(docs[i], minlength=12, maxlength=12) for i in range(6)]), tf.float32)
    wbow = tf.reshape(tf.bincount(flat, weights=tf.cast(flat, tf.float32) * 0.1, minlength=12), [12])
    emb = tf.get_variable("emb", [12, 5], initializer=tf.random_uniform_initializer(-1.0, 1.0))
    tok = tf.gather(tf.gather(emb, uniq), idx)
    doc_vec = tf.unsorted_segment_sum(tok, doc_ids, 6)
    kept_bow = tf.reshape(tf.gather(bow, kept, axis=1), [6, 12 - len(STOP)])
    feats = tf.concat([doc_vec, kept_bow, tf.tile(tf.expand_dims(wbow, 0), [6, 1]) * 0.01], 1)
    logits = tf.layers.dense(feats, 2, name="clf")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01).minimize(loss)
    table = tf.Variable(tf.zeros([12], tf.int32), trainable=False, name="table")
    seen = tf.Variable(tf.zeros([12], tf.float32), trainable=False, name="seen")
    vals, order = tf.nn.top_k(tf.cast(counts, tf.float32), k=tf.size(counts))
    inv = tf.invert_permutation(order)
    after = tf.group(tf.scatter_update(table, uniq, counts), tf.scatter_add(seen, uniq, tf.cast(inv, tf.float32)))
    feed = lambda s: {docs: np.roll(DOCS, s, axis=1), labels: LABELS}
    return {"loss": loss, "train": train, "after": after, "feed": feed, "extra": [uniq, counts, kept, vals, inv]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
