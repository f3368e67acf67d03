"""The run-time errors of ``parse_example`` / ``parse_single_example`` /
``parse_sequence_example`` against TensorFlow's: class and message (TF's
location prefix "Name: n, Key: k, Index: i." in a batch, "Key: k." for one
Example, TF's data type names), plus TF's rule that a present but empty
feature is a missing one (its default is used)."""
import numpy as np
import pytest

import ref
from ref.graph_ops import parsing_ops as _under_test  # noqa: F401  (and the kernels of ref.ops.parsing)
from _graphdef import tf_v1
from test_parsing_composite import _example

F = lambda tf, *a, **k: tf.io.FixedLenFeature(*a, **k)  # noqa: E731
S = lambda tf, *a, **k: tf.io.FixedLenSequenceFeature(*a, **k)  # noqa: E731
# (name, examples, example names, features(tf), single?, how much of the message must agree)
CASES = [
    ("count_batch", [dict(a=[1.0, 2.0, 3.0]), dict(a=[1.0, 2.0])], ["passing", "failing"],
     lambda tf: {"a": F(tf, [1, 3], tf.float32)}, False, "all"),
    ("count_batch_unnamed", [dict(a=[1.0])], None, lambda tf: {"a": F(tf, [1, 3], tf.float32)}, False, "all"),
    ("count_single", [dict(a=[1.0])], None, lambda tf: {"a": F(tf, [1, 3], tf.float32)}, True, "location"),
    ("stride_batch", [dict(b=[b"x"])], ["in3"], lambda tf: {"b": S(tf, [2, 1, 1], tf.string, allow_missing=True)},
     False, "all"),
    ("stride_single", [dict(b=[b"x"])], None, lambda tf: {"b": S(tf, [2, 1, 1], tf.string, allow_missing=True)},
     True, "all"),
    ("missing_batch", [dict(a=[1.0])], ["in1"], lambda tf: {"c": F(tf, [2], tf.float32)}, False, "all"),
    ("missing_single", [dict(a=[1.0])], None, lambda tf: {"c": F(tf, [2], tf.float32)}, True, "all"),
    ("typed_empty_list", [dict(c=[])], ["in1"], lambda tf: {"c": F(tf, [2], tf.int64)}, False, "all"),
    ("type_batch", [dict(a=[1.0])], ["in1"], lambda tf: {"a": F(tf, [1], tf.int64)}, False, "all"),
    ("type_single", [dict(a=[1.0])], None, lambda tf: {"a": F(tf, [1], tf.int64)}, True, "all"),
    ("type_sparse_batch", [dict(a=[1]), dict(a=[1.0])], ["x", "y"], lambda tf: {"a": tf.io.VarLenFeature(tf.int64)},
     False, "all"),
    ("type_sparse_single", [dict(a=[1.0])], None, lambda tf: {"a": tf.io.VarLenFeature(tf.int64)}, True, "all"),
    ("type_ragged_batch", [dict(a=[1]), dict(a=[1.0])], ["x", "y"], lambda tf: {"a": tf.io.RaggedFeature(tf.int64)},
     False, "all"),
    ("type_ragged_single", [dict(a=[1.0])], None, lambda tf: {"a": tf.io.RaggedFeature(tf.int64)}, True, "all"),
]


def _text(message):
    """The kernel's message: TF 2.21 wraps it ("Graph execution error: ... Node: ..."), before its "[[{{node"."""
    lines = message.splitlines()
    if lines[0].startswith("Graph execution error"):
        return next(lines[i - 1] for i, line in enumerate(lines) if line.lstrip().startswith("[[{{"))
    return lines[0]


def _error(tf, examples, names, features, single):
    serialized = [_example(tf, **e) for e in examples]
    with tf.Graph().as_default(), tf.Session() as sess:
        if single:
            out = tf.io.parse_single_example(serialized[-1], features(tf))
        else:
            out = tf.io.parse_example(serialized, features(tf), example_names=names)
        try:
            sess.run(out)
        except tf.errors.OpError as e:
            return type(e).__name__, _text(e.message)
    return None


