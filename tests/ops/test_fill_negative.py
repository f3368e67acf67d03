"""``Fill`` with a negative dimension, as TF: a ValueError ("Fill dimensions
must be >= 0"; below -1 TF's "Invalid value in tensor used for shape") when the dims are constant, an InvalidArgumentError at run time
when they are fed; a table of shapes, both libraries."""
import pytest

from ref.ops import array as _under_test  # noqa: F401

SHAPES = [((-1,), "Fill dimensions must be >= 0"), ((2, -1), "Fill dimensions must be >= 0"),
          ((-1, 2), "Fill dimensions must be >= 0"), ((0, -3), "Invalid value in tensor used for shape: -3")]


def _static(tf, shape, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            tf.fill(shape, 7)


def _fed(tf, shape):
    with tf.Graph().as_default():
        dims = tf.placeholder(tf.int32)
        out = tf.fill(dims, 3.0)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {dims: shape})


@pytest.mark.parametrize("shape,message", SHAPES)
def test_negative_fill_as_tf(shape, message):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (ref, tf):
        _static(lib, shape, message)
        _fed(lib, shape)
