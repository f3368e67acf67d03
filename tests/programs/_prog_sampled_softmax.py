"""A skip-gram / language-model softmax trained with
``tf.nn.sampled_softmax_loss`` (2016-2017 style) over partitioned variables:
the embedding and the softmax weights made by ``tf.get_variable`` with a
``tf.fixed_size_partitioner`` (``embedding_lookup`` and the loss take the
``PartitionedVariable``), Adagrad, the similarity of ``tf.nn.l2_normalize``-d
embeddings with ``matmul(transpose_b=True)`` and ``tf.nn.top_k`` nearest
words evaluated at the end."""
import numpy as np

from _corpus import variable_values

VOCAB, SIZE, BATCH, NUM_SAMPLED = 40, 6, 12, 5
RNG = np.random.RandomState(111)
WORDS = (RNG.zipf(1.4, size=1500) % VOCAB).astype(np.int64)


def _batch(i):
    centers = (np.arange(BATCH) + i * BATCH) % (len(WORDS) - 2) + 1
    return WORDS[centers], WORDS[centers + 1].reshape(BATCH, 1)


def build(tf):
    tf.set_random_seed(112)
    inputs = tf.placeholder(tf.int64, [BATCH], name="inputs")
    labels = tf.placeholder(tf.int64, [BATCH, 1], name="labels")
    with tf.variable_scope("embeddings", partitioner=tf.fixed_size_partitioner(2)):
        embeddings = tf.get_variable("embedding", [VOCAB, SIZE],
                                     initializer=tf.random_uniform_initializer(-1.0, 1.0))
        softmax_w = tf.get_variable("softmax_w", [VOCAB, SIZE],
                                    initializer=tf.truncated_normal_initializer(stddev=0.3))
    softmax_b = tf.get_variable("softmax_b", [VOCAB], initializer=tf.zeros_initializer())
    embed = tf.nn.embedding_lookup(embeddings, inputs)
    loss = tf.reduce_mean(tf.nn.sampled_softmax_loss(weights=softmax_w, biases=softmax_b, labels=labels,
                                                     inputs=embed, num_sampled=NUM_SAMPLED, num_classes=VOCAB))
    train_op = tf.train.AdagradOptimizer(0.5).minimize(loss)
    full = tf.concat(list(embeddings), 0) if hasattr(embeddings, "__iter__") else embeddings
    normalized = tf.nn.l2_normalize(full, 1)
    valid = tf.nn.embedding_lookup(normalized, tf.constant([1, 2, 3]))
    similarity = tf.matmul(valid, normalized, transpose_b=True)
    nearest = tf.nn.top_k(similarity, k=4)
    return {"inputs": inputs, "labels": labels, "loss": loss, "train": train_op, "nearest": nearest,
            "similarity": similarity}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            a, b = _batch(i)
            _, loss = sess.run([h["train"], h["loss"]], {h["inputs"]: a, h["labels"]: b})
            losses.append(float(loss))
        values, indices = sess.run(h["nearest"])
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [values, indices.tolist(), sess.run(h["similarity"])]}
