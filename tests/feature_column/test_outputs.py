"""tf.feature_column's outputs against TF 2.21 (tf.compat.v1, TF1 behaviour):
input_layer and linear_model over numeric, bucketized, hashed, vocabulary,
crossed, indicator and embedding columns -- the GraphDef, the initial
variables and the values -- and the SparseCross hashes bit for bit."""
import numpy as np
import pytest

import pathlib
import sys

import ref.feature_column  # noqa: F401  (the module under test)
from ref.ops import registry

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "graph_ops"))
from _graphdef import tf1_behaviour  # noqa: E402


def _tf1():
    import os
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    tf = pytest.importorskip("tensorflow.compat.v1")
    return tf


FEATURES = {"age": np.float32([[23.0], [41.0], [67.0]]), "city": np.array([[b"paris"], [b"tokyo"], [b"lima"]]),
            "tag": np.array([[b"a"], [b"b"], [b"zz"]]), "n": np.int64([[1], [0], [2]])}


def _model(tf, which):
    fc = tf.feature_column
    age = fc.numeric_column("age")
    age_b = fc.bucketized_column(age, [30.0, 50.0])
    city = fc.categorical_column_with_hash_bucket("city", 11)
    tag = fc.categorical_column_with_vocabulary_list("tag", ["a", "b", "c"], num_oov_buckets=1)
    n = fc.categorical_column_with_identity("n", 3)
    cross = fc.crossed_column([age_b, "city"], 17)
    feats = {k: tf.constant(v) for k, v in FEATURES.items()}
    tf.set_random_seed(3)
    if which == "input_layer":
        cols = [age, age_b, fc.indicator_column(tag), fc.embedding_column(city, 4), fc.indicator_column(n),
                fc.embedding_column(cross, 3)]
        return fc.input_layer(feats, cols)
    return tf.feature_column.linear_model(feats, [age, age_b, city, tag, n, cross], units=2)


@pytest.mark.parametrize("which", ["input_layer", "linear_model"])
def test_values_and_initial_variables_are_tensorflows(which):
    tf = _tf1()
    import ref
    out = []
    for lib in (ref, tf):
        ctx = lib.Graph().as_default()
        if lib is tf:
            behaviour = tf1_behaviour()
            behaviour.__enter__()
        try:
            with ctx:
                y = _model(lib, which)
                with lib.Session() as s:
                    s.run([lib.global_variables_initializer(), lib.tables_initializer()])
                    out.append(s.run(y))
        finally:
            if lib is tf:
                behaviour.__exit__(None, None, None)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op,kw", [
    ("SparseCross", dict(hashed_output=True, num_buckets=50, hash_key=956888297470, out_type=np.int64,
                         internal_type=np.int64)),
    ("SparseCross", dict(hashed_output=False, num_buckets=0, hash_key=0, out_type=np.dtype(object),
                         internal_type=np.dtype(object))),
])
def test_sparse_cross_is_tensorflows(op, kw):
    tf = pytest.importorskip("tensorflow")
    sp_idx = np.int64([[0, 0], [1, 0], [1, 1]])
    sp_val = np.array([b"x", b"y", b"z"], dtype=object)
    dense = np.int64([[3], [4]]) if kw.get("out_type", np.int64) == np.int64 else np.array([[b"3"], [b"4"]],
                                                                                             dtype=object)
    args = dict(indices=[sp_idx], values=[sp_val], shapes=[np.int64([2, 2])], dense_inputs=[dense])
    tf_kw = dict(kw)
    if op == "SparseCross":
        tf_kw["out_type"] = tf.int64 if kw["out_type"] == np.int64 else tf.string
        tf_kw["internal_type"] = tf_kw["out_type"]
    got = registry.call(op, **args, **kw)
    want = getattr(tf.raw_ops, op)(**args, **tf_kw)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w.numpy())
