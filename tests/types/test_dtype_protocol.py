"""DType's TF constructor ``DType(enum)``, ``limits``, and the TraceType relations, against TF."""
import pytest

from ref.types import dtypes

NAMES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
         "uint16", "uint32", "uint64", "bool", "string", "complex64", "complex128", "resource",
         "variant", "float32_ref", "int64_ref"]


@pytest.fixture(scope="module")
def tf():
    tf = pytest.importorskip("tensorflow")
    return tf


@pytest.mark.parametrize("name", NAMES)
def test_constructor_from_enum_equals_interned(tf, name):
    enum = tf.dtypes.as_dtype(name).as_datatype_enum
    made = dtypes.DType(enum)
    assert made.as_datatype_enum == enum and made.name == name
    assert made == dtypes.as_dtype(name)
    assert dtypes.as_dtype(made) is dtypes.as_dtype(name)


@pytest.mark.parametrize("enum", [0, 99, -1])
def test_constructor_rejects_unknown_enum(enum):
    with pytest.raises(TypeError):
        dtypes.DType(enum)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("resource", "variant")])
def test_limits_as_tf(tf, name):
    theirs = tf.dtypes.as_dtype(name)
    try:
        want = theirs.limits
    except ValueError:
        with pytest.raises(ValueError, match="does not have defined limits"):
            dtypes.as_dtype(name).limits
        return
    assert dtypes.as_dtype(name).limits == want


@pytest.mark.parametrize("a,b", [("string", "string"), ("string", "uint32"), ("uint64", "uint64"),
                                 ("float32", "float32_ref")])
def test_subtype_and_supertype_as_tf(tf, a, b):
    ta, tb = tf.dtypes.as_dtype(a), tf.dtypes.as_dtype(b)
    ra, rb = dtypes.as_dtype(a), dtypes.as_dtype(b)
    assert ra.is_subtype_of(rb) == ta.is_subtype_of(tb)
    want = ta.most_specific_common_supertype([tb])
    got = ra.most_specific_common_supertype([rb])
    assert (got is None) == (want is None) and (got is None or got.name == want.name)
    assert ra.most_specific_common_supertype([]).name == ta.most_specific_common_supertype([]).name
