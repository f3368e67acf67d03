"""Every run honours RunOptions.timeout_in_ms (an endless while_loop ends in
DeadlineExceededError), and a failing op of a run ends it before any of its
blocking kernels waits (TF cancels them): a table of loops and of blocking
kernels, against TF's outcome."""
import os
import threading

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import ref.session  # noqa: F401  (the package these tests cover)
import ref  # noqa: E402

LOOPS = [
    ("endless", lambda tf: tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)])),
    ("endless_two_vars", lambda tf: tf.while_loop(lambda i, x: i >= 0, lambda i, x: (i + 1, x * 1.0),
                                                  [tf.constant(0), tf.constant(1.0)])),
    ("nested", lambda tf: tf.while_loop(
        lambda i: i >= 0, lambda i: tf.while_loop(lambda j: j < i + 3, lambda j: j + 1, [i]) - 2, [tf.constant(0)])),
    ("endless_gradient", lambda tf: _endless_gradient(tf)),
]


def _endless_gradient(tf):
    """The gradient of an endless TF 1.x loop (its forward loop never ends)."""
    x = tf.constant(1.0)
    _, y = tf.while_loop(lambda i, y: i >= 0, lambda i, y: (i + 1, y * x), [tf.constant(0), x])
    return tf.gradients(y, x)[0]


def _timed(lib, build, ms):
    with lib.Graph().as_default():
        out = build(lib)
        with lib.Session() as s:
            try:
                s.run(out, options=lib.RunOptions(timeout_in_ms=ms))
            except lib.errors.OpError as e:
                return type(e).__name__
    return "ran"


@pytest.mark.parametrize("case,build", LOOPS, ids=[c[0] for c in LOOPS])
def test_endless_loop_hits_the_deadline(case, build):
    # TF's executor checks the step's deadline (the oracle is TF's documented
    # DeadlineExceededError; TF itself is not run: a TF loop whose condition
    # grappler folds to True never returns).
    want = "DeadlineExceededError"
    result = []
    t = threading.Thread(target=lambda: result.append(_timed(ref, build, 200)), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the run ignored timeout_in_ms"
    assert result == [want]


def _blocker(tf, kind):
    if kind == "dequeue":
        return tf.FIFOQueue(2, tf.float32).dequeue()
    if kind == "dequeue_many":
        return tf.FIFOQueue(2, tf.float32, shapes=[[]]).dequeue_many(3)
    if kind == "dequeue_up_to":
        return tf.FIFOQueue(2, tf.float32, shapes=[[]]).dequeue_up_to(3)
    if kind == "padding_dequeue":
        return tf.PaddingFIFOQueue(2, tf.float32, shapes=[[None]]).dequeue()
    if kind == "shuffle_dequeue":
        return tf.RandomShuffleQueue(4, 1, tf.float32).dequeue()
    if kind == "enqueue_full":
        q = tf.FIFOQueue(1, tf.float32)
        return q.enqueue_many([[1.0, 2.0]])
    if kind == "take_grad":
        return tf.ConditionalAccumulator(tf.float32, shape=()).take_grad(1)
    raise ValueError(kind)


BLOCKERS = ["dequeue", "dequeue_many", "dequeue_up_to", "padding_dequeue", "shuffle_dequeue", "enqueue_full",
            "take_grad"]


def _failing_run(lib, kind, blocker_first):
    with lib.Graph().as_default():
        x = lib.placeholder(lib.int32, [])
        fail = lib.Assert(lib.equal(x, 1), ["x must be 1"])
        blocked = _blocker(lib, kind)
        with lib.Session() as s:
            try:
                s.run([blocked, fail] if blocker_first else [fail, blocked], {x: 0},
                      options=lib.RunOptions(timeout_in_ms=20000))
            except lib.errors.OpError as e:
                return type(e).__name__
    return "ran"


@pytest.mark.parametrize("blocker_first", [True, False])
@pytest.mark.parametrize("kind", BLOCKERS)
def test_failing_op_cancels_blocking_kernels(kind, blocker_first):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _failing_run(tf, kind, blocker_first)
    assert want == "InvalidArgumentError"
    assert _failing_run(ref, kind, blocker_first) == want


def _assert_in_loop(lib, parallel_iterations):
    """A TF 1.x loop (the default) whose body's Assert fails at iteration 5 of 1000."""
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [])

        def body(i, y):
            check = lib.Assert(i < 5, ["i reached", i])
            with lib.control_dependencies([check]):
                return i + 1, y * x

        _, y = lib.while_loop(lambda i, y: i < 1000, body, [lib.constant(0), x],
                              parallel_iterations=parallel_iterations)
        (g,) = lib.gradients(y, x)
        with lib.Session() as s:
            try:
                s.run([y, g], {x: 1.0}, options=lib.RunOptions(timeout_in_ms=20000))
            except lib.errors.OpError as e:
                return type(e).__name__, "i reached" in str(e)
    return "ran"


@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_failing_assert_ends_a_loop(parallel_iterations):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tests.graph_ops._graphdef import tf1_behaviour

    with tf1_behaviour():
        want = _assert_in_loop(tf, parallel_iterations)
    assert want == ("InvalidArgumentError", True)
    assert _assert_in_loop(ref, parallel_iterations) == want
