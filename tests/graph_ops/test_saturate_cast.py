"""``tf.saturate_cast`` as TF 2.21 builds it: one ``ClipByValue`` named
``clamp`` with limits nudged into the output's range, then ``Cast``; values
and GraphDefs against TensorFlow, over a table of type pairs."""
import itertools

import numpy as np
import pytest

import ref
from ref.graph_ops import math_ops as _under_test  # noqa: F401  (the module these tests cover)
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1

TYPES = ["float32", "float64", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64"]
# TF has no CPU ClipByValue kernel for uint32 (the cast fails there): those pairs are left out
PAIRS = [(a, b) for a, b in itertools.product(TYPES, TYPES) if a != "uint32"]


def _extremes(dtype):
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    vals = [info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 3.7 if np.dtype(dtype).kind == "f" else 5]
    return np.array(vals).astype(dtype)


def _run(lib, src, dst):
    with lib.Graph().as_default():
        y = lib.saturate_cast(lib.constant(_extremes(src)), getattr(lib, dst))
        with lib.Session() as s:
            return s.run(y)


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_values_are_tensorflows(src, dst):
    tf = tf_v1()
    got = _run(ref, src, dst)
    with tf1_behaviour():
        want = _run(tf, src, dst)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "uint8"), ("float64", "float16"),
                                     ("uint8", "float32"), ("int64", "int64"), ("complex128", "complex64"),
                                     ("complex64", "float32")])
def test_graph_is_tensorflows(src, dst):
    assert_same_graph(lambda tf: tf.saturate_cast(tf.placeholder(getattr(tf, src), [3], name="x"),
                                                  getattr(tf, dst)))


def test_complex_clip_is_part_by_part_as_tensorflow():
    t = np.array([1 + 2j, 1 + 0j, 2 + 0j, 0.5 + 9j, -1 - 1j, 1 + 5j, 0j])
    lo, hi = np.complex128(0.5 + 0.5j), np.complex128(1 + 1j)
    got = ref.raw_ops.ClipByValue(t=t, clip_value_min=lo, clip_value_max=hi)
    want = np.array([1 + 1j, 1 + 0.5j, 1 + 0.5j, 0.5 + 1j, 0.5 + 0.5j, 1 + 1j, 0.5 + 0.5j])  # TF 2.21's output
    np.testing.assert_array_equal(got, want)


def test_bool_is_a_type_error_as_in_tensorflow():
    with ref.Graph().as_default():
        with pytest.raises(TypeError, match="bool"):
            ref.saturate_cast(ref.constant([True]), ref.int32)
