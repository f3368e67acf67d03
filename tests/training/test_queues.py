"""Queues: FIFOQueue, PaddingFIFOQueue and RandomShuffleQueue give what
tensorflow.compat.v1 gives (values, op names, static shapes, error types and
messages), and block, wake and cancel as TF's QueueBase does.

Every blocking case runs its waiting side in a daemon thread joined with a
timeout, so a regression fails instead of hanging."""
import re
import threading

import numpy as np
import pytest

import ref
from ref.types import errors
from ref.training import queue_runner as _under_test  # noqa: F401  (the module these tests cover)

WAIT = 5.0  # seconds a test waits for a thread that should finish
BLOCKED = 0.15  # seconds after which a thread that should block is checked


# ---------------------------------------------------------------------------
# Running one program in ref and in TensorFlow
# ---------------------------------------------------------------------------

def _message(e) -> str:
    """The kernel's message line: ref puts it first, TF just before ``\\t [[node``."""
    lines = str(e).split("\n")
    for i, line in enumerate(lines):
        if line.startswith("\t [["):
            text = lines[i - 1]
            break
    else:
        text = lines[0]
    return re.sub(r"'_\d+_", "'_N_", text)


def _norm(v):
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v]
    if isinstance(v, (np.ndarray, np.generic)):
        return _norm(v.tolist()) if v.dtype == object else v.tolist()
    if isinstance(v, bytes):
        return v.decode()
    return v


def _run_program(tf, program):
    """Builds ``program(tf)`` in a new graph; runs its steps in order; returns
    each step's value or (error class name, message)."""
    g = tf.Graph()
    with g.as_default():
        steps = program(tf)
        out = []
        with tf.Session(graph=g) as sess:
            for step in steps:
                fetch, feed, post = step if isinstance(step, tuple) else (step, None, None)
                try:
                    v = _norm(sess.run(fetch, feed))
                    out.append(post(v) if post else v)
                except (errors.OpError, tf.errors.OpError) as e:
                    out.append((type(e).__name__, _message(e)))
    return out


def _fifo_order(tf):
    q = tf.FIFOQueue(10, [tf.int32], shapes=[[]])
    return [q.enqueue_many([[1, 2, 3, 4, 5]]), q.dequeue(), q.dequeue(), q.dequeue_many(2), q.size(), q.close(),
            q.is_closed(), q.dequeue(), q.dequeue(), q.size()]


def _many_after_close(tf):
    q = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[[2], []])
    return [q.enqueue_many([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [7, 8, 9]]), q.close(), q.dequeue_many(2),
            q.dequeue_many(2), q.dequeue_up_to(5), q.dequeue_up_to(5), q.dequeue()]


def _close_twice(tf):
    q = tf.FIFOQueue(3, [tf.int32], shapes=[[]])
    return [q.enqueue(7), q.close(), q.close(), q.enqueue(8), q.close(cancel_pending_enqueues=True), q.size(),
            q.is_closed(), q.dequeue(), q.dequeue()]


def _runtime_shapes(tf):
    q = tf.FIFOQueue(5, [tf.float32], shapes=[[2]])
    ph = tf.placeholder(tf.float32)
    one, many = q.enqueue(ph), q.enqueue_many(ph)
    return [(one, {ph: [1.0, 2.0, 3.0]}, None), (many, {ph: [[1.0, 2.0], [3.0, 4.0]]}, None),
            (many, {ph: [[1.0, 2.0, 3.0]]}, None), (one, {ph: 5.0}, None), q.size(), q.dequeue_many(2)]


def _unspecified_shapes(tf):
    q = tf.FIFOQueue(5, [tf.int32, tf.int32])
    a, b = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    one, many = q.enqueue([a, b]), q.enqueue_many([a, b])
    return [(one, {a: [1, 2], b: 3}, None), (one, {a: 4, b: [[5]]}, None),
            (many, {a: [1, 2], b: [1, 2, 3]}, None), q.dequeue(), q.dequeue(), q.dequeue_many(1)]


