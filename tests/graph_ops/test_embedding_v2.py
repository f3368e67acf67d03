"""TF2's embedding signatures kept in ref.graph_ops.embedding_ops (as TF's module
keeps them): each equals the TF1 function with the "div" partition strategy;
checked against TF's own ``*_v2`` functions on sharded parameters."""
import numpy as np
import pytest

import ref
from ref.graph_ops import embedding_ops

PARAMS = np.arange(30, dtype=np.float32).reshape(10, 3) / 7.0
SHARDS = [PARAMS[:4], PARAMS[4:7], PARAMS[7:]]  # "div": contiguous id ranges per shard
IDS = np.array([[0, 9], [5, 5], [3, 7]], np.int64)
SP = (np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], np.int64), np.array([1, 8, 4, 9, 2], np.int64), [3, 2])
W = np.array([1.0, 0.5, 2.0, -1.0, 3.0], np.float32)

# (function name, builder taking (tf, embedding module, params, sparse ids, sparse weights))
ROWS = [
    ("embedding_lookup_v2", lambda tf, m, p, sp, w: m.embedding_lookup_v2(p, tf.constant(IDS))),
    ("embedding_lookup_v2_max_norm", lambda tf, m, p, sp, w: m.embedding_lookup_v2(p, tf.constant(IDS), max_norm=2.0)),
    ("embedding_lookup_sparse_v2_sum", lambda tf, m, p, sp, w: m.embedding_lookup_sparse_v2(p, sp, w, combiner="sum")),
    ("embedding_lookup_sparse_v2_mean", lambda tf, m, p, sp, w: m.embedding_lookup_sparse_v2(p, sp, None)),
    ("safe_embedding_lookup_sparse_v2", lambda tf, m, p, sp, w: m.safe_embedding_lookup_sparse_v2(p, sp, w)),
    ("safe_embedding_lookup_sparse_v2_default", lambda tf, m, p, sp, w: m.safe_embedding_lookup_sparse_v2(
        p, sp, None, combiner="sqrtn", default_id=0)),
]


def _run(tf, module, build):
    with tf.Graph().as_default():
        params = [tf.constant(s) for s in SHARDS]
        sp = tf.SparseTensor(*SP)
        out = build(tf, module, params, sp, tf.SparseTensor(SP[0], W, SP[2]))
        with tf.Session() as sess:
            return sess.run(out)


@pytest.mark.parametrize("rid,build", ROWS, ids=[r[0] for r in ROWS])
def test_v2_embedding_matches_tensorflow(rid, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import embedding_ops as tf_embedding_ops
    np.testing.assert_allclose(_run(ref, embedding_ops, build), _run(tf, tf_embedding_ops, build), rtol=1e-6)


def test_v2_lookup_is_div_strategy():
    """The oracle without TF: "div" puts ids 0-3, 4-6, 7-9 in shards 0, 1, 2."""
    got = _run(ref, embedding_ops, ROWS[0][1])
    np.testing.assert_array_equal(got, PARAMS[IDS])
