"""GraphDef identity with TensorFlow (``_graphdef.py``) for ``tf.igamma``,
``tf.igammac``, ``tf.betainc``, ``tf.math.nextafter`` and ``tf.math.special``'s
Bessel functions, with their gradients (TF's math_grad rules), and the values
the graphs compute."""
import numpy as np
import pytest

from ref.graph_ops import special_math_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, ref_and_tf_values


def incomplete_gamma_and_gradients(tf):
    a = tf.placeholder_with_default(np.array([[0.5], [2.0]]), [2, 1], name="a")
    x = tf.placeholder_with_default(np.array([0.3, 3.0, 9.0]), [3], name="x")
    ys = [tf.igamma(a, x), tf.math.igammac(a, x, name="upper")]
    return ys + tf.gradients(ys, [a, x])


def betainc_and_gradient(tf):
    a = tf.constant([0.5, 2.0, 3.0], tf.float64)
    b = tf.constant(1.5, tf.float64)
    x = tf.placeholder_with_default(np.array([0.2, 0.5, 0.9]), [3], name="x")
    y = tf.math.betainc(a, b, x)
    return [y] + tf.gradients(y, [x])


def bessel_and_gradients(tf):
    x = tf.placeholder_with_default(np.array([-3.0, 0.0, 0.5, 40.0], np.float32), [4], name="x")
    ys = [tf.math.bessel_i0(x), tf.math.bessel_i0e(x, name="i0e"), tf.math.special.bessel_i1(x),
          tf.math.special.bessel_i1e(x)]
    return ys + tf.gradients(ys, [x])


def nextafter_and_gradient(tf):
    x1 = tf.placeholder_with_default(np.array([[1.0, 2.0]], np.float32), [1, 2], name="x1")
    x2 = tf.placeholder_with_default(np.array([[3.0], [0.0]], np.float32), [2, 1], name="x2")
    y = tf.math.nextafter(x1, x2)
    return [y] + tf.gradients(y, [x1, x2])


ROWS = [incomplete_gamma_and_gradients, betainc_and_gradient, bessel_and_gradients, nextafter_and_gradient]


@pytest.mark.parametrize("snippet", ROWS, ids=lambda f: f.__name__)
def test_same_graph_as_tf(snippet):
    assert_same_graph(lambda tf: [snippet(tf)] and None)


@pytest.mark.parametrize("snippet", ROWS, ids=lambda f: f.__name__)
def test_values_as_tf(snippet):
    ours, theirs = ref_and_tf_values(snippet)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        tol = 2e-6 if a.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
