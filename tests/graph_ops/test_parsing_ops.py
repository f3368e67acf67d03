"""tf.parse_example / tf.parse_single_example over serialized tf.train.Example
protos: a table of feature specs, each compared with a hand-written expectation
and, where installed, tensorflow.compat.v1 on the same bytes."""
import numpy as np
import pytest

import ref
from ref.graph_ops import parsing_ops as _under_test  # noqa: F401  (the module these tests cover)


def _example(**kw):
    f = {}
    for k, v in kw.items():
        if v and isinstance(v[0], bytes):
            f[k] = ref.train.Feature(bytes_list=ref.train.BytesList(value=v))
        elif v and isinstance(v[0], float):
            f[k] = ref.train.Feature(float_list=ref.train.FloatList(value=v))
        else:
            f[k] = ref.train.Feature(int64_list=ref.train.Int64List(value=v))
    return ref.train.Example(features=ref.train.Features(feature=f)).SerializeToString()


SERIALIZED = [_example(a=[1, 2], s=[b"x"], v=[1.0, 2.0, 3.0], q=[1.0, 2.0, 3.0, 4.0]),
              _example(a=[3, 4], v=[5.0], q=[7.0, 8.0])]

# (name, features(tf) -> dict, expected parse_example output of SERIALIZED)
CASES = [
    ("fixed_int64", lambda tf: {"a": tf.FixedLenFeature([2], tf.int64)}, {"a": np.array([[1, 2], [3, 4]])}),
    ("fixed_default", lambda tf: {"s": tf.FixedLenFeature([], tf.string, default_value="d")},
     {"s": np.array([b"x", b"d"], object)}),
    ("fixed_default_vec", lambda tf: {"z": tf.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5])},
     {"z": np.array([[0.5, 1.5], [0.5, 1.5]], np.float32)}),
    ("varlen", lambda tf: {"v": tf.VarLenFeature(tf.float32)},
     {"v": (np.array([[0, 0], [0, 1], [0, 2], [1, 0]]), np.array([1, 2, 3, 5], np.float32), np.array([2, 3]))}),
    ("varlen_missing", lambda tf: {"s": tf.VarLenFeature(tf.string)},
     {"s": (np.array([[0, 0]]), np.array([b"x"], object), np.array([2, 1]))}),
    ("sequence", lambda tf: {"q": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)},
     {"q": np.array([[[1, 2], [3, 4]], [[7, 8], [0, 0]]], np.float32)}),
    ("sequence_missing", lambda tf: {"m": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)},
     {"m": np.zeros([2, 0], np.int64)}),
]


def _run(tf, features, serialized, single=False):
    with tf.Graph().as_default(), tf.Session() as s:
        parse = tf.parse_single_example if single else tf.parse_example
        out = s.run(parse(serialized, features))
    return {k: (tuple(np.asarray(x) for x in v) if hasattr(v, "indices") else v) for k, v in out.items()}


def _assert_same(got, want):
    assert sorted(got) == sorted(want)
    for k in want:
        g, w = got[k], want[k]
        for gi, wi in zip(g if isinstance(w, tuple) else [g], w if isinstance(w, tuple) else [w]):
            gi, wi = np.asarray(gi), np.asarray(wi)
            assert gi.shape == wi.shape and gi.tolist() == wi.tolist(), k
            assert (gi.dtype == object) == (wi.dtype == object)


@pytest.mark.parametrize("name,features,want", CASES, ids=[c[0] for c in CASES])
def test_parse_example(name, features, want):
    _assert_same(_run(ref, features(ref), SERIALIZED), want)


@pytest.mark.parametrize("name,features,want", CASES, ids=[c[0] for c in CASES])
def test_parse_example_matches_tensorflow(name, features, want):
    tf = pytest.importorskip("tensorflow").compat.v1
    _assert_same(_run(tf, features(tf), SERIALIZED), want)
    for single in (False, True):
        ser = SERIALIZED[0] if single else SERIALIZED
        ours, theirs = _run(ref, features(ref), ser, single), _run(tf, features(tf), ser, single)
        _assert_same(ours, theirs)


def test_errors():
    with ref.Graph().as_default(), ref.Session() as s:
        with pytest.raises(ref.errors.InvalidArgumentError, match="Feature: s .* is required"):
            s.run(ref.parse_example(SERIALIZED, {"s": ref.FixedLenFeature([], ref.string)}))
        with pytest.raises(ref.errors.InvalidArgumentError, match="Key: a, Index: 0"):
            s.run(ref.parse_example(SERIALIZED, {"a": ref.FixedLenFeature([3], ref.int64)}))
        with pytest.raises(ValueError, match="allow_missing"):
            ref.parse_example(SERIALIZED, {"q": ref.io.FixedLenSequenceFeature([], ref.float32)})


