"""convert_to_tensor of lists holding tensors (TF's autopacking) and integer
constants out of their dtype's range, against tensorflow.compat.v1."""
import numpy as np
import pytest

import ref
from ref.framework import graph as _under_test  # noqa: F401  (the module these tests cover)

LISTS = [
    ("ints", lambda a, f: [a, 2], None),
    ("float_first", lambda a, f: [f, 2], None),
    ("nested", lambda a, f: [[1, 2], [a, 3]], None),
    ("tuple", lambda a, f: (a, a), None),
    ("cast_to_int64", lambda a, f: [a, a, 7], "int64"),
    ("cast_nested_to_float", lambda a, f: [[a, a], [a, 4]], "float32"),
    ("mixed_cast", lambda a, f: [a, f], "float64"),
]


def _build(lib, make, dtype):
    with lib.Graph().as_default() as g:
        a, f = lib.constant(1), lib.constant(1.5)
        t = lib.convert_to_tensor(make(a, f), dtype=getattr(lib, dtype) if dtype else None, name="x")
        with lib.Session() as s:
            return s.run(t), [(o.name, o.type) for o in g.get_operations()]


@pytest.mark.parametrize("case,make,dtype", LISTS, ids=[c[0] for c in LISTS])
def test_autopacking_matches_tensorflow(case, make, dtype):
    tf = pytest.importorskip("tensorflow").compat.v1
    ours, theirs = _build(ref, make, dtype), _build(tf, make, dtype)
    assert ours[0].dtype == theirs[0].dtype
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]


def test_a_python_value_of_another_kind_than_the_first_tensor_is_a_type_error():
    with ref.Graph().as_default():
        with pytest.raises(TypeError):
            ref.convert_to_tensor([ref.constant(1), 2.5])


WRAPS = [([999], "uint8", [231]), (999, "uint8", 231), ([-1], "uint8", [255]), ([300], "int8", [44]),
         ([2 ** 40], "int32", [0]), (-1, "uint32", 4294967295), ([70000], "int16", [4464])]


@pytest.mark.parametrize("value,dtype,want", WRAPS)
def test_out_of_range_integer_constants_wrap_like_tf(value, dtype, want):
    with ref.Graph().as_default(), ref.Session() as s:
        got = s.run(ref.constant(value, getattr(ref, dtype)))
    np.testing.assert_array_equal(got, want)
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default(), tf.Session() as s:
        np.testing.assert_array_equal(s.run(tf.constant(value, getattr(tf, dtype))), got)
