"""Op and tensor names of the assertion, complex, TensorArray, functional and
py_func builders are TensorFlow's (compat.v1 graph mode with TF 1.x
behaviour: TensorArrayV3 ops, TF 1.x loops in map_fn/scan)."""
import pytest

import ref
from tests.graph_ops._graphdef import tf1_behaviour
from tests.graph_ops._interop import tf1
from ref.graph_ops import tensor_array_ops as _under_test  # noqa: F401  (the module these tests cover)


def _names(tf):
    x = tf.constant([1., 2.])
    z = tf.complex(x, tf.constant([3., 4.]))
    out = [tf.Assert(tf.constant(True), [1]).name, tf.Assert(tf.constant(True), [1], name="x").name,
           tf.assert_rank(tf.placeholder(tf.float32), 1).name, tf.Print(x, [1]).name, tf.print(1).name,
           z.name, tf.real(z).name, tf.imag(z).name, tf.conj(z).name, tf.angle(z).name, tf.abs(z).name]
    ta = tf.TensorArray(tf.float32, size=2)
    w = ta.write(0, x)
    fresh = lambda: tf.TensorArray(tf.float32, size=2)  # noqa: E731
    out += [ta.flow.name, w.flow.name, w.read(0).name, w.stack().name, fresh().unstack(tf.ones([2, 2])).flow.name,
            w.gather([0]).name, w.concat().name, fresh().scatter([0], tf.ones([1, 2])).flow.name,
            fresh().split(tf.ones([2]), [1, 1]).flow.name, tf.map_fn(lambda a: a, x).name,
            tf.scan(lambda a, b: a + b, x).name, tf.py_func(lambda a: a, [x], tf.float32).name,
            tf.matching_files("*").name, tf.train.match_filenames_once("*").name]
    return out


def test_names_match_tensorflow():
    tf = tf1()
    with tf1_behaviour(), tf.Graph().as_default():
        want = _names(tf)
    with ref.Graph().as_default():
        got = _names(ref)
    assert got == want
