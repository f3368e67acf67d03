"""``tf.io.RaggedFeature`` and ``tf.io.SparseFeature`` in ``parse_example`` /
``parse_single_example``, and the ``tf.RaggedTensor`` they produce: each row
parses the same serialized ``Example`` protos under ref and under
``tensorflow.compat.v1`` (v2 behaviour off) and compares the fetched values
(a RaggedTensorValue's values and row splits, a SparseTensorValue's indices in
TF's canonical order, values and dense shape), the GraphDefs node for node, and
the errors TF raises at graph construction."""
import numpy as np
import pytest

import ref
from ref.graph_ops import ragged_tensor as _under_test  # noqa: F401  (with parsing_ops: the modules covered)
from _graphdef import assert_same_graph, tf_v1


def _example(tf, **kw):
    f = {}
    for k, v in kw.items():
        if v and isinstance(v[0], bytes):
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        elif v and isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        else:
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


BATCH = [dict(r=[1, 2, 3], i0=[3, 1], i1=[0, 4], v=[0.5, 1.5], s=[b"a", b"bc"], rs=[0, 2, 3], f=[1.0, 2.0, 3.0]),
         dict(r=[], i0=[2], i1=[2], v=[2.5], s=[b"d"], rs=[0, 0, 3], f=[4.0, 5.0, 6.0]),
         dict(r=[7], i0=[0, 0, 2], i1=[3, 1, 0], v=[3.5, 4.5, 5.5], rs=[0, 1], f=[7.0])]

# (name, features(tf), batched?) -- parse_example on BATCH, or parse_single_example on each of BATCH.
CASES = [
    ("ragged_int64", lambda tf: {"r": tf.io.RaggedFeature(tf.int64)}, True),
    ("ragged_int64_splits", lambda tf: {"r": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int64)}, True),
    ("ragged_string_value_key", lambda tf: {"x": tf.io.RaggedFeature(tf.string, value_key="s")}, True),
    ("ragged_missing_key", lambda tf: {"nothing": tf.io.RaggedFeature(tf.float32)}, True),
    ("sparse_one_index", lambda tf: {"sp": tf.io.SparseFeature("i0", "v", tf.float32, 4)}, True),
    ("sparse_two_indices", lambda tf: {"sp": tf.io.SparseFeature(["i1", "i0"], "v", tf.float32, [5, 4])}, True),
    ("sparse_sorted", lambda tf: {"sp": tf.io.SparseFeature("i1", "v", tf.float32, 6, already_sorted=True)}, True),
    ("mixed", lambda tf: {"sp": tf.io.SparseFeature("i0", "v", tf.float32, 4), "r": tf.io.RaggedFeature(tf.int64),
                          "i1": tf.io.VarLenFeature(tf.int64),
                          "f": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}, True),
    ("single_ragged", lambda tf: {"r": tf.io.RaggedFeature(tf.int64)}, False),
    ("single_sparse", lambda tf: {"sp": tf.io.SparseFeature("i0", "v", tf.float32, 4)}, False),
    ("single_row_splits", lambda tf: {"x": tf.io.RaggedFeature(tf.float32, value_key="f",
                                                               partitions=[tf.io.RaggedFeature.RowSplits("rs")])},
     False),
    ("single_uniform_rows", lambda tf: {"x": tf.io.RaggedFeature(tf.float32, value_key="f", partitions=[
        tf.io.RaggedFeature.UniformRowLength(1)])}, False),
]


def _plain(v):
    """A fetched value as comparable nested tuples of lists."""
    if hasattr(v, "row_splits"):
        return ("ragged", _plain(v.values), np.asarray(v.row_splits).tolist(), str(np.asarray(v.row_splits).dtype))
    if hasattr(v, "indices"):
        return ("sparse", np.asarray(v.indices).tolist(), np.asarray(v.values).tolist(),
                np.asarray(v.dense_shape).tolist())
    v = np.asarray(v)
    return ("dense", v.tolist(), str(v.dtype))


def _parse(tf, features, batched):
    serialized = [_example(tf, **e) for e in BATCH]
    with tf.Graph().as_default(), tf.Session() as s:
        if batched:
            p = tf.placeholder(tf.string, [None])
            out = s.run(tf.io.parse_example(p, features(tf)), {p: serialized})
            return {k: _plain(v) for k, v in out.items()}
        p = tf.placeholder(tf.string, [])
        parsed = tf.io.parse_single_example(p, features(tf))
        return [{k: _plain(v) for k, v in s.run(parsed, {p: x}).items()} for x in serialized]


