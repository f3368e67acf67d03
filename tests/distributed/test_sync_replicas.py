"""Accumulator kernels (NumPy oracle of the rules quoted in ref/ops/accumulator.py)
and a two-worker between-graph SyncReplicasOptimizer run in one process."""
import threading

import numpy as np
import pytest

import ref as rtf
from ref.graph_ops.accumulator_ops import ConditionalAccumulator
from ref.distributed.device_setter import replica_device_setter
from ref.distributed.server import Server
from ref.distributed.sync_replicas import SyncReplicasOptimizer
from ref.optimizers.gradient_descent import GradientDescentOptimizer
from ref.graph_ops.training_util import get_or_create_global_step

# (global step set first, [(local_step, gradient)], num_required, reduction) -> expected take
ACCUMULATOR_CASES = [
    (0, [(0, [1.0, 2.0]), (0, [3.0, 5.0])], 2, "MEAN"),
    (0, [(0, [1.0, 2.0]), (0, [3.0, 5.0]), (1, [2.0, 2.0])], 3, "MEAN"),
    (0, [(0, [1.0, 2.0]), (0, [3.0, 5.0])], 2, "SUM"),
    (5, [(4, [100.0, 100.0]), (5, [1.0, 1.0]), (7, [3.0, 0.0])], 2, "MEAN"),  # step 4 is stale: dropped
]


@pytest.mark.parametrize("set_step, applies, num_required, reduction", ACCUMULATOR_CASES)
def test_accumulator(set_step, applies, num_required, reduction):
    g = rtf.Graph()
    with g.as_default():
        acc = ConditionalAccumulator(rtf.float32, shape=[2], reduction_type=reduction)
        grad, step = rtf.placeholder(rtf.float32, [2]), rtf.placeholder(rtf.int64, [])
        apply_op, take, n = acc.apply_grad(grad, local_step=step), acc.take_grad(num_required), acc.num_accumulated()
        set_op = acc.set_global_step(set_step)
    kept = [np.float32(gr) for s, gr in applies if s >= set_step]
    expected = np.sum(kept, axis=0, dtype=np.float32)
    if reduction == "MEAN":
        expected = expected / np.float32(len(kept))
    with rtf.Session(graph=g) as sess:
        sess.run(set_op)
        for s, gr in applies:
            sess.run(apply_op, {grad: np.float32(gr), step: s})
        assert sess.run(n) == len(kept)
        np.testing.assert_array_equal(sess.run(take), expected)
        assert sess.run(n) == 0
        # the take incremented the global step: a gradient of step set_step is now stale
        sess.run(apply_op, {grad: np.float32([1, 1]), step: set_step})
        assert sess.run(n) == 0


@pytest.mark.parametrize("num_required", [0, -1])
def test_accumulator_num_required_must_be_positive(num_required):
    g = rtf.Graph()
    with g.as_default():
        take = ConditionalAccumulator(rtf.float32, shape=[2]).take_grad(num_required)
    with rtf.Session(graph=g) as sess, pytest.raises(rtf.errors.InvalidArgumentError):
        sess.run(take)


X = [np.array([[1.0, 2.0], [0.5, -1.0]], np.float32), np.array([[-1.0, 0.0], [2.0, 1.0]], np.float32)]
Y = [np.array([[1.0], [0.0]], np.float32), np.array([[2.0], [-1.0]], np.float32)]
W0, B0, LR = np.array([[0.1], [-0.2]], np.float32), np.array([0.3], np.float32), 0.1


def _oracle(steps):
    """w_{t+1} = w_t - lr * mean_i grad_i(w_t), loss_i = mean((x_i w + b - y_i)^2), in float64."""
    w, b, out = W0.astype(np.float64), B0.astype(np.float64), []
    for _ in range(steps):
        gw, gb = 0, 0
        for x, y in zip(X, Y):
            r = x @ w + b - y
            gw = gw + 2 * x.T @ r / r.size
            gb = gb + 2 * r.sum(axis=0) / r.size
        w, b = w - LR * gw / 2, b - LR * gb / 2
        out.append((w.copy(), b.copy()))
    return out


def _dense_model(i):
    w = rtf.Variable(W0, name="w")
    b = rtf.Variable(B0, name="b")
    return rtf.reduce_mean(rtf.square(rtf.matmul(rtf.constant(X[i]), w) + b - rtf.constant(Y[i]))), [w, b]


