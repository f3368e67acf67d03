"""DecodeRaw, StringToNumber, DecodeCSV: a table of cases, each checked against
a NumPy oracle and, where installed, tensorflow.compat.v1 (values and error
class/message)."""
import numpy as np
import pytest

import ref
from ref.ops import parsing as _under_test  # noqa: F401  (the module these tests cover)

# (name, builder(tf) -> fetch, numpy oracle or None)
CASES = [
    ("raw_int16", lambda tf: tf.decode_raw([b"\x01\x00\x02\x00", b"\xff\xff\x00\x80"], tf.int16),
     np.array([[1, 2], [-1, -32768]], np.int16)),
    ("raw_int16_be", lambda tf: tf.decode_raw([b"\x01\x00\x02\x00"], tf.int16, little_endian=False),
     np.array([[256, 512]], np.int16)),
    ("raw_uint8", lambda tf: tf.decode_raw(b"\x00\x07\xff", tf.uint8), np.array([0, 7, 255], np.uint8)),
    ("raw_float32", lambda tf: tf.decode_raw([np.float32([1.5, -2]).tobytes()], tf.float32),
     np.array([[1.5, -2]], np.float32)),
    ("raw_float64", lambda tf: tf.decode_raw([[np.float64([3.25]).tobytes()]], tf.float64),
     np.array([[[3.25]]], np.float64)),
    ("raw_empty", lambda tf: tf.decode_raw([b"", b""], tf.int32), np.zeros([2, 0], np.int32)),
    ("s2n_float", lambda tf: tf.string_to_number(["1.5", "-2", "1e3", ".5"]),
     np.array([1.5, -2, 1000, 0.5], np.float32)),
    ("s2n_double", lambda tf: tf.string_to_number([["0.1"]], tf.float64), np.array([[0.1]], np.float64)),
    ("s2n_int32", lambda tf: tf.string_to_number(["12", "-7", "2147483647"], tf.int32),
     np.array([12, -7, 2147483647], np.int32)),
    ("s2n_int64", lambda tf: tf.string_to_number(["9000000000"], tf.int64), np.array([9000000000], np.int64)),
    ("csv_basic", lambda tf: tf.decode_csv(["1,a,2.5", "3,,"], [[0], ["d"], [7.0]]),
     [np.array([1, 3], np.int32), np.array([b"a", b"d"], object), np.array([2.5, 7], np.float32)]),
    ("csv_quotes", lambda tf: tf.decode_csv(['"a,b","c""d"', '"",e'], [[""], [""]]),
     [np.array([b"a,b", b""], object), np.array([b'c"d', b"e"], object)]),
    ("csv_no_quote", lambda tf: tf.decode_csv(['"a"|b'], [[""], [""]], field_delim="|", use_quote_delim=False),
     [np.array([b'"a"'], object), np.array([b"b"], object)]),
    ("csv_na", lambda tf: tf.decode_csv(["NA,2", "1,NA"], [[5], [6.0]], na_value="NA"),
     [np.array([5, 1], np.int32), np.array([2, 6], np.float32)]),
    ("csv_select", lambda tf: tf.decode_csv(["1,2,3,4"], [[0], [0.0]], select_cols=[1, 3]),
     [np.array([2], np.int32), np.array([4], np.float32)]),
    ("csv_int64_double", lambda tf: tf.decode_csv([["9000000000,0.25"]], [np.int64(0), np.float64(0)]),
     [np.array([[9000000000]], np.int64), np.array([[0.25]], np.float64)]),
]

# (name, builder, message TF gives)
ERRORS = [
    ("raw_sizes", lambda tf: tf.decode_raw([b"ab", b"abc"], tf.uint8), "same size"),
    ("raw_multiple", lambda tf: tf.decode_raw([b"abc"], tf.int32), "not a multiple of 4"),
    ("s2n_bad", lambda tf: tf.string_to_number(["abc"]), "StringToNumberOp could not correctly convert string: abc"),
    ("s2n_overflow", lambda tf: tf.string_to_number(["3000000000"], tf.int32), "could not correctly convert"),
    ("csv_required", lambda tf: tf.decode_csv(["1,", "2,3"], [[0], tf.constant([], tf.int32)]),
     "Field 1 is required but missing in record 0!"),
    ("csv_bad_int", lambda tf: tf.decode_csv(["1", "23a"], [[0]]), "Field 0 in record 1 is not a valid int32: 23a"),
    ("csv_count", lambda tf: tf.decode_csv(["1,2"], [[0]]), "Expect 1 fields but have 2 in record 0"),
    ("csv_bad_float", lambda tf: tf.decode_csv(["1.5", "3.0adf"], [[0.0]]),
     "Field 0 in record 1 is not a valid float: 3.0adf"),
    ("csv_bad_double", lambda tf: tf.decode_csv(["x2"], [np.float64(0)]), "Field 0 in record 0 is not a valid double: x2"),
    ("csv_select_last_missing", lambda tf: tf.decode_csv([",,", "4,5,6"], [[0], [1], [2]], select_cols=[0, 1, 3]),
     "Expect 3 fields but have 2 in record 0"),
    ("csv_select_too_high", lambda tf: tf.decode_csv(["1,2,3"], [[0], [1]], select_cols=[0, 3]),
     "Expect 2 fields but have 1 in record 0"),
    ("csv_unquoted", lambda tf: tf.decode_csv(['a"b'], [[""]]), "Unquoted fields cannot have quotes/CRLFs inside"),
    ("csv_open_quote", lambda tf: tf.decode_csv(['"ab'], [[""]]), "Quoted field has to end with quote followed"),
]


def _run(tf, build):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(build(tf))


def _assert_same(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_values(name, build, want):
    _assert_same(_run(ref, build), want)


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_values_match_tensorflow(name, build, want):
    tf = pytest.importorskip("tensorflow").compat.v1
    _assert_same(_run(tf, build), want)


@pytest.mark.parametrize("name,build,msg", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors(name, build, msg):
    with pytest.raises(ref.errors.InvalidArgumentError, match=msg.replace("(", r"\(")):
        _run(ref, build)


@pytest.mark.parametrize("name,build,msg", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_match_tensorflow(name, build, msg):
    tf = pytest.importorskip("tensorflow").compat.v1
    with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
        _run(tf, build)


def test_csv_construction_errors():
    with ref.Graph().as_default():
        with pytest.raises(ValueError, match="Length of select_cols"):
            ref.decode_csv(["1"], [[0]], select_cols=[0, 1])
        with pytest.raises(ValueError, match="not strictly increasing"):
            ref.decode_csv(["1,2"], [[0], [0]], select_cols=[1, 1])
        with pytest.raises(ValueError, match="at most rank 1"):
            ref.decode_csv(["1"], [[[0]]])
        with pytest.raises(TypeError, match="Expected list for 'record_defaults'"):
            ref.decode_csv(["1"], 3)
