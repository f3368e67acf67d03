"""word2vec skip-gram in the basic tutorial's style: uniform embeddings,
truncated-normal NCE weights scaled by 1/sqrt(size), ``tf.nn.nce_loss``
with its default log-uniform candidate sampler, plain SGD, and the
normalized-embedding similarity the tutorial prints."""
import math

import numpy as np

from _corpus import simple_train

VOCAB, SIZE, BATCH, NUM_SAMPLED = 50, 8, 16, 6
RNG = np.random.RandomState(4)
WORDS = RNG.zipf(1.5, size=2000) % VOCAB


def _batch(i):
    centers = (np.arange(BATCH) + i * BATCH) % (len(WORDS) - 2) + 1
    offsets = np.where(np.arange(BATCH) % 2 == 0, -1, 1)
    return WORDS[centers].astype(np.int32), WORDS[centers + offsets].reshape(BATCH, 1).astype(np.int32)


def build(tf):
    tf.set_random_seed(5)
    train_inputs = tf.placeholder(tf.int32, shape=[BATCH])
    train_labels = tf.placeholder(tf.int32, shape=[BATCH, 1])
    valid_dataset = tf.constant([1, 2, 3], dtype=tf.int32)
    embeddings = tf.Variable(tf.random_uniform([VOCAB, SIZE], -1.0, 1.0))
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    nce_weights = tf.Variable(tf.truncated_normal([VOCAB, SIZE], stddev=1.0 / math.sqrt(SIZE)))
    nce_biases = tf.Variable(tf.zeros([VOCAB]))
    loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=train_labels,
                                         inputs=embed, num_sampled=NUM_SAMPLED, num_classes=VOCAB))
    optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized, transpose_b=True)

    def feed(i):
        a, b = _batch(i)
        return {train_inputs: a, train_labels: b}

    return {"loss": loss, "train": [optimizer, similarity], "feed": feed}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
