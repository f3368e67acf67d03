"""tf.PriorityQueue (ref/graph_ops/data_flow_ops.py over PriorityQueueV2) against
TF: smallest int64 priority first, the priority as component 0, static shapes,
dequeue_many after close, and the priority's type and shape checks."""
import numpy as np
import pytest

import ref
from ref.graph_ops import data_flow_ops as _under_test  # noqa: F401

_PRIOS = np.array([5, -2, 9, 0, 3], np.int64)
_VALS = np.array([b"five", b"minus two", b"nine", b"zero", b"three"], dtype=object)


def _single(tf):
    q = tf.PriorityQueue(10, [tf.string, tf.float32], shapes=[[], [2]])
    enq = q.enqueue_many([_PRIOS, _VALS, np.arange(10, dtype=np.float32).reshape(5, 2)])
    out = q.dequeue()
    with tf.Session() as s:
        s.run(enq)
        return [s.run(out) for _ in range(5)] + [[t.shape.as_list() for t in out]]


def _many(tf):
    q = tf.PriorityQueue(-1, [tf.int32], shapes=[[]])
    enq = [q.enqueue([tf.constant(p, tf.int64), tf.constant(int(p) * 10, tf.int32)]) for p in _PRIOS]
    many, rest = q.dequeue_many(2), q.dequeue_many(3)
    with tf.Session() as s:
        s.run(enq)
        s.run(q.close())
        return [s.run(many), s.run(rest), s.run(q.size())]


@pytest.mark.parametrize("build", [_single, _many], ids=["dequeue", "dequeue_many_after_close"])
def test_priority_queue_as_tensorflow(build):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        want = build(tf)
    with ref.Graph().as_default():
        got = build(ref)
    assert repr(got) == repr(want)


@pytest.mark.parametrize("priority", [np.array([1, 2], np.int64), 1.5], ids=["vector", "float"])
def test_priority_must_be_a_scalar_int64(priority):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib, err in ((tf, (tf.errors.InvalidArgumentError, ValueError, TypeError)),
                     (ref, (ref.errors.InvalidArgumentError, ValueError, TypeError))):
        with lib.Graph().as_default():
            q = lib.PriorityQueue(3, [lib.float32], shapes=[[]])
            with pytest.raises(err), lib.Session() as s:
                s.run(q.enqueue([priority, np.float32(1.0)]))


def test_shapes_are_required():
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(TypeError, match="Expected list for 'shapes'"):
            lib.PriorityQueue(3, [lib.float32])
