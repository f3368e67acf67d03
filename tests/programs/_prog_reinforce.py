"""REINFORCE on a batch of logged transitions (the 2017 policy-gradient
tutorials' style): a tanh policy of ``tf.layers.dense`` with
``random_normal_initializer``/``constant_initializer`` biases, the negative log
probability of the taken actions by ``one_hot``, discounted normalized returns
fed as advantages, an entropy bonus through ``log_softmax``, Adam; actions
sampled with ``tf.multinomial`` and ``tf.random.categorical(seed=3)`` (fetched:
the graph-seeded draws)."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(41)
SRC = R.randint(1, 12, (4, 5)).astype(np.int32)
TGT = R.randint(1, 12, (4, 6)).astype(np.int32)
TLEN = np.array([6, 4, 5, 2], np.int32)
STATES = R.randn(8, 4).astype(np.float32)
ACTIONS = R.randint(0, 3, 8).astype(np.int32)
REWARDS = R.randn(8).astype(np.float32)


def build(tf):
    tf.set_random_seed(110)
    obs = tf.placeholder(tf.float32, [None, 4], name="observations")
    acts = tf.placeholder(tf.int32, [None], name="actions")
    adv = tf.placeholder(tf.float32, [None], name="advantages")
    h = tf.layers.dense(obs, 10, activation=tf.nn.tanh, kernel_initializer=tf.random_normal_initializer(0, 0.3),
                        bias_initializer=tf.constant_initializer(0.1))
    logits = tf.layers.dense(h, 3)
    probs = tf.nn.softmax(logits, name="act_prob")
    sample = tf.multinomial(logits, 1)
    sample2 = tf.random.categorical(tf.log(probs), 2, seed=3)
    neg_log_prob = tf.reduce_sum(-tf.log(probs) * tf.one_hot(acts, 3), axis=1)
    entropy = -tf.reduce_sum(probs * tf.nn.log_softmax(logits), 1)
    loss = tf.reduce_mean(neg_log_prob * adv) - 0.01 * tf.reduce_mean(entropy)
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    disc = REWARDS.copy()
    for i in range(len(disc) - 2, -1, -1):
        disc[i] += 0.95 * disc[i + 1]
    disc = (disc - disc.mean()) / disc.std()
    return {"loss": loss, "train": train, "extra": [sample, sample2],
            "feed": lambda i: {obs: STATES, acts: ACTIONS, adv: disc}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
