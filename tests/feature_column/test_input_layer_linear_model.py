"""``input_layer`` and ``linear_model`` against TF 2.21's
``tf.compat.v1.feature_column``: per column kind, on dense and SparseTensor
inputs, the fed outputs (ids from hashing and crossing bit for bit, through
indicator columns) and the GraphDef node for node; then the scopes (two calls,
an outer scope, shared embeddings), ``cols_to_vars``, the collections, and
``make_parse_example_spec`` with ``tf.parse_example``."""
import numpy as np
import pytest

from ref.feature_column import models as _under_test  # noqa: F401
from tests.feature_column._fc import Steps, assert_same_graph, both, run

VOCAB_PATH = None


def _vocab(tmp_dir="/tmp"):
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(dir=tmp_dir), "vocab.txt")
    with open(path, "w") as f:
        f.write("x\ny\nz\nw\n")
    return path


VOCAB = _vocab()
B = 4  # batch

# Placeholders by name and what each row feeds them.
FEATURES = {
    "price": lambda tf: tf.placeholder(tf.float32, [None, 2], name="price"),
    "age": lambda tf: tf.placeholder(tf.float32, [None], name="age"),
    "count": lambda tf: tf.placeholder(tf.int64, [None, 1], name="count"),
    "word": lambda tf: tf.placeholder(tf.string, [None, 2], name="word"),
    "ids": lambda tf: tf.placeholder(tf.int64, [None, 2], name="ids"),
    "ids32": lambda tf: tf.placeholder(tf.int32, [None, 1], name="ids32"),
    "sword": lambda tf: tf.sparse_placeholder(tf.string, [None, 3], name="sword"),
    "sids": lambda tf: tf.sparse_placeholder(tf.int64, [None, 3], name="sids"),
    "sweight": lambda tf: tf.sparse_placeholder(tf.float32, [None, 3], name="sweight"),
    "dweight": lambda tf: tf.placeholder(tf.float32, [None, 2], name="dweight"),
}
_SP_IDX = np.array([[0, 0], [0, 2], [2, 0], [2, 1], [3, 1]], np.int64)
VALUES = {
    "price": np.array([[1., 3.], [2., -4.], [0., 1.5], [7., 8.]], np.float32),
    "age": np.array([0.3, 0.9, 2., 18.], np.float32),
    "count": np.array([[3], [0], [12], [5]], np.int64),
    "word": np.array([[b"x", b""], [b"q", b"z"], [b"", b""], [b"w", b"y"]], object),
    "ids": np.array([[1, -1], [7, 2], [-1, -1], [0, 3]], np.int64),
    "ids32": np.array([[3], [-1], [2], [1]], np.int32),
    "sword": (_SP_IDX, np.array([b"a", b"b", b"zz", b"a", b"q"], object), np.array([B, 3], np.int64)),
    "sids": (_SP_IDX, np.array([0, 4, 2, 2, 1], np.int64), np.array([B, 3], np.int64)),
    "sweight": (_SP_IDX, np.array([0.5, 2., -1., 3., 1.], np.float32), np.array([B, 3], np.int64)),
    "dweight": np.array([[1., 0.], [2., 3.], [0., 0.], [0.5, 4.]], np.float32),
}


def _features(tf, keys):
    return {k: FEATURES[k](tf) for k in keys}


