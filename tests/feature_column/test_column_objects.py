"""The column objects against TF 2.21's ``tf.compat.v1.feature_column``: the
public and TF1 properties of each kind (name, fields, parse spec, variable
shape, number of buckets, repr) and the validation errors (kind and message)."""
import re

import numpy as np
import pytest

from ref.feature_column import factories as _under_test  # noqa: F401
from tests.feature_column._fc import error_of as _error_of, in_graph, tf_v1

_CLASS = re.compile(r"<class '[\w.]+\.(\w+)'>")


def error_of(fn):
    """The error's kind and message, classes named without their module (ref's are not TF's)."""
    e = _error_of(fn)
    return e if e is None else (e[0], _CLASS.sub(r"<class '\1'>", e[1]))


def _vocab_file(tmp_path_factory=None):
    import tempfile, os  # noqa: E401
    path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(path, "w") as f:
        f.write("alpha\nbeta\ngamma\n")
    return path


VOCAB = _vocab_file()

COLUMNS = {
    "numeric": lambda fc, tf: fc.numeric_column("price"),
    "numeric_shape_default": lambda fc, tf: fc.numeric_column("p", shape=(2, 3), default_value=1.5),
    "numeric_list_default": lambda fc, tf: fc.numeric_column("p", shape=2, default_value=[1, 2], dtype=tf.int64),
    "numeric_np_default": lambda fc, tf: fc.numeric_column("p", shape=[2], default_value=np.array([1., 2.])),
    "bucketized": lambda fc, tf: fc.bucketized_column(fc.numeric_column("age"), [18, 25.5, 30]),
    "bucketized_2d": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a", shape=3), (0.,)),
    "hash": lambda fc, tf: fc.categorical_column_with_hash_bucket("w", 100),
    "hash_int": lambda fc, tf: fc.categorical_column_with_hash_bucket("w", 7, dtype=tf.int32),
    "identity": lambda fc, tf: fc.categorical_column_with_identity("i", 5),
    "identity_default": lambda fc, tf: fc.categorical_column_with_identity("i", 5, default_value=4),
    "vocab_list": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", ["a", "b"]),
    "vocab_list_oov": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", ("a", "b"), num_oov_buckets=3),
    "vocab_list_int": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", [4, 9, 1], default_value=2),
    "vocab_list_int32": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", [4, 9], dtype=tf.int32),
    "vocab_file": lambda fc, tf: fc.categorical_column_with_vocabulary_file("f", VOCAB),
    "vocab_file_sized": lambda fc, tf: fc.categorical_column_with_vocabulary_file("f", VOCAB, 2, num_oov_buckets=1),
    "vocab_file_default": lambda fc, tf: fc.categorical_column_with_vocabulary_file("f", VOCAB, default_value=0),
    "crossed": lambda fc, tf: fc.crossed_column(["b", "a", fc.categorical_column_with_identity("c", 3)], 50),
    "crossed_nested": lambda fc, tf: fc.crossed_column(
        [fc.crossed_column(["z", "y"], 4), fc.bucketized_column(fc.numeric_column("x"), [1.])], 9, hash_key=7),
    "indicator": lambda fc, tf: fc.indicator_column(fc.categorical_column_with_identity("i", 6)),
    "weighted": lambda fc, tf: fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 6), "wt"),
    "weighted_int": lambda fc, tf: fc.weighted_categorical_column(
        fc.categorical_column_with_hash_bucket("h", 3), "wt", dtype=tf.int32),
    "indicator_weighted": lambda fc, tf: fc.indicator_column(
        fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 6), "wt")),
    "embedding": lambda fc, tf: fc.embedding_column(fc.categorical_column_with_identity("i", 6), 4),
    "embedding_sum": lambda fc, tf: fc.embedding_column(
        fc.categorical_column_with_hash_bucket("h", 6), 2, combiner="sum", max_norm=1.5, trainable=False),
    "sequence_identity": lambda fc, tf: fc.sequence_categorical_column_with_identity("s", 4),
    "sequence_hash": lambda fc, tf: fc.sequence_categorical_column_with_hash_bucket("s", 4),
    "sequence_vocab_list": lambda fc, tf: fc.sequence_categorical_column_with_vocabulary_list("s", ["a"]),
    "sequence_vocab_file": lambda fc, tf: fc.sequence_categorical_column_with_vocabulary_file("s", VOCAB),
    "sequence_numeric": lambda fc, tf: fc.sequence_numeric_column("s", shape=(2,)),
}