E0 = np.arange(8, dtype=np.float32).reshape(4, 2)
IDS = [[0, 2], [2, 3]]
C = [np.array([[1.0, -1.0], [2.0, 0.5]], np.float32), np.array([[4.0, 1.0], [-2.0, 3.0]], np.float32)]


def _embedding_model(i):
    """loss_i = sum(gather(E, ids_i) * c_i): an IndexedSlices gradient (rows ids_i, values c_i)."""
    emb = rtf.Variable(E0, name="emb")
    return rtf.reduce_sum(rtf.gather(emb, IDS[i]) * rtf.constant(C[i])), [emb]


def _worker(i, cluster, server, steps, barrier, init_done, record, errors_, build=_dense_model):
    try:
        g = rtf.Graph()
        with g.as_default():
            with rtf.device(replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{i}")):
                global_step = get_or_create_global_step()
                loss, watched = build(i)
                opt = SyncReplicasOptimizer(GradientDescentOptimizer(LR), replicas_to_aggregate=2,
                                            total_num_replicas=2)
                train_op = opt.minimize(loss, global_step=global_step)
            hook = opt.make_session_run_hook(is_chief=(i == 0), num_tokens=0)
            hook.begin()
            init = rtf.global_variables_initializer()
            local_init = rtf.local_variables_initializer()
        coord = rtf.train.Coordinator()
        sess = rtf.Session(server.target, graph=g)
        if i == 0:
            sess.run(init)
            sess.run(local_init)
            init_done.set()
        elif not init_done.wait(10):
            raise TimeoutError("chief did not initialize")
        else:
            sess.run(local_init)
        hook.after_create_session(sess, coord)
        barrier.wait(10)
        for _ in range(steps):
            sess.run(train_op)
            barrier.wait(10)  # one token per worker per round: both gradients of every round count
            if i == 0:
                record.append(sess.run(watched + [global_step]))
            barrier.wait(10)
        record_coord.append(coord)
    except Exception as e:  # reported by the test thread
        errors_.append(e)
        barrier.abort()


record_coord = []


def _two_workers(steps, build):
    """Runs ``steps`` synchronous steps on two worker threads; the chief's records."""
    cluster = {"ps": ["localhost:32001"], "worker": ["localhost:32002", "localhost:32003"]}
    # protocol "inprocess": the stand-in whose sessions share one store (one process, no sockets)
    servers = [Server(cluster, job_name="worker", task_index=i, protocol="inprocess") for i in range(2)]
    ps = Server(cluster, job_name="ps", task_index=0, protocol="inprocess")
    barrier, init_done, record, errs = threading.Barrier(2), threading.Event(), [], []
    record_coord.clear()
    threads = [threading.Thread(target=_worker, args=(i, cluster, servers[i], steps, barrier, init_done, record, errs,
                                                      build), daemon=True) for i in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads), "workers hung"
        assert not errs, errs
    finally:
        for c in record_coord:
            c.request_stop()
        for s in servers + [ps]:
            s.stop()  # cancels the chief queue runner's blocked take
        for c in record_coord:
            c.join(stop_grace_period_secs=5)
    return record


@pytest.mark.parametrize("steps", [4])
def test_two_workers_sync_replicas_equal_averaged_gradients(steps):
    record = _two_workers(steps, _dense_model)
    expected = _oracle(steps)
    assert [int(gs) for _, _, gs in record] == list(range(1, steps + 1))
    for (w, b, _), (ew, eb) in zip(record, expected):
        np.testing.assert_allclose(w, ew, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, eb, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("num_tokens, error", [(-1, None), (0, None), (3, None)])
def test_init_tokens(num_tokens, error):
    g = rtf.Graph()
    with g.as_default():
        gs = get_or_create_global_step()
        v = rtf.Variable(1.0)
        opt = SyncReplicasOptimizer(GradientDescentOptimizer(0.1), replicas_to_aggregate=2)
        with pytest.raises(ValueError):
            opt.get_init_tokens_op()
        with pytest.raises(ValueError):
            opt.get_chief_queue_runner()
        opt.minimize(v * v, global_step=gs)
        op = opt.get_init_tokens_op(num_tokens)
        size = opt._sync_token_queue.size()
        init = rtf.global_variables_initializer()
    with rtf.Session(graph=g) as sess:
        sess.run(init)
        sess.run(op)
        assert sess.run(size) == (2 if num_tokens == -1 else num_tokens)
        assert opt.get_name() == "sync_replicas" and opt.get_slot_names() == []


@pytest.mark.parametrize("grads_and_vars, global_step", [([], True), (None, False)])
def test_apply_gradients_errors(grads_and_vars, global_step):
    g = rtf.Graph()
    with g.as_default():
        v = rtf.Variable(1.0)
        gs = get_or_create_global_step() if global_step else None
        gv = grads_and_vars if grads_and_vars is not None else [(rtf.constant(1.0), v)]
        with pytest.raises(ValueError):
            SyncReplicasOptimizer(GradientDescentOptimizer(0.1), 2).apply_gradients(gv, global_step=gs)


def test_two_workers_sync_replicas_average_sparse_gradients_per_row():
    """Row 2 is in both replicas' gradients: averaged over 2; rows 0 and 3 over 1; row 1 untouched."""
    steps = 3
    record = _two_workers(steps, _embedding_model)
    g = np.zeros((4, 2))
    count = np.zeros(4)
    for ids, c in zip(IDS, C):
        g[ids] += c
        count[ids] += 1
    mean = np.divide(g, np.maximum(count, 1)[:, None])
    assert [int(gs) for _, gs in record] == list(range(1, steps + 1))
    for t, (emb, _) in enumerate(record, 1):
        np.testing.assert_allclose(emb, E0 - t * LR * mean, rtol=1e-6)


# (applies [(local_step, indices, values)], accumulator shape, reduction, num_required)
SPARSE_CASES = [
    ([(0, [1, 3], [[1, 2], [3, 4]]), (0, [1, 2, 3], [[1, 1], [2, 2], [5, 6]])], None, "MEAN", 2),
    ([(0, [1, 3], [[1, 2], [3, 4]]), (0, [1, 2, 3], [[1, 1], [2, 2], [5, 6]])], [4, 2], "SUM", 2),
    ([(0, [3, 1, 1], [[1, 2], [3, 4], [5, 6]]), (0, [1, 2, 5], [[1, 1], [2, 2], [3, 3]]),
      (1, [0, 4], [[9, 9], [8, 8]])], None, "MEAN", 3),                           # unsorted, duplicates
    ([(0, [2], [[1, 1]]), (0, [0, 2], [[4, 4], [3, 3]]), (0, [2, 3], [[2, 2], [1, 1]])], (), "MEAN", 3),
]


def _sparse_run(tf, applies, shape, reduction, num_required, set_step=0):
    with tf.Graph().as_default():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=shape, reduction_type=reduction)
        idx, val = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None, 2])
        step = tf.placeholder(tf.int64, [])
        apply_op = acc.apply_grad(idx, val, local_step=step)
        n, take = acc.num_accumulated(), acc.take_grad(num_required)
        set_op = acc.set_global_step(set_step)
        with tf.Session() as sess:
            sess.run(set_op)
            for s, i, v in applies:
                sess.run(apply_op, {idx: i, val: np.float32(v), step: s})
            return int(sess.run(n)), [np.asarray(x) for x in sess.run(take)]