# name: (keys fed, columns(fc, tf)) -- every column dense (for input_layer).
DENSE_ROWS = {
    "numeric": (["price"], lambda fc, tf: [fc.numeric_column("price", shape=2)]),
    "numeric_normalizer_int": (["count"], lambda fc, tf: [fc.numeric_column(
        "count", dtype=tf.int64, normalizer_fn=lambda x: x * 2)]),
    "numeric_rank1": (["age"], lambda fc, tf: [fc.numeric_column("age")]),
    "bucketized": (["age"], lambda fc, tf: [fc.bucketized_column(fc.numeric_column("age"), [0.5, 1., 18.])]),
    "bucketized_2d": (["price"], lambda fc, tf: [fc.bucketized_column(fc.numeric_column("price", shape=2),
                                                                      [0., 2.])]),
    "hash_dense": (["word"], lambda fc, tf: [fc.indicator_column(fc.categorical_column_with_hash_bucket("word", 97))]),
    "hash_sparse": (["sword"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_hash_bucket("sword", 1009))]),
    "hash_int": (["ids32"], lambda fc, tf: [fc.indicator_column(fc.categorical_column_with_hash_bucket(
        "ids32", 13, dtype=tf.int32))]),
    "identity_dense": (["ids"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_identity("ids", 8))]),
    "identity_default": (["ids"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_identity("ids", 4, default_value=3))]),
    "identity_sparse": (["sids"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_identity("sids", 5))]),
    "identity_int32": (["ids32"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_identity("ids32", 4))]),
    "vocab_list": (["word"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("word", ["x", "y", "z"]))]),
    "vocab_list_oov": (["sword"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("sword", ["a", "b"], num_oov_buckets=3))]),
    "vocab_list_int": (["ids"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("ids", [7, 3, 0], default_value=1))]),
    "vocab_file": (["word"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_file("word", VOCAB, num_oov_buckets=2))]),
    "vocab_file_sized": (["sword"], lambda fc, tf: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_file("sword", VOCAB, vocabulary_size=3, default_value=0))]),
    "weighted_sparse": (["sids", "sweight"], lambda fc, tf: [fc.indicator_column(fc.weighted_categorical_column(
        fc.categorical_column_with_identity("sids", 5), "sweight"))]),
    "weighted_dense": (["ids", "dweight"], lambda fc, tf: [fc.indicator_column(fc.weighted_categorical_column(
        fc.categorical_column_with_identity("ids", 8), "dweight"))]),
    "crossed_strings": (["word", "sword"], lambda fc, tf: [fc.indicator_column(
        fc.crossed_column(["word", "sword"], 101))]),
    "crossed_columns": (["word", "age", "ids"], lambda fc, tf: [fc.indicator_column(fc.crossed_column(
        [fc.bucketized_column(fc.numeric_column("age"), [1.]), "word",
         fc.categorical_column_with_identity("ids", 8)], 53, hash_key=12345))]),
    "crossed_nested": (["word", "sword", "sids"], lambda fc, tf: [fc.indicator_column(fc.crossed_column(
        [fc.crossed_column(["word", "sword"], 10), fc.categorical_column_with_identity("sids", 5)], 31))]),
    "embedding_mean": (["sword"], lambda fc, tf: [fc.embedding_column(
        fc.categorical_column_with_hash_bucket("sword", 10), 3)]),
    "embedding_sqrtn_weighted": (["sids", "sweight"], lambda fc, tf: [fc.embedding_column(
        fc.weighted_categorical_column(fc.categorical_column_with_identity("sids", 5), "sweight"), 2,
        combiner="sqrtn")]),
    "embedding_sum_unsafe": (["sids"], lambda fc, tf: [fc.embedding_column(
        fc.categorical_column_with_identity("sids", 5), 4, combiner="sum", use_safe_embedding_lookup=False,
        initializer=tf.random_uniform_initializer(-1., 1.))]),
    "embedding_max_norm": (["word"], lambda fc, tf: [fc.embedding_column(
        fc.categorical_column_with_vocabulary_list("word", ["x", "y", "z", "w"]), 3, max_norm=0.5)]),
    "many": (["price", "age", "word", "sword", "ids"], lambda fc, tf: [
        fc.numeric_column("price", shape=2), fc.bucketized_column(fc.numeric_column("age"), [1.]),
        fc.embedding_column(fc.categorical_column_with_vocabulary_list("word", ["x", "y"]), 2),
        fc.indicator_column(fc.categorical_column_with_hash_bucket("sword", 7)),
        fc.indicator_column(fc.categorical_column_with_identity("ids", 8))]),
}

