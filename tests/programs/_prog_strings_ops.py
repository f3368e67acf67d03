"""CSV-ish lines parsed in ``Dataset.map`` with ``tf.strings``: ``split``, ``to_number``, ``length`` of
``strip(upper(...))``, ``join`` of ``lower`` and ``to_hash_bucket_fast``; an embedding plus dense regression
with ``huber_loss`` trained by RMSProp."""
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
    tf.set_random_seed(205)
    csv = tf.constant(["1.5,2,a", "0.5,-1,b", "3,0.25,a", "-2,1,c"])
    ds = tf.data.Dataset.from_tensor_slices(csv)

    def parse(line):
        parts = tf.strings.split([line], sep=",").values
        nums = tf.reshape(tf.strings.to_number(parts[:2], out_type=tf.float32), [2])
        cat = tf.strings.to_hash_bucket_fast(parts[2], 5)
        ln = tf.cast(tf.strings.length(tf.strings.strip(tf.strings.upper(line))), tf.float32)
        tag = tf.strings.join([tf.strings.lower(parts[2]), "x"], separator="-")
        cat = cat + tf.strings.to_hash_bucket_fast(tag, 3)
        return tf.concat([nums, [ln / 10.0]], 0), cat

    ds = ds.map(parse).batch(2).repeat()
    x, cat = ds.make_one_shot_iterator().get_next()
    emb = tf.get_variable("cat_emb", [7, 3])
    feats = tf.concat([x, tf.nn.embedding_lookup(emb, cat)], 1)
    pred = tf.layers.dense(feats, 1)
    target = tf.reduce_sum(x, 1, keepdims=True)
    loss = tf.losses.huber_loss(target, pred, delta=0.5)
    train = tf.train.RMSPropOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
