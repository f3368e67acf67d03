"""Input pipelines and QueueRunner: deterministic (unshuffled, one-thread)
pipelines give the same batches, in the same order, ending with the same
OutOfRangeError, as tensorflow.compat.v1; shuffled ones the same multiset.

Every pipeline is drained with a Coordinator and joined with a grace period,
so a regression fails instead of hanging."""
import threading

import numpy as np
import pytest

from ref.types import errors
from ref.protos import queue_runner_pb2
from ref.training import input as _under_test  # noqa: F401  (the module these tests cover)

GRACE = 5.0
MAX_STEPS = 200


def _norm(v):
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v]
    if isinstance(v, np.ndarray):
        return _norm(v.tolist()) if v.dtype == object else v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, bytes):
        return v.decode()
    return v


def _drain(tf, build):
    """Runs ``build(tf)``'s fetch until OutOfRangeError; returns the values."""
    g = tf.Graph()
    with g.as_default():
        fetch = build(tf)
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        with tf.Session(graph=g) as sess:
            sess.run(init)
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            out = []
            try:
                for _ in range(MAX_STEPS):
                    out.append(_norm(sess.run(fetch)))
            except tf.errors.OutOfRangeError:
                out.append("OutOfRange")
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=GRACE)
    return out


def _strings(tf):
    return tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False).dequeue()


def _strings_batched(tf):
    x = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False).dequeue()
    return tf.train.batch([x], batch_size=2, allow_smaller_final_batch=True)


def _range_full_batches(tf):
    x = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
    return tf.train.batch([x], batch_size=3)


def _slices(tf):
    ints = tf.constant([1, 2, 3])
    floats = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    i, f = tf.train.slice_input_producer([ints, floats], num_epochs=2, shuffle=False)
    return tf.train.batch([i, f], batch_size=4, allow_smaller_final_batch=True)


def _rows_dequeue_many(tf):
    q = tf.train.input_producer(tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]]), num_epochs=1, shuffle=False,
                                capacity=3)
    return q.dequeue_many(2)


def _enqueue_many_batch(tf):
    q = tf.train.input_producer(tf.constant([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]), num_epochs=1,
                                shuffle=False)
    pair = q.dequeue_many(1)
    return tf.train.batch([pair], batch_size=2, enqueue_many=True, allow_smaller_final_batch=True)


def _dynamic_pad(tf):
    n = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    return tf.train.batch([tf.range(n), n], batch_size=2, dynamic_pad=True, allow_smaller_final_batch=True)


def _maybe_batch_vector(tf):
    x = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue_many(5)
    return tf.train.maybe_batch([x], tf.equal(x % 2, 0), batch_size=2, enqueue_many=True,
                                allow_smaller_final_batch=True)


def _maybe_batch_scalar(tf):
    x = tf.train.range_input_producer(9, num_epochs=1, shuffle=False).dequeue()
    return tf.train.maybe_batch([x], x > 4, batch_size=2, allow_smaller_final_batch=True)


def _dict_batch(tf):
    i, f = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant([0.5, 1.5, 2.5])], num_epochs=1,
                                         shuffle=False)
    return tf.train.batch({"i": i, "f": f}, batch_size=2, allow_smaller_final_batch=True)


def _batch_join_one(tf):
    x = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    return tf.train.batch_join([[x, x * 10]], batch_size=2, allow_smaller_final_batch=True)


PIPELINES = [_strings, _strings_batched, _range_full_batches, _slices, _rows_dequeue_many, _enqueue_many_batch,
             _dynamic_pad, _maybe_batch_vector, _maybe_batch_scalar, _dict_batch, _batch_join_one]


@pytest.mark.parametrize("build", PIPELINES, ids=[p.__name__.strip("_") for p in PIPELINES])
def test_pipeline_matches_tensorflow(build, rtf, tf1):
    assert _drain(rtf, build) == _drain(tf1, build)


EXPECTED = {  # the documented behaviour written out (seed 002, batch / input producers)
    _strings: ["a", "b", "c", "a", "b", "c", "OutOfRange"],
    _strings_batched: [["a", "b"], ["c", "a"], ["b", "c"], "OutOfRange"],
    _range_full_batches: [[0, 1, 2], [3, 4, 5], "OutOfRange"],  # "the pending elements are discarded"
    # padded "on the right to the maximum shape of the tensors in the current minibatch"
    _dynamic_pad: [[[[0], [0]], [0, 1]], [[[0, 1, 0], [0, 1, 2]], [2, 3]], [[[0, 1, 2, 3]], [4]], "OutOfRange"],
}


@pytest.mark.parametrize("build", list(EXPECTED), ids=[p.__name__.strip("_") for p in EXPECTED])
def test_pipeline_expected(build, rtf):
    assert _drain(rtf, build) == EXPECTED[build]


