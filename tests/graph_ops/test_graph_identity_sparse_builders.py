"""GraphDef identity with TF for the sparse builders the feature columns
lean on: ``tf.shape`` of a SparseTensor (``Shape/Cast``), ``tf.sparse.reshape``
with a list shape (packed inside its cast, ``Cast/x``), ``safe_embedding_lookup_sparse``
with weights (ids and-ed with ``ones_like(weights)``), ``index_table_from_file``
(its ``asset_path`` Const made with the initializer), ``tf.sparse.cross`` /
``cross_hashed`` (``SparseCrossV2`` / ``SparseCross``)."""
import os
import tempfile

import pytest

from ref.graph_ops import sparse_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def _sp(tf, dtype=None, name="sp"):
    return tf.sparse_placeholder(dtype or tf.int64, [None, 3], name=name)


def shape_of_sparse(tf):
    sp = _sp(tf)
    return [tf.shape(sp), tf.shape(sp, out_type=tf.int64), tf.size(sp)]


def sparse_reshape_list_shape(tf):
    sp = _sp(tf)
    return [tf.sparse.reshape(sp, [tf.shape(sp)[0], -1]), tf.sparse_reshape(sp, [-1]),
            tf.sparse.reshape(sp, tf.constant([3, -1], tf.int64))]


def safe_lookup_weighted(tf):
    w = tf.get_variable("w", [5, 2])
    ids, weights = _sp(tf, name="ids"), _sp(tf, tf.float32, name="weights")
    return [tf.nn.safe_embedding_lookup_sparse(w, ids, weights, combiner=c) for c in ("sum", "mean", "sqrtn")]


_VOCAB = os.path.join(tempfile.mkdtemp(), "v.txt")
with open(_VOCAB, "w") as _f:
    _f.write("a\nb\n")


def _lookup_ops(tf):
    if tf.__name__.startswith("ref"):
        from ref.graph_ops import lookup_ops
    else:  # tf.compat.v1 has no public index_table_from_file (TF 1.x's tf.contrib.lookup)
        from tensorflow.python.ops import lookup_ops
    return lookup_ops


def table_from_file(tf):
    lookup_ops = _lookup_ops(tf)
    t = lookup_ops.index_table_from_file(_VOCAB, num_oov_buckets=1)
    t2 = lookup_ops.index_table_from_file(_VOCAB, vocab_size=1, default_value=5, name="sized")
    keys = tf.placeholder(tf.string, [None], name="k")
    return [t.lookup(keys), t2.lookup(keys)]


def sparse_crosses(tf):
    a, b = _sp(tf, tf.string, "a"), _sp(tf, tf.int64, "b")
    d = tf.placeholder(tf.string, [None, 2], name="d")
    i = tf.placeholder(tf.int32, [None, 1], name="i")
    return [tf.sparse.cross([a, d]), tf.sparse.cross([a, b, d], separator="|"),
            tf.sparse.cross_hashed([a, d], num_buckets=10), tf.sparse.cross_hashed([b, i], hash_key=7),
            tf.sparse.cross_hashed([a, b, i, d], num_buckets=3, name="crossed")]


ROWS = [shape_of_sparse, sparse_reshape_list_shape, safe_lookup_weighted, table_from_file, sparse_crosses]


@pytest.mark.parametrize("snippet", ROWS, ids=[r.__name__ for r in ROWS])
def test_graph_identity(snippet):
    assert_same_graph(lambda tf: snippet(tf) and None)