def _padding(tf):
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None, 2]])
    a, s = tf.placeholder(tf.int32), tf.placeholder(tf.string)
    e = q.enqueue([a, s])
    return [(e, {a: [1], s: [["a", "b"]]}, None), (e, {a: [1, 2, 3], s: [["c", "d"], ["e", "f"]]}, None),
            (e, {a: [[1]], s: [["a", "b"]]}, None), (e, {a: [4, 5], s: [["a", "b", "c"]]}, None),
            q.dequeue_many(2), (e, {a: [9, 8], s: [["x", "y"]]}, None), q.close(), q.dequeue_up_to(4),
            q.dequeue_up_to(4)]


def _padding_many(tf):
    q = tf.PaddingFIFOQueue(5, [tf.float32], shapes=[[None]])
    return [q.enqueue_many([[[1.0, 2.0], [3.0, 4.0]]]), q.enqueue([[5.0]]), q.dequeue_many(3), q.dequeue_many(0)]


def _names(tf):
    q = tf.FIFOQueue(5, [tf.int32, tf.float32], shapes=[[], [2]], names=["n", "x"])
    return [q.enqueue({"n": 1, "x": [1.0, 2.0]}), q.enqueue_many({"n": [2, 3], "x": [[3.0, 4.0], [5.0, 6.0]]}),
            q.dequeue(), q.dequeue_many(2)]


def _shuffle_drain(tf):
    q = tf.RandomShuffleQueue(10, 2, [tf.int32], shapes=[[]], seed=3)
    # which elements leave is random (TF's generator is Philox): compare counts
    return [q.enqueue_many([[1, 2, 3, 4, 5, 6]]), (q.dequeue_many(3), None, len), q.size(), q.close(),
            q.dequeue_many(4), (q.dequeue_up_to(4), None, len), q.dequeue(), q.dequeue_up_to(1)]


def _int64_and_bool(tf):
    q = tf.FIFOQueue(4, [tf.int64, tf.bool], shapes=[[], [3]])
    return [q.enqueue([2**40, [True, False, True]]), q.enqueue_many([[5, 6], [[False] * 3, [True] * 3]]),
            q.dequeue_many(3)]


def _padding_many_partial_shape(tf):
    """EnqueueMany checks each component against [batch] + its partial shape (TF's message)."""
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.int32], shapes=[[], [None, 3]])
    a, b = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    many = q.enqueue_many([a, b])
    return [(many, {a: [1, 2], b: np.zeros((2, 3, 4), np.int32)}, None),
            (many, {a: [1, 2], b: np.zeros((2, 5, 3), np.int32)}, None), q.size()]


def _priority_non_scalar(tf):
    """A priority of shape [2] fails the tuple's shape check first ([] was specified for it)."""
    q = tf.PriorityQueue(10, (tf.string,), (()))
    p, v = tf.placeholder(tf.int64), tf.placeholder(tf.string)
    e = q.enqueue((p, v))
    return [(e, {p: np.array([0, 2], np.int64), v: ["a", "b"]}, None), (e, {p: 3, v: "c"}, None), q.size()]


def _shared_shuffle_seeds(tf):
    """A shared RandomShuffleQueue is matched against the seeds asked for (none asked: any)."""
    a = tf.RandomShuffleQueue(10, 5, tf.float32, seed=12, shared_name="q_h")
    b = tf.RandomShuffleQueue(10, 5, tf.float32, seed=21, shared_name="q_h")
    c = tf.RandomShuffleQueue(10, 2, tf.float32, seed=21, shared_name="q_h")
    return [a.queue_ref.op, b.queue_ref.op, c.queue_ref.op]


