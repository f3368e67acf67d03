"""A one-layer Transformer encoder (the 2018 "attention is all you need
from scratch" posts' style): scaled embeddings plus a sinusoidal position
table, heads split by ``reshape`` and ``transpose([0, 2, 1, 3])``, batched
``tf.matmul(q, k, transpose_b=True)`` scaled by ``sqrt(d)``, a padding mask of
``-1e9`` from ``sequence_mask``, softmax over the keys, layer normalization by
hand with ``tf.nn.moments(axes=[-1], keep_dims=True)``, masked mean pooling,
the Noam schedule ``d^-0.5 * min(rsqrt(step), step * warmup^-1.5)`` into Adam
(``beta2=0.98, epsilon=1e-9``)."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(41)
SRC = R.randint(1, 12, (4, 5)).astype(np.int32)


def build(tf):
    tf.set_random_seed(108)
    T, D, NH = 5, 8, 2
    ids = tf.placeholder(tf.int32, [None, T]); lens = tf.placeholder(tf.int32, [None])
    emb = tf.get_variable("emb", [12, D], initializer=tf.random_normal_initializer(0.0, D ** -0.5))
    pos = np.array([[p / 10000 ** (2 * (i // 2) / D) for i in range(D)] for p in range(T)])
    pos[:, 0::2] = np.sin(pos[:, 0::2]); pos[:, 1::2] = np.cos(pos[:, 1::2])
    x = tf.nn.embedding_lookup(emb, ids) * D ** 0.5 + tf.constant(pos, tf.float32)

    def split_heads(t):
        t = tf.reshape(t, [-1, T, NH, D // NH])
        return tf.transpose(t, [0, 2, 1, 3])

    q = split_heads(tf.layers.dense(x, D, use_bias=False, name="q"))
    k = split_heads(tf.layers.dense(x, D, use_bias=False, name="k"))
    v = split_heads(tf.layers.dense(x, D, use_bias=False, name="v"))
    scores = tf.matmul(q, k, transpose_b=True) / tf.sqrt(tf.cast(D // NH, tf.float32))
    mask = tf.cast(tf.sequence_mask(lens, T), tf.float32)[:, None, None, :]
    scores += (1.0 - mask) * -1e9
    att = tf.nn.softmax(scores, axis=-1)
    ctx = tf.reshape(tf.transpose(tf.matmul(att, v), [0, 2, 1, 3]), [-1, T, D])
    y = x + tf.layers.dense(ctx, D, name="out")
    mean, var = tf.nn.moments(y, axes=[-1], keep_dims=True)
    gamma = tf.get_variable("ln_gamma", [D], initializer=tf.ones_initializer())
    beta = tf.get_variable("ln_beta", [D], initializer=tf.zeros_initializer())
    y = (y - mean) * tf.rsqrt(var + 1e-6) * gamma + beta
    pooled = tf.reduce_sum(y * tf.cast(tf.sequence_mask(lens, T), tf.float32)[:, :, None], 1) / \
        tf.cast(lens, tf.float32)[:, None]
    logits = tf.layers.dense(pooled, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.constant([0, 1, 2, 1]), logits)
    gs = tf.train.get_or_create_global_step()
    step = tf.cast(gs + 1, tf.float32)
    lr = D ** -0.5 * tf.minimum(tf.rsqrt(step), step * 4.0 ** -1.5)
    train = tf.train.AdamOptimizer(lr, beta1=0.9, beta2=0.98, epsilon=1e-9).minimize(loss, global_step=gs)
    return {"loss": loss, "train": train, "extra": att,
            "feed": lambda i: {ids: SRC, lens: np.array([5, 3, 4, 1], np.int32)}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
