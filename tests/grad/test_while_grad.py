"""Higher derivatives through while_loop, compared with tensorflow.compat.v1's
tf.gradients of tf.gradients on the same programs (float64)."""
import os

import numpy as np
import pytest

import ref

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
X0 = np.array([0.3, -0.7, 1.1])
A0 = np.array([0.9, 0.4, -0.5])


def _loop(tf, x, a, n=3):
    """y_{i+1} = sin(y_i) * a + x * y_i, from y_0 = x (x is loop variable and capture)."""
    i0 = tf.constant(0)
    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.sin(y) * a + x * y), [i0, x])
    return y


def _p_second_wrt_x(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(_loop(tf, x, a)), [x])
    return tf.gradients(tf.reduce_sum(g * g), [x])


def _p_mixed_x_then_a(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(_loop(tf, x, a)), [x])
    return tf.gradients(g, [a])


def _p_second_wrt_capture(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(tf.square(_loop(tf, x, a))), [a])
    return tf.gradients(tf.reduce_sum(g * tf.cos(a)), [a, x])


def _p_third_order(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(_loop(tf, x, a, n=2)), [x])
    (h,) = tf.gradients(tf.reduce_sum(g), [x])
    return tf.gradients(tf.reduce_sum(h), [x])


def _p_max_iterations(tf, x, a):
    _, y = tf.while_loop(lambda i, y: i < 10, lambda i, y: (i + 1, tf.tanh(y * a) + x), [tf.constant(0), x],
                         maximum_iterations=4)
    (g,) = tf.gradients(tf.reduce_sum(y), [x])
    return tf.gradients(tf.reduce_sum(tf.exp(g)), [x, a])


def _p_zero_trips(tf, x, a):
    _, y = tf.while_loop(lambda i, y: i < 0, lambda i, y: (i + 1, y * y * a), [tf.constant(0), x])
    (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
    return tf.gradients(tf.reduce_sum(g * x), [x, a])


PROGRAMS = {name[3:]: fn for name, fn in globals().items() if name.startswith("_p_")}


def _run(tf, program):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        a = tf.placeholder(tf.float64, [3])
        grads = program(tf, x, a)
        with tf.Session() as s:
            return [None if g is None else s.run(g, {x: X0, a: A0}) for g in grads]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_higher_derivatives_through_while_match_tensorflow(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    expected = _run(tf, PROGRAMS[name])
    actual = _run(ref, PROGRAMS[name])
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert (a is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)


def test_while_gradient_is_built_from_while_ops():
    """The gradient graph contains no special gradient op: only While (and ordinary ops)."""
    with ref.Graph().as_default() as g:
        x = ref.placeholder(ref.float64, [3])
        (gx,) = ref.gradients(ref.reduce_sum(_loop(ref, x, ref.constant(A0))), [x])
        types = {op.type for op in g.get_operations()}
        assert "While" in types and "WhileGrad" not in types
