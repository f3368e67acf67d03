"""Matrix factorization for ratings (the 2017 recommender posts'
style): user and item factors ``tf.Variable(tf.random_normal(stddev=0.1))``
looked up by ``embedding_lookup`` (sparse gradients), biases by ``tf.gather``,
a global mean constant, the squared error summed plus ``l2_loss`` of the looked
up factors, Adam's sparse updates; RMSE fetched."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(43)
X16 = R.rand(10, 16).astype(np.float32)
Y10 = R.randint(0, 3, 10).astype(np.int32)
IMG = R.rand(4, 8, 8, 3).astype(np.float32)
USERS = R.randint(0, 7, 24).astype(np.int32)
ITEMS = R.randint(0, 9, 24).astype(np.int32)
RATINGS = (R.rand(24) * 4 + 1).astype(np.float32)


def build(tf):
    tf.set_random_seed(202)
    u = tf.placeholder(tf.int32, [None]); i = tf.placeholder(tf.int32, [None]); r = tf.placeholder(tf.float32, [None])
    P = tf.Variable(tf.random_normal([7, 4], stddev=0.1), name="user_factors")
    Q = tf.Variable(tf.random_normal([9, 4], stddev=0.1), name="item_factors")
    bu = tf.Variable(tf.zeros([7]), name="user_bias"); bi = tf.Variable(tf.zeros([9]), name="item_bias")
    mu = tf.constant(float(RATINGS.mean()))
    pu = tf.nn.embedding_lookup(P, u); qi = tf.nn.embedding_lookup(Q, i)
    pred = tf.reduce_sum(tf.multiply(pu, qi), 1) + tf.gather(bu, u) + tf.gather(bi, i) + mu
    reg = 0.02 * (tf.nn.l2_loss(pu) + tf.nn.l2_loss(qi))
    loss = tf.reduce_sum(tf.square(pred - r)) + reg
    rmse = tf.sqrt(tf.reduce_mean(tf.square(pred - r)))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    return {"loss": loss, "train": train, "extra": rmse,
            "feed": lambda s: {u: USERS, i: ITEMS, r: RATINGS}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