# Categorical (and dense) columns straight into linear_model.
LINEAR_ROWS = {
    "numeric": DENSE_ROWS["numeric"],
    "bucketized": (["age"], lambda fc, tf: [fc.bucketized_column(fc.numeric_column("age"), [0.5, 1., 18.])]),
    "bucketized_2d": (["price"], lambda fc, tf: [fc.bucketized_column(fc.numeric_column("price", shape=2), [0.])]),
    "hash_sparse": (["sword"], lambda fc, tf: [fc.categorical_column_with_hash_bucket("sword", 11)]),
    "identity_default": (["ids"], lambda fc, tf: [fc.categorical_column_with_identity("ids", 4, default_value=0)]),
    "vocab_list": (["word"], lambda fc, tf: [fc.categorical_column_with_vocabulary_list("word", ["x", "y"])]),
    "weighted": (["sids", "sweight"], lambda fc, tf: [fc.weighted_categorical_column(
        fc.categorical_column_with_identity("sids", 5), "sweight")]),
    "crossed": (["word", "sword"], lambda fc, tf: [fc.crossed_column(["word", "sword"], 17)]),
    "embedding": (["sids"], lambda fc, tf: [fc.embedding_column(fc.categorical_column_with_identity("sids", 5), 2)]),
    "many": (["price", "age", "word", "sword", "ids"], lambda fc, tf: [
        fc.numeric_column("price", shape=2), fc.bucketized_column(fc.numeric_column("age"), [1.]),
        fc.categorical_column_with_vocabulary_list("word", ["x", "y"]),
        fc.categorical_column_with_hash_bucket("sword", 7), fc.categorical_column_with_identity("ids", 8),
        fc.indicator_column(fc.categorical_column_with_identity("ids", 8))]),
}


def _input_layer(row):
    keys, columns = DENSE_ROWS[row]
    return lambda tf: tf.feature_column.input_layer(_features(tf, keys), columns(tf.feature_column, tf))


def _linear_model(row, units=1, combiner="sum"):
    keys, columns = LINEAR_ROWS[row]
    return lambda tf: tf.feature_column.linear_model(_features(tf, keys), columns(tf.feature_column, tf),
                                                     units=units, sparse_combiner=combiner)


def _feeds(keys):
    return {k: VALUES[k] for k in keys}


@pytest.mark.parametrize("row", sorted(DENSE_ROWS))
def test_input_layer_graph_equals_tfs(row):
    assert_same_graph(_input_layer(row))


@pytest.mark.parametrize("row", sorted(DENSE_ROWS))
def test_input_layer_values_equal_tfs(row):
    got, want = both(_input_layer(row), _feeds(DENSE_ROWS[row][0]), seed=7)
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("row", sorted(LINEAR_ROWS))
def test_linear_model_graph_equals_tfs(row):
    assert_same_graph(_linear_model(row, units=3, combiner="mean" if row == "weighted" else "sum"))


def _linear_with_weights(row, combiner):
    """linear_model with every variable set to a fixed ramp (TF initializes them to zeros)."""
    def snippet(tf):
        cols_to_vars = {}
        keys, columns = LINEAR_ROWS[row]
        out = tf.feature_column.linear_model(_features(tf, keys), columns(tf.feature_column, tf), units=2,
                                             sparse_combiner=combiner, cols_to_vars=cols_to_vars)
        assigns = []
        for v in tf.global_variables():
            n = int(np.prod(v.shape.as_list()))
            ramp = (np.arange(n, dtype=np.float32) * 0.25 - 1.).reshape(v.shape.as_list())
            assigns.append(tf.assign(v, ramp))
        return Steps(assigns, out)
    return snippet


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("row", sorted(LINEAR_ROWS))
def test_linear_model_values_equal_tfs(row, combiner):
    got, want = both(_linear_with_weights(row, combiner), _feeds(LINEAR_ROWS[row][0]), seed=3)
    assert got.shape == want.shape == (B, 2)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


# -- scopes, collections, cols_to_vars -----------------------------------------------------------------------

def _scoped_models(tf):
    fc = tf.feature_column
    feats = _features(tf, ["price", "sword", "ids", "sids"])
    a, b = fc.categorical_column_with_identity("ids", 8), fc.categorical_column_with_identity("sids", 8)
    shared = fc.shared_embedding_columns([a, b], 2)
    first = fc.input_layer(feats, [fc.numeric_column("price", shape=2)] + shared)
    second = fc.input_layer(feats, shared, weight_collections=["mine"], trainable=False)
    with tf.variable_scope("outer"):
        lin1 = fc.linear_model(feats, [fc.categorical_column_with_hash_bucket("sword", 5), a], units=2)
        lin2 = fc.linear_model(feats, [a], weight_collections=["mine"], trainable=False)
    return [first, second, lin1, lin2]