PROGRAMS = [_fifo_order, _many_after_close, _close_twice, _runtime_shapes, _unspecified_shapes, _padding,
            _padding_many, _names, _shuffle_drain, _int64_and_bool, _padding_many_partial_shape,
            _priority_non_scalar, _shared_shuffle_seeds]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__.strip("_") for p in PROGRAMS])
def test_program_matches_tensorflow(program, rtf, tf1):
    assert _run_program(rtf, program) == _run_program(tf1, program)


EXPECTED = {  # independent of TF: the documented semantics, written out
    _fifo_order: [None, 1, 2, [3, 4], 1, None, True, 5,
                  ("OutOfRangeError", "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements "
                                      "(requested 1, current size 0)"), 0],
    _close_twice: [None, None, ("CancelledError", "Queue '_N_fifo_queue' is already closed."),
                   ("CancelledError", "FIFOQueue '_N_fifo_queue' is closed."), None, 1, True, 7,
                   ("OutOfRangeError", "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements "
                                       "(requested 1, current size 0)")],
}


@pytest.mark.parametrize("program", list(EXPECTED), ids=[p.__name__.strip("_") for p in EXPECTED])
def test_program_expected(program, rtf):
    assert _run_program(rtf, program) == EXPECTED[program]


# ---------------------------------------------------------------------------
# Graph construction: op names, types, static shapes, argument errors
# ---------------------------------------------------------------------------

def _build_all(tf):
    qs = [tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]]),
          tf.PaddingFIFOQueue(3, [tf.int32], shapes=[[None, 3]]),
          tf.RandomShuffleQueue(5, 1, tf.float32, shapes=[4], name="rsq"),
          tf.FIFOQueue(2, tf.int32, name="plain")]
    one = [[1, [1.0, 2.0]], [[[1, 2, 3]]], [[1.0, 2.0, 3.0, 4.0]], [[5, 6]]]
    many = [[[1, 2], [[1.0, 2.0], [3.0, 4.0]]], [[[[1, 2, 3]]]], [[[1.0, 2.0, 3.0, 4.0]]], [[[5, 6]]]]
    tensors = []
    for q, a, b in zip(qs, one, many):
        q.enqueue(a)
        q.enqueue_many(b)
        for t in (q.dequeue(), q.dequeue_many(4), q.dequeue_up_to(2)):
            tensors.extend(t if isinstance(t, list) else [t])
        q.close()
        q.close(True)
        tensors += [q.size(), q.is_closed()]
    ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
    shapes = [(t.name, t.dtype.name, t.shape.as_list() if t.shape.ndims is not None else None) for t in tensors]
    names = [(q.name, q.queue_ref.name, q.queue_ref.dtype.name) for q in qs]
    return ops, shapes, names


def test_graph_matches_tensorflow(rtf, tf1):
    with rtf.Graph().as_default():
        mine = _build_all(rtf)
    with tf1.Graph().as_default():
        theirs = _build_all(tf1)
    assert mine == theirs


@pytest.mark.parametrize("build, exc", [
    (lambda tf: tf.FIFOQueue(3, [tf.int32], shapes=[[None]]), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32], shapes=[[1], [2]]), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32], names=["a", "b"]), ValueError),
    (lambda tf: tf.PaddingFIFOQueue(3, [tf.int32], shapes=None), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32], shapes=[[]]).enqueue([[1, 2]]), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32], shapes=[[2]]).enqueue_many([[1, 2]]), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32], names=["a"]).enqueue([1]), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32], names=["a"]).enqueue({"b": 1}), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32]).enqueue({"a": 1}), ValueError),
    (lambda tf: tf.FIFOQueue(3, [tf.int32]).enqueue("x"), TypeError),
], ids=["partial-shape", "shapes-length", "names-length", "padding-no-shapes", "enqueue-shape",
        "enqueue-many-shape", "list-into-named", "wrong-key", "dict-into-unnamed", "wrong-dtype"])
def test_construction_errors(build, exc, rtf, tf1):
    for tf in (rtf, tf1):
        with tf.Graph().as_default(), pytest.raises(exc):
            build(tf)


