"""A ``Const``'s TensorProto as TF writes it, field for field (not only its value):
a shape filled from one value or from fewer values lists only the values given
(``tf.zeros([3])`` is one ``float_val``), bool and complex values are listed
(they are not among TF's ``tensor_content`` types), other full arrays are
``tensor_content``."""
import numpy as np
import pytest

from ref.framework import op_def_library as _under_test  # noqa: F401
from ref.formats.tensor_util import make_ndarray

CASES = [
    ("zeros", lambda tf: tf.zeros([3])),
    ("ones_2d", lambda tf: tf.ones([2, 2])),
    ("scalar_filled", lambda tf: tf.constant(0., shape=[3])),
    ("int_filled", lambda tf: tf.constant(1, shape=[2, 3])),
    ("full_list", lambda tf: tf.constant([1., 1., 1.])),
    ("numpy_zeros", lambda tf: tf.constant(np.zeros(3, np.float32))),
    ("fewer_values", lambda tf: tf.constant([1., 2.], shape=[4])),
    ("fewer_ints", lambda tf: tf.constant([7, 8, 9], shape=[2, 3])),
    ("zeros_like_known", lambda tf: tf.zeros_like(tf.constant([1., 2.]))),
    ("ones_int64", lambda tf: tf.ones([3], tf.int64)),
    ("float64_array", lambda tf: tf.constant(np.ones((2, 2)))),
    ("string_filled", lambda tf: tf.constant("a", shape=[2])),
    ("bool_list", lambda tf: tf.constant([True, False])),
    ("bool_zeros", lambda tf: tf.zeros([2], tf.bool)),
    ("complex_list", lambda tf: tf.constant([1 + 2j, 3j], tf.complex64)),
    ("complex_filled", lambda tf: tf.constant(1j, tf.complex128, shape=[3])),
    ("half_filled", lambda tf: tf.constant(1.5, tf.float16, shape=[3])),
    ("int_array", lambda tf: tf.constant(np.array([1, 2, 3], np.int32))),
]


def _proto(lib, build):
    from tensorflow.core.framework import graph_pb2
    g = lib.Graph()
    with g.as_default():
        build(lib)
    gd = graph_pb2.GraphDef()
    gd.ParseFromString(g.as_graph_def().SerializeToString())
    return [n.attr["value"].tensor for n in gd.node if n.op == "Const"][-1]


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_const_proto_is_tensorflows(name, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    import ref
    got, want = _proto(ref, build), _proto(tf, build)
    assert got == want, f"ref:\n{got}\ntf:\n{want}"


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_written_value_reads_back(name, build):
    import ref
    from ref.protos import tensor_pb2
    g = ref.Graph()
    with g.as_default():
        t = build(ref)
        with ref.Session() as s:
            value = s.run(t)
    proto = tensor_pb2.TensorProto.FromString(_proto_bytes(g))
    np.testing.assert_array_equal(make_ndarray(proto), value)


def _proto_bytes(g):
    return [n for n in g.as_graph_def().node if n.op == "Const"][-1].attr["value"].tensor.SerializeToString()
