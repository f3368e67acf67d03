"""Fault injection on 127.0.0.1: a killed worker, a killed and a restarted ps process,
a task that never started, and a delayed or blackholed ps behind a FaultProxy.

Each case checks what TF1 users do not get (DISTRIBUTED.md §5): the error comes
within the step's deadline (``operation_timeout_in_ms``) and names the task, its
address and what failed; a restarted ps is an AbortedError that
MonitoredTrainingSession recovers from by restoring the chief's checkpoint. The ps
is a separate ``python -m ref server`` process where it is killed; every wait is
bounded. The expected numbers are those of plain gradient descent (a formula).
"""
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from ref.distributed import ports
import ref as tf
from ref.types import errors

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOUND = 60.0  # seconds: a generous ceiling for starting a process or finishing a case
DEADLINE_MS = 4000  # the step deadline of the sessions here
PS = "/job:ps/replica:0/task:0"
LR = 0.1
W0 = np.array([1.0, 2.0], np.float32)


def make_spec(n_workers=1):
    chosen = ports.free_ports(1 + n_workers)
    return {"ps": [f"127.0.0.1:{chosen[0]}"], "worker": [f"127.0.0.1:{p}" for p in chosen[1:]]}


def _listening(address):
    host, port = address.rsplit(":", 1)
    with socket.socket() as s:
        return s.connect_ex((host, int(port))) == 0


class PsProcess:
    """``python -m ref server`` for /job:ps/task:0 of ``spec``, killable and restartable."""

    def __init__(self, spec):
        self.spec, self.address, self.proc = spec, spec["ps"][0], None
        self.start()

    def start(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "ref", "server", "--cluster", json.dumps(self.spec),
                                      "--job", "ps", "--task", "0"], cwd=ROOT, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + BOUND
        while not _listening(self.address):
            assert self.proc.poll() is None, f"the ps exited with {self.proc.returncode}"
            assert time.monotonic() < deadline, f"the ps does not listen on {self.address}"
            time.sleep(0.05)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(BOUND)


@pytest.fixture()
def spec():
    return make_spec()


@pytest.fixture()
def ps(spec):
    p = PsProcess(spec)
    yield p
    p.kill()


@pytest.fixture()
def worker(spec):
    server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
    yield server
    server.stop()


def model(spec, worker_device="/job:worker/task:0"):
    """w on the ps, loss = sum((w - 3)^2) on the worker, one GradientDescent step per run."""
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(spec),
                                                                  worker_device=worker_device)):
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(W0, name="w")
        loss = tf.reduce_sum(tf.square(w - 3.0))
        train = tf.train.GradientDescentOptimizer(LR).minimize(loss, global_step=gs)
    return g, w, gs, train


def expected_w(steps):
    """Gradient descent on sum((w - 3)^2): w <- w - 2 * lr * (w - 3)."""
    w = W0.copy()
    for _ in range(steps):
        w = (w - np.float32(2 * LR) * (w - np.float32(3.0))).astype(np.float32)
    return w


def config(**kw):
    kw.setdefault("operation_timeout_in_ms", DEADLINE_MS)
    return tf.ConfigProto(**kw)


def names_ps(message, address):
    assert PS in message, message
    assert address in message, message


# -- (b) the ps is killed --------------------------------------------------------------


def test_killed_ps_is_unavailable_naming_the_task_within_the_deadline(spec, ps, worker):
    g, w, gs, train = model(spec)
    with g.as_default(), tf.Session(worker.target, config=config()) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        ps.kill()
        start = time.monotonic()
        with pytest.raises(errors.UnavailableError) as e:
            sess.run(train)
        assert time.monotonic() - start < DEADLINE_MS / 1000 + 5
    names_ps(e.value.message, ps.address)


# -- (c) the ps restarts: AbortedError, and MonitoredTrainingSession restores ------------------


def test_restarted_ps_is_aborted_naming_both_incarnations(spec, ps, worker):
    g, w, gs, train = model(spec)
    with g.as_default(), tf.Session(worker.target, config=config()) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        ps.kill()
        ps.start()
        with pytest.raises(errors.AbortedError) as e:
            sess.run(train)
        # the session stays aborted: its tasks' state is gone
        with pytest.raises(errors.AbortedError):
            sess.run(w)
    msg = e.value.message
    names_ps(msg, ps.address)
    assert re.search(r"incarnation [0-9a-f]{16} -> [0-9a-f]{16}", msg), msg
    assert "variables" in msg and "lost" in msg, msg