# ---------------------------------------------------------------------------
# Blocking, waking, cancelling (ref only: timing-dependent)
# ---------------------------------------------------------------------------

class _Call:
    """``fn()`` in a daemon thread; ``result()`` waits for it."""

    def __init__(self, fn):
        self.value = self.error = None
        self.thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self.thread.start()

    def _run(self, fn):
        try:
            self.value = fn()
        except Exception as e:  # handed to the test
            self.error = e

    def blocked(self) -> bool:
        self.thread.join(BLOCKED)
        return self.thread.is_alive()

    def result(self):
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), "thread did not finish"
        if self.error is not None:
            raise self.error
        return self.value


@pytest.fixture
def session(rtf):
    g = rtf.Graph()
    with g.as_default():
        sess = rtf.Session(graph=g)
        yield sess
        sess.close()


def test_dequeue_waits_for_enqueue(rtf, session):
    q = rtf.FIFOQueue(3, [rtf.int32], shapes=[[]])
    deq = q.dequeue()
    call = _Call(lambda: session.run(deq))
    assert call.blocked()
    session.run(q.enqueue(42))
    assert call.result() == 42


def test_enqueue_blocks_at_capacity(rtf, session):
    q = rtf.FIFOQueue(2, [rtf.int32], shapes=[[]])
    session.run(q.enqueue_many([[1, 2]]))
    enq = q.enqueue(3)
    call = _Call(lambda: session.run(enq))
    assert call.blocked()
    assert session.run(q.size()) == 2
    assert session.run(q.dequeue()) == 1
    call.result()
    assert session.run(q.dequeue_many(2)).tolist() == [2, 3]


def test_enqueue_many_larger_than_capacity(rtf, session):
    """Rows go in as room appears; a concurrent consumer sees them all, in order."""
    q = rtf.FIFOQueue(3, [rtf.int32], shapes=[[]])
    enq, deq = q.enqueue_many([np.arange(10, dtype=np.int32)]), q.dequeue()
    call = _Call(lambda: session.run(enq))
    got = [session.run(deq) for _ in range(10)]
    call.result()
    assert got == list(range(10))


def test_dequeue_many_larger_than_capacity(rtf, session):
    q = rtf.FIFOQueue(2, [rtf.int32], shapes=[[]])
    enq = q.enqueue_many([np.arange(7, dtype=np.int32)])
    call = _Call(lambda: session.run(enq))
    assert session.run(q.dequeue_many(7)).tolist() == list(range(7))
    call.result()


_REFILL_QUEUES = {
    "FIFOQueue": lambda tf: tf.FIFOQueue(5, tf.int32, ((),)),
    "PaddingFIFOQueue": lambda tf: tf.PaddingFIFOQueue(5, tf.int32, ((),)),
    "RandomShuffleQueue": lambda tf: tf.RandomShuffleQueue(5, 0, tf.int32, ((),), seed=3),
}


@pytest.mark.parametrize("kind", sorted(_REFILL_QUEUES))
def test_dequeue_refills_from_blocked_enqueue(kind, rtf, session):
    """TF's QueueBase moves a blocked enqueue's rows into the room a dequeue makes before the dequeue
    returns (TF's fifo_queue_test ``testBigEnqueueMany``): the size read right after stays at capacity
    and the blocked enqueue finishes with its last row."""
    q = _REFILL_QUEUES[kind](rtf)
    enq, deq, size = q.enqueue_many(([1, 2, 3, 4, 5, 6, 7, 8, 9, 10],)), q.dequeue(), q.size()
    call = _Call(lambda: session.run(enq))
    got = [session.run(deq)]
    assert session.run(size) == 5
    got += [session.run(deq) for _ in range(3)]
    assert session.run(size) == 5 and call.blocked()
    got.append(session.run(deq))
    call.result()
    for i in range(5):
        assert session.run(size) == 5 - i
        got.append(session.run(deq))
    assert sorted(got) == list(range(1, 11))
    if kind != "RandomShuffleQueue":
        assert got == list(range(1, 11))