def test_example_proto_matches_tensorflow_bytes():
    tf = pytest.importorskip("tensorflow").compat.v1
    theirs = tf.train.Example.FromString(SERIALIZED[0])
    assert list(theirs.features.feature["a"].int64_list.value) == [1, 2]
    assert theirs.SerializeToString(deterministic=True) == ref.train.Example.FromString(
        SERIALIZED[0]).SerializeToString(deterministic=True)


def _sequence_example():
    T = ref.train
    return T.SequenceExample(
        context=T.Features(feature={"len": T.Feature(int64_list=T.Int64List(value=[3]))}),
        feature_lists=T.FeatureLists(feature_list={
            "tok": T.FeatureList(feature=[T.Feature(int64_list=T.Int64List(value=[i, i + 1])) for i in range(3)]),
            "w": T.FeatureList(feature=[T.Feature(float_list=T.FloatList(value=[0.5] * i)) for i in range(3)])})
    ).SerializeToString()


def _parse_sequence(tf):
    with tf.Graph().as_default(), tf.Session() as s:
        c, q = tf.io.parse_single_sequence_example(
            _sequence_example(),
            context_features={"len": tf.FixedLenFeature([], tf.int64),
                              "d": tf.FixedLenFeature([], tf.int64, default_value=7)},
            sequence_features={"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
                               "w": tf.VarLenFeature(tf.float32),
                               "m": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)})
        c, q = s.run((c, q))
    q["w"] = tuple(np.asarray(x) for x in q["w"])
    return c, q


SEQUENCE_WANT = ({"d": np.array(7), "len": np.array(3)},
                 {"tok": np.array([[0, 1], [1, 2], [2, 3]]), "m": np.zeros([0], np.float32),
                  "w": (np.array([[1, 0], [2, 0], [2, 1]]), np.array([0.5] * 3, np.float32), np.array([3, 2]))})


def test_parse_single_sequence_example():
    c, q = _parse_sequence(ref)
    _assert_same(c, SEQUENCE_WANT[0])
    _assert_same(q, SEQUENCE_WANT[1])


def test_parse_single_sequence_example_matches_tensorflow():
    tf = pytest.importorskip("tensorflow").compat.v1
    c, q = _parse_sequence(tf)
    _assert_same(c, SEQUENCE_WANT[0])
    _assert_same(q, SEQUENCE_WANT[1])


def test_sequence_feature_list_required():
    with ref.Graph().as_default(), ref.Session() as s:
        _, q = ref.io.parse_single_sequence_example(
            _sequence_example(), sequence_features={"m": ref.io.FixedLenSequenceFeature([], ref.float32)})
        with pytest.raises(ref.errors.InvalidArgumentError, match="Feature list 'm' is required"):
            s.run(q)


def _seq(context=None, lists=None):
    """A serialized SequenceExample: ``context`` {key: values}, ``lists`` {key: [values per step]}."""
    T = ref.train

    def feat(v):
        if v and isinstance(v[0], bytes):
            return T.Feature(bytes_list=T.BytesList(value=v))
        if not v or isinstance(v[0], float):  # (an empty list: a float feature, as "w" is)
            return T.Feature(float_list=T.FloatList(value=v))
        return T.Feature(int64_list=T.Int64List(value=v))

    return T.SequenceExample(
        context=T.Features(feature={k: feat(v) for k, v in (context or {}).items()}),
        feature_lists=T.FeatureLists(feature_list={k: T.FeatureList(feature=[feat(v) for v in steps])
                                                   for k, steps in (lists or {}).items()})).SerializeToString()


BATCH = [
    _seq({"len": [3], "names": [b"a", b"b"]}, {"tok": [[0, 1], [1, 2], [2, 3]], "w": [[], [0.5], [0.5, 1.5]],
                                                "s": [[b"x"], [b"y"], [b"z"]]}),
    _seq({"len": [1]}, {"tok": [[7, 8]], "w": [[2.5, 3.5, 4.5]], "s": [[b"q"]]}),
    _seq({"len": [0], "names": [b"c"]}, {"tok": [], "w": [], "s": []}),
]