def _shuffled(tf):
    x = tf.train.range_input_producer(10, num_epochs=2, shuffle=True, seed=4).dequeue()
    return tf.train.shuffle_batch([x], batch_size=3, capacity=8, min_after_dequeue=2, seed=5,
                                  allow_smaller_final_batch=True)


def _shuffled_join(tf):
    a = tf.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.string_input_producer(["u", "v"], num_epochs=1, shuffle=True, seed=1).dequeue()
    return tf.train.shuffle_batch_join([[a, tf.constant("n")], [tf.constant(-1), b]], batch_size=4, capacity=6,
                                       min_after_dequeue=1, allow_smaller_final_batch=True)


def _multiset(out):
    assert out[-1] == "OutOfRange"
    batches = out[:-1]
    if isinstance(batches[0][0], list):  # several components: rows of tuples
        return sorted(tuple(row) for b in batches for row in zip(*b))
    return sorted(x for b in batches for x in b)


@pytest.mark.parametrize("build, expected", [
    (_shuffled, sorted(list(range(10)) * 2)),
    (_shuffled_join, sorted([(i, "n") for i in range(6)] + [(-1, "u"), (-1, "v")])),
], ids=["shuffle_batch", "shuffle_batch_join"])
def test_shuffled_pipeline_multiset(build, expected, rtf, tf1):
    mine = _multiset(_drain(rtf, build))
    assert mine == _multiset(_drain(tf1, build))
    assert mine == expected


def test_shuffle_is_seeded(rtf):
    """Same seeds, same order; the order is not the input order."""
    first, second = _drain(rtf, _shuffled), _drain(rtf, _shuffled)
    assert first == second
    assert [x for b in first[:-1] for x in b] != sorted(x for b in first[:-1] for x in b)


def _pipeline_graph(tf):
    x = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
    tf.train.batch([x], batch_size=3)
    tf.train.shuffle_batch([x], batch_size=2, capacity=10, min_after_dequeue=3)
    g = tf.get_default_graph()
    # constants and summaries are named by other modules' conversion rules
    ops = [(o.name, o.type) for o in g.get_operations() if o.type != "Const" and "fraction_" not in o.name]
    protos = [qr.to_proto().SerializeToString() for qr in g.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]
    local = [v.name for v in g.get_collection(tf.GraphKeys.LOCAL_VARIABLES)]
    return ops, protos, local


def test_pipeline_graph_matches_tensorflow(rtf, tf1):
    with rtf.Graph().as_default():
        mine = _pipeline_graph(rtf)
    with tf1.Graph().as_default():
        theirs = _pipeline_graph(tf1)
    assert mine == theirs


# ---------------------------------------------------------------------------
# A training loop fed by a queue
# ---------------------------------------------------------------------------

def _train(tf):
    """Linear regression on 8 examples, 3 epochs, batches of 4, unshuffled."""
    xs = np.arange(16, dtype=np.float32).reshape(8, 2) / 10.0
    ys = (xs @ np.array([[1.5], [-2.0]], np.float32) + 0.25).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x, y = tf.train.slice_input_producer([tf.constant(xs), tf.constant(ys)], num_epochs=3, shuffle=False)
        bx, by = tf.train.batch([x, y], batch_size=4)
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(bx, w) + b - by))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session(graph=g) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            steps, losses = 0, []
            try:
                while not coord.should_stop() and steps < MAX_STEPS:
                    losses.append(sess.run([train, loss])[1])
                    steps += 1
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=GRACE)
            return steps, np.float32(losses), sess.run(w), sess.run(b)


def test_training_loop_ends_after_num_epochs(rtf, tf1):
    steps, losses, w, b = _train(rtf)
    assert steps == 8 * 3 // 4
    t_steps, t_losses, t_w, t_b = _train(tf1)
    assert steps == t_steps
    np.testing.assert_allclose(losses, t_losses, rtol=1e-5)
    np.testing.assert_allclose(w, t_w, rtol=1e-5)
    np.testing.assert_allclose(b, t_b, rtol=1e-5)


# ---------------------------------------------------------------------------
# QueueRunner details
# ---------------------------------------------------------------------------

@pytest.fixture
def graph(rtf):
    g = rtf.Graph()
    with g.as_default():
        yield g


