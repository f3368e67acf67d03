"""``convert_to_tensor`` of a ``TensorShape`` as TF's registered conversion: a
``shape_as_tensor`` int32 vector (int64 when a dimension needs it), the dtype
asked for when int32/int64, TF's errors otherwise; a table against TF."""
import pytest

from ref.framework.op_def_library import convert_to_tensor as _under_test  # noqa: F401

ROWS = [([], None), ([2, 3], None), ([2, 3], "int64"), ([2 ** 31, 1], None), ([0], "int32"),
        ([None, 2], None), ([2], "float32"), ([2 ** 31], "int32")]


def _convert(tf, dims, dtype):
    g = tf.Graph()
    with g.as_default():
        try:
            t = tf.convert_to_tensor(tf.TensorShape(dims), dtype=None if dtype is None else tf.as_dtype(dtype))
        except (TypeError, ValueError) as e:
            return type(e).__name__, str(e).replace("tf.", "")
        with tf.Session(graph=g) as sess:
            return t.dtype.name, t.op.name, sess.run(t).tolist()


@pytest.mark.parametrize("dims,dtype", ROWS)
def test_tensor_shape_conversion_as_tf(dims, dtype):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    got, want = _convert(ref, dims, dtype), _convert(tf, dims, dtype)
    assert got[0] == want[0]
    if got[0] in ("TypeError", "ValueError"):
        # shapes and dtypes print as ref prints them ("(?, 2)", "float32"; TF 2: "(None, 2)",
        # "<dtype: 'float32'>"): the sentence's first words and its last sentence equal TF's
        assert got[1].split(" TensorShape")[0] == want[1].split(" TensorShape")[0]
        assert got[1].rsplit(") ", 1)[-1].rsplit(". ", 1)[-1] == want[1].rsplit(") ", 1)[-1].rsplit(". ", 1)[-1]
    else:
        assert got == want
