"""A tf.data input pipeline (2018 style): from_tensor_slices over NumPy
arrays, shuffle with a seed, batch, repeat, make_one_shot_iterator; a
two-layer network on the iterator's tensors trained by RMSProp."""
import numpy as np

from _corpus import simple_train

RNG = np.random.RandomState(12)
X = RNG.randn(40, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


def build(tf):
    tf.set_random_seed(13)
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(40, seed=4).batch(10).repeat()
    features, labels = dataset.make_one_shot_iterator().get_next()
    hidden = tf.layers.dense(features, 8, activation=tf.nn.relu, name="hidden")
    pred = tf.layers.dense(hidden, 1, name="pred")
    loss = tf.losses.mean_squared_error(labels, pred)
    train_op = tf.train.RMSPropOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train_op}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
