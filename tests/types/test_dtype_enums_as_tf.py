"""Every DataType enum of TF's types.proto as a DType, against TF: names, NumPy types (the quantized
types' structured dtypes, float4), classification, min/max, equality with Python values, ``as_dtype`` of
objects with a ``dtype``, and the trace-type serialization round trip."""
import numpy as np
import pytest

from ref.types import dtypes, trace_type


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def _tf_enums():
    types_pb2 = pytest.importorskip("tensorflow.core.framework.types_pb2")
    return sorted(v for v in types_pb2.DataType.values() if v != 0)


ENUMS = list(range(1, 34)) + [e + 100 for e in range(1, 34)]


def test_enum_table_is_tfs(tf):
    assert dtypes._TYPE_TO_STRING == dict(sorted(tf.dtypes.as_dtype(e).name and (e, tf.dtypes.as_dtype(e).name)
                                                 for e in _tf_enums()))


@pytest.mark.parametrize("enum", ENUMS)
def test_dtype_of_enum_as_tf(tf, enum):
    theirs, ours = tf.dtypes.as_dtype(enum), dtypes.DType(enum)
    assert ours.name == theirs.name and ours.as_datatype_enum == enum
    for attr in ("is_quantized", "is_floating", "is_integer", "is_unsigned", "is_complex", "is_bool",
                 "is_numpy_compatible"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    if theirs.is_numpy_compatible:
        assert np.dtype(ours.as_numpy_dtype) == np.dtype(theirs.as_numpy_dtype)
        assert dtypes.as_dtype(ours.as_numpy_dtype) is dtypes.as_dtype(enum).base_dtype
        assert ours.size == theirs.size
    for bound in ("min", "max"):
        try:
            want = getattr(theirs, bound)
        except TypeError:
            with pytest.raises(TypeError):
                getattr(ours, bound)
            continue
        if not theirs.is_bool:
            assert getattr(ours, bound) == want


@pytest.mark.parametrize("name", ["qint8", "quint8", "qint16", "quint16", "qint32", "float8_e5m2", "int4",
                                  "uint2", "float4_e2m1fn"])
def test_module_level_numpy_names_as_tf(tf, name):
    from tensorflow.python.framework import dtypes as tf_dtypes
    assert np.dtype(getattr(dtypes, "_np_" + name)) == np.dtype(getattr(tf_dtypes, "_np_" + name))


@pytest.mark.parametrize("other", [int, str, bytes, complex, 2.1, "int32", np.int32, 3, None, float])
def test_equality_with_python_values_as_tf(tf, other):
    assert (dtypes.int32 == other) == (tf.int32 == other)
    assert (dtypes.float32 == other) == (tf.float32 == other)


class _WithStr:
    dtype = "f4"


class _WithNp:
    dtype = np.dtype(np.complex64)


@pytest.mark.parametrize("value", [_WithStr, _WithNp, np.float32(1.0), np.array([1], np.int8)])
def test_as_dtype_of_objects_with_dtype_as_tf(tf, value):
    assert dtypes.as_dtype(value).name == tf.dtypes.as_dtype(value).name


def test_structured_numpy_dtype_rejected_as_tf(tf):
    bad = np.dtype([("f1", np.uint), ("f2", np.int32)])
    with pytest.raises(TypeError):
        tf.dtypes.as_dtype(bad)
    with pytest.raises(TypeError):
        dtypes.as_dtype(bad)


@pytest.mark.parametrize("enum", list(range(1, 34)))
def test_serialize_round_trip_as_tf(tf, enum):
    from tensorflow.core.function import trace_type as tf_trace_type
    ours = dtypes.DType(enum)
    packed = trace_type.serialize(ours)
    assert trace_type.deserialize(packed) is dtypes.as_dtype(enum)
    assert ours.experimental_as_proto().SerializeToString() == \
        tf.dtypes.as_dtype(enum).experimental_as_proto().SerializeToString()
    # TF's serialized form holds the same Any payload
    assert tf_trace_type.serialize(tf.dtypes.as_dtype(enum)).representation.value == packed.value


def test_serialize_rejects_other_values():
    with pytest.raises(ValueError):
        trace_type.serialize(3)