@pytest.mark.parametrize("last_step, save_steps, restart_after", [(8, 3, 5), (6, 2, 2)])
def test_monitored_training_session_restores_after_a_ps_restart(spec, ps, worker, tmp_path, last_step,
                                                                save_steps, restart_after):
    g, w, gs, train = model(spec)
    restarted = []
    with g.as_default():
        hooks = [tf.train.StopAtStepHook(last_step=last_step)]
        with tf.train.MonitoredTrainingSession(master=worker.target, is_chief=True, checkpoint_dir=str(tmp_path),
                                               save_checkpoint_steps=save_steps, save_checkpoint_secs=None,
                                               save_summaries_steps=None, save_summaries_secs=None,
                                               log_step_count_steps=None, hooks=hooks, config=config()) as sess:
            while not sess.should_stop():
                step = sess.run([train, gs])[1]
                if step == restart_after and not restarted:
                    ps.kill()
                    ps.start()
                    restarted.append(step)
    assert restarted == [restart_after]
    # a new session reads what the last run left on the (new) ps
    with g.as_default(), tf.Session(worker.target, config=config()) as sess:
        final_w, final_gs = sess.run([w, gs])
    assert final_gs == last_step
    np.testing.assert_allclose(final_w, expected_w(last_step), rtol=1e-6)
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith(f"-{last_step}")


# -- (d) a task that never started -----------------------------------------------------


@pytest.mark.parametrize("filters", [None, ["/job:ps", "/job:worker"]])
def test_never_started_task_fails_session_creation_naming_it(filters):
    spec = make_spec(n_workers=2)  # the ps and worker 1 never start
    server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
    try:
        g, w, gs, train = model(spec)
        missing = [("ps", 0, spec["ps"][0])] + ([("worker", 1, spec["worker"][1])] if filters else [])
        start = time.monotonic()
        with g.as_default(), tf.Session(server.target, config=config(device_filters=filters or [])) as sess:
            with pytest.raises(errors.UnavailableError) as e:
                sess.run(tf.global_variables_initializer())
        assert time.monotonic() - start < DEADLINE_MS / 1000 + 10
    finally:
        server.stop()
    msg = e.value.message
    for job, task, address in missing:
        assert f"/job:{job}/replica:0/task:{task}" in msg and address in msg, msg
        assert f"python -m ref server --job {job} --task {task}" in msg, msg


def test_never_started_task_fails_monitored_session_creation_within_the_deadline():
    spec = make_spec()  # the ps never starts
    server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
    try:
        g, w, gs, train = model(spec)
        start = time.monotonic()
        with g.as_default(), pytest.raises(errors.UnavailableError) as e:
            with tf.train.MonitoredTrainingSession(master=server.target, is_chief=True, config=config(),
                                                   log_step_count_steps=None) as sess:
                sess.run(train)
        assert time.monotonic() - start < 2 * DEADLINE_MS / 1000 + 10
    finally:
        server.stop()
    names_ps(e.value.message, spec["ps"][0])


def test_device_filters_leave_out_a_never_started_worker(spec, ps):
    spec2 = dict(spec, worker=spec["worker"] + [f"127.0.0.1:{ports.free_port()}"])  # worker 1 never starts
    server = tf.train.Server(tf.train.ClusterSpec(spec2), job_name="worker", task_index=0)
    try:
        g, w, gs, train = model(spec2)
        filters = ["/job:ps", "/job:worker/task:0"]
        with g.as_default(), tf.Session(server.target, config=config(device_filters=filters)) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            np.testing.assert_allclose(sess.run(w), expected_w(3), rtol=1e-6)
    finally:
        server.stop()


# -- (e) a slow or silent ps behind a FaultProxy ------------------------------------------


@pytest.fixture()
def proxied():
    """An in-process ps server, and a worker whose ClusterSpec reaches it through a FaultProxy."""
    from ref.distributed.testing import FaultProxy
    spec = make_spec()
    ps_server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="ps", task_index=0)
    proxy = FaultProxy(spec["ps"][0])
    worker_spec = dict(spec, ps=[proxy.address])
    worker = tf.train.Server(tf.train.ClusterSpec(worker_spec), job_name="worker", task_index=0)
    yield worker_spec, proxy, worker
    worker.stop()
    proxy.stop()
    ps_server.stop()


def test_delayed_ps_still_trains(proxied):
    spec, proxy, worker = proxied
    proxy.delay(0.05, method="RunGraph")
    g, w, gs, train = model(spec)
    with g.as_default(), tf.Session(worker.target, config=config()) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        np.testing.assert_allclose(sess.run(w), expected_w(3), rtol=1e-6)
    assert any(c.endswith("/RunGraph") for c in proxy.calls)


