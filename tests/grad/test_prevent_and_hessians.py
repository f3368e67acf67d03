"""``prevent_gradient`` and ``hessians`` where TF refuses (issue 26; TF's
gradients_test ``testHessianInvalidDimension`` and array_grad's
``_PreventGradientGrad``). One row per graph; the outcome (a value or the
exception class and message) is checked against TF where it is installed.
"""
from __future__ import annotations

import numpy as np
import pytest

import ref.grad  # noqa: F401  (the package these tests cover)
import ref


def _prevent(tf, array_ops, message):
    x = tf.constant(3.0)
    y = array_ops.prevent_gradient(x, message=message)
    return tf.gradients(y * 2.0, x)


def _hessians_of_x(tf, array_ops, shape):
    x = tf.placeholder(tf.float32, shape)
    return tf.hessians(x, x)


def _hessians_unconnected(tf, array_ops, shape):
    return tf.hessians(tf.reduce_sum(tf.square(tf.placeholder(tf.float32, shape))),
                       tf.placeholder(tf.float32, shape))


# (case, build(tf, array_ops), exception class, message pattern)
ROWS = [
    ("prevent_gradient", lambda tf, a: _prevent(tf, a, "no grad here"), LookupError,
     r"Gradient explicitly disabled\. Reason: b'no grad here'"),
    ("prevent_gradient_empty", lambda tf, a: _prevent(tf, a, ""), LookupError,
     r"Gradient explicitly disabled\. Reason: b''"),
    ("hessians_x_x_10x10", lambda tf, a: _hessians_of_x(tf, a, (10, 10)), ValueError, "None values not supported"),
    ("hessians_x_x_unknown", lambda tf, a: _hessians_of_x(tf, a, None), ValueError, "None values not supported"),
    ("hessians_unconnected", lambda tf, a: _hessians_unconnected(tf, a, [3]), ValueError,
     "None values not supported"),
]


def _array_ops(tf):
    if tf is ref:
        from ref.graph_ops import array_ops
        return array_ops
    from tensorflow.python.ops import array_ops
    return array_ops


@pytest.mark.parametrize("case,build,exc,match", ROWS, ids=[r[0] for r in ROWS])
def test_refused_as_tf(case, build, exc, match):
    with ref.Graph().as_default(), pytest.raises(exc, match=match):
        build(ref, _array_ops(ref))


@pytest.mark.parametrize("case,build,exc,match", ROWS, ids=[r[0] for r in ROWS])
def test_rows_match_tf(case, build, exc, match):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default(), pytest.raises(exc, match=match):
        build(tf, _array_ops(tf))


def test_prevent_gradient_forwards_its_input():
    with ref.Graph().as_default():
        y = _array_ops(ref).prevent_gradient(ref.constant([1.5, -2.0]), message="m")
        assert y.op.type == "PreventGradient"
        with ref.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), np.array([1.5, -2.0], np.float32))


def test_hessian_of_a_cubic_still_computed():
    """d2/dx2 sum(x**3) = diag(6x)."""
    x0 = np.array([1.0, -2.0, 0.5], np.float32)
    with ref.Graph().as_default():
        x = ref.constant(x0)
        h, = ref.hessians(ref.reduce_sum(x * x * x), x)
        with ref.Session() as sess:
            np.testing.assert_allclose(sess.run(h), np.diag(6 * x0), rtol=1e-6)


def _cubic(tf, x):
    return tf.reduce_sum(x ** 3) + x[0, 0] * x[-1, -1]


def _matmul_square(tf, x):
    return tf.reduce_sum(tf.matmul(x, tf.transpose(x)) ** 2)


# (case, f(tf, x) differentiated twice, x's static shape: None dims known only when run)
HESSIAN_ROWS = [
    ("cubic_known", _cubic, [2, 2]),
    ("cubic_unknown_rows", _cubic, [None, 2]),
    ("matmul_square_unknown_rank", _matmul_square, None),
]


@pytest.mark.parametrize("case,f,shape", HESSIAN_ROWS, ids=[r[0] for r in HESSIAN_ROWS])
@pytest.mark.parametrize("v2", [False, True], ids=["tf1_loop", "functional_while"])
def test_hessians_values_as_tf(case, f, shape, v2, monkeypatch):
    """TF's while_loop over the gradient's elements: sizes known only at run time work."""
    tf = pytest.importorskip("tensorflow").compat.v1
    x0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)

    def run(lib):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, shape)
            (h,) = lib.hessians(f(lib, x), x)
            with lib.Session() as sess:
                return sess.run(h, {x: x0})
    want = run(tf)
    if v2:
        ref.enable_control_flow_v2()  # tests/conftest.py restores the mode
    np.testing.assert_allclose(run(ref), want, rtol=1e-6)
