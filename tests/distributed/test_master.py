"""ref.distributed.master: the MasterService over fake tasks (the RPCs a TF master sends),
over gRPC, and driving real TensorFlow workers (the numbers of a local ref Session)."""
import time

import numpy as np
import pytest

from ref.distributed import ports
import ref as tf
from ref.types import errors
from ref.distributed import rpc
from ref.distributed.cluster import ClusterSpec
from ref.distributed.master import Master
from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.protos import config_pb2, master_pb2, named_tensor_pb2, tensorflow_server_pb2, worker_pb2
from tests.distributed.fake_worker import FakeWorker

SPEC = {"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"]}


@pytest.fixture(autouse=True)
def _staged(monkeypatch):
    """These tests count the RPCs of phase 1's staged, master-mediated steps (the fake
    worker runs client-terminated partitions only); phase 2 is tests/distributed/test_phase2.py."""
    monkeypatch.setenv("REF_DISTRIBUTED_EXCHANGE", "master")
PS, W0, W1 = "/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"


def _server_def(spec=SPEC, job="worker", task=0):
    return tensorflow_server_pb2.ServerDef(cluster=ClusterSpec(spec).as_cluster_def(), job_name=job,
                                           task_index=task, protocol="grpc")


def _master(spec=SPEC):
    workers = {}

    def connect(task, address):
        return workers.setdefault(task, FakeWorker(task, incarnation=0xF00 + len(workers)))
    return Master(_server_def(spec), local_worker=connect(W0, None), connect_worker=connect), workers


def _model(cluster=SPEC, worker_device="/job:worker/task:0"):
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=ClusterSpec(cluster), worker_device=worker_device)):
            x = tf.placeholder(tf.float32, [2], name="x")
            w = tf.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
            v = tf.Variable([3.0, 4.0], name="v")
            gs = tf.train.get_or_create_global_step()
            loss = tf.reduce_sum(tf.square(w * x + v - 1.0), name="loss")
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        init = tf.global_variables_initializer()
    return g, ["loss:0", "w/Read/ReadVariableOp:0"], train.name, init.name


# A reference variable's ``read`` (an Identity aliasing the variable, as in TF) fetched in the
# run that updates it shows the update locally but the value before it when the variable lives
# on another task (TF leaves that order open); such values are fetched in a run of their own.
AFTER = ["v/read:0", "global_step/read:0", "w/Read/ReadVariableOp:0"]


def _step(m, h, fetches=(), targets=(), feeds=None, **kw):
    req = master_pb2.RunStepRequest(session_handle=h, fetch=list(fetches), target=list(targets), **kw)
    for name, value in (feeds or {}).items():
        req.feed.add(name=name, tensor=make_tensor_proto(np.asarray(value, np.float32)))
    resp = m.RunStep(req)
    return [make_ndarray(t.tensor) for t in resp.tensor]


def _named(name, value):
    return named_tensor_pb2.NamedTensorProto(name=name, tensor=make_tensor_proto(np.asarray(value, np.float32)))


def _local_numbers(steps=3):
    g, fetches, train, init = _model()
    with tf.Session(graph=g) as s:
        s.run(init)
        return [s.run(fetches + [train], {"x:0": [1.0, 2.0]})[:-1] + s.run(AFTER) for _ in range(steps)]


def _assert_same(a, b):
    for u, v in zip(a, b):
        for p, q in zip(u, v):
            np.testing.assert_array_equal(np.asarray(p), q)


def test_between_graph_training_equals_local_and_contacts_only_ps_and_itself():
    g, fetches, train, init = _model()
    m, workers = _master()
    try:
        h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
        _step(m, h, targets=[init])
        got = [_step(m, h, fetches, [train], {"x:0": [1.0, 2.0]}) + _step(m, h, AFTER) for _ in range(3)]
        assert sorted(workers) == [PS, W0]  # worker 1 is never contacted
        assert [c for c, _ in workers[PS].calls[:2]] == ["GetStatus", "CreateWorkerSession"]
        create = next(r for c, r in workers[PS].calls if c == "CreateWorkerSession")
        assert create.master_task == W0 and create.session_handle == h and create.server_def.job_name == "ps"
        registered = [c for c, _ in workers[PS].calls].count("RegisterGraph")
        before = len(workers[PS].calls)
        _step(m, h, fetches, [train], {"x:0": [1.0, 2.0]})
        step = [r for c, r in workers[PS].calls[before:]]
        meta = m.RunStep(master_pb2.RunStepRequest(
            session_handle=h, fetch=fetches, target=[train], feed=[_named("x:0", [1.0, 2.0])],
            options=config_pb2.RunOptions(output_partition_graphs=True))).metadata
        assert [{n.device for n in pg.node} for pg in meta.partition_graphs] == [
            {PS + "/device:CPU:0"}, {W0 + "/device:CPU:0"}, {PS + "/device:CPU:0"}]
        assert [c for c, _ in workers[PS].calls].count("RegisterGraph") == registered  # cached per signature
        assert len(step) == 2 and len({r.step_id for r in step}) == 1  # read, then apply; one step id
        assert step[1].send and step[0].recv_key and not step[0].send  # one step id for the partitions of a step
        m.CloseSession(master_pb2.CloseSessionRequest(session_handle=h))
        calls = [c for c, _ in workers[PS].calls]
        assert "DeregisterGraph" in calls and calls[-1] == "DeleteWorkerSession"
    finally:
        m.close()
    _assert_same(_local_numbers(), got)