def test_close_preserves_pending_enqueues(rtf, session):
    """close() waits behind a blocked enqueue, which completes once there is room."""
    q = rtf.FIFOQueue(1, [rtf.int32], shapes=[[]])
    session.run(q.enqueue(1))
    enq_op, close_op = q.enqueue(2), q.close()
    enq = _Call(lambda: session.run(enq_op))
    assert enq.blocked()
    close = _Call(lambda: session.run(close_op))
    assert close.blocked()
    assert session.run(q.dequeue()) == 1
    enq.result()
    close.result()
    assert session.run(q.dequeue()) == 2
    with pytest.raises(errors.OutOfRangeError, match="is closed and has insufficient elements"):
        session.run(q.dequeue())


def test_close_cancel_pending_enqueues(rtf, session):
    q = rtf.FIFOQueue(1, [rtf.int32], shapes=[[]])
    session.run(q.enqueue(1))
    enq_op = q.enqueue(2)
    enq = _Call(lambda: session.run(enq_op))
    assert enq.blocked()
    session.run(q.close(cancel_pending_enqueues=True))
    with pytest.raises(errors.CancelledError, match="Enqueue operation was cancelled"):
        enq.result()
    assert session.run([q.size(), q.is_closed()]) == [1, True]


def test_close_wakes_blocked_dequeue(rtf, session):
    q = rtf.FIFOQueue(3, [rtf.int32], shapes=[[]])
    session.run(q.enqueue(5))
    deq = q.dequeue_many(2)
    call = _Call(lambda: session.run(deq))
    assert call.blocked()
    session.run(q.close())
    with pytest.raises(errors.OutOfRangeError, match=r"\(requested 1, current size 0\)"):
        call.result()
    assert session.run(q.dequeue()) == 5  # the partly collected element went back


def test_dequeue_up_to_returns_remainder_after_close(rtf, session):
    q = rtf.FIFOQueue(5, [rtf.int32], shapes=[[]])
    session.run(q.enqueue_many([[1, 2]]))
    deq = q.dequeue_up_to(3)
    call = _Call(lambda: session.run(deq))
    assert call.blocked()
    session.run(q.close())
    assert call.result().tolist() == [1, 2]


@pytest.mark.parametrize("kind", ["dequeue", "enqueue"])
def test_session_close_cancels_blocked_run(kind, rtf, session):
    q = rtf.FIFOQueue(1, [rtf.int32], shapes=[[]])
    if kind == "enqueue":
        session.run(q.enqueue(0))
    op = q.dequeue() if kind == "dequeue" else q.enqueue(1)
    call = _Call(lambda: session.run(op))
    assert call.blocked()
    session.close()
    with pytest.raises(errors.CancelledError, match=f"{kind.capitalize()} operation was cancelled"):
        call.result()


def test_blocked_dequeue_holds_no_lock_other_runs_need(rtf, session):
    """A variable update runs while another thread waits in a dequeue."""
    q = rtf.FIFOQueue(1, [rtf.float32], shapes=[[]])
    v = rtf.Variable(1.0)
    step = rtf.assign_add(v, 2.0)
    session.run(v.initializer)
    deq = q.dequeue()
    call = _Call(lambda: session.run(deq))
    assert call.blocked()
    assert session.run(step) == 3.0
    session.run(q.enqueue(step))
    assert call.result() == 5.0


def test_random_shuffle_queue_keeps_min_after_dequeue(rtf, session):
    q = rtf.RandomShuffleQueue(10, 2, [rtf.int32], shapes=[[]], seed=7)
    session.run(q.enqueue_many([[10, 20]]))
    deq = q.dequeue()
    call = _Call(lambda: session.run(deq))
    assert call.blocked()  # 2 elements, none may leave while the queue is open
    session.run(q.enqueue(30))
    first = call.result()
    assert session.run(q.size()) == 2
    session.run(q.close())
    rest = sorted(session.run(q.dequeue_up_to(5)).tolist())
    assert sorted([first] + rest) == [10, 20, 30]


