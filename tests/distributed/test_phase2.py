"""Phase 2 of the distributed runtime, with real processes on 127.0.0.1: tensors between
tasks by ``RecvTensor`` (``_Send``/``_Recv`` partitions), TensorFlow masters driving ref
tasks, ref's master letting its tasks exchange tensors directly, failing steps, and
FULL_TRACE step stats from every task. Every process and wait is bounded."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from ref.distributed import rendezvous as _under_test  # noqa: F401
from ref.distributed.launcher import free_ports

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
TF_MASTER = str(ROOT / "tests" / "distributed" / "programs" / "tf_master.py")
BOUND = 150  # seconds: a ceiling for one TensorFlow process (its import alone takes ~10 s here)


def start_ref_servers(spec, tasks):
    """``python -m ref server`` for each (job, index) of ``tasks``; returns the processes once each serves."""
    procs = []
    for job, index in tasks:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "ref", "server", "--cluster", json.dumps(spec), "--job", job, "--task", str(index)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        line = p.stdout.readline()
        assert line.startswith("Started server with target: grpc://127.0.0.1:"), line + p.stderr.read()[-2000:]
    return procs


def stop(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
        p.communicate()


# mode of programs/tf_master.py, ref tasks it needs, relative tolerance against TF's local session
TF_MASTER_ROWS = [
    ("ps", [("ps", 0)], 0.0),  # TF worker, ref ps: replica_device_setter, TF's numbers bit for bit
    ("monitored", [("ps", 0)], 0.0),  # the same under TF's MonitoredTrainingSession
    # part of the forward pass on a ref worker: Grappler's _FusedMatMul(+BiasAdd+Tanh) runs as
    # ref's MatMul, BiasAdd and Tanh (Tanh within ref's ULP budget of TF's)
    ("split", [("ps", 0), ("worker", 1)], 1e-6),
    ("partial", [("ps", 0)], 0.0),  # partial_run_setup/partial_run: RunGraph with is_partial
]


@pytest.mark.parametrize("mode, tasks, rtol", TF_MASTER_ROWS, ids=[r[0] for r in TF_MASTER_ROWS])
def test_a_tensorflow_master_drives_ref_tasks(mode, tasks, rtol):
    pytest.importorskip("tensorflow")
    ps, w0, w1 = free_ports(3)
    spec = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{w0}", f"127.0.0.1:{w1}"]}
    procs = start_ref_servers(spec, tasks)
    try:
        r = subprocess.run([sys.executable, TF_MASTER, mode, json.dumps(spec)], cwd=ROOT, capture_output=True,
                           text=True, timeout=BOUND)
    finally:
        stop(procs)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    local, remote = got["local"], got["remote"]
    assert remote[-1] == local[-1] == 4  # global step (partial: the number of partial_run calls)
    for a, b in zip(local[:-1], remote[:-1]):
        np.testing.assert_allclose(np.asarray(b, np.float32), np.asarray(a, np.float32), rtol=rtol, atol=0)


# -- ref tasks exchanging tensors directly ---------------------------------------------


@pytest.fixture()
def ref_cluster():
    """A ps task as a ``python -m ref server`` process and worker 0 as a server in this
    process (its master runs the steps): ``(spec, worker server)``."""
    import ref as tf
    ps, w0 = free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{w0}"]}
    procs = start_ref_servers(spec, [("ps", 0)])
    server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
    try:
        yield spec, server
    finally:
        server.stop()
        stop(procs)


def _model(tf, spec):
    setter = tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(spec)) if spec else None
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.get_variable("w", initializer=[[1.0], [-2.0], [0.5]])
        b = tf.get_variable("b", initializer=[0.25], use_resource=True)
        gs = tf.train.get_or_create_global_step()
        loss = tf.reduce_mean(tf.square(tf.tanh(tf.matmul(x, w) + b) - 0.5))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=gs)
    return x, w, b, gs, loss, train


def _batch(i):
    return np.arange(6, dtype=np.float32).reshape(2, 3) / 5.0 + i


def test_ref_tasks_exchange_tensors_directly_with_local_numbers(ref_cluster):
    """ref's master partitions per task with _Send/_Recv between them: the ps partition
    receives the gradients from the worker (RecvTensor) and nothing from the master; the
    numbers are a local session's, bit for bit. FULL_TRACE returns each task's ops."""
    import ref as tf
    from ref.session import timeline
    spec, server = ref_cluster

    def run(target):
        with tf.Graph().as_default():
            x, w, b, gs, loss, train = _model(tf, spec if target else None)
            with tf.Session(target, config=tf.ConfigProto(operation_timeout_in_ms=30000)) as s:
                s.run(tf.global_variables_initializer())
                out = [s.run([loss, train], {x: _batch(i)})[0] for i in range(4)]
                md = tf.RunMetadata()
                s.run(train, {x: _batch(9)}, run_metadata=md,
                      options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True))
                return out + s.run([w, b, gs]), md
    (local, _), (remote, md) = run(""), run(server.target)
    assert remote[-1] == local[-1] == 5
    for a, c in zip(local, remote):
        np.testing.assert_array_equal(a, c)
    ps_cpu, w_cpu = "/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"
    by_device = {gd.node[0].device: gd for gd in md.partition_graphs}
    assert set(by_device) == {ps_cpu, w_cpu}
    ps_io = [n for n in by_device[ps_cpu].node if n.op in ("_Send", "_Recv")]
    assert ps_io and not any(n.attr["client_terminated"].b for n in ps_io)  # nothing via the master
    assert {n.attr["send_device"].s.decode() for n in ps_io if n.op == "_Recv"} == {w_cpu}
    # FULL_TRACE: each task's ops under its own device, and a Chrome trace showing both
    stats = {d.device: {n.node_name for n in d.node_stats} for d in md.step_stats.dev_stats}
    assert set(stats) == {ps_cpu, w_cpu}
    assert any("ApplyMomentum" in n or "Momentum" in n for n in stats[ps_cpu])
    assert any("MatMul" in n for n in stats[w_cpu])
    trace = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    names = {e["args"]["name"] for e in trace["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name"}
    assert any(ps_cpu in n for n in names) and any(w_cpu in n for n in names)


def test_a_failing_step_ends_the_waits_of_the_other_tasks(ref_cluster):
    """The worker's op fails while the ps partition waits for its output (a pending
    _Recv): the step ends at once with the worker's error, not at a deadline; the worker
    keeps no rendezvous of it, and the next step runs."""
    import time
    import ref as tf
    spec, server = ref_cluster
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [None], name="x")
            checked = tf.debugging.check_numerics(x, "x is not finite")
        with tf.device("/job:ps/task:0"):
            update = tf.assign_add(v, checked)
        with tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=120000)) as s:
            s.run(v.initializer)
            start = time.monotonic()
            with pytest.raises(tf.errors.InvalidArgumentError, match="x is not finite"):
                s.run(update, {x: [np.inf, 0.0]})
            assert time.monotonic() - start < 20  # far below the 120 s step deadline
            np.testing.assert_array_equal(s.run(update, {x: [1.0, 1.0]}), [2.0, 3.0])
    deadline = time.monotonic() + 10
    while server.worker._rendezvous.active() and time.monotonic() < deadline:
        time.sleep(0.1)  # CleanupGraph is sent in the background after a step
    assert server.worker._rendezvous.active() == []
