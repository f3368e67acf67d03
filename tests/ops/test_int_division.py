"""Integer division and modulo kernels on zero divisors (issue 26).

TF raises "Integer division by zero" only when some output element divides by
a zero: an empty broadcast output raises nothing, whatever the divisor holds
(``FloorMod([], 0)`` is what Sum's gradient of a scalar computes). One row per
kernel, dtype and shape case; the oracle is NumPy (Python's floor rule for
FloorDiv/FloorMod, C's truncation for Div/TruncateDiv) and, where installed,
``tf.raw_ops``.
"""
from __future__ import annotations

import numpy as np
import pytest

import ref.ops.math  # noqa: F401  the kernels under test, called through ref.raw_ops
import ref.raw_ops
from ref.types import errors

INT_DIV_OPS = ("Div", "FloorDiv", "FloorMod", "TruncateDiv")


def _oracle(op, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        if op == "FloorDiv":
            return np.floor_divide(x, y)
        if op == "FloorMod":
            return np.mod(x, y)
        q = np.trunc(np.true_divide(x.astype(np.float64), y.astype(np.float64)))
        return q.astype(np.result_type(x, y))


def _arrays(x, y, dtype):
    """The row's values as ``dtype`` (magnitudes for unsigned types)."""
    fix = np.abs if np.dtype(dtype).kind == "u" else np.asarray
    return fix(np.asarray(x)).astype(dtype), fix(np.asarray(y)).astype(dtype)


# (case, x, y, raises): empty outputs never raise, non-empty ones with a zero divisor do.
SHAPES = [
    ("empty_x_scalar_zero", [], 0, False),
    ("empty_x_zero_vector1", [], [0], False),
    ("scalar_zero_empty_x_2d", np.zeros((2, 0)), 0, False),
    ("broadcast_to_empty", np.zeros((0, 3)), [1, 0, 2], False),
    ("empty_divisor", 5, np.zeros((0,)), False),
    ("both_empty", np.zeros((0,)), np.zeros((0,)), False),
    ("nonzero", [7, -7, 6], [2, 2, -4], False),
    ("zero_divisor", [7, 1], [0, 1], True),
    ("scalar_zero_divisor", [7, 1], 0, True),
]
DTYPES = (np.int32, np.int64, np.uint8)
CASES = [(op, dt, *row) for op in INT_DIV_OPS for dt in DTYPES for row in SHAPES
         if not (dt == np.uint8 and op in ("FloorMod", "TruncateDiv"))]  # TF's allowed types


@pytest.mark.parametrize("op,dtype,case,x,y,raises", CASES,
                         ids=[f"{c[0]}-{np.dtype(c[1]).name}-{c[2]}" for c in CASES])
def test_integer_division_by_zero_raises_only_for_used_divisors(op, dtype, case, x, y, raises):
    x, y = _arrays(x, y, dtype)
    fn = getattr(ref.raw_ops, op)
    if raises:
        with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
            fn(x=x, y=y)
        return
    got = np.asarray(fn(x=x, y=y))
    want = _oracle(op, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op,dtype,case,x,y,raises", CASES,
                         ids=[f"{c[0]}-{np.dtype(c[1]).name}-{c[2]}" for c in CASES])
def test_integer_division_matches_tf(op, dtype, case, x, y, raises):
    tf = pytest.importorskip("tensorflow")
    x, y = _arrays(x, y, dtype)
    try:
        want = getattr(tf.raw_ops, op)(x=tf.constant(x), y=tf.constant(y)).numpy()
    except (tf.errors.InvalidArgumentError, tf.errors.InternalError):
        # TF 2.21's TruncateDiv reports a zero divisor as InternalError ("only integer
        # div and mod should have errors"); ref raises InvalidArgumentError as its siblings.
        want = None
    assert (want is None) == raises
    if want is not None:
        got = np.asarray(getattr(ref.raw_ops, op)(x=x, y=y))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_scalar_linear_regression_first_step():
    """The issue's program: scalar feeds into "float" placeholders, ``reduce_sum``
    of the squared error; Sum's gradient of a scalar takes FloorMod([], 0)."""
    import ref as tf
    g = tf.Graph()
    with g.as_default():
        x, y = tf.placeholder("float"), tf.placeholder("float")
        w, b = tf.Variable(0.5), tf.Variable(0.25)
        loss = tf.reduce_sum(tf.square(y - (w * x + b)))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {x: 2.0, y: 3.0})
            got_w, got_b = sess.run([w, b])
    err = np.float32(3.0) - (np.float32(0.5) * 2 + np.float32(0.25))  # d/dw = -2*err*x, d/db = -2*err
    assert got_w == pytest.approx(0.5 + 0.1 * 2 * err * 2, rel=1e-6)
    assert got_b == pytest.approx(0.25 + 0.1 * 2 * err, rel=1e-6)