def test_queue_runner_proto_round_trip(rtf, graph):
    q = rtf.FIFOQueue(4, [rtf.int32], shapes=[[]], name="q")
    enq = q.enqueue(1)
    qr = rtf.train.QueueRunner(q, [enq, enq], queue_closed_exception_types=(errors.OutOfRangeError,
                                                                             errors.CancelledError))
    proto = qr.to_proto()
    assert proto == queue_runner_pb2.QueueRunnerDef(
        queue_name="q", enqueue_op_name=["q_enqueue", "q_enqueue"], close_op_name="q_Close",
        cancel_op_name="q_Close_1", queue_closed_exception_types=[errors.OUT_OF_RANGE, errors.CANCELLED])
    back = rtf.train.QueueRunner.from_proto(proto)
    assert back.queue is q.queue_ref.op and back.enqueue_ops == [enq, enq]
    assert (back.close_op, back.cancel_op) == (qr.close_op, qr.cancel_op)
    assert back.queue_closed_exception_types == (errors.OutOfRangeError, errors.CancelledError)
    assert back.name == qr.name == "q"
    assert qr.to_proto(export_scope="other") is None


@pytest.mark.parametrize("kwargs, exc", [
    (dict(queue=None, enqueue_ops=None), ValueError),
    (dict(enqueue_ops=[]), ValueError),
    (dict(queue_closed_exception_types=[errors.OutOfRangeError]), TypeError),
    (dict(queue_closed_exception_types=(ValueError,)), TypeError),
    (dict(queue_runner_def=queue_runner_pb2.QueueRunnerDef(queue_name="q")), ValueError),
], ids=["nothing", "no-enqueue-ops", "types-not-tuple", "types-not-op-errors", "def-and-queue"])
def test_queue_runner_argument_errors(kwargs, exc, rtf, graph):
    q = rtf.FIFOQueue(4, [rtf.int32], shapes=[[]])
    args = dict(queue=q, enqueue_ops=[q.enqueue(1)])
    args.update(kwargs)
    with pytest.raises(exc):
        rtf.train.QueueRunner(**args)


def _failing_runner(rtf):
    """A runner whose enqueue op fails: it needs a placeholder nobody feeds."""
    q = rtf.FIFOQueue(4, [rtf.int32], shapes=[[]])
    ph = rtf.placeholder(rtf.int32, [])
    return q, rtf.train.QueueRunner(q, [q.enqueue(ph)])


def test_exceptions_raised_without_coordinator(rtf, graph, monkeypatch):
    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the thread re-raises, as in TF
    _, qr = _failing_runner(rtf)
    with rtf.Session(graph=graph) as sess:
        threads = qr.create_threads(sess, start=True)
        for t in threads:
            t.join(GRACE)
        assert len(threads) == 1 and not threads[0].is_alive()
        (e,) = qr.exceptions_raised
        assert isinstance(e, errors.InvalidArgumentError) and "You must feed a value" in str(e)


def test_exception_goes_to_coordinator(rtf, graph):
    q, qr = _failing_runner(rtf)
    with rtf.Session(graph=graph) as sess:
        coord = rtf.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, daemon=True, start=True)
        assert len(threads) == 2 and all(t.daemon for t in threads)  # enqueue + close-on-stop
        with pytest.raises(errors.InvalidArgumentError, match="You must feed a value"):
            coord.join(threads, stop_grace_period_secs=GRACE)
        assert qr.exceptions_raised == []
        assert sess.run(q.is_closed())  # cancel_op ran on stop


def test_create_threads_once_per_session(rtf, graph):
    q = rtf.FIFOQueue(2, [rtf.int32], shapes=[[]])
    qr = rtf.train.QueueRunner(q, [q.enqueue(1)])
    with rtf.Session(graph=graph) as sess:
        coord = rtf.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        assert qr.create_threads(sess, coord=coord) == []  # "still running"
        assert sess.run(q.dequeue_many(2)).tolist() == [1, 1]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=GRACE)


def test_start_queue_runners_uses_default_session(rtf, graph):
    q = rtf.FIFOQueue(2, [rtf.int32], shapes=[[]])
    rtf.train.add_queue_runner(rtf.train.QueueRunner(q, [q.enqueue(3)]), collection="mine")
    assert len(graph.get_collection("mine")) == 1 and graph.get_collection(rtf.GraphKeys.QUEUE_RUNNERS) == []
    with pytest.raises(ValueError, match="No default session"):
        rtf.train.start_queue_runners(collection="mine")
    with pytest.raises(TypeError, match="must be a `tf.Session`"):
        rtf.train.start_queue_runners(sess=object())
    with rtf.Session(graph=graph) as sess:
        coord = rtf.train.Coordinator()
        threads = rtf.train.start_queue_runners(coord=coord, collection="mine", start=False)
        assert not any(t.is_alive() for t in threads)
        for t in threads:
            t.start()
        assert sess.run(q.dequeue()) == 3
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=GRACE)