@pytest.mark.parametrize("applies, shape, reduction, num_required", SPARSE_CASES)
def test_sparse_accumulator_matches_tensorflow(applies, shape, reduction, num_required):
    tf = pytest.importorskip("tensorflow")
    expected = _sparse_run(tf.compat.v1, applies, shape, reduction, num_required)
    got = _sparse_run(rtf, applies, shape, reduction, num_required)
    assert got[0] == expected[0]
    for a, e in zip(got[1], expected[1]):
        np.testing.assert_array_equal(a, e)
        assert a.dtype == e.dtype


def test_sparse_accumulator_sums_equal_rows_and_averages_each_by_its_count():
    """Sorted gradients: the merge is a sum per index; MEAN divides each row by how many gradients had it."""
    n, (indices, values, shape) = _sparse_run(rtf, SPARSE_CASES[0][0], [4, 2], "MEAN", 2)
    assert n == 2
    np.testing.assert_array_equal(indices, [1, 2, 3])
    np.testing.assert_array_equal(values, np.float32([[1, 1.5], [2, 2], [4, 5]]))
    np.testing.assert_array_equal(shape, [4, 2])


def test_sparse_accumulator_drops_stale_and_checks_shapes():
    n, (indices, _, _) = _sparse_run(rtf, [(3, [0], [[1, 1]]), (5, [1], [[2, 2]])], None, "MEAN", 1, set_step=5)
    assert n == 1 and list(indices) == [1]
    with pytest.raises(rtf.errors.InvalidArgumentError, match="index of slice 0 exceeded limits of shape"):
        _sparse_run(rtf, [(0, [7], [[1, 1]])], [4, 2], "MEAN", 1)