@pytest.mark.parametrize("name,features,batched", CASES, ids=[c[0] for c in CASES])
def test_values_match_tf(name, features, batched):
    assert _parse(ref, features, batched) == _parse(tf_v1(), features, batched)


@pytest.mark.parametrize("name,features,batched", CASES, ids=[c[0] for c in CASES])
def test_graph_matches_tf(name, features, batched):
    def snippet(tf):
        if batched:
            tf.io.parse_example(tf.placeholder(tf.string, [None], name="s"), features(tf))
        else:
            tf.io.parse_single_example(tf.placeholder(tf.string, [], name="s"), features(tf))
    assert_same_graph(snippet)


def test_ragged_values_by_formula():
    """The batched ragged feature: rows are the examples' value lists (independent of TF)."""
    got = _parse(ref, lambda tf: {"r": tf.io.RaggedFeature(tf.int64)}, True)["r"]
    assert got == ("ragged", ("dense", [1, 2, 3, 7], "int64"), [0, 3, 3, 4], "int32")


# (name, features(tf), error class name) -- raised at graph construction by both
ERRORS = [
    ("conflicting_types", lambda tf: {"a": tf.io.SparseFeature("i0", "v", tf.float32, 4),
                                      "b": tf.io.SparseFeature("i0", "v", tf.int64, 4)}, "ValueError"),
    ("sparse_ragged_overlap", lambda tf: {"a": tf.io.SparseFeature("i0", "v", tf.float32, 4),
                                          "v": tf.io.RaggedFeature(tf.float32)}, "ValueError"),
    ("size_list_for_one_index", lambda tf: {"a": tf.io.SparseFeature("i0", "v", tf.float32, [4])}, "TypeError"),
    ("sizes_length", lambda tf: {"a": tf.io.SparseFeature(["i0", "i1"], "v", tf.float32, [4])}, "ValueError"),
    ("unsupported_feature", lambda tf: {"a": "not a feature"}, "ValueError"),
]


