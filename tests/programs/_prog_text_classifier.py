"""A bag-of-words text classifier in the 2017 wide-model tutorials' style:
word ids fed as a ``sparse_placeholder``, ``embedding_lookup_sparse`` with
the mean combiner (and a second, weighted, with sqrtn), a dense layer to
three classes, ``tf.losses.sparse_softmax_cross_entropy``, Adagrad, and
streaming ``tf.metrics.accuracy`` / ``tf.metrics.mean`` over local
variables (their update ops run with each step)."""
import numpy as np

from _corpus import variable_values

VOCAB, DIM, CLASSES, BATCH = 30, 6, 3, 4
RNG = np.random.RandomState(41)
DOCS = [sorted(RNG.choice(VOCAB, size=RNG.randint(1, 6), replace=False).tolist()) for _ in range(40)]
LABELS = np.array([sum(d) % CLASSES for d in DOCS])


def build(tf):
    tf.set_random_seed(42)
    ids = tf.sparse_placeholder(tf.int64, name="ids")
    weights = tf.sparse_placeholder(tf.float32, name="weights")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    emb = tf.get_variable("embeddings", [VOCAB, DIM], initializer=tf.random_uniform_initializer(-0.5, 0.5))
    mean = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
    weighted = tf.nn.embedding_lookup_sparse(emb, ids, weights, combiner="sqrtn")
    features = tf.concat([mean, weighted], 1)
    logits = tf.layers.dense(features, CLASSES, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdagradOptimizer(0.3).minimize(loss)
    predictions = tf.argmax(logits, 1)
    accuracy, acc_update = tf.metrics.accuracy(labels, predictions)
    mean_loss, loss_update = tf.metrics.mean(loss)
    return {"ids": ids, "weights": weights, "labels": labels, "loss": loss, "train": train_op,
            "metrics": [accuracy, mean_loss], "updates": [acc_update, loss_update]}


def _feed(h, i):
    rows = [(i * BATCH + k) % len(DOCS) for k in range(BATCH)]
    indices = [[b, j] for b, r in enumerate(rows) for j in range(len(DOCS[r]))]
    values = [w for r in rows for w in DOCS[r]]
    shape = [BATCH, max(len(DOCS[r]) for r in rows)]
    weights = [1.0 + 0.1 * (v % 4) for v in values]
    return {h["ids"]: (np.array(indices, np.int64), np.array(values, np.int64), np.array(shape, np.int64)),
            h["weights"]: (np.array(indices, np.int64), np.array(weights, np.float32), np.array(shape, np.int64)),
            h["labels"]: LABELS[rows]}


def train(tf, steps, workdir):
    h = build(tf)
    losses = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        initial = variable_values(tf, sess)
        for i in range(steps):
            _, loss, _ = sess.run([h["train"], h["loss"], h["updates"]], _feed(h, i))
            losses.append(float(loss))
        final = variable_values(tf, sess)
        final.update({f"metric_{k}": np.array(v) for k, v in enumerate(sess.run(h["metrics"]))})
        final.update(variable_values(tf, sess, tf.local_variables()))
        return {"initial": initial, "losses": losses, "final": final}