@pytest.mark.parametrize("seed", [1, 2])
def test_random_shuffle_queue_permutes_deterministically(seed, rtf):
    """A seeded queue gives the same order in two sessions; it is a permutation,
    and (for this many elements) not the insertion order."""
    orders = []
    for _ in range(2):
        g = rtf.Graph()
        with g.as_default():
            q = rtf.RandomShuffleQueue(100, 0, [rtf.int32], shapes=[[]], seed=seed)
            with rtf.Session(graph=g) as sess:
                sess.run(q.enqueue_many([np.arange(50, dtype=np.int32)]))
                orders.append(sess.run(q.dequeue_many(50)).tolist())
    assert orders[0] == orders[1]
    assert sorted(orders[0]) == list(range(50))
    assert orders[0] != list(range(50))


def test_many_producers_and_consumers(rtf, session):
    """4 producers x 25 elements through a capacity-3 queue, 4 consumers: every
    element arrives exactly once, each producer's elements in order."""
    q = rtf.FIFOQueue(3, [rtf.int32, rtf.int32], shapes=[[], []])
    ph_p, ph_i = rtf.placeholder(rtf.int32, []), rtf.placeholder(rtf.int32, [])
    enq, deq = q.enqueue([ph_p, ph_i]), q.dequeue()
    received = [[] for _ in range(4)]

    def produce(p):
        for i in range(25):
            session.run(enq, {ph_p: p, ph_i: i})

    def consume(c):
        for _ in range(25):
            received[c].append(tuple(int(x) for x in session.run(deq)))

    calls = [_Call(lambda p=p: produce(p)) for p in range(4)] + [_Call(lambda c=c: consume(c)) for c in range(4)]
    for c in calls:
        c.result()
    everything = sorted(x for r in received for x in r)
    assert everything == sorted((p, i) for p in range(4) for i in range(25))
    for r in received:
        for p in range(4):
            mine = [i for (pp, i) in r if pp == p]
            assert mine == sorted(mine)


def test_shared_name_shares_within_session(rtf, session):
    q1 = rtf.FIFOQueue(5, [rtf.int32], shapes=[[]], shared_name="shared_q", name="q1")
    q2 = rtf.FIFOQueue(5, [rtf.int32], shapes=[[]], shared_name="shared_q", name="q2")
    q3 = rtf.FIFOQueue(6, [rtf.int32], shapes=[[]], shared_name="shared_q", name="q3")
    session.run(q1.enqueue(4))
    assert session.run(q2.dequeue()) == 4
    with pytest.raises(errors.InvalidArgumentError, match="has capacity 5 but requested capacity was 6"):
        session.run(q3.size())


def test_raw_ops_queue():
    """The pure calls: a queue handle from FIFOQueueV2, used by the other ops."""
    h = ref.raw_ops.FIFOQueueV2(component_types=[ref.int32], shapes=[[2]], capacity=4)
    ref.raw_ops.QueueEnqueueManyV2(handle=h, components=[np.array([[1, 2], [3, 4]], np.int32)])
    assert int(ref.raw_ops.QueueSizeV2(handle=h)) == 2
    (row,) = ref.raw_ops.QueueDequeueV2(handle=h, component_types=[ref.int32])
    assert row.tolist() == [1, 2]
    ref.raw_ops.QueueCloseV2(handle=h)
    assert bool(ref.raw_ops.QueueIsClosedV2(handle=h))
    (rest,) = ref.raw_ops.QueueDequeueUpToV2(handle=h, n=5, component_types=[ref.int32])
    assert rest.tolist() == [[3, 4]]