@pytest.mark.parametrize("name,features,error", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_tf(name, features, error):
    for tf in (ref, tf_v1()):
        with tf.Graph().as_default():
            with pytest.raises(Exception) as info:
                tf.io.parse_example(tf.placeholder(tf.string, [None]), features(tf))
            assert type(info.value).__name__ == error, (tf.__name__, info.value)


def test_ragged_feature_argument_errors():
    tf = tf_v1()
    for lib in (ref, tf):
        for kwargs, error in [(dict(dtype=lib.int32), ValueError), (dict(dtype=lib.int64, row_splits_dtype=lib.float32),
                                                                     ValueError),
                              (dict(dtype=lib.int64, partitions="x"), TypeError),
                              (dict(dtype=lib.int64, validate=1), TypeError), (dict(dtype=lib.int64, value_key=""),
                                                                               ValueError)]:
            with pytest.raises(error):
                lib.io.RaggedFeature(**kwargs)


# -- tf.RaggedTensor ------------------------------------------------------------

def _ragged_snippet(validate, shape, default):
    def snippet(tf):
        v = tf.placeholder(tf.float32, [None, 2], name="v")
        s = tf.placeholder(tf.int64, [4], name="s")
        rt = tf.RaggedTensor.from_row_splits(v, s, validate=validate)
        outer = tf.RaggedTensor.from_row_splits(rt, tf.constant([0, 1, 3], tf.int64), validate=validate)
        return [rt.to_tensor(default_value=default, shape=shape), outer.to_tensor(), rt.nrows()]
    return snippet


RAGGED = [("plain", False, None, None), ("validated", True, None, None), ("padded", False, [4, 3, 2], 7.0),
          ("cut", False, [2, 1, None], None)]


@pytest.mark.parametrize("name,validate,shape,default", RAGGED, ids=[r[0] for r in RAGGED])
def test_ragged_tensor_matches_tf(name, validate, shape, default):
    snippet = _ragged_snippet(validate, shape, default)
    assert_same_graph(snippet)
    feed = (np.arange(10, dtype=np.float32).reshape(5, 2), np.array([0, 2, 2, 5]))
    results = []
    for tf in (ref, tf_v1()):
        with tf.Graph().as_default(), tf.Session() as sess:
            outs = snippet(tf)
            results.append([np.asarray(x).tolist() for x in sess.run(outs, {"v:0": feed[0], "s:0": feed[1]})]
                           + [o.shape.as_list() for o in outs])
    assert results[0] == results[1]


def test_ragged_validation_failure_matches_tf():
    for tf in (ref, tf_v1()):
        with tf.Graph().as_default(), tf.Session() as sess:
            rt = tf.RaggedTensor.from_row_splits(tf.constant([1, 2, 3]), tf.placeholder(tf.int64, [None], name="s"))
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(rt.to_tensor(), {"s:0": [0, 2, 1, 3]})


def test_to_tensor_gradient_matches_tf():
    """d(sum(w * to_tensor))/d(values, default): graph and values equal TF's."""
    def snippet(tf):
        v = tf.placeholder(tf.float32, [None, 2], name="v")
        d = tf.placeholder(tf.float32, [2], name="d")
        rt = tf.RaggedTensor.from_row_splits(v, tf.constant([0, 2, 2, 5], tf.int64), validate=False)
        dense = rt.to_tensor(default_value=d, shape=[4, 2, 2])
        w = tf.reshape(tf.range(16, dtype=tf.float32), [4, 2, 2])
        return tf.gradients(tf.reduce_sum(dense * w), [v, d])
    assert_same_graph(snippet)
    results = []
    for tf in (ref, tf_v1()):
        with tf.Graph().as_default(), tf.Session() as sess:
            gv, gd = sess.run(snippet(tf), {"v:0": np.ones([5, 2], np.float32), "d:0": [1.0, 2.0]})
            results.append((np.asarray(gv.values).tolist(), np.asarray(gv.indices).tolist(), np.asarray(gd).tolist()))
    assert results[0] == results[1]


# -- parse_sequence_example with RaggedFeature -----------------------------------

def _sequence_example(tf, context, lists):
    def feature(key, v):  # keys d and u hold floats, c and t int64s
        if key in "du":
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={k: feature(k, v) for k, v in context.items()}),
        feature_lists=tf.train.FeatureLists(feature_list={
            k: tf.train.FeatureList(feature=[feature(k, s) for s in steps]) for k, steps in lists.items()})
    ).SerializeToString()


SEQUENCES = [({"c": [1, 2], "d": [0.5]}, {"t": [[1], [2, 3], [4, 5, 6]], "u": [[1.5]]}),
             ({"c": [3]}, {"t": [[7, 8]]}),
             ({"c": [], "d": [2.5, 3.5]}, {"u": [[2.5, 3.5], []]})]

SEQ_CASES = [
    ("context_ragged", lambda tf: ({"c": tf.io.RaggedFeature(tf.int64)}, None)),
    ("list_ragged", lambda tf: (None, {"t": tf.io.RaggedFeature(tf.int64)})),
    ("mixed", lambda tf: ({"c": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int64),
                           "d": tf.io.VarLenFeature(tf.float32)},
                          {"u": tf.io.RaggedFeature(tf.float32), "t": tf.io.VarLenFeature(tf.int64)})),
]


def _parse_sequences(tf, features):
    serialized = [_sequence_example(tf, c, f) for c, f in SEQUENCES]
    with tf.Graph().as_default(), tf.Session() as s:
        p = tf.placeholder(tf.string, [None])
        context, lists = features(tf)
        out = s.run(tf.io.parse_sequence_example(p, context, lists), {p: serialized})
        return [{k: _plain(v) for k, v in part.items()} for part in out]


@pytest.mark.parametrize("name,features", SEQ_CASES, ids=[c[0] for c in SEQ_CASES])
def test_sequence_values_match_tf(name, features):
    assert _parse_sequences(ref, features) == _parse_sequences(tf_v1(), features)


@pytest.mark.parametrize("name,features", SEQ_CASES, ids=[c[0] for c in SEQ_CASES])
def test_sequence_graph_matches_tf(name, features):
    def snippet(tf):
        context, lists = features(tf)
        tf.io.parse_sequence_example(tf.placeholder(tf.string, [None], name="s"), context, lists)
    assert_same_graph(snippet)
