"""dtypes, TensorShape/Dimension and DeviceSpec against TF's documented behaviour."""
import numpy as np
import pytest

from ref.types import dtypes
from ref.types.device_spec import DeviceSpec, merge_device
from ref.types.shapes import Dimension, TensorShape, unknown_shape

# (name, DataType enum from types.proto, numpy dtype)
DTYPES = [
    ("float16", 19, np.float16), ("float32", 1, np.float32), ("float64", 2, np.float64),
    ("int8", 6, np.int8), ("int16", 5, np.int16), ("int32", 3, np.int32), ("int64", 9, np.int64),
    ("uint8", 4, np.uint8), ("uint16", 17, np.uint16), ("uint32", 22, np.uint32), ("uint64", 23, np.uint64),
    ("bool", 10, np.bool_), ("complex64", 8, np.complex64), ("complex128", 18, np.complex128),
    ("string", 7, None), ("bfloat16", 14, None), ("resource", 20, None),
]


@pytest.mark.parametrize("name,enum,npt", DTYPES)
def test_dtype_names_and_enums(name, enum, npt):
    d = dtypes.as_dtype(name)
    assert d.name == name and d.as_datatype_enum == enum
    assert dtypes.as_dtype(enum) is d
    ref = dtypes.as_dtype(name + "_ref")
    assert ref.as_datatype_enum == enum + 100 and ref.is_ref_dtype and ref.base_dtype is d
    assert d._as_ref is ref
    if npt is not None:
        assert dtypes.as_dtype(npt) is d and d.as_numpy_dtype is npt


@pytest.mark.parametrize("name", [n for n, _, _ in DTYPES])
def test_dtype_enums_match_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    assert tf.as_dtype(name).as_datatype_enum == dtypes.as_dtype(name).as_datatype_enum
    assert tf.as_dtype(name + "_ref").as_datatype_enum == dtypes.as_dtype(name + "_ref").as_datatype_enum


def test_as_dtype_rejects_garbage():
    with pytest.raises(TypeError):
        dtypes.as_dtype("floaty")
    with pytest.raises(TypeError):
        dtypes.as_dtype(9999)


@pytest.mark.parametrize("a,b,merged", [
    ([None, 3], [2, None], [2, 3]),
    (None, [1, 2], [1, 2]),
    ([4], None, [4]),
    ([], [], []),
])
def test_merge_with(a, b, merged):
    assert TensorShape(a).merge_with(TensorShape(b)).as_list() == merged


@pytest.mark.parametrize("a,b", [([2, 3], [3, 3]), ([1], [1, 1])])
def test_merge_with_incompatible(a, b):
    with pytest.raises(ValueError):
        TensorShape(a).merge_with(TensorShape(b))


@pytest.mark.parametrize("a,b,ok", [
    ([None, 3], [2, 3], True), ([None, 3], [2, 4], False), (None, [5, 6, 7], True),
    ([1, 2], [1, 2, 3], False), ([], None, True),
])
def test_is_compatible_with(a, b, ok):
    assert TensorShape(a).is_compatible_with(TensorShape(b)) is ok


def test_shape_queries():
    s = TensorShape([None, 3])
    assert s.ndims == 2 and not s.is_fully_defined() and s.num_elements() is None
    assert TensorShape([2, 3]).num_elements() == 6
    assert str(s) == "(?, 3)"
    assert unknown_shape().ndims is None
    assert Dimension(None) + 1 == Dimension(None) or (Dimension(None) + 1).value is None
    assert (Dimension(2) * 3).value == 6
    with pytest.raises(ValueError):
        Dimension(-1)


@pytest.mark.parametrize("spec,expect", [
    ("/job:ps/task:0/device:CPU:0", "/job:ps/task:0/device:CPU:0"),
    ("/job:worker/replica:1/task:2/device:GPU:3", "/job:worker/replica:1/task:2/device:GPU:3"),
    ("/cpu:0", "/device:CPU:0"),
    ("/gpu:1", "/device:GPU:1"),
    ("", ""),
])
def test_device_spec_parse(spec, expect):
    assert DeviceSpec.from_string(spec).to_string() == expect


@pytest.mark.parametrize("outer,inner,expect", [
    ("/job:ps", "/device:CPU:0", "/job:ps/device:CPU:0"),
    ("/job:ps/task:1", "/job:worker", "/job:worker/task:1"),
    ("/device:GPU:0", "/device:CPU:1", "/device:CPU:1"),
])
def test_device_merge(outer, inner, expect):
    assert merge_device(outer, inner) == expect


def test_device_spec_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for s in ["/job:ps/task:0/device:CPU:0", "/job:worker/replica:1/task:2/device:GPU:3",
              "CPU", "gpu", "/job:a/CPU:1", "/job:a/cpu:*", "TPU"]:  # a bare device type (FIFOQueue's "CPU")
        assert tf.DeviceSpec.from_string(s).to_string() == DeviceSpec.from_string(s).to_string()


def test_tf_value_dtypes_as_tf():
    """``dtypes.TF_VALUE_DTYPES``: TF's set of the dtypes NumPy holds, by name."""
    pytest.importorskip("tensorflow")
    from tensorflow.python.framework import dtypes as tf_dtypes
    want = {d.name for d in tf_dtypes.TF_VALUE_DTYPES}
    assert {d.name for d in dtypes.TF_VALUE_DTYPES} == want
