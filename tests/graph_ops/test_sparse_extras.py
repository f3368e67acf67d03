"""tf.sparse.softmax / maximum / minimum / reset_shape / expand_dims / eye (and
the TF1 names) against TF 2.21 (tf.compat.v1, TF1 behaviour): the same
GraphDef, the same values (softmax within Eigen's exp rounding), the same
SparseSoftmax gradient."""
import numpy as np
import pytest

from ref.graph_ops import sparse_extras  # noqa: F401  (the builders under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

IDX = np.array([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1], [2, 3]], np.int64)
VALS = np.array([1.0, 2.0, 3.0, 40.0, -1.0, 39.5], np.float32)
IDX_B = np.array([[0, 1], [0, 2], [2, 1], [3, 3]], np.int64)
VALS_B = np.array([5.0, 1.0, -3.0, -2.0], np.float32)


def builders(tf):
    i, v = tf.placeholder(tf.int64, [None, 2], name="i"), tf.placeholder(tf.float32, [None], name="v")
    a = tf.SparseTensor(i, v, [4, 4])
    b = tf.SparseTensor(IDX_B, VALS_B, [4, 4])
    soft = tf.sparse.softmax(a)
    outs = [soft.values, tf.sparse.maximum(a, b), tf.sparse_minimum(a, b), tf.sparse.reset_shape(a),
            tf.sparse.reset_shape(a, [5, 6]), tf.sparse.expand_dims(a, 1), tf.sparse.expand_dims(a),
            tf.sparse.eye(3, 4, dtype=tf.float64), tf.sparse_softmax(a).values]
    outs += tf.gradients(tf.reduce_sum(soft.values * tf.range(6.0)), [v])
    return outs, {i: IDX, v: VALS}


def test_graph_def_is_tensorflows():
    assert_same_graph(graph_only(builders))


def test_values_are_tensorflows():
    import ref
    got, want = fed_values(ref, builders), fed_values(tf_v1(), builders)
    for g, w in zip(got, want):
        if hasattr(w, "indices"):
            np.testing.assert_array_equal(g.indices, w.indices)
            np.testing.assert_array_equal(g.dense_shape, w.dense_shape)
            g, w = g.values, w.values
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)


def test_mismatched_shapes_are_invalid_argument_in_both():
    import ref
    tf = tf_v1()
    for lib, err in ((ref, ref.errors.InvalidArgumentError), (tf, tf.errors.InvalidArgumentError)):
        def snippet(t):
            a = t.SparseTensor(IDX, VALS, [4, 4])
            return [t.sparse.maximum(a, t.SparseTensor(IDX_B, VALS_B, [4, 5])).values], {}
        with pytest.raises(err):
            fed_values(lib, snippet)