def test_device_filters_and_in_graph_devices_choose_the_tasks():
    g, _, _, _ = _model()
    m, workers = _master()
    config = config_pb2.ConfigProto(device_filters=["/job:ps", "/job:worker/task:1"])
    m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def(), config=config))
    assert sorted(workers) == [PS, W0, W1]
    m.close()
    g, fetches, train, init = _model(worker_device="/job:worker/task:1")  # in-graph: names worker 1
    m, workers = _master()
    h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
    assert sorted(workers) == [PS, W0, W1]
    _step(m, h, targets=[init])
    assert any(c == "RunGraph" for c, _ in workers[PS].calls)
    devices = m.ListDevices(master_pb2.ListDevicesRequest(session_handle=h))
    assert [d.name for d in devices.local_device] == [W0 + "/device:CPU:0"]
    assert [d.name for d in devices.remote_device] == [PS + "/device:CPU:0", W1 + "/device:CPU:0"]
    m.close()


class _Silent:
    """A task that never answers within the caller's deadline."""

    def GetStatus(self, request, timeout=None):
        time.sleep(min(timeout or 0.5, 0.5))
        raise errors.DeadlineExceededError(None, None, f"no answer within {timeout} s")


def test_discovery_is_bounded_and_names_the_missing_task():
    g, _, _, _ = _model()
    m = Master(_server_def(), local_worker=FakeWorker(W0),
               connect_worker=lambda task, address: _Silent())
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError) as e:
        m.CreateSession(master_pb2.CreateSessionRequest(
            graph_def=g.as_graph_def(), config=config_pb2.ConfigProto(operation_timeout_in_ms=300)))
    assert time.monotonic() - start < 30
    assert "/job:ps/replica:0/task:0 at 127.0.0.1:1" in str(e.value) and "GetStatus" in str(e.value)
    m.close()


def test_extend_session_rules():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1.0, 2.0], name="a")
        b = tf.multiply(a, 3.0, name="b")
    m, _ = _master()
    h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
    n = len(g.get_operations())
    with g.as_default(), tf.control_dependencies([b.op]):
        c = tf.add(a, a, name="c")  # a control input to an existing node (graph_io used to drop it)
    new = g.as_graph_def(from_version=g.get_operations()[n]._id)
    assert {nd.name for nd in new.node} >= {"c"} and "b" not in {nd.name for nd in new.node}
    assert "^b" in next(nd for nd in new.node if nd.name == "c").input
    with pytest.raises(errors.AbortedError, match="Current version is 0 but caller expected 3"):
        m.ExtendSession(master_pb2.ExtendSessionRequest(session_handle=h, graph_def=new, current_graph_version=3))
    r = m.ExtendSession(master_pb2.ExtendSessionRequest(session_handle=h, graph_def=new, current_graph_version=0))
    assert r.new_graph_version == 1
    sess = m._sessions[h]
    assert [op.name for op in sess.graph.get_operation_by_name("c").control_inputs] == ["b"]
    np.testing.assert_array_equal(_step(m, h, ["c:0"])[0], [2.0, 4.0])
    with pytest.raises(errors.InvalidArgumentError, match="includes node 'c'"):
        m.ExtendSession(master_pb2.ExtendSessionRequest(session_handle=h, graph_def=new, current_graph_version=1))
    m.close()


def test_run_step_errors_fed_fetches_and_unknown_sessions():
    g, fetches, train, init = _model()
    m, workers = _master()
    h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
    with pytest.raises(errors.FailedPreconditionError):  # uninitialized variable on the ps
        _step(m, h, ["w/Read/ReadVariableOp:0"])
    got = _step(m, h, ["x:0", "loss:0"], feeds={"x:0": [1.0, 1.0], "loss:0": 5.0})
    assert got[0].tolist() == [1.0, 1.0] and float(got[1]) == 5.0  # fed: returned, producers not run
    with pytest.raises(errors.NotFoundError, match="nope"):
        _step(m, h, ["nope:0"])
    with pytest.raises(errors.AbortedError, match="not found"):
        _step(m, "0123", ["x:0"])
    with pytest.raises(errors.UnimplementedError, match="Session.run"):
        m.MakeCallable(master_pb2.MakeCallableRequest(session_handle=h))
    m.close()


