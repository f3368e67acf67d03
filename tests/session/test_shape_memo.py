"""A compiled plan computes a value that depends only on shapes (``Shape`` /
``Size`` / ``Rank`` outputs and constants: the batch-size arithmetic of
``reduce_mean``'s gradient, say) once per shape (``interpreter.rewrite.ShapeMemo``). Each
run must still give what a fresh computation gives, for every shape fed, in
any order; an error is raised (and named) every time, never remembered; and
nothing a caller is handed can change what a later run reads."""
import numpy as np
import pytest

import ref as tf
from ref import errors
from ref.session import interpreter

BATCHES = [2, 5, 2, 7, 1, 5, 3]


def _mean_loss_gradient():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.constant([1.0, -2.0, 0.5], name="w")
    loss = tf.reduce_mean(tf.reduce_sum(x * w, axis=1))
    (gx,) = tf.gradients(loss, [x])
    return x, gx, lambda b: np.tile(np.array([1.0, -2.0, 0.5], np.float32) / np.float32(b), (b, 1))


def test_the_mean_gradient_is_right_for_every_batch_size_in_any_order():
    with tf.Graph().as_default(), tf.Session() as sess:
        x, gx, expected = _mean_loss_gradient()
        rng = np.random.default_rng(0)
        for b in BATCHES * 2:
            got = sess.run(gx, {x: rng.standard_normal((b, 3)).astype(np.float32)})
            np.testing.assert_array_equal(got, expected(b))


def test_the_compiled_plan_remembers_shape_arithmetic():
    # the generated code holds memo lookups for the gradient's shape arithmetic
    with tf.Graph().as_default(), tf.Session() as sess:
        x, gx, _ = _mean_loss_gradient()
        feed = {x: np.ones((4, 3), np.float32)}
        for _ in range(3):
            sess.run(gx, feed)
        sources = [p.compiled.source for p in list(sess._plans.values()) if p.compiled is not None]
        assert sources and any("_memo(" in s for s in sources)


@pytest.mark.parametrize("fetch", ["half", "shape"])
def test_a_fetched_shape_value_is_fresh_and_writable_every_run(fetch):
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        n = tf.shape(x)[0]
        t = {"half": n // 2 + tf.zeros([3], tf.int32), "shape": tf.shape(x) * 2}[fetch]
        want = {"half": lambda b: np.full(3, b // 2, np.int32), "shape": lambda b: np.array([2 * b, 4], np.int32)}[fetch]
        for b in (4, 4, 4, 6, 4):
            got = sess.run(t, {x: np.zeros((b, 2), np.float32)})
            np.testing.assert_array_equal(got, want(b))
            got[...] = -1  # the caller's to change: the next run must not see it


@pytest.mark.parametrize("wrap", ["cast", "identity", "reshape"])
def test_a_remembered_value_an_op_passes_on_reaches_the_caller_as_its_own(wrap):
    # Cast to its own dtype, Identity and Reshape may hand on their input itself:
    # the caller still gets a writable array whose change no later run reads.
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None], name="x")
        n = tf.shape(x) * 3
        out = {"cast": lambda: tf.cast(n, tf.int32), "identity": lambda: tf.identity(n),
               "reshape": lambda: tf.reshape(n, [1])}[wrap]()
        for b in (2, 2, 2, 4, 2):
            got = sess.run(out, {x: np.zeros(b, np.float32)})
            assert got.tolist() == [3 * b] and got.flags.writeable
            got[...] = -1


def test_an_error_is_raised_every_time_and_names_its_op():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None], name="x")
        q = tf.math.floordiv(tf.constant(10), tf.size(x), name="per_row")
        y = tf.cast(q, tf.float32) + tf.reduce_sum(x)
        for b, want in ((2, 5.0), (0, None), (5, 2.0), (0, None), (2, 5.0), (0, None)):
            feed = {x: np.zeros(b, np.float32)}
            if want is None:
                with pytest.raises(errors.InvalidArgumentError, match="division by zero") as e:
                    sess.run(y, feed)
                assert "per_row" in str(e.value)
            else:
                assert sess.run(y, feed) == want


def test_more_shapes_than_the_memo_keeps_stay_right():
    with tf.Graph().as_default(), tf.Session() as sess:
        x, gx, expected = _mean_loss_gradient()
        for b in list(range(1, interpreter.MEMO_SHAPES + 6)) + [1, 2, 3]:
            np.testing.assert_array_equal(sess.run(gx, {x: np.ones((b, 3), np.float32)}), expected(b))


def test_compiled_and_step_loop_agree_bit_for_bit():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, None], name="x")
        loss = tf.reduce_mean(tf.square(x)) + tf.reduce_mean(x, axis=0)[0]
        (gx,) = tf.gradients(loss, [x])
        rng = np.random.default_rng(3)
        feeds = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5, 2), (3, 4), (1, 7))]
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)  # traced runs take the step loop
        for f in feeds * 2:
            compiled = sess.run([loss, gx], {x: f})
            loop = sess.run([loss, gx], {x: f}, options=opts, run_metadata=tf.RunMetadata())
            for a, b in zip(compiled, loop):
                assert a.tobytes() == b.tobytes()