# (context_features, sequence_features, serialized, example_names)
SEQ_CASES = [
    ("all_kinds", lambda tf: ({"len": tf.FixedLenFeature([], tf.int64), "names": tf.VarLenFeature(tf.string),
                               "d": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])},
                              {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
                               "w": tf.VarLenFeature(tf.float32),
                               "s": tf.io.FixedLenSequenceFeature([], tf.string),
                               "m": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)},
                              BATCH, None)),
    ("one_example", lambda tf: (None, {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64)}, BATCH[1:2], None)),
    ("empty_batch", lambda tf: ({"v": tf.VarLenFeature(tf.int64)},
                                {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64), "w": tf.VarLenFeature(tf.int64)},
                                tf.constant([], tf.string), None)),
    # TF's batched kernel rejects an empty batch when there are context dense features
    ("wrong_empty_batch_context_dense", lambda tf: ({"len": tf.FixedLenFeature([], tf.int64)}, None,
                                                    tf.constant([], tf.string), None)),
    ("context_only", lambda tf: ({"names": tf.VarLenFeature(tf.string)}, None, BATCH, ["e0", "e1", "e2"])),
    ("missing_list", lambda tf: (None, {"m": tf.io.FixedLenSequenceFeature([], tf.float32)}, BATCH, None)),
    ("missing_context", lambda tf: ({"x": tf.FixedLenFeature([], tf.int64)}, None, BATCH, ["e0", "e1", "e2"])),
    ("wrong_size", lambda tf: (None, {"tok": tf.io.FixedLenSequenceFeature([3], tf.int64)}, BATCH, None)),
]


def _parse_batch(tf, case):
    with tf.Graph().as_default(), tf.Session() as s:
        context_features, sequence_features, serialized, names = case(tf)
        outs = tf.io.parse_sequence_example(serialized, context_features, sequence_features, example_names=names)
        static = [{k: (v.shape.as_list() if hasattr(v, "shape") and not hasattr(v, "indices") else
                       [v.indices.shape.as_list(), v.dense_shape.shape.as_list()]) for k, v in sorted(d.items())}
                  for d in outs]
        try:
            values = s.run(outs)
        except tf.errors.InvalidArgumentError as e:
            return static, "InvalidArgumentError"
    flat = []
    for d in values:
        flat.append({k: (tuple(np.asarray(x).tolist() for x in v) if hasattr(v, "indices") else
                         (np.asarray(v).dtype.kind, np.asarray(v).tolist())) for k, v in sorted(d.items())})
    return static, flat


@pytest.mark.parametrize("name,case", SEQ_CASES, ids=[c[0] for c in SEQ_CASES])
def test_parse_sequence_example_matches_tensorflow(name, case):
    tf = pytest.importorskip("tensorflow").compat.v1
    got, want = _parse_batch(ref, case), _parse_batch(tf, case)
    assert got == want
    assert (got[1] == "InvalidArgumentError") == name.startswith(("missing", "wrong"))


def test_parse_sequence_example_pads_and_counts_steps():
    """Hand-checked: dense feature lists pad to the most steps; lengths count each example's."""
    with ref.Graph().as_default(), ref.Session() as s:
        c, q, n = ref.io.parse_sequence_example(
            BATCH, {"len": ref.FixedLenFeature([], ref.int64)},
            {"tok": ref.io.FixedLenSequenceFeature([2], ref.int64), "w": ref.VarLenFeature(ref.float32)})
        c, q, n = s.run((c, q, n))
    assert c["len"].tolist() == [3, 1, 0]
    assert q["tok"].tolist() == [[[0, 1], [1, 2], [2, 3]], [[7, 8], [0, 0], [0, 0]], [[0, 0]] * 3]
    assert n["tok"].tolist() == [3, 1, 0]
    assert q["w"].indices.tolist() == [[0, 1, 0], [0, 2, 0], [0, 2, 1], [1, 0, 0], [1, 0, 1], [1, 0, 2]]
    assert q["w"].dense_shape.tolist() == [3, 3, 3]


@pytest.mark.parametrize("key", ["key_b*has+a:tricky_name", "a b", "ok/key.-_", "ünï"])
def test_feature_keys_need_not_be_scope_names(key):
    """parse_example takes any feature key (TF sanitises it where it names ops)."""
    tf = pytest.importorskip("tensorflow").compat.v1
    from ref.protos import example_pb2
    ex = example_pb2.Example()
    ex.features.feature[key].float_list.value.extend([1.5, 2.5])
    data = [ex.SerializeToString()]
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            s = lib.placeholder(lib.string, [None])
            feats = {key: lib.FixedLenFeature([2], lib.float32, default_value=[0.0, 0.0]),
                     "missing": lib.FixedLenFeature([1], lib.float32, default_value=[3.0])}
            parsed = lib.parse_example(s, feats)
            with lib.Session() as sess:
                r = sess.run(parsed, {s: data})
                out.append({k: v.tolist() for k, v in r.items()})
    assert out[0] == out[1]


