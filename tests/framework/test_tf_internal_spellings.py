"""TF-internal spellings ref serves (what TF's own tests call), each against TF's
internal function of that name."""
import numpy as np
import pytest

from ref.framework import graph as _under_test  # noqa: F401
import ref
from ref.formats import tensor_util as ref_tensor_util


def _make_ndarray(tf_tensor_util, tf):
    proto = tf_tensor_util.make_tensor_proto(np.arange(6, dtype=np.int16).reshape(2, 3))
    return tf_tensor_util.MakeNdarray(proto)


def _ref_make_ndarray():
    proto = ref_tensor_util.make_tensor_proto(np.arange(6, dtype=np.int16).reshape(2, 3))
    return ref_tensor_util.MakeNdarray(proto)


def _in_graph(tf, f):
    with tf.Graph().as_default():
        return f(tf)


def _tf_scopes(tf):
    from tensorflow.python.framework import ops
    with tf.Graph().as_default():
        with ops.name_scope("foo", skip_on_eager=False) as a:
            with ops.name_scope(None, "bar", skip_on_eager=False) as b:
                return a, b, tf.constant(1.0).op.name


def _ref_scopes():
    with ref.Graph().as_default():
        with _under_test.name_scope("foo", skip_on_eager=False) as a:
            with _under_test.name_scope(None, "bar", skip_on_eager=False) as b:
                return a, b, ref.constant(1.0).op.name


def _tf_constant_value_of_shape(tf):
    from tensorflow.python.framework import tensor_util
    sp = tf.sparse_placeholder(dtype=np.float32, shape=np.array([7, 9, 2]))
    return tuple(tensor_util.constant_value(sp.shape))


def _ref_constant_value_of_shape():
    from ref.framework import tensor_util
    with ref.Graph().as_default():
        sp = ref.sparse_placeholder(dtype=np.float32, shape=np.array([7, 9, 2]))
        return tuple(tensor_util.constant_value(sp.shape))


ROWS = [
    ("tensor_util.constant_value(TensorShape)", lambda tf: _in_graph(tf, _tf_constant_value_of_shape),
     _ref_constant_value_of_shape),
    ("tensor_util.MakeNdarray", lambda tf: _make_ndarray(__import__("tensorflow.python.framework.tensor_util",
                                                                    fromlist=["x"]), tf), _ref_make_ndarray),
    ("ops.name_scope(skip_on_eager=)", _tf_scopes, _ref_scopes),
]


@pytest.mark.parametrize("tf_side, ref_side", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_internal_spelling_as_tf(tf_side, ref_side):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = tf_side(tf), ref_side()
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    else:
        assert got == want
