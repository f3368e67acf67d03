"""``tf.constant``/``convert_to_tensor`` of a NumPy value with another dtype:
TF's ``make_tensor_proto`` casts NumPy arrays and scalars (floats truncate,
integers wrap, bools become 0/1) but rejects Python floats for integer dtypes;
a table of values against TF's."""
import numpy as np
import pytest

from ref.framework.op_def_library import constant as _under_test  # noqa: F401

ROWS = [(np.array([1.5, 2.7, 300.2]), "uint8"), (np.array([1.5, -2.7]), "int32"), (np.float64(2.5), "int32"),
        (np.array([True, False]), "float32"), (np.array([3, -1], np.int64), "uint8"),
        (np.array([1.25, 2.5], np.float32), "float16"), ([1.5], "int32"), (2.5, "int64")]


def _build(tf, builder, value, dtype):
    g = tf.Graph()
    with g.as_default():
        try:
            t = builder(tf)(value, tf.as_dtype(dtype))
        except TypeError:
            return "TypeError"
        with tf.Session(graph=g) as sess:
            out = sess.run(t)
            return out.dtype, out.tolist()


@pytest.mark.parametrize("builder", [lambda tf: tf.constant, lambda tf: tf.convert_to_tensor],
                         ids=["constant", "convert_to_tensor"])
@pytest.mark.parametrize("value,dtype", ROWS)
def test_numpy_values_cast_as_tf(builder, value, dtype):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _build(ref, builder, value, dtype) == _build(tf, builder, value, dtype)