def test_limit_epochs(rtf, graph):
    x = rtf.train.limit_epochs(rtf.constant([1, 2]), num_epochs=2)
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        rtf.train.limit_epochs(rtf.constant(1), num_epochs=0)
    with rtf.Session(graph=graph) as sess:
        sess.run(rtf.local_variables_initializer())
        assert [sess.run(x).tolist() for _ in range(2)] == [[1, 2], [1, 2]]
        with pytest.raises(errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(x)


@pytest.mark.parametrize("build, exc", [
    (lambda tf: tf.train.string_input_producer([]), ValueError),
    (lambda tf: tf.train.input_producer(tf.placeholder(tf.int32, [None, None])), ValueError),
    (lambda tf: tf.train.batch([], 2), ValueError),
    (lambda tf: tf.train.batch([tf.placeholder(tf.int32)], 2), ValueError),
    (lambda tf: tf.train.shuffle_batch([tf.constant(1)], 2, capacity=3, min_after_dequeue=3), ValueError),
    (lambda tf: tf.train.maybe_batch([tf.constant(1)], tf.constant([True]), 2), ValueError),
], ids=["empty-strings", "unknown-element-shape", "no-tensors", "unknown-rank", "capacity", "vector-keep"])
def test_pipeline_construction_errors(build, exc, rtf, tf1):
    for tf in (rtf, tf1):
        with tf.Graph().as_default(), pytest.raises(exc):
            build(tf)


def test_pipeline_survives_meta_graph_round_trip(rtf):
    """QueueRunners go to the meta graph as QueueRunnerDefs and come back runnable."""
    from ref.checkpoint import meta_graph, saver as saver_mod

    with rtf.Graph().as_default():
        _range_full_batches(rtf)
        exported = meta_graph.export_meta_graph()
    g = rtf.Graph()
    with g.as_default():
        saver_mod.import_meta_graph(exported)
        (qr_in, qr_batch) = g.get_collection(rtf.GraphKeys.QUEUE_RUNNERS)
        assert (qr_in.name, qr_batch.name) == ("input_producer", "batch/fifo_queue")
        with rtf.Session(graph=g) as sess:
            sess.run(rtf.local_variables_initializer())
            coord = rtf.train.Coordinator()
            threads = rtf.train.start_queue_runners(sess, coord)
            out = [sess.run("batch:0").tolist() for _ in range(2)]
            with pytest.raises(errors.OutOfRangeError):
                sess.run("batch:0")
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=GRACE)
    assert out == EXPECTED[_range_full_batches][:2]


# -- the queue of a *_join takes the first tensor list's static shapes (TF only checks the others
# are compatible), so a dimension only a later list knows stays unknown: lists of different run-time
# lengths batch with dynamic_pad. Rows: (the tensor lists, batch op); the batches' static shapes
# and the drained rows' multiset against TF.
def _join_lists(tf):
    n = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
    three = tf.train.limit_epochs(tf.constant(3), 2)
    return [[n, tf.fill(tf.stack([n + 1]), n + 1)], [three, tf.fill(tf.stack([three]), three)]]


JOIN_ROWS = {
    "batch_join_dynamic_pad": lambda tf: tf.train.batch_join(_join_lists(tf), batch_size=2, dynamic_pad=True,
                                                             allow_smaller_final_batch=True),
    "maybe_batch_join_dynamic_pad": lambda tf: tf.train.maybe_batch_join(
        _join_lists(tf), tf.constant(True), batch_size=3, dynamic_pad=True, allow_smaller_final_batch=True),
}


def _join_result(tf, row):
    shapes = []

    def build(tf):
        out = JOIN_ROWS[row](tf)
        shapes.extend(t.shape.as_list() for t in out)
        return out

    drained = _drain(tf, build)
    # padding depends on which rows the threads batch together: compare the rows unpadded
    rows = sorted((n, tuple(x for x in v if x)) for b in drained[:-1] for n, v in zip(*b))
    return shapes, rows, drained[-1]


@pytest.mark.parametrize("row", sorted(JOIN_ROWS))
def test_join_queue_takes_first_list_shapes(row, rtf, tf1):
    got, want = _join_result(rtf, row), _join_result(tf1, row)
    assert got == want
    assert [n for n, _ in got[1]] == [0, 1, 2, 3, 3, 3]


def _empty_string_tensor(tf):
    """A constant empty string tensor builds; its queue runner fails at run time (the
    Coordinator gets TF's assertion) and the dequeue meets the closed queue."""
    with tf.Graph().as_default():
        dequeue = tf.train.string_input_producer(tf.constant([], dtype=tf.string)).dequeue()
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(dequeue)
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                coord.join(threads, stop_grace_period_secs=GRACE)
    return str(info.value).split("\n")[0].split("[[")[0].strip()


def test_empty_string_tensor_fails_at_run_time(rtf, tf1):
    assert _empty_string_tensor(rtf) == _empty_string_tensor(tf1)
