"""Sparse inputs fed as ``SparseTensorValue`` to ``sparse_placeholder``: ``sparse_tensor_dense_matmul``,
``embedding_lookup_sparse(combiner='sqrtn')``, ``sparse_reduce_sum(axis=1, keepdims=True)``,
``sparse_tensor_to_dense(sparse_reorder(...))``; trained by FTRL with L1."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(405)
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 20], name="sp")
    ids = tf.sparse_placeholder(tf.int64, name="ids")
    W = tf.get_variable("W", [20, 4]); E = tf.get_variable("E", [10, 4])
    h = tf.sparse_tensor_dense_matmul(sp, W)
    e = tf.nn.embedding_lookup_sparse(E, ids, None, combiner="sqrtn")
    rs = tf.reshape(tf.sparse_reduce_sum(sp, axis=1, keepdims=True), [-1, 1])
    dense = tf.sparse_tensor_to_dense(tf.sparse_reorder(ids), default_value=-1)
    logits = tf.layers.dense(tf.concat([h, e, rs], 1), 3)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.constant(YS[:4]), logits)
    train = tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01).minimize(loss)
    rng = np.random.RandomState(5)
    idx = np.array(sorted({(int(i), int(j)) for i, j in zip(rng.randint(0, 4, 12), rng.randint(0, 20, 12))}), np.int64)
    val = rng.rand(len(idx)).astype(np.float32)
    spv = tf.SparseTensorValue(idx, val, np.array([4, 20], np.int64))
    idv = tf.SparseTensorValue(np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2], [3, 0]], np.int64),
                               np.array([1, 3, 2, 9, 0, 4, 7], np.int64), np.array([4, 3], np.int64))
    return {"loss": loss, "train": train, "extra": dense, "feed": lambda s: {sp: spv, ids: idv}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