def _describe(column):
    out = {"type": type(column).__name__, "name": column.name, "var_scope": getattr(column, "_var_scope_name", None),
           "spec": repr(sorted(column._parse_example_spec.items())) if hasattr(column, "_parse_example_spec")
           else repr(sorted(column.parse_example_spec.items()))}
    for field in column._fields:
        v = getattr(column, field)
        if field != "initializer" and not callable(v):
            out[field] = repr(v)
    for prop in ("_variable_shape", "_num_buckets", "variable_shape", "num_buckets"):
        try:
            v = getattr(column, prop)
            out[prop] = v.as_list() if hasattr(v, "as_list") else repr(v)  # TensorShape's repr is per mode
        except (AttributeError, NotImplementedError):
            pass
    if "initializer" in column._fields:
        init = column.initializer
        out["initializer"] = (type(init).__name__, init.mean, init.stddev)
    return out


@pytest.mark.parametrize("case", sorted(COLUMNS))
def test_column_properties_equal_tfs(case):
    import ref
    tf = tf_v1()
    got = _describe(COLUMNS[case](ref.feature_column, ref))
    want = _describe(COLUMNS[case](tf.feature_column, tf))
    assert got == want


def test_shared_embedding_columns_properties_equal_tfs():
    def build(tf):
        fc = tf.feature_column
        a, b = fc.categorical_column_with_identity("b", 3), fc.categorical_column_with_identity("a", 3)
        return [_describe(c) for c in fc.shared_embedding_columns([a, fc.weighted_categorical_column(b, "w")], 2)]
    import ref
    assert in_graph(ref, build) == in_graph(tf_v1(), build)


def test_make_parse_example_spec_equals_tfs():
    def build(tf):
        fc = tf.feature_column
        cols = [COLUMNS[k](fc, tf) for k in ("numeric", "bucketized", "hash", "crossed", "weighted", "embedding")]
        return repr(sorted(fc.make_parse_example_spec(cols).items()))
    import ref
    assert build(ref) == build(tf_v1())