@pytest.mark.parametrize("name,examples,names,features,single,agree", CASES, ids=[c[0] for c in CASES])
def test_errors_match_tf(name, examples, names, features, single, agree):
    got = _error(ref, examples, names, features, single)
    want = _error(tf_v1(), examples, names, features, single)
    assert want is not None and got is not None
    assert got[0] == want[0]
    if agree == "all":
        assert got[1] == want[1]
    else:  # TF's one-Example parser words the rest differently: the location must agree
        assert got[1].split(".  ")[0] == want[1].split(".  ")[0]


def _kindless(tf, **present):
    """An Example whose features set no list at all (``Feature()``), next to int64 ones."""
    f = {k: tf.train.Feature() if v is None else tf.train.Feature(int64_list=tf.train.Int64List(value=v))
         for k, v in present.items()}
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


def _parse_kindless(tf, features, examples):
    serialized = [_kindless(tf, **e) for e in examples]
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            out = sess.run(tf.io.parse_example(serialized, features(tf)))
            return {k: np.asarray(v).tolist() for k, v in out.items()}
        except tf.errors.OpError as e:
            return _text(e.message)


@pytest.mark.parametrize("default", [None, [7, 8]], ids=["no_default", "default"])
def test_kindless_feature_is_missing_as_tf(default):
    """``Feature()`` with no list: its default, or TF's "is required" error."""
    features = lambda tf: {"a": F(tf, [2], tf.int64, default_value=default)}  # noqa: E731
    examples = [dict(a=None), dict(a=[1, 2])]
    assert _parse_kindless(ref, features, examples) == _parse_kindless(tf_v1(), features, examples)


def _sequence_error(tf, features, batched):
    steps = [tf.train.Feature(int64_list=tf.train.Int64List(value=[1])),
             tf.train.Feature(float_list=tf.train.FloatList(value=[2.5]))]
    serialized = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(
        feature_list={"t": tf.train.FeatureList(feature=steps)})).SerializeToString()
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            if batched:
                sess.run(tf.io.parse_sequence_example([serialized], None, features(tf), example_names=["in1"]))
            else:
                sess.run(tf.io.parse_single_sequence_example(serialized, None, features(tf), example_name="in1"))
        except tf.errors.OpError as e:
            return type(e).__name__, _text(e.message)


@pytest.mark.parametrize("batched", [False, True], ids=["single", "batch"])
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_feature_list_type_errors_match_tf(kind, batched):
    """A step of another kind: "... Feature list: t, Index: i.  Data types don't match. Expected type: int64"."""
    features = ((lambda tf: {"t": S(tf, [1], tf.int64)}) if kind == "dense"
                else (lambda tf: {"t": tf.io.VarLenFeature(tf.int64)}))
    got, want = _sequence_error(ref, features, batched), _sequence_error(tf_v1(), features, batched)
    assert got[0] == want[0]
    tail = lambda m: m[m.index("Feature list"):]  # noqa: E731
    assert tail(got[1]) == tail(want[1])


def _parse_tensor_error(tf, fed):
    with tf.Graph().as_default(), tf.Session() as sess:
        serialized = tf.placeholder(tf.string)
        try:
            sess.run(tf.io.parse_tensor(serialized, tf.uint16), {serialized: fed})
        except tf.errors.OpError as e:
            return type(e).__name__, _text(e.message)


@pytest.mark.parametrize("fed", ["bogus", ["bogus"]], ids=["not_a_proto", "not_a_scalar"])
def test_parse_tensor_errors_match_tf(fed):
    assert _parse_tensor_error(ref, fed) == _parse_tensor_error(tf_v1(), fed)


def test_decode_raw_v1_matches_tf():
    """TF 1.x's decode_raw signature (``parsing_ops.decode_raw_v1``; ``bytes`` keyword too)."""
    from ref.graph_ops import parsing_ops
    from tensorflow.python.ops import parsing_ops as tf_parsing_ops
    results = []
    for lib, module in ((ref, parsing_ops), (tf_v1(), tf_parsing_ops)):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append([sess.run(module.decode_raw_v1(np.array(["ab", "cd"]), lib.uint8)).tolist(),
                            sess.run(module.decode_raw_v1(bytes=np.array(["abcd"]), out_type=lib.int16,
                                                          little_endian=False)).tolist()])
    assert results[0] == results[1]