def test_repeated_and_scoped_models_graph_equals_tfs():
    assert_same_graph(_scoped_models)


def test_repeated_and_scoped_models_values_equal_tfs():
    got, want = both(_scoped_models, _feeds(["price", "sword", "ids", "sids"]), seed=11)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)


def _collections_and_vars(tf):
    fc = tf.feature_column
    feats = _features(tf, ["price", "sword", "ids"])
    emb = fc.embedding_column(fc.categorical_column_with_identity("ids", 5), 2)
    price = fc.numeric_column("price", shape=2)
    h = fc.categorical_column_with_hash_bucket("sword", 5)
    c2v_in, c2v_lin, c2out = {}, {}, {}
    fc.input_layer(feats, [price, emb], weight_collections=["extra"], cols_to_vars=c2v_in,
                   cols_to_output_tensors=c2out)
    fc.linear_model(feats, [price, h, emb], units=2, cols_to_vars=c2v_lin, weight_collections=["extra"])
    g = tf.get_default_graph()
    names = {key: [getattr(v, "name", str(v)) for v in g.get_collection(key)]
             for key in ("variables", "trainable_variables", "model_variables", "extra")}
    names["cols_to_vars"] = sorted((str(getattr(k, "name", k)), [v.name for v in vs]) for k, vs in
                                   list(c2v_in.items()) + list(c2v_lin.items()))
    names["outputs"] = sorted((k.name, t.name, t.shape.as_list()) for k, t in c2out.items())
    return names


def test_collections_and_cols_to_vars_equal_tfs():
    import ref
    from tests.feature_column._fc import in_graph, tf_v1
    assert in_graph(ref, _collections_and_vars) == in_graph(tf_v1(), _collections_and_vars)


# -- parse_example with make_parse_example_spec --------------------------------------------------------------

def _examples():
    from tensorflow.core.example import example_pb2, feature_pb2
    out = []
    for i in range(3):
        f = {"price": feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[i + 0.5, -i])),
             "age": feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[i * 10.])),
             "word": feature_pb2.Feature(bytes_list=feature_pb2.BytesList(value=[b"x", b"q"][: i % 2 + 1])),
             "ids": feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=list(range(i)))),
             "wt": feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[1.5] * i))}
        out.append(example_pb2.Example(features=feature_pb2.Features(feature=f)).SerializeToString())
    return np.array(out, object)


def _parsed_model(tf):
    fc = tf.feature_column
    cols = [fc.numeric_column("price", shape=2), fc.bucketized_column(fc.numeric_column("age"), [5., 15.]),
            fc.embedding_column(fc.categorical_column_with_vocabulary_list("word", ["x", "y"]), 2),
            fc.indicator_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 3), "wt")),
            fc.indicator_column(fc.crossed_column(["word", fc.categorical_column_with_identity("ids", 3)], 23))]
    serialized = tf.placeholder(tf.string, [None], name="serialized")
    feats = tf.parse_example(serialized, fc.make_parse_example_spec(cols))
    return [fc.input_layer(feats, cols), fc.linear_model(feats, cols[:3] + [cols[3].categorical_column])]


def test_parse_example_models_graph_equals_tfs():
    assert_same_graph(_parsed_model)


def test_parse_example_models_values_equal_tfs():
    got, want = both(_parsed_model, {"serialized": _examples()}, seed=5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)


def test_rank0_and_missing_features_raise_as_tf():
    import ref
    from tests.feature_column._fc import error_of, in_graph, tf_v1

    def build(tf, feats):
        return error_of(lambda: tf.feature_column.input_layer(feats(tf), [tf.feature_column.numeric_column("a")]))
    for feats in (lambda tf: {"a": tf.constant(1.)}, lambda tf: {"b": tf.constant([1.])}):
        want = in_graph(tf_v1(), lambda tf: build(tf, feats))
        assert want is not None and in_graph(ref, lambda tf: build(tf, feats)) == want


def test_run_helper_feeds_sparse():  # the helper the tables use feeds sparse placeholders by name
    import ref
    out = run(ref, lambda tf: tf.sparse_tensor_to_dense(FEATURES["sids"](tf)), {"sids": VALUES["sids"]})
    assert out.tolist() == [[0, 0, 4], [0, 0, 0], [2, 2, 0], [0, 1, 0]]
