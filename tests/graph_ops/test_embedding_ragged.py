"""Embedding lookups of RaggedTensor ids and weights (and of NumPy tables) against TensorFlow's
(``ragged_embedding_ops`` behind ``tf.nn.embedding_lookup``,
``embedding_lookup_sparse`` and ``safe_embedding_lookup_sparse``): each row
runs the same snippet under ``ref`` and ``tf.compat.v1`` and compares values,
dtype and static shape (a RaggedTensor result by its lists); then the errors."""
import numpy as np
import pytest

from ref.graph_ops import embedding_ops as _under_test  # noqa: F401

tf_mod = pytest.importorskip("tensorflow")

PARAMS = np.arange(30, dtype=np.float32).reshape(10, 3) / 7.0
ROWS_IDS = [[1, 3, 3], [], [0, -1, 9], [2], [4, 5]]
ROWS_W = [[1.0, 2.0, 0.5], [], [3.0, 1.0, -1.0], [0.0], [2.0, 2.0]]


def _ids(tf, ids=ROWS_IDS, dtype="int64"):
    return tf.ragged.constant(ids, dtype=getattr(tf, dtype))


def _w(tf, dtype="float32"):
    return tf.ragged.constant(ROWS_W, dtype=getattr(tf, dtype))


def _shards(tf, n):
    return [tf.constant(s) for s in np.array_split(PARAMS, n)] if n > 1 else tf.constant(PARAMS)


VALID = [[1, 3, 3], [0, 2], [9], [2], [4, 5]]
CASES = {
    "lookup_ragged": lambda tf: tf.nn.embedding_lookup(tf.constant(PARAMS), _ids(tf, VALID)),
    "lookup_ragged_sharded_mod": lambda tf: tf.nn.embedding_lookup(_shards(tf, 3), _ids(tf, VALID, "int32")),
    "lookup_ragged_sharded_div": lambda tf: tf.nn.embedding_lookup(_shards(tf, 3), _ids(tf, VALID),
                                                                   partition_strategy="div"),
    "lookup_ragged_max_norm": lambda tf: tf.nn.embedding_lookup(tf.constant(PARAMS), _ids(tf, VALID), max_norm=1.0),
    "lookup_ragged_3d": lambda tf: tf.nn.embedding_lookup(tf.constant(PARAMS), tf.ragged.constant(
        [[[1], [2, 3]], [], [[4]]], dtype=tf.int64)),
    # NumPy tables are converted to constants (TF's params_<i>), dense ids
    "lookup_numpy_params_max_norm": lambda tf: tf.nn.embedding_lookup(PARAMS.astype(np.float64), [[1, 2], [3, 3]],
                                                                      max_norm=1.0),
    "lookup_numpy_shards": lambda tf: tf.nn.embedding_lookup(list(np.array_split(PARAMS, 2)), [1, 2, 9]),
}
for combiner in ("sum", "mean", "sqrtn"):
    for shards in (1, 3):
        for fast in (False, True):
            CASES[f"sparse_{combiner}_{shards}_{'fast' if fast else 'slow'}"] = (
                lambda tf, c=combiner, n=shards, f=fast: tf.nn.embedding_lookup_sparse(
                    _shards(tf, n), _ids(tf, VALID), tf.ragged.constant(
                        [[1.0, 2.0, 0.5], [3.0, 1.0], [2.0], [0.5], [2.0, 2.0]]), combiner=c, allow_fast_lookup=f))
            CASES[f"sparse_noweights_{combiner}_{shards}_{'fast' if fast else 'slow'}"] = (
                lambda tf, c=combiner, n=shards, f=fast: tf.nn.embedding_lookup_sparse(
                    _shards(tf, n), _ids(tf, VALID), None, combiner=c, allow_fast_lookup=f))
        CASES[f"safe_{combiner}"] = lambda tf, c=combiner: tf.nn.safe_embedding_lookup_sparse(
            tf.constant(PARAMS), _ids(tf), _w(tf), combiner=c)
        CASES[f"safe_default_id_{combiner}"] = lambda tf, c=combiner: tf.nn.safe_embedding_lookup_sparse(
            _shards(tf, 3), _ids(tf), _w(tf), combiner=c, default_id=7)
CASES["safe_noweights_partitioned"] = lambda tf: tf.nn.safe_embedding_lookup_sparse(_shards(tf, 3), _ids(tf), None)
CASES["safe_float64_weights"] = lambda tf: tf.nn.safe_embedding_lookup_sparse(
    tf.constant(PARAMS.astype(np.float64)), _ids(tf), _w(tf, "float64"))


def _run(tf, build):
    with tf.Graph().as_default():
        out = build(tf)
        with tf.Session() as sess:
            value = sess.run(out)
        shape = None if out.shape.ndims is None else out.shape.as_list()
        return type(out).__name__ == "RaggedTensor", value, shape, out.dtype.name


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tf(case):
    import ref
    ragged, got, got_shape, got_dtype = _run(ref, CASES[case])
    want_ragged, want, want_shape, want_dtype = _run(tf_mod.compat.v1, CASES[case])
    assert ragged == want_ragged and got_dtype == want_dtype and got_shape == want_shape
    if ragged:
        assert got.ragged_rank == want.ragged_rank
        np.testing.assert_array_equal(got.nested_row_splits[-1], want.nested_row_splits[-1])
        got, want = got.flat_values, want.flat_values
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


ERRORS = {
    "sparse_ids_ragged_weights": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.constant(PARAMS), tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1]), _w(tf)),
    "ragged_ids_sparse_weights": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.constant(PARAMS), _ids(tf), tf.SparseTensor([[0, 0]], [1.0], [1, 1])),
    "incompatible_values": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.constant(PARAMS), _ids(tf, [[1, 2], [3]]), tf.ragged.constant([[1.0], [2.0]])),
    "bad_combiner": lambda tf: tf.nn.embedding_lookup_sparse(tf.constant(PARAMS), _ids(tf), None, combiner="max"),
    "float_ids": lambda tf: tf.nn.embedding_lookup(tf.constant(PARAMS), tf.ragged.constant([[1.0]])),
    "no_params": lambda tf: tf.nn.embedding_lookup([], _ids(tf, VALID)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tf(case):
    import ref

    def err(tf):
        with tf.Graph().as_default():
            try:
                ERRORS[case](tf)
            except Exception as e:  # noqa: BLE001 -- the class is what the row compares
                return type(e).__name__
        return None

    want = err(tf_mod.compat.v1)
    assert want is not None and err(ref) == want


@pytest.mark.parametrize("shards", [1, 3])
@pytest.mark.parametrize("ids", [2, [1, 4], [[0, 9], [3, 3]]], ids=["rank0", "rank1", "rank2"])
def test_lookup_and_transform_matches_tf(ids, shards):
    """TF's private ``_embedding_lookup_and_transform``: each shard's rows clipped
    to ``max_norm``, then transformed (here to their norms), then stitched."""
    import ref
    from ref.graph_ops import embedding_ops
    from tensorflow.python.ops import embedding_ops as tf_embedding_ops
    results = []
    for lib, module, norm in ((ref, embedding_ops, ref.norm), (tf_mod.compat.v1, tf_embedding_ops, tf_mod.norm)):
        with lib.Graph().as_default():
            out = module._embedding_lookup_and_transform(_shards(lib, shards), ids, max_norm=2.0,
                                                         transform_fn=lambda x: norm(x, axis=1))
            with lib.Session() as sess:
                results.append((sess.run(out), out.shape.as_list()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1]
