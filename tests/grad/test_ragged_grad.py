"""Gradients through the ragged kernels (``RaggedTensorToSparse``,
``RaggedFillEmptyRows``) against TensorFlow's: each row builds the same graph
under ``ref`` and ``tf.compat.v1`` and compares ``tf.gradients`` of a weighted
sum of the op's float output with respect to its float inputs."""
import numpy as np
import pytest

from ref.grad import ragged_grad as _under_test  # noqa: F401

tf_mod = pytest.importorskip("tensorflow")


def _to_sparse(tf, raw):
    x = tf.constant(np.arange(10.0).reshape(5, 2))
    out = raw.RaggedTensorToSparse(rt_nested_splits=[tf.constant([0, 1, 3], tf.int64),
                                                     tf.constant([0, 2, 2, 5], tf.int64)], rt_dense_values=x)
    return out[1], [x]


def _fill_empty_rows(tf, raw):
    values, default = tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant(4.0, tf.float64)
    out = raw.RaggedFillEmptyRows(value_rowids=tf.constant([0, 0, 2], tf.int64), values=values,
                                  nrows=tf.constant(5, tf.int64), default_value=default)
    return out[1], [values, default]


def _ragged_safe_lookup(tf, raw):
    params = tf.constant(np.arange(12.0).reshape(4, 3))
    ids = tf.RaggedTensor.from_row_splits(tf.constant([0, -1, 3, 2], tf.int64), tf.constant([0, 2, 2, 4], tf.int64))
    weights = tf.RaggedTensor.from_row_splits(tf.constant([1.0, 2.0, 0.5, 3.0], tf.float64),
                                              tf.constant([0, 2, 2, 4], tf.int64))
    return tf.nn.safe_embedding_lookup_sparse(params, ids, weights, combiner="sqrtn"), [params]


ROWS = {"RaggedTensorToSparse": _to_sparse, "RaggedFillEmptyRows": _fill_empty_rows,
        "safe_embedding_lookup_sparse_ragged": _ragged_safe_lookup}


def _grads(tf, raw, build):
    with tf.Graph().as_default():
        y, xs = build(tf, raw)
        w = tf.cast(tf.reshape(tf.range(1, tf.size(y) + 1), tf.shape(y)), y.dtype)
        grads = tf.gradients(tf.reduce_sum(y * w), xs)
        with tf.Session() as sess:
            return sess.run([tf.convert_to_tensor(g) for g in grads])


class _RefOps:
    """``ref``'s graph builders of raw ops by name (``ref.raw_ops`` runs kernels on arrays)."""

    def __getattr__(self, op_type):
        from ref.framework.op_def_library import apply_op
        return lambda **kw: apply_op(op_type, **kw)


@pytest.mark.parametrize("row", sorted(ROWS))
def test_gradient_matches_tf(row):
    import ref
    got = _grads(ref, _RefOps(), ROWS[row])
    want = _grads(tf_mod.compat.v1, tf_mod.raw_ops, ROWS[row])
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12)
