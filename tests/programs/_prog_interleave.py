"""``Dataset.range(...).interleave(from_tensors(i).repeat(3), cycle_length=2, block_length=2)``, map, batch,
repeat and prefetch; a small tanh net with ``tf.losses.log_loss`` trained by Nesterov momentum."""
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
    tf.set_random_seed(203)
    base = tf.data.Dataset.range(4)
    ds = base.interleave(lambda i: tf.data.Dataset.from_tensors(i).repeat(3), cycle_length=2, block_length=2)
    ds = ds.map(lambda i: (tf.cast(tf.stack([i, i * i]), tf.float32) / 10.0, tf.cast(i % 2, tf.float32)))
    ds = ds.batch(4).repeat().prefetch(1)
    x, y = ds.make_one_shot_iterator().get_next()
    h = tf.layers.dense(x, 6, activation=tf.nn.tanh)
    p = tf.squeeze(tf.layers.dense(h, 1, activation=tf.sigmoid), 1)
    loss = tf.losses.log_loss(y, p)
    train = tf.train.MomentumOptimizer(0.3, 0.9, use_nesterov=True).minimize(loss)
    return {"loss": loss, "train": train}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