def test_blackholed_run_graph_is_deadline_exceeded_naming_the_rpc_and_task(proxied):
    spec, proxy, worker = proxied
    g, w, gs, train = model(spec)
    with g.as_default(), tf.Session(worker.target, config=config(operation_timeout_in_ms=2000)) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        proxy.blackhole("RunGraph")
        start = time.monotonic()
        with pytest.raises(errors.DeadlineExceededError) as e:
            sess.run(train)
        assert time.monotonic() - start < 2 + 5
        proxy.restore()
        sess.run(train)  # the ps answers again: the session goes on
        np.testing.assert_allclose(sess.run(w), expected_w(2), rtol=1e-6)
    msg = e.value.message
    assert "RunGraph" in msg and PS in msg and proxy.address in msg, msg


# -- (a) a worker process is killed under SyncReplicasOptimizer -----------------------------

SYNC_WORKER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[3])
    from tests.distributed.test_faults import sync_model
    import ref as tf
    spec, replicas = json.loads(sys.argv[1]), int(sys.argv[2])
    server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=1)
    g, gs, train, hook = sync_model(spec, 1, replicas)
    with g.as_default():
        config = tf.ConfigProto(operation_timeout_in_ms=60000, device_filters=["/job:ps", "/job:worker/task:1"])
        with tf.train.MonitoredTrainingSession(master=server.target, is_chief=False, hooks=[hook], config=config,
                                               log_step_count_steps=None) as sess:
            while True:  # until the test kills this process
                print("STEP", sess.run([train, gs])[1], flush=True)
""")


def sync_model(spec, task, replicas):
    """The model of :func:`model` with SyncReplicasOptimizer over the 2 workers of ``spec``."""
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(spec),
                                                                  worker_device=f"/job:worker/task:{task}")):
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(W0, name="w")
        loss = tf.reduce_sum(tf.square(w - 3.0))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR), replicas_to_aggregate=replicas,
                                             total_num_replicas=2)
        train = opt.minimize(loss, global_step=gs)
        hook = opt.make_session_run_hook(is_chief=task == 0, num_tokens=0)
    return g, gs, train, hook


SYNC_DEADLINE_MS = 10000  # the chief's take_grad first waits for the other worker to start


def _train_until_killed(sess, train, gs, other, killed):
    # with replicas_to_aggregate == 2 these steps need the other worker's gradients
    for _ in range(3):
        sess.run(train)
    assert sess.run(gs) >= 1 and other.poll() is None
    other.kill()
    other.wait(BOUND)
    killed.append(True)
    # the update runs in the chief's queue runner: the global step may lag a run
    before = sess.run(gs)
    for _ in range(10):
        sess.run(train)
        if sess.run(gs) >= before + 3:
            break
    return sess.run(gs) - before


@pytest.mark.parametrize("replicas", [1, 2])
def test_killed_worker_under_sync_replicas(tmp_path, replicas):
    """replicas_to_aggregate < total: the chief trains on alone; == total: the chief's
    waits end at the step deadline with an error naming the ps task and what it holds:
    the queue runner's take_grad (the accumulator, "1 of 2 gradients"; raised when the
    MonitoredTrainingSession closes, as in TF) or the step's token dequeue, whichever
    deadline passes first."""
    spec = make_spec(n_workers=2)
    ps = PsProcess(spec)
    script = tmp_path / "sync_worker.py"
    script.write_text(SYNC_WORKER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    other = subprocess.Popen([sys.executable, str(script), json.dumps(spec), str(replicas), str(ROOT)], cwd=ROOT,
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
    try:
        g, gs, train, hook = sync_model(spec, 0, replicas)
        cfg = config(device_filters=["/job:ps", "/job:worker/task:0"], operation_timeout_in_ms=SYNC_DEADLINE_MS)
        killed = []
        with g.as_default():
            def run():
                with tf.train.MonitoredTrainingSession(master=server.target, is_chief=True, hooks=[hook], config=cfg,
                                                       log_step_count_steps=None) as sess:
                    return _train_until_killed(sess, train, gs, other, killed)
            if replicas == 1:
                assert run() >= 3
            else:
                start = time.monotonic()
                with pytest.raises(errors.DeadlineExceededError) as e:
                    run()
                assert killed  # the error came after the other worker was killed
                assert time.monotonic() - start < BOUND + 3 * SYNC_DEADLINE_MS / 1000
    finally:
        other.kill()
        other.wait(BOUND)
        server.stop()
        ps.kill()
    if replicas == 2:
        # whichever wait ends first: the queue runner's take (what is missing) or the
        # training step's token dequeue; both name the node, the ps task and the state
        msg = e.value.message
        assert PS in msg and "waited" in msg and "the run's deadline" in msg, msg
        if "take_grad" in msg:
            assert re.search(r"\b[01] of 2 gradients", msg) and "accumulator 'w" in msg, msg
        else:
            assert "sync_token_q" in msg and "holds 0 element" in msg, msg
