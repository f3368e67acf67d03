"""A sequence classifier fed by bucketing (2018 style): variable-length
token sequences sliced from a padded matrix, a seeded shuffle,
tf.data.experimental.bucket_by_sequence_length (padded batches per length
bucket), repeat and an initializable iterator; embeddings averaged over the
true lengths (sequence_mask), a dense softmax layer, trained by Adagrad."""
import numpy as np

RNG = np.random.RandomState(5)
N, MAXLEN, VOCAB = 40, 9, 12
LENGTHS = RNG.randint(1, MAXLEN + 1, N).astype(np.int32)
TOKENS = RNG.randint(1, VOCAB, (N, MAXLEN)).astype(np.int64)
LABELS = (TOKENS[:, 0] % 2).astype(np.int32)


def build(tf):
    tf.set_random_seed(17)
    dataset = tf.data.Dataset.from_tensor_slices((TOKENS, LENGTHS, LABELS))
    dataset = dataset.map(lambda tokens, length, label: (tokens[:length], length, label))
    dataset = dataset.shuffle(N, seed=3)
    dataset = dataset.apply(tf.data.experimental.bucket_by_sequence_length(
        lambda tokens, length, label: length, [3, 6], [4, 4, 4]))
    dataset = dataset.repeat()
    iterator = dataset.make_initializable_iterator()
    tokens, lengths, labels = iterator.get_next()
    embeddings = tf.get_variable("embeddings", [VOCAB, 6], initializer=tf.random_uniform_initializer(-0.5, 0.5))
    embedded = tf.nn.embedding_lookup(embeddings, tokens)
    mask = tf.sequence_mask(lengths, tf.shape(tokens)[1], dtype=tf.float32)
    summed = tf.reduce_sum(embedded * tf.expand_dims(mask, -1), axis=1)
    mean = summed / tf.expand_dims(tf.cast(lengths, tf.float32), -1)
    logits = tf.layers.dense(mean, 2, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdagradOptimizer(0.5).minimize(loss)
    return {"loss": loss, "train": train_op, "init": iterator.initializer}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), h["init"]])
        initial = {v.op.name: np.array(x) for v, x in zip(tf.global_variables(), sess.run(tf.global_variables()))}
        losses = [float(sess.run([h["train"], h["loss"]])[1]) for _ in range(steps)]
        final = {v.op.name: np.array(x) for v, x in zip(tf.global_variables(), sess.run(tf.global_variables()))}
    return {"initial": initial, "losses": losses, "final": final}
