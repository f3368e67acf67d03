"""Text classification input (TF 1.4+ tf.data tutorials): lines split by ``tf.string_split``, hashed by
``string_to_hash_bucket_fast``, ``Dataset.zip`` with labels, ``padded_batch`` with padding values, an
initializable iterator, a masked mean of embeddings and a sigmoid cross-entropy trained by Adam."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(51)
FEAT = R.rand(12, 4).astype(np.float32)
LABS = R.randint(0, 3, 12).astype(np.int64)
TEXT = ["the cat sat on the mat", "a dog", "dogs and cats are friends", "hello world again",
        "tensorflow graphs", "the end of the line is near"]
TLAB = np.array([0, 1, 1, 0, 1, 0], np.int64)
IMGS = R.rand(6, 10, 10, 3).astype(np.float32)
ILAB = R.randint(0, 4, 6).astype(np.int32)


def build(tf):
    tf.set_random_seed(202)
    lines = tf.data.Dataset.from_tensor_slices(tf.constant(TEXT))
    labels = tf.data.Dataset.from_tensor_slices(TLAB)

    def tokenize(line):
        words = tf.string_split([line], delimiter=" ").values
        ids = tf.string_to_hash_bucket_fast(words, 50)
        return ids, tf.size(ids)

    tokens = lines.map(tokenize, num_parallel_calls=2)
    ds = tf.data.Dataset.zip((tokens, labels))
    ds = ds.padded_batch(3, padded_shapes=(([None], []), []), padding_values=((tf.constant(0, tf.int64), 0), tf.constant(0, tf.int64)))
    ds = ds.repeat()
    it = ds.make_initializable_iterator()
    (ids, lens), lab = it.get_next()
    emb = tf.get_variable("emb", [50, 8], initializer=tf.random_normal_initializer(stddev=0.1))
    e = tf.nn.embedding_lookup(emb, ids)
    mask = tf.sequence_mask(lens, tf.shape(ids)[1], dtype=tf.float32)
    bag = tf.reduce_sum(e * tf.expand_dims(mask, -1), 1) / tf.expand_dims(tf.cast(lens, tf.float32), 1)
    logit = tf.squeeze(tf.layers.dense(bag, 1), axis=1)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(lab, tf.float32), logits=logit))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    return {"loss": loss, "train": train, "init": it.initializer, "extra": ids}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
