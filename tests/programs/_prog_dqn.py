"""A DQN update (the 2017 "Morvan" / "DQN from scratch" tutorials' style):
an evaluation and a target Q-network of ``tf.layers.dense`` in their own
``variable_scope``s, the target copied by ``[tf.assign(t, e) ...]`` over the
two scopes' GLOBAL_VARIABLES after every step, the TD target
``stop_gradient(r + gamma * (1 - done) * reduce_max(q_next))``, the chosen
action's value by ``gather_nd`` of ``stack([range(batch), a])`` (and by a
``one_hot`` mask), ``tf.losses.huber_loss``, centered RMSProp restricted to the
evaluation net's variables."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(41)
SRC = R.randint(1, 12, (4, 5)).astype(np.int32)
TGT = R.randint(1, 12, (4, 6)).astype(np.int32)
TLEN = np.array([6, 4, 5, 2], np.int32)
STATES = R.randn(8, 4).astype(np.float32)
ACTIONS = R.randint(0, 3, 8).astype(np.int32)
REWARDS = R.randn(8).astype(np.float32)
DONE = (R.rand(8) > 0.7).astype(np.float32)
NEXT = R.randn(8, 4).astype(np.float32)


def _qnet(tf, x, scope):
    with tf.variable_scope(scope):
        h = tf.layers.dense(x, 16, activation=tf.nn.relu, kernel_initializer=tf.glorot_uniform_initializer())
        return tf.layers.dense(h, 3)


def build(tf):
    tf.set_random_seed(102)
    s = tf.placeholder(tf.float32, [None, 4], name="s")
    a = tf.placeholder(tf.int32, [None], name="a")
    r = tf.placeholder(tf.float32, [None], name="r")
    d = tf.placeholder(tf.float32, [None], name="done")
    s2 = tf.placeholder(tf.float32, [None, 4], name="s2")
    q = _qnet(tf, s, "eval_net")
    q_next = _qnet(tf, s2, "target_net")
    e_params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="eval_net")
    t_params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="target_net")
    with tf.variable_scope("soft_replacement"):
        replace = [tf.assign(t, e) for t, e in zip(t_params, e_params)]
    q_target = tf.stop_gradient(r + 0.9 * (1.0 - d) * tf.reduce_max(q_next, axis=1, name="Qmax_s_"))
    idx = tf.stack([tf.range(tf.shape(a)[0], dtype=tf.int32), a], axis=1)
    q_eval = tf.gather_nd(params=q, indices=idx)
    q_oh = tf.reduce_sum(q * tf.one_hot(a, 3, dtype=tf.float32), axis=1)
    loss = tf.losses.huber_loss(q_target, q_eval)
    train = tf.train.RMSPropOptimizer(0.01, decay=0.95, epsilon=0.01, centered=True).minimize(
        loss, var_list=tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="eval_net"))
    return {"loss": loss, "train": train, "after": replace, "extra": [tf.argmax(q, axis=1), q_oh],
            "feed": lambda i: {s: STATES, a: ACTIONS, r: REWARDS, d: DONE, s2: NEXT}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