def test_a_restarted_task_is_an_aborted_error_naming_both_incarnations():
    g, fetches, train, init = _model()
    m, workers = _master()
    h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
    _step(m, h, targets=[init])
    old = workers[PS].incarnation
    restarted = FakeWorker(PS, incarnation=0xBEEF)  # the ps process came back: no sessions, no graphs
    workers[PS].__dict__.update(restarted.__dict__)
    with pytest.raises(errors.AbortedError) as e:
        _step(m, h, fetches, [train], {"x:0": [1.0, 2.0]})
    msg = str(e.value)
    assert PS in msg and "127.0.0.1:1" in msg and f"{old:016x}" in msg and f"{0xBEEF:016x}" in msg
    m.close()


def test_reset_cleans_up_every_task():
    m, workers = _master()
    m.Reset(master_pb2.ResetRequest(container=["c"]))
    assert sorted(workers) == [PS, W0, W1]
    assert all(w.calls[-1][0] == "CleanupAll" and list(w.calls[-1][1].container) == ["c"] for w in workers.values())
    m.close()


def test_master_over_grpc_with_errors_in_the_body():
    pytest.importorskip("grpc")
    g, fetches, train, init = _model()
    m, _ = _master()
    server, port = rpc.serve("127.0.0.1:0", {rpc.MASTER_SERVICE: m})
    try:
        c = rpc.Client(f"127.0.0.1:{port}", rpc.MASTER_SERVICE, connect_timeout=10)
        h = c.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def()), timeout=30).session_handle
        with pytest.raises(errors.FailedPreconditionError):
            c.RunStep(master_pb2.RunStepRequest(session_handle=h, fetch=["v/read:0"],
                                                store_errors_in_response_body=True), timeout=30)
        c.RunStep(master_pb2.RunStepRequest(session_handle=h, target=[init]), timeout=30)
        r = c.RunStep(master_pb2.RunStepRequest(session_handle=h, fetch=["v/read:0"]), timeout=30)
        assert make_ndarray(r.tensor[0].tensor).tolist() == [3.0, 4.0]
        c.CloseSession(master_pb2.CloseSessionRequest(session_handle=h), timeout=30)
    finally:
        server.stop(0)
        m.close()



def test_ref_master_drives_real_tensorflow_workers():
    """DISTRIBUTED.md experiment D, end to end: the ps and the worker are TF servers, the
    master is ref's (as the worker task's master), the graph is ref's; numbers equal local."""
    pytest.importorskip("grpc")
    tfm = pytest.importorskip("tensorflow").compat.v1
    spec = {"ps": [f"127.0.0.1:{ports.free_port()}"], "worker": [f"127.0.0.1:{ports.free_port()}"]}
    servers = [tfm.train.Server(tfm.train.ClusterSpec(spec), job_name=j, task_index=0) for j in ("ps", "worker")]
    g, fetches, train, init = _model(cluster=spec)
    m = Master(_server_def(spec), connect_worker=lambda task, address: rpc.Client(
        address, rpc.WORKER_SERVICE, name=task, connect_timeout=30))
    try:
        config = config_pb2.ConfigProto(operation_timeout_in_ms=30000)
        h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def(), config=config)).session_handle
        assert sorted(m._sessions[h].tasks) == [PS, W0]
        assert m._sessions[h].tasks[PS].incarnation != 0  # TF's own incarnation, used in the keys
        _step(m, h, targets=[init])
        got = [_step(m, h, fetches, [train], {"x:0": [1.0, 2.0]}) + _step(m, h, AFTER) for _ in range(3)]
        m.CloseSession(master_pb2.CloseSessionRequest(session_handle=h))
    finally:
        m.close()
    del servers
    _assert_same(_local_numbers(), got)
    assert worker_pb2  # the WorkerService messages are ref's own, read by TF


