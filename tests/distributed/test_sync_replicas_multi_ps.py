"""SyncReplicasOptimizer with two ps tasks over gRPC on 127.0.0.1 (TF's
sync_replicas_optimizer_test ``test2Workers`` layout): global step and v0 on ps 0,
v1 and a sparsely updated v_sparse on ps 1, each worker's MonitoredTrainingSession on its
own task. Before the fix the sparse accumulator's handle (a string in ref, TF's
Ref(string)) crossed stages as bytes: "Expected an accumulator handle, got bytes".
The oracle is the formula: each variable moves by lr times the mean of the workers'
gradients."""
import socket
import threading

import numpy as np
import pytest

import ref as tf
from ref.distributed.server import Server

pytest.importorskip("grpc")

LR = 2.0


def _spec(n_ps, n_workers):
    socks = [socket.socket() for _ in range(n_ps + n_workers)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return {"ps": [f"127.0.0.1:{p}" for p in ports[:n_ps]], "worker": [f"127.0.0.1:{p}" for p in ports[n_ps:]]}


def grads(w):
    return 0.1 + w * 0.2, 0.9 + w * 0.2, 0.1 + w * 0.2  # TF's test: v0, v1, row 1 of v_sparse


def _worker(target, w, n_workers, steps, out):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            gs = tf.Variable(0, name="global_step", trainable=False)
            v0 = tf.Variable(0.0, name="v0")
        with tf.device("/job:ps/task:1"):
            v1 = tf.Variable(1.0, name="v1")
            vs = tf.Variable([[3.0], [4.0]], name="v_sparse")
        with tf.device(f"/job:worker/task:{w}"):
            g0, g1, gsp = grads(w)
            sparse = tf.IndexedSlices(tf.constant([gsp], shape=[1, 1]), tf.constant([1]), tf.constant([2, 1]))
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR), replicas_to_aggregate=n_workers,
                                                 total_num_replicas=n_workers)
            train = opt.apply_gradients(list(zip([tf.constant(g0), tf.constant(g1), sparse], [v0, v1, vs])),
                                        global_step=gs)
            hook = opt.make_session_run_hook(is_chief=w == 0, num_tokens=n_workers)
        with tf.train.MonitoredTrainingSession(master=target, is_chief=w == 0, hooks=[hook], log_step_count_steps=None,
                                               stop_grace_period_secs=2) as sess:
            for _ in range(steps):
                sess.run(train)
            out[w] = sess.run([gs, v0, v1, vs])


# one step each: with more, a fast worker may spend two of the initial tokens (TF too)
@pytest.mark.parametrize("n_workers, steps", [(2, 1), (3, 1)])
def test_two_ps_sync_replicas_apply_the_mean_gradient(n_workers, steps):
    spec = _spec(2, n_workers)
    servers = [Server(spec, job_name="ps", task_index=i) for i in range(2)]
    servers += [Server(spec, job_name="worker", task_index=i) for i in range(n_workers)]
    out, errs = {}, []

    def run(w):
        try:
            _worker(servers[2 + w].target, w, n_workers, steps, out)
        except Exception as e:  # reported below
            errs.append(e)
    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in reversed(range(n_workers))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        for s in servers:
            s.stop()
    assert not errs, errs
    mean = np.mean([grads(w) for w in range(n_workers)], axis=0)
    gs, v0, v1, vs = out[0]
    # the chief's read may come before the last update lands (its queue runner applies it)
    done = int(gs)
    assert steps - 1 <= done <= steps
    # each variable's update lands on its own ps, and the global step's after them: a variable read
    # may trail the global step by an update, or lead it when the step's increment has not landed yet
    for got, start, g in ((v0, 0.0, mean[0]), (v1, 1.0, mean[1]), (vs[1, 0], 4.0, mean[2])):
        ks = {max(done - 1, 0), done, min(done + 1, steps)}
        assert any(np.isclose(got, start - k * LR * g, rtol=1e-6) for k in ks), (got, done)
    assert vs[0, 0] == 3.0
