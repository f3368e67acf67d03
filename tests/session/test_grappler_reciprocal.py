"""``ref.session.interpreter.grappler``: a float32 ``ones / y`` runs as TF's session
runs it -- ``Reciprocal(y)`` (Eigen's estimate and Newton step) when grappler's
shapes, fed tensors unknown, give ``y`` the quotient's shape; the correctly
rounded quotient otherwise. Each row builds ``y`` from a fed ``[None, 16]``
placeholder; ``RECIPROCAL`` says which one TF (tensorflow-cpu 2.21, oneDNN
off, measured) turns into a ``Reciprocal``. Against NumPy's oracles always
(``eigen_recip.reciprocal`` or ``1 / y`` of the fetched ``y``), against TF's
own numbers when it is installed."""
import numpy as np
import pytest

import ref
from ref.ops import eigen_recip
from ref.session.interpreter import grappler as _under_test  # noqa: F401

X = np.random.RandomState(0).rand(101, 16).astype(np.float32)
C = np.random.RandomState(1).randn(16, 16).astype(np.float32)

# name: (build(tf, p) -> (quotient, y), whether TF runs it as Reciprocal(y))
ROWS = {
    "sigmoid_by_hand_after_matmul": (lambda tf, p: _q(tf, 1., 1. + tf.exp(-tf.matmul(p, C))), True),
    "sigmoid_by_hand_of_a_feed": (lambda tf, p: _q(tf, 1., 1. + tf.exp(-p)), False),
    "fixed_feed_shape_still_unknown": (lambda tf, p: _q(tf, 1., tf.abs(p * 2.) + 1.), False),
    "tf_div_after_matmul": (lambda tf, p: _q(tf, 1., tf.abs(tf.matmul(p, C)) + 1., tf.div), True),
    "ones_row_broadcast_into_y": (lambda tf, p: _q(tf, tf.ones([1, 16]), tf.abs(tf.matmul(p, C)) + 1.), True),
    "two_is_not_ones": (lambda tf, p: _q(tf, 2., tf.abs(tf.matmul(p, C)) + 1.), False),
    "after_reshape": (lambda tf, p: _q(tf, 1., tf.abs(tf.reshape(p, [-1, 4, 4])) + 1.), True),
    "constant_divisor_folds_exactly": (lambda tf, p: _q(tf, 1., tf.constant(C[:1]) + 0. * p), False),
}


def _q(tf, x, y, div=None):
    return (div(x, y) if div else x / y), y


def _run(tf, build):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 16])
        q, y = build(tf, p)
        with tf.Session() as s:
            return s.run([q, y], {p: X})


@pytest.mark.parametrize("name", sorted(ROWS))
def test_division_of_ones_against_numpy(name):
    build, reciprocal = ROWS[name]
    q, y = _run(ref, build)
    num = np.float32(2) if name == "two_is_not_ones" else np.float32(1)
    want = eigen_recip.reciprocal(y) if reciprocal else num / y
    assert np.array_equal(q, want)
    if reciprocal:  # the rows are such that it matters
        assert not np.array_equal(q, num / y)


def _oracle(name, y):
    """What the row says the quotient is, from ``y``: ``Reciprocal(y)`` or ``num / y``."""
    num = np.float32(2) if name == "two_is_not_ones" else np.float32(1)
    return eigen_recip.reciprocal(y) if ROWS[name][1] else num / y


@pytest.mark.parametrize("name", sorted(ROWS))
def test_division_of_ones_against_tensorflow(name):
    """TF's session computes each row's quotient from its own ``y`` as the row says
    (``y`` itself comes through a ``MatMul``, whose general products are not TF's
    bits in ref: the row's claim is checked on TF's ``y``, ref's on ref's above)."""
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf1
    from tensorflow.python.framework import ops as tf_ops
    with tf_ops.Graph().as_default():
        q, y = _run(tf1, ROWS[name][0])
    assert np.array_equal(q, _oracle(name, y))
