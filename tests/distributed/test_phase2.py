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


def test_a_ref_master_exchanges_tensors_directly_with_a_tensorflow_ps():
    """ref's master, direct exchange, a TensorFlow ps process: TF's ps pulls the gradient
    from the ref worker (RecvTensor answered from ref's hand-encoded bytes) and the worker
    pulls the variable from TF; local numbers, and FULL_TRACE stats from TF's task too."""
    pytest.importorskip("tensorflow")
    import ref as tf
    from ref.distributed import rpc
    ps, w0 = free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{w0}"]}
    code = ("import os; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '2'; import json, sys; "
            "import tensorflow.compat.v1 as t; s = t.distribute.Server(t.train.ClusterSpec(json.loads(sys.argv[1])), "
            "job_name='ps', task_index=0); print('up', flush=True); s.join()")
    proc = subprocess.Popen([sys.executable, "-c", code, json.dumps(spec)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    server, previous = None, rpc.set_failure_detection(keepalive_time=0)  # TF's servers refuse frequent pings
    try:
        assert proc.stdout.readline().strip() == "up"
        server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)

        def run(target):
            with tf.Graph().as_default():
                x, w, b, gs, loss, train = _model(tf, spec if target else None)
                with tf.Session(target, config=tf.ConfigProto(operation_timeout_in_ms=30000)) as s:
                    s.run(tf.global_variables_initializer())
                    out = [s.run([loss, train], {x: _batch(i)})[0] for i in range(3)]
                    md = tf.RunMetadata()
                    s.run(train, {x: _batch(5)}, run_metadata=md,
                          options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
                    return out + s.run([w, b, gs]), md
        (local, _), (remote, md) = run(""), run(server.target)
    finally:
        rpc.set_failure_detection(*previous)
        if server is not None:
            server.stop()
        proc.kill()
        proc.communicate()
    for a, c in zip(local, remote):
        np.testing.assert_array_equal(a, c)
    devices = {d.device: len(d.node_stats) for d in md.step_stats.dev_stats}
    assert devices.get("/job:ps/replica:0/task:0/device:CPU:0", 0) > 0
    assert devices.get("/job:worker/replica:0/task:0/device:CPU:0", 0) > 0


# -- RecvTensorResponse coding --------------------------------------------------------

CODING_ROWS = [  # value, dtype
    (np.arange(12, dtype=np.float32).reshape(3, 4), "float32"),
    (np.arange(12, dtype=np.float32).reshape(3, 4).T, "float32"),  # not contiguous: copied once
    (np.int64(-5), "int64"),
    (np.zeros((0, 3), np.float64), "float64"),
    (np.array([True, False]), "bool"),
    (np.array([1 + 2j], np.complex64), "complex64"),
    (np.array([b"ab", b"", b"c"], dtype=object), "string"),
]


@pytest.mark.parametrize("value, dtype", CODING_ROWS, ids=[f"{r[1]}{np.shape(r[0])}" for r in CODING_ROWS])
def test_recv_tensor_response_coding_is_protobufs(value, dtype):
    """Hand-written bytes parse as protobuf's RecvTensorResponse (what TF's worker reads);
    protobuf's bytes (what TF's worker writes) decode to the same array; a numeric tensor
    decodes as a view over the received bytes (no copy)."""
    from ref.distributed.tensor_coding import decode_recv_tensor_response, encode_recv_tensor_response
    from ref.formats.tensor_util import make_ndarray
    from ref.protos import worker_pb2
    data = encode_recv_tensor_response(value, dtype, send_start_micros=1234)
    message = worker_pb2.RecvTensorResponse.FromString(data)
    assert message.send_start_micros == 1234 and not message.is_dead
    np.testing.assert_array_equal(make_ndarray(message.tensor), value)
    for wire in (data, message.SerializeToString()):
        got, got_dtype, dead, _ = decode_recv_tensor_response(wire)
        assert got.shape == np.shape(value) and got_dtype.name == dtype and not dead
        np.testing.assert_array_equal(got, value)
        if dtype != "string" and got.size:
            assert np.shares_memory(got, np.frombuffer(wire, np.uint8))


def test_a_dead_tensor_is_is_dead_on_the_wire():
    from ref.distributed.tensor_coding import decode_recv_tensor_response, encode_recv_tensor_response
    from ref.protos import worker_pb2
    data = encode_recv_tensor_response(None, "float32", is_dead=True)
    assert worker_pb2.RecvTensorResponse.FromString(data).is_dead
    assert decode_recv_tensor_response(data)[2] is True
