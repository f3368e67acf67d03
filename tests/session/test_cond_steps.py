"""A plan holding TF 1.x conds only (Switch/Merge, no loop) runs as steps,
checking dead tensors, including a branch constant's dead pivot (a control
input); a plan with a loop runs in frames."""
import numpy as np
import pytest

import ref as tf
from ref.session.interpreter import plan as _under_test  # noqa: F401
from ref.session.interpreter.plan import Plan


def _const_branches(p):
    return tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))


def _outer_read(p):
    x = tf.constant([1.0, -2.0], name="x")
    return tf.reduce_sum(tf.cond(p, lambda: x * 3.0, lambda: tf.constant([5.0, 5.0]) - x))


def _nested(p):
    return tf.cond(p, lambda: tf.cond(tf.logical_not(p), lambda: tf.constant(7), lambda: tf.constant(8)),
                   lambda: tf.constant(9))


CASES = [(_const_branches, True, 1.0), (_const_branches, False, 2.0), (_outer_read, True, -3.0),
         (_outer_read, False, 11.0), (_nested, True, 8), (_nested, False, 9)]


@pytest.mark.parametrize("build,pred,want", CASES)
def test_cond_plan_runs_as_steps(build, pred, want):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        r = build(p)
        assert Plan([r], [], [p], True).frames is None
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(r, {p: pred}), want)


def test_loop_plan_runs_in_frames():
    with tf.Graph().as_default():
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), [0, 1.0], back_prop=False)
        assert Plan([y], [], [], True).frames is not None
        with tf.Session() as s:
            assert s.run(y) == 8.0
