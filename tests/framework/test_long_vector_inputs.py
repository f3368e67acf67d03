"""Ops on very long 1-D integer vectors build at once, with TF's static shapes:
graph construction reads an integer vector as a (partial) shape only where its
op says something about its elements (Shape, Pack, Cast, ConcatV2,
StridedSlice) and it is short enough to be a shape (TF: at most 254
dimensions); a 2**40-element vector is never expanded into that many unknown
dimensions. Rows: a builder on ``x``, a 2**40-element int vector (its values are
never computed), against tf.compat.v1's static shape."""
import pytest

from ref.framework import op_def_library as _under_test  # noqa: F401

tensorflow = pytest.importorskip("tensorflow")

N = 2 ** 40

ROWS = {
    "not_equal": lambda tf, x: tf.not_equal(x, tf.constant(0, x.dtype)),
    "cast_then_sum": lambda tf, x: tf.reduce_sum(tf.cast(x, tf.int32)),
    "count_nonzero": lambda tf, x: tf.math.count_nonzero(x),
    "add_cast": lambda tf, x: tf.cast(x, tf.int64) + 1,
    "size": lambda tf, x: tf.size(x, out_type=tf.int64),
    "zero_fraction": lambda tf, x: tf.nn.zero_fraction(x),
    "reshape_by_stack": lambda tf, x: tf.reshape(tf.cast(x, tf.int32), tf.stack([2 ** 20, -1])),
}


def _shape(tf, row, dtype):
    with tf.Graph().as_default():
        x = tf.ones([N], dtype=getattr(tf, dtype))
        return ROWS[row](tf, x).shape.as_list()


@pytest.mark.parametrize("dtype", ["int8", "int32"])
@pytest.mark.parametrize("row", sorted(ROWS))
def test_long_int_vector_builds_with_tf_shape(row, dtype):
    import ref
    assert _shape(ref, row, dtype) == _shape(tensorflow.compat.v1, row, dtype)
