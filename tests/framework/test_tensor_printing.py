"""How tensors print (``print(x)`` in TF1 tutorials: golbin's "02 - Variable" prints a
placeholder): ``str`` and ``repr`` of tensors, shapes and variables against
TensorFlow's ``tf.compat.v1`` with v2 behaviour disabled -- an unknown dimension is
``?`` there, as in TF 1.x."""
import pytest

import ref
from ref.framework import tensor as _under_test  # noqa: F401

ROWS = {
    "placeholder_none_3": lambda tf: tf.placeholder("float", [None, 3]),
    "placeholder_rank1": lambda tf: tf.placeholder(tf.int32, [None], name="ids"),
    "placeholder_unknown_rank": lambda tf: tf.placeholder(tf.float32),
    "constant_scalar": lambda tf: tf.constant(2.0),
    "constant_vector": lambda tf: tf.constant([1, 2, 3]),
    "reshape_unknown": lambda tf: tf.reshape(tf.placeholder(tf.float32, [None, 28, 28, 1]), [-1, 784]),
    "matmul_batch": lambda tf: tf.matmul(tf.placeholder(tf.float32, [None, 4]), tf.ones([4, 2])),
    "shape_of": lambda tf: tf.shape(tf.placeholder(tf.float32, [None, 4])),
    "variable": lambda tf: tf.Variable(tf.zeros([2, 3]), name="W"),
    "variable_value": lambda tf: tf.Variable(tf.zeros([None and 1 or 5])).value(),
}


def _printed(tf, build):
    with tf.Graph().as_default():
        x = build(tf)
        return str(x), repr(x), str(x.shape), repr(x.shape)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_printing_matches_tf(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    tf.disable_v2_tensorshape()  # TF 1.x shapes and ref variables, as ref's defaults
    tf.disable_resource_variables()
    try:
        want = _printed(tf, ROWS[name])
    finally:
        tf.enable_v2_tensorshape()
        tf.enable_resource_variables()
    assert _printed(ref, ROWS[name]) == want
