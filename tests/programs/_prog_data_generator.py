"""A ``tf.data`` pipeline from a Python generator (the 2018 "importing
data" guide's style): ``Dataset.from_generator`` with output types and shapes,
``map``, ``filter``, ``shuffle(seed)``, ``batch(drop_remainder=True)``,
``prefetch``, ``make_initializable_iterator`` (its initializer run first), a
softmax classifier trained by gradient descent."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)


def build(tf):
    tf.set_random_seed(211)

    def gen():
        for k in range(40):
            yield X16[k % 10], Y10[k % 10]

    ds = tf.data.Dataset.from_generator(gen, (tf.float32, tf.int32), (tf.TensorShape([16]), tf.TensorShape([])))
    ds = ds.map(lambda a, b: (a * 2.0 - 1.0, b)).filter(lambda a, b: b < 3)
    ds = ds.shuffle(8, seed=4).batch(4, drop_remainder=True).prefetch(2)
    it = ds.make_initializable_iterator()
    xb, yb = it.get_next()
    logits = tf.layers.dense(xb, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(yb, logits)
    train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    return {"loss": loss, "train": train, "init": it.initializer}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
