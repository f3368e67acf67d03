"""Which dtypes ``tf.gradients`` differentiates (TF's ``backprop_util.IsTrainable``:
float16/32/64, bfloat16, complex64/128, resource, variant -- not the integers
and not the float8s): a table of dtypes, the gradient's presence against TF's."""
import pytest

from ref.grad import gradients as _under_test  # noqa: F401

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "float8_e5m2", "float8_e4m3fn",
          "int32", "int64", "uint8"]


def _has_gradient(tf, dtype):
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.as_dtype(dtype), [3, 2], name="p")
        y = tf.gather(p, [0, 2])
        return tf.gradients(y, [p], grad_ys=tf.ones_like(y))[0] is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradient_presence_as_tf(dtype):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _has_gradient(ref, dtype) == _has_gradient(tf, dtype)
