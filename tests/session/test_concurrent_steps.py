"""Ops of one Session.run that wait on each other (ref/session/interpreter/
concurrent.py) finish, as TF's executor runs ready ops at once: each row runs
in ref and in TF 2.21 (tf.compat.v1, TF1 behaviour) with a bounded time, and
the two must give the same values or the same error class."""
import queue
import threading
import time

import numpy as np
import pytest

from ref.session.interpreter import concurrent  # noqa: F401  (the step loop under test)

LIMIT_S = 20.0


def _tf():
    tf = pytest.importorskip("tensorflow.compat.v1")
    return tf


def _bounded(fn):
    """fn() on a thread; fails the test (instead of hanging) past LIMIT_S."""
    box = {}

    def main():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e
    t = threading.Thread(target=main, daemon=True)
    t.start()
    t.join(LIMIT_S)
    assert not t.is_alive(), "the run hung"
    if "error" in box:
        raise box["error"]
    return box["value"]


def py_funcs_through_a_queue(tf):
    q = queue.Queue()
    x = tf.constant(3.0)
    consumer = tf.py_func(lambda v: np.float32(q.get(timeout=15)), [x], tf.float32)
    producer = tf.py_func(lambda v: (q.put(v * 2), np.float32(1))[1], [x], tf.float32)
    return [consumer, producer]


def dequeue_with_its_enqueue(tf):
    fq = tf.FIFOQueue(10, tf.float32)
    return [fq.dequeue() * 2, fq.enqueue([tf.constant(7.0)])]


def dequeue_many_with_two_enqueues(tf):
    fq = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    return [fq.dequeue_many(3), fq.enqueue_many([tf.constant([1.0, 2.0])]), fq.enqueue([tf.constant(5.0)])]


def event_between_py_funcs(tf):
    ev = threading.Event()
    a = tf.py_func(lambda: (ev.wait(15), np.int64(1))[1], [], tf.int64)
    b = tf.py_func(lambda: (ev.set(), np.int64(2))[1], [], tf.int64)
    return [a, b]


ROWS = [py_funcs_through_a_queue, dequeue_with_its_enqueue, dequeue_many_with_two_enqueues, event_between_py_funcs]


def _values(lib, build):
    with lib.Graph().as_default():
        fetches = build(lib)
        with lib.Session() as s:
            return s.run(fetches)


@pytest.mark.parametrize("build", ROWS, ids=lambda f: f.__name__)
def test_ops_waiting_on_each_other_finish_as_in_tf(build):
    import ref
    got = _bounded(lambda: _values(ref, build))
    want = _bounded(lambda: _values(_tf(), build))
    assert [None if g is None else sorted(np.asarray(g).reshape(-1).tolist()) for g in got] == \
        [None if w is None else sorted(np.asarray(w).reshape(-1).tolist()) for w in want]  # enqueue order: a race in TF


def _error(lib, build, options=None, message=False):
    with lib.Graph().as_default():
        fetches = build(lib)
        with lib.Session() as s:
            try:
                s.run(fetches, options=options)
            except lib.errors.OpError as e:
                return (type(e).__name__, e.message) if message else type(e).__name__
    return None


def failing_assert_and_blocked_dequeue(tf):
    fq = tf.FIFOQueue(10, tf.float32)
    return [fq.dequeue(), tf.Assert(tf.constant(False), [tf.constant(1)])]


def failing_py_func_and_blocked_dequeue(tf):
    fq = tf.FIFOQueue(10, tf.float32)
    bad = tf.py_func(lambda: "x", [], tf.float32)  # a string for a float32 output: an error
    return [fq.dequeue(), bad]


@pytest.mark.parametrize("build", [failing_assert_and_blocked_dequeue, failing_py_func_and_blocked_dequeue],
                         ids=lambda f: f.__name__)
def test_a_failing_op_cancels_a_blocked_one_as_in_tf(build):
    import ref
    start = time.monotonic()
    got = _bounded(lambda: _error(ref, build))
    assert time.monotonic() - start < LIMIT_S
    assert got is not None and got == _bounded(lambda: _error(_tf(), build))


def test_timeout_in_ms_bounds_a_blocked_dequeue_as_in_tf():
    import ref

    def build(t):
        return [t.FIFOQueue(10, t.float32).dequeue() + 1, t.constant(2.0) * 3]
    for lib in (ref, _tf()):
        start = time.monotonic()
        kind, message = _bounded(lambda: _error(lib, build, lib.RunOptions(timeout_in_ms=300), message=True))
        assert kind == "DeadlineExceededError" and "Timed out waiting for notification" in message, message
        assert time.monotonic() - start < 10


def test_a_plan_whose_blocking_ops_never_wait_keeps_plan_order():
    """Enqueues and a dequeue that never block: the same values as running them one at a time."""
    import ref
    with ref.Graph().as_default():
        fq = ref.FIFOQueue(10, ref.float32, shapes=[[]])
        v = ref.Variable(0.0)
        with ref.control_dependencies([fq.enqueue([v + 1])]):
            upd = ref.assign_add(v, 10.0)
        with ref.Session() as s:
            s.run(v.initializer)
            for _ in range(3):
                s.run(upd)
            assert s.run(fq.dequeue_many(3)).tolist() == [1.0, 11.0, 21.0]
