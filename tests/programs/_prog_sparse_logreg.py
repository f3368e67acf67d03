"""Logistic regression on sparse features (the 2017 wide-model posts'
style without ``tf.contrib``): ``tf.sparse_placeholder`` fed with
``SparseTensorValue``s, ``tf.sparse_tensor_dense_matmul`` for the linear part,
``tf.nn.embedding_lookup_sparse(combiner='mean')`` of id features, sigmoid
cross entropy, FTRL with L1."""
import numpy as np

from _hooked import hooked_train

def build(tf):
    tf.set_random_seed(203)
    sp = tf.sparse_placeholder(tf.float32, name="features")
    ids = tf.sparse_placeholder(tf.int64, name="ids")
    y = tf.placeholder(tf.float32, [None])
    w = tf.get_variable("w", [20, 1], initializer=tf.zeros_initializer())
    emb = tf.get_variable("emb", [20, 3], initializer=tf.truncated_normal_initializer(stddev=0.1))
    b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
    linear = tf.squeeze(tf.sparse_tensor_dense_matmul(sp, w), 1) + b
    deep = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
    logit = linear + tf.reduce_sum(deep, 1)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logit))
    train = tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.001).minimize(loss)
    idx = np.array([[0, 1], [0, 5], [1, 2], [2, 7], [2, 19], [3, 0]], np.int64)
    vals = np.array([1.0, 0.5, 2.0, 1.0, 1.0, 3.0], np.float32)
    sv = tf.SparseTensorValue(idx, vals, [4, 20])
    iv = tf.SparseTensorValue(np.array([[0, 0], [0, 1], [1, 0], [2, 0], [3, 0], [3, 1]], np.int64),
                              np.array([1, 5, 2, 7, 0, 19], np.int64), [4, 2])
    return {"loss": loss, "train": train, "extra": tf.sigmoid(logit),
            "feed": lambda s: {sp: sv, ids: iv, y: np.array([1, 0, 1, 0], np.float32)}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