ERRORS = {
    "numeric_shape_zero": lambda fc, tf: fc.numeric_column("a", shape=0),
    "numeric_shape_float": lambda fc, tf: fc.numeric_column("a", shape=(2.0,)),
    "numeric_dtype": lambda fc, tf: fc.numeric_column("a", dtype=tf.string),
    "numeric_default_shape": lambda fc, tf: fc.numeric_column("a", shape=2, default_value=[1., 2., 3.]),
    "numeric_default_type": lambda fc, tf: fc.numeric_column("a", default_value="x"),
    "numeric_default_float_int": lambda fc, tf: fc.numeric_column("a", dtype=tf.int32, default_value=1.5),
    "numeric_normalizer": lambda fc, tf: fc.numeric_column("a", normalizer_fn=3),
    "numeric_key": lambda fc, tf: fc.numeric_column(3),
    "bucketized_source": lambda fc, tf: fc.bucketized_column(fc.categorical_column_with_identity("i", 2), [1]),
    "bucketized_2d_source": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a", shape=(2, 2)), [1]),
    "bucketized_empty": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a"), []),
    "bucketized_unsorted": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a"), [2, 1]),
    "bucketized_not_list": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a"), np.array([1, 2])),
    "hash_none": lambda fc, tf: fc.categorical_column_with_hash_bucket("h", None),
    "hash_zero": lambda fc, tf: fc.categorical_column_with_hash_bucket("h", 0),
    "hash_dtype": lambda fc, tf: fc.categorical_column_with_hash_bucket("h", 3, dtype=tf.float32),
    "identity_zero": lambda fc, tf: fc.categorical_column_with_identity("i", 0),
    "identity_default": lambda fc, tf: fc.categorical_column_with_identity("i", 3, default_value=3),
    "vocab_list_empty": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", []),
    "vocab_list_duplicate": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", ["a", "a"]),
    "vocab_list_oov_default": lambda fc, tf: fc.categorical_column_with_vocabulary_list(
        "v", ["a"], default_value=0, num_oov_buckets=1),
    "vocab_list_oov_negative": lambda fc, tf: fc.categorical_column_with_vocabulary_list(
        "v", ["a"], num_oov_buckets=-1),
    "vocab_list_dtype": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", ["a"], dtype=tf.int64),
    "vocab_list_float": lambda fc, tf: fc.categorical_column_with_vocabulary_list("v", [1.5]),
    "vocab_file_missing": lambda fc, tf: fc.categorical_column_with_vocabulary_file("f", None),
    "vocab_file_absent": lambda fc, tf: fc.categorical_column_with_vocabulary_file("f", "/nonexistent/v.txt"),
    "vocab_file_size": lambda fc, tf: fc.categorical_column_with_vocabulary_file("f", VOCAB, vocabulary_size=0),
    "vocab_file_oov_default": lambda fc, tf: fc.categorical_column_with_vocabulary_file(
        "f", VOCAB, num_oov_buckets=2, default_value=1),
    "indicator_dense": lambda fc, tf: fc.indicator_column(fc.numeric_column("a")),
    "weighted_dtype": lambda fc, tf: fc.weighted_categorical_column(
        fc.categorical_column_with_identity("i", 2), "w", dtype=tf.string),
    "crossed_one_key": lambda fc, tf: fc.crossed_column(["a"], 10),
    "crossed_buckets": lambda fc, tf: fc.crossed_column(["a", "b"], 0),
    "crossed_hashed": lambda fc, tf: fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("h", 3)], 10),
    "crossed_dense": lambda fc, tf: fc.crossed_column(["a", fc.numeric_column("n")], 10),
    "embedding_dimension": lambda fc, tf: fc.embedding_column(fc.categorical_column_with_identity("i", 2), 0),
    "embedding_ckpt": lambda fc, tf: fc.embedding_column(
        fc.categorical_column_with_identity("i", 2), 2, ckpt_to_load_from="/x"),
    "embedding_initializer": lambda fc, tf: fc.embedding_column(
        fc.categorical_column_with_identity("i", 2), 2, initializer=3),
    "sequence_numeric_dtype": lambda fc, tf: fc.sequence_numeric_column("s", dtype=tf.string),
}

SHARED_ERRORS = {
    "shared_type": lambda fc, tf: fc.shared_embedding_columns(
        [fc.categorical_column_with_identity("a", 3), fc.categorical_column_with_vocabulary_list("b", ["x"])], 2),
    "shared_buckets": lambda fc, tf: fc.shared_embedding_columns(
        [fc.categorical_column_with_identity("a", 3), fc.categorical_column_with_identity("b", 4)], 2),
    "shared_dimension": lambda fc, tf: fc.shared_embedding_columns([fc.categorical_column_with_identity("a", 3)], 0),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_validation_errors_equal_tfs(case):
    import ref
    tf = tf_v1()
    got = error_of(lambda: ERRORS[case](ref.feature_column, ref))
    want = error_of(lambda: ERRORS[case](tf.feature_column, tf))
    assert want is not None
    assert got == want


@pytest.mark.parametrize("case", sorted(SHARED_ERRORS))
def test_shared_embedding_errors_equal_tfs(case):
    import ref

    def build(tf):
        return error_of(lambda: SHARED_ERRORS[case](tf.feature_column, tf))
    want = in_graph(tf_v1(), build)
    assert want is not None
    assert in_graph(ref, build) == want