@pytest.mark.parametrize("options_ms,config_ms,bound", [(5000, 0, 5.0), (0, 2000, 2.0), (1500, 60000, 1.5)])
def test_every_run_graph_is_bounded_by_the_step_deadline(options_ms, config_ms, bound):
    g, fetches, train, init = _model()
    m, workers = _master()
    config = config_pb2.ConfigProto(operation_timeout_in_ms=config_ms)
    h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def(), config=config)).session_handle
    seen = []
    for w in workers.values():
        run = w.RunGraph
        w.RunGraph = lambda request, timeout=None, run=run: seen.append(timeout) or run(request, timeout)
    _step(m, h, targets=[init], options=config_pb2.RunOptions(timeout_in_ms=options_ms))
    _step(m, h, fetches, [train], {"x:0": [1.0, 2.0]}, options=config_pb2.RunOptions(timeout_in_ms=options_ms))
    assert len(seen) >= 4 and all(t is not None and 0 < t <= bound for t in seen)
    m.close()


def test_a_tensorflow_client_trains_through_the_master():
    """TF's own client (GrpcSession: CreateSession, RunStep with errors in the body,
    ExtendSession, CloseSession) against this master over gRPC, tasks simulated: TF's
    local numbers."""
    pytest.importorskip("grpc")
    tfm = pytest.importorskip("tensorflow").compat.v1
    m, workers = _master()
    server, port = rpc.serve("127.0.0.1:0", {rpc.MASTER_SERVICE: m})

    def train(target):
        with tfm.Graph().as_default():
            with tfm.device(tfm.train.replica_device_setter(cluster=tfm.train.ClusterSpec(SPEC),
                                                            worker_device="/job:worker/task:0") if target else None):
                x = tfm.placeholder(tfm.float32, [2], name="x")
                w = tfm.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
                loss = tfm.reduce_sum(tfm.square(w * x), name="loss")
                step = tfm.train.GradientDescentOptimizer(0.1).minimize(loss)
            init = tfm.global_variables_initializer()
            config = tfm.ConfigProto(operation_timeout_in_ms=30000) if target else None
            with tfm.Session(target, config=config) as s:
                if target:
                    with pytest.raises(tfm.errors.FailedPreconditionError, match="w"):
                        s.run(w.read_value())
                s.run(init)
                out = [s.run([loss, step], {x: [1.0, 2.0]})[0] for _ in range(3)]
                y = w * 2.0  # built after the first run: sent with ExtendSession
                return out + [s.run(y)]
    try:
        remote = train(f"grpc://127.0.0.1:{port}")
        local = train("")
    finally:
        server.stop(0)
        m.close()
    assert sorted(workers) == [PS, W0]
    for a, b in zip(local, remote):
        np.testing.assert_array_equal(a, b)


def test_extend_session_contacts_tasks_named_for_the_first_time():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1.0, 2.0], name="a")
    m, workers = _master()
    h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
    assert sorted(workers) == [PS, W0]
    n = len(g.get_operations())
    with g.as_default(), tf.device("/job:worker/task:1"):
        tf.square(a, name="b")
    m.ExtendSession(master_pb2.ExtendSessionRequest(
        session_handle=h, graph_def=g.as_graph_def(from_version=g.get_operations()[n]._id)))
    assert sorted(workers) == [PS, W0, W1]
    assert _step(m, h, ["b:0"])[0].tolist() == [1.0, 4.0]
    assert any(c == "RunGraph" for c, _ in workers[W1].calls)
    m.close()


def test_a_task_nobody_serves_fails_create_session_within_its_deadline():
    pytest.importorskip("grpc")
    spec = {"ps": [f"127.0.0.1:{ports.free_port()}"], "worker": [f"127.0.0.1:{ports.free_port()}"]}
    g, _, _, _ = _model(cluster=spec)
    m = Master(_server_def(spec), local_worker=FakeWorker(W0))  # the ps: rpc.connect -> a Client
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError) as e:
        m.CreateSession(master_pb2.CreateSessionRequest(
            graph_def=g.as_graph_def(), config=config_pb2.ConfigProto(operation_timeout_in_ms=1000)))
    assert time.monotonic() - start < 30
    msg = str(e.value)
    assert f"{PS} at {spec['ps'][0]}" in msg and "GetStatus" in msg and "--job ps --task 0" in msg
    m.close()


@pytest.mark.parametrize("devices,filters,expected", [
    ([""], [], [PS, W0]),
    (["/job:ps/task:0", "/job:worker/task:0"], [], [PS, W0]),
    (["/job:worker"], [], [PS, W0]),  # a spec without a task that admits this task: nobody else
    (["/job:worker/task:1"], [], [PS, W0, W1]),
    (["/job:worker/task:1"], ["/job:ps"], [PS, W0]),  # the filters decide (this task always kept)
    ([], ["/job:worker"], [W0, W1]),
])
def test_which_tasks_a_session_contacts(devices, filters, expected):
    m = Master(_server_def(), local_worker=FakeWorker(W0))
    assert list(m.tasks_for(config_pb2.ConfigProto(device_filters=filters), devices)) == expected
    m.close()
