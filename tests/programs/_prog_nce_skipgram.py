"""A skip-gram toy in the style of golbin's "03 - Word2Vec" tutorial: a handful of
sentences, a vocabulary from their words (sorted here, so it does not depend on
string hashing), (target, context) pairs of neighbouring words, a 2-D embedding
``random_uniform(-1, 1)`` looked up with ``embedding_lookup``, ``tf.nn.nce_loss``
with positional arguments (15 sampled classes of a small vocabulary, the default
log-uniform sampler) and Adam at 0.1; batches drawn with ``np.random.choice``
from a seeded generator. The trained embeddings are the ``extra``."""
import numpy as np

from _corpus import variable_values

SENTENCES = ["cats chase mice", "dogs chase cats", "i like dogs", "i like cats and dogs", "mice like cheese",
             "dogs like bones", "cats like fish", "i like fish and cheese", "dogs and cats play",
             "the quick brown fox jumped over the lazy dog", "birds eat seeds", "fish swim in water",
             "we all love cats and dogs", "she loves dogs", "cats are natural hunters"]
WORDS = " ".join(SENTENCES).split()
VOCAB = sorted(set(WORDS))
INDEX = {w: i for i, w in enumerate(VOCAB)}
PAIRS = []
for k in range(1, len(WORDS) - 1):
    target = INDEX[WORDS[k]]
    PAIRS += [[target, INDEX[WORDS[k - 1]]], [target, INDEX[WORDS[k + 1]]]]
BATCH = 20


def build(tf):
    tf.set_random_seed(3)
    inputs = tf.placeholder(tf.int32, shape=[BATCH])
    labels = tf.placeholder(tf.int32, shape=[BATCH, 1])
    embeddings = tf.Variable(tf.random_uniform([len(VOCAB), 2], -1.0, 1.0))
    selected = tf.nn.embedding_lookup(embeddings, inputs)
    nce_weights = tf.Variable(tf.random_uniform([len(VOCAB), 2], -1.0, 1.0))
    nce_biases = tf.Variable(tf.zeros([len(VOCAB)]))
    loss = tf.reduce_mean(tf.nn.nce_loss(nce_weights, nce_biases, labels, selected, 15, len(VOCAB)))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    return {"inputs": inputs, "labels": labels, "loss": loss, "train": train, "embeddings": embeddings}


def train(tf, steps, workdir):
    h = build(tf)
    rng = np.random.RandomState(7)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for _ in range(steps):
            idx = rng.choice(range(len(PAIRS)), BATCH, replace=False)
            feed = {h["inputs"]: [PAIRS[i][0] for i in idx], h["labels"]: [[PAIRS[i][1]] for i in idx]}
            _, loss = sess.run([h["train"], h["loss"]], feed)
            losses.append(float(loss))
        final = variable_values(tf, sess)
        extra = [sess.run(h["embeddings"])]
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