@pytest.mark.parametrize("little_endian", [True, False])
@pytest.mark.parametrize("out_type,n", [("int16", 8), ("int16", 6), ("uint8", 3), ("float32", 8), ("int16", 3)])
def test_decode_raw_fixed_length(out_type, n, little_endian):
    """decode_raw(fixed_length=): tf.io.decode_raw (v2)'s DecodePaddedRaw, against TF."""
    tf2 = pytest.importorskip("tensorflow")
    tf = tf2.compat.v1
    data = [b"abcd", b"abcdefghij", b""]
    out = []
    for lib, fn in ((tf, tf2.io.decode_raw), (ref, ref.decode_raw)):
        with lib.Graph().as_default():
            try:
                r = fn(lib.constant(data), getattr(lib, out_type), fixed_length=n, little_endian=little_endian)
            except ValueError:
                out.append("ValueError")
                continue
            with lib.Session() as s:
                v = s.run(r)
                out.append((r.shape.as_list(), v.dtype, np.nan_to_num(v).tolist()))
    assert out[0] == out[1]


TENSOR_VALUES = [
    np.array([[1.5, -2.0], [0.0, 3.25]], np.float32),
    np.float64(2.5),
    np.arange(6, dtype=np.int64).reshape(3, 1, 2),
    np.array([True, False]),
    np.array([b"a", b"", b"xyz"], dtype=object),
    np.zeros([0, 3], np.int32),
    np.array([1 + 2j], np.complex64),
    np.array([1.0, 2.0], np.float16),
]


@pytest.mark.parametrize("value", TENSOR_VALUES, ids=lambda v: f"{v.dtype}{list(np.shape(v))}")
def test_serialize_and_parse_tensor_as_tensorflow(value):
    tf = pytest.importorskip("tensorflow")
    want = tf.io.serialize_tensor(value).numpy()
    with ref.Graph().as_default(), ref.Session() as s:
        t = ref.constant(value)
        ser = ref.io.serialize_tensor(t)
        back = ref.io.parse_tensor(ser, t.dtype)
        got, parsed = s.run([ser, back])
        theirs = tf.io.parse_tensor(got, tf.as_dtype(t.dtype.name)).numpy()
    assert got == want  # the same TensorProto bytes
    assert parsed.dtype == theirs.dtype and parsed.shape == theirs.shape == np.shape(value)
    np.testing.assert_array_equal(parsed, theirs)


@pytest.mark.parametrize("serialized,out_type", [("bad", "float32"), (None, "float64"), ([b"", b""], "float32")])
def test_parse_tensor_errors_as_tensorflow(serialized, out_type):
    tf = pytest.importorskip("tensorflow")
    if serialized is None:
        serialized = tf.io.serialize_tensor(np.float32(1.0)).numpy()
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.raw_ops.ParseTensor(serialized=serialized, out_type=out_type)
    with ref.Graph().as_default(), ref.Session() as s:
        with pytest.raises(ref.errors.InvalidArgumentError):
            s.run(ref.parse_tensor(serialized, out_type))


_JSON = ['{"features": {"feature": {"a": {"floatList": {"value": [1.5, 2]}}, "b": {"bytesList": {"value": '
         '["aGk="]}}, "c": {"int64List": {"value": ["7", 8]}}}}}', '{}',
         '{"features": {"feature": {"z": {"int64List": {}}, "y": {"floatList": {"value": [-0.25]}}}}}']


@pytest.mark.parametrize("examples", [_JSON, [_JSON[0]], _JSON[2], [["{bad"]], ['{"nope": 1}']],
                         ids=["three", "one", "scalar", "bad_json", "unknown_field"])
def test_decode_json_example_as_tensorflow(examples):
    tf = pytest.importorskip("tensorflow")
    try:
        want = tf.io.decode_json_example(examples).numpy()
    except tf.errors.InvalidArgumentError:
        want = None
    with ref.Graph().as_default(), ref.Session() as s:
        out = ref.io.decode_json_example(examples)
        if want is None:
            with pytest.raises(ref.errors.InvalidArgumentError, match="Error while parsing JSON"):
                s.run(out)
            return
        got = np.asarray(s.run(out), dtype=object)
    want = np.asarray(want, dtype=object)
    assert got.shape == want.shape and out.shape.as_list() == list(want.shape)
    # the same Example messages (TF writes repeated numbers unpacked, ref packed: both decode alike)
    from tensorflow.core.example import example_pb2
    for g, w in zip(got.reshape(-1), want.reshape(-1)):
        assert example_pb2.Example.FromString(g) == example_pb2.Example.FromString(w)
