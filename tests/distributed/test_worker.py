"""ref's WorkerService, over gRPC through a Server, with hand-built partitions in TF's format.

The same partitions (client-terminated ``_Recv``/``_Send``, rendezvous keys as
TensorFlow writes them) go to a real TensorFlow worker where TF's behaviour is
defined: TF is the oracle for what a partition computes and which error class
a bad request gets.
"""
import itertools
import os
import re
import threading
import time

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
pytest.importorskip("grpc")

from ref.types import errors  # noqa: E402
from ref.distributed import rpc  # noqa: E402
from ref.distributed.server import Server  # noqa: E402
from ref.distributed.worker import Worker, rendezvous_key  # noqa: E402
from ref.formats.tensor_util import make_ndarray, make_tensor_proto  # noqa: E402
from ref.protos import (attr_value_pb2, graph_pb2, node_def_pb2, tensor_shape_pb2,  # noqa: E402
                        tensorflow_server_pb2, types_pb2, worker_pb2)

A = attr_value_pb2.AttrValue
F32, I32 = types_pb2.DT_FLOAT, types_pb2.DT_INT32
_STEPS = itertools.count(1000)


def _shape(*dims):
    return A(shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d)
                                                          for d in dims]))


class Task:
    """A worker reached over gRPC: the partition builder and the RPC sequence a master uses."""

    def __init__(self, target):
        self.client = rpc.Client(target, rpc.WORKER_SERVICE, connect_timeout=10)
        status = self.client.GetStatus(worker_pb2.GetStatusRequest(), timeout=10).device_attributes[0]
        self.device, self.incarnation = status.name, status.incarnation
        self.job = re.match(r"/job:([^/]+)/", self.device).group(1)

    # -- partitions in TF's format ---------------------------------------------------
    def node(self, name, op, inputs=(), **attrs):
        n = node_def_pb2.NodeDef(name=name, op=op, input=list(inputs), device=self.device)
        for k, v in attrs.items():
            n.attr[k].CopyFrom(v)
        return n

    def _ends(self, tensor_name):
        signed = self.incarnation - 2 ** 64 if self.incarnation >= 2 ** 63 else self.incarnation
        return dict(send_device=A(s=self.device.encode()), recv_device=A(s=self.device.encode()),
                    send_device_incarnation=A(i=signed), tensor_name=A(s=tensor_name.encode()),
                    client_terminated=A(b=True))

    def recv(self, name, dtype=F32):
        return self.node(f"_recv_{name}_0", "_Recv", tensor_type=A(type=dtype), **self._ends(name))

    def send(self, name, src, dtype=F32):
        return self.node(f"_send_{name}_0", "_Send", [src], T=A(type=dtype), **self._ends(name))

    def key(self, name):
        return rendezvous_key(self.device, self.incarnation, self.device, name)

    def variable(self, name="w", dtype=F32, shape=(2,), container=""):
        return self.node(name, "VarHandleOp", dtype=A(type=dtype), shape=_shape(*shape),
                         shared_name=A(s=name.encode()), container=A(s=container.encode()))

    # -- RPCs ------------------------------------------------------------------------
    def session(self, handle, isolate=False):
        server_def = tensorflow_server_pb2.ServerDef(job_name=self.job, task_index=0, protocol="grpc")
        self.client.CreateWorkerSession(worker_pb2.CreateWorkerSessionRequest(
            session_handle=handle, server_def=server_def, isolate_session_state=isolate), timeout=10)
        return handle

    def register(self, nodes, session="s"):
        request = worker_pb2.RegisterGraphRequest(session_handle=session, create_worker_session_called=True,
                                                  graph_def=graph_pb2.GraphDef(node=nodes))
        return self.client.RegisterGraph(request, timeout=10).graph_handle

    def run(self, handle, sends=None, recvs=(), session="s", timeout=10, in_body=True):
        step = next(_STEPS)
        request = worker_pb2.RunGraphRequest(session_handle=session, create_worker_session_called=True,
                                             graph_handle=handle, step_id=step, recv_key=[self.key(r) for r in recvs],
                                             store_errors_in_response_body=in_body)
        for name, value in (sends or {}).items():
            request.send.add(name=self.key(name), tensor=make_tensor_proto(value))
        try:
            response = self.client.RunGraph(request, timeout=timeout)
        finally:
            self.client.CleanupGraph(worker_pb2.CleanupGraphRequest(step_id=step), timeout=10)
        got = {t.name: make_ndarray(t.tensor) for t in response.recv}
        return [got[self.key(r)] for r in recvs]

    # -- the partitions of the tests -------------------------------------------------
    def assign_and_read(self, var="w", container=""):
        """ps partition: w = x; send(read(w))."""
        return self.register([
            self.variable(var, container=container), self.recv("x"),
            self.node("assign", "AssignVariableOp", [var, "_recv_x_0"], dtype=A(type=F32)),
            self.node("read", "ReadVariableOp", [var, "^assign"], dtype=A(type=F32)),
            self.send("read", "read")])

    def read(self, var="w", session="s", container=""):
        return self.register([self.variable(var, container=container),
                              self.node("read", "ReadVariableOp", [var], dtype=A(type=F32)),
                              self.send("read", "read")], session)

    def apply_gradient(self, lr=0.5):
        """ps partition: w -= lr * grad (fed); send(read(w))."""
        return self.register([
            self.variable(), self.recv("grad"),
            self.node("lr", "Const", dtype=A(type=F32), value=A(tensor=make_tensor_proto(np.float32(lr)))),
            self.node("apply", "ResourceApplyGradientDescent", ["w", "lr", "_recv_grad_0"], T=A(type=F32),
                      use_locking=A(b=False)),
            self.node("read", "ReadVariableOp", ["w", "^apply"], dtype=A(type=F32)),
            self.send("read", "read")])


@pytest.fixture(scope="module")
def ref_server():
    server = Server.create_local_server()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def tf_server():
    tf = pytest.importorskip("tensorflow").compat.v1
    return tf.train.Server.create_local_server()  # TF's servers cannot be stopped


@pytest.fixture(params=["ref", "tf"])
def task(request):
    """The same test on ref's worker and on TensorFlow's (the oracle)."""
    server = request.getfixturevalue(f"{request.param}_server")
    t = Task(server.target)
    t.session("s")
    return t


@pytest.fixture(params=["ref", "tf"])
def fresh_task(request):
    """Like ``task``, on a server of its own: TF's worker keeps kernels that earlier
    tests left blocked (it has no run deadline) on its few inter-op threads."""
    if request.param == "ref":
        server = Server.create_local_server()
        request.addfinalizer(server.stop)
    else:
        server = pytest.importorskip("tensorflow").compat.v1.train.Server.create_local_server()
    t = Task(server.target)
    t.session("s")
    return t


@pytest.fixture
def ref_task(ref_server):
    t = Task(ref_server.target)
    t.session("s")
    return t


def test_get_status_names_the_cpu_with_an_incarnation(ref_server, tf_server):
    ours = Task(ref_server.target).client.GetStatus(worker_pb2.GetStatusRequest(), timeout=10).device_attributes
    theirs = Task(tf_server.target).client.GetStatus(worker_pb2.GetStatusRequest(), timeout=10).device_attributes
    assert [d.name for d in ours] == [d.name for d in theirs] == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    assert ours[0].device_type == theirs[0].device_type == "CPU"
    assert ours[0].memory_limit == theirs[0].memory_limit
    assert ours[0].incarnation != 0


def test_each_worker_has_its_own_incarnation():
    server_def = tensorflow_server_pb2.ServerDef(job_name="ps", task_index=3)
    a, b = Worker(server_def), Worker(server_def)
    assert a.incarnation != b.incarnation and 0 < a.incarnation < 2 ** 64
    assert a.task_name == "/job:ps/replica:0/task:3" and a.device_name == "/job:ps/replica:0/task:3/device:CPU:0"


@pytest.mark.parametrize("x", [np.array([1.0, 2.0], np.float32), np.array([-3.5, 0.25], np.float32)])
def test_assign_and_read_partition(task, x):
    handle = task.assign_and_read()
    assert re.fullmatch(r"[0-9a-f]{16}", handle)
    np.testing.assert_array_equal(task.run(handle, {"x": x}, ["read"])[0], x)


def test_gradient_partition_keeps_the_variable_between_runs(task):
    task.run(task.assign_and_read(), {"x": np.array([1.0, 2.0], np.float32)}, ["read"])
    apply = task.apply_gradient(lr=0.5)
    grad = np.array([1.0, -2.0], np.float32)
    got = [task.run(apply, {"grad": grad}, ["read"])[0].tolist() for _ in range(3)]
    assert got == [[0.5, 3.0], [0.0, 4.0], [-0.5, 5.0]]


def test_worker_sessions_share_state_unless_isolated(task):
    task.session("shared-2")
    task.session("isolated", isolate=True)
    task.run(task.assign_and_read("v"), {"x": np.array([7.0, 8.0], np.float32)}, ["read"])
    assert task.run(task.read("v", "shared-2"), session="shared-2", recvs=["read"])[0].tolist() == [7.0, 8.0]
    with pytest.raises(errors.FailedPreconditionError):
        task.run(task.read("v", "isolated"), session="isolated", recvs=["read"])


def test_unknown_session_handle_is_aborted(task):
    with pytest.raises(errors.AbortedError, match="Session handle is not found"):
        task.register([task.variable()], session="no-such-session")


@pytest.mark.parametrize("handle, error", [("", errors.InvalidArgumentError), ("fresh", None)])
def test_create_worker_session_handles(task, handle, error):
    if error is None:
        task.session(handle)
        task.session(handle)  # again: the session is kept
        assert task.register([task.variable()], session=handle)
    else:
        with pytest.raises(error):
            task.session(handle)


def test_deleting_an_unknown_session_is_accepted(task):
    task.client.DeleteWorkerSession(worker_pb2.DeleteWorkerSessionRequest(session_handle="never-made"), timeout=10)
    task.session("gone")
    task.client.DeleteWorkerSession(worker_pb2.DeleteWorkerSessionRequest(session_handle="gone"), timeout=10)
    with pytest.raises(errors.AbortedError, match="Session handle is not found: gone"):
        task.register([task.variable()], session="gone")


def test_a_restarted_master_s_old_sessions_are_dropped(task):
    def create(handle, incarnation):
        task.client.CreateWorkerSession(worker_pb2.CreateWorkerSessionRequest(
            session_handle=handle, master_task="/job:master/replica:0/task:0",
            master_incarnation=incarnation), timeout=10)
    create("old-1", 11)
    create("old-2", 11)  # the same master: both kept
    assert task.register([task.variable()], session="old-1")
    create("new", 12)  # a new incarnation of that master
    for gone in ("old-1", "old-2"):
        with pytest.raises(errors.AbortedError, match="Session handle is not found"):
            task.register([task.variable()], session=gone)
    assert task.register([task.variable()], session="new")


def test_deregistered_graph_handle_is_aborted(task):
    handle = task.read()
    task.client.DeregisterGraph(worker_pb2.DeregisterGraphRequest(
        session_handle="s", create_worker_session_called=True, graph_handle=handle), timeout=10)
    with pytest.raises(errors.AbortedError, match="Graph handle is not found"):
        task.run(handle, recvs=["read"])


@pytest.mark.parametrize("containers, cleared", [
    ([], {"d"}), (["c1"], {"c"}), (["c1", "localhost"], {"c", "d"}), (["c1", ""], {"c"}), (["c2"], set())])
def test_cleanup_all_clears_containers(task, containers, cleared):
    x = np.array([1.0, 2.0], np.float32)
    task.run(task.assign_and_read("c", container="c1"), {"x": x}, ["read"])
    task.run(task.assign_and_read("d"), {"x": x}, ["read"])
    task.client.CleanupAll(worker_pb2.CleanupAllRequest(container=containers), timeout=10)
    for var, container in (("c", "c1"), ("d", "")):
        if var in cleared:
            with pytest.raises(errors.FailedPreconditionError):
                task.run(task.read(var, container=container), recvs=["read"])
        else:
            assert task.run(task.read(var, container=container), recvs=["read"])[0].tolist() == [1.0, 2.0]


# -- what ref does better than TF's worker (which waits forever) ---------------------------------

@pytest.mark.parametrize("in_body", [True, False])
def test_missing_send_is_an_error_naming_the_key(ref_task, in_body):
    handle = ref_task.assign_and_read()
    with pytest.raises(errors.InvalidArgumentError) as e:
        ref_task.run(handle, {}, ["read"], in_body=in_body)
    assert ref_task.key("x") in str(e.value) and "{{node _recv_x_0}}" in str(e.value)


def test_unknown_recv_key_is_an_error_naming_it(ref_task):
    handle = ref_task.assign_and_read()
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(ref_task.key("nope"))):
        ref_task.run(handle, {"x": np.zeros(2, np.float32)}, ["nope"])


def test_sent_value_of_the_wrong_dtype(ref_task):
    handle = ref_task.assign_and_read()
    with pytest.raises(errors.InvalidArgumentError, match="int32, expected float32"):
        ref_task.run(handle, {"x": np.zeros(2, np.int32)}, ["read"])


def _queue(task, name, shared_name, capacity=10):
    return task.node(name, "FIFOQueueV2", component_types=A(list=A.ListValue(type=[F32])),
                     shapes=A(list=A.ListValue()), capacity=A(i=capacity), container=A(s=b""),
                     shared_name=A(s=shared_name.encode()))


def _enqueue(task, shared_name):
    return task.register([
        _queue(task, "q", shared_name), task.recv("v"),
        task.node("enqueue", "QueueEnqueueV2", ["q", "_recv_v_0"], Tcomponents=A(list=A.ListValue(type=[F32])),
                  timeout_ms=A(i=-1))])


def _dequeue(task, shared_name, session="s"):
    return task.register([
        _queue(task, "q", shared_name),
        task.node("dequeue", "QueueDequeueV2", ["q"], component_types=A(list=A.ListValue(type=[F32])),
                  timeout_ms=A(i=-1)),
        task.send("token", "dequeue")], session)


def _accumulator(task, shared_name):
    return task.node("acc", "ConditionalAccumulator", dtype=A(type=F32), shape=_shape(2), container=A(s=b""),
                     shared_name=A(s=shared_name.encode()), reduction_type=A(s=b"MEAN"))


def _apply_grad(task, shared_name, local_step=0):
    return task.register([
        _accumulator(task, shared_name), task.recv("g"),
        task.node("step", "Const", dtype=A(type=types_pb2.DT_INT64),
                  value=A(tensor=make_tensor_proto(np.int64(local_step)))),
        task.node("apply", "AccumulatorApplyGradient", ["acc", "step", "_recv_g_0"], dtype=A(type=F32))])


def _take_grad(task, shared_name, num_required=2):
    return task.register([
        _accumulator(task, shared_name),
        task.node("n", "Const", dtype=A(type=I32), value=A(tensor=make_tensor_proto(np.int32(num_required)))),
        task.node("take", "AccumulatorTakeGradient", ["acc", "n"], dtype=A(type=F32)),
        task.send("avg", "take")])


def test_queue_partitions_are_first_in_first_out_across_sessions(task):
    enqueue = _enqueue(task, "fifo")
    for v in (1.5, -2.0, 7.0):
        task.run(enqueue, {"v": np.float32(v)})
    task.session("other")
    dequeue, elsewhere = _dequeue(task, "fifo"), _dequeue(task, "fifo", session="other")
    got = [task.run(dequeue, recvs=["token"])[0], task.run(elsewhere, session="other", recvs=["token"])[0],
           task.run(dequeue, recvs=["token"])[0]]
    assert [float(g) for g in got] == [1.5, -2.0, 7.0]


def test_accumulator_partitions_average_and_drop_stale_gradients(task):
    apply, take = _apply_grad(task, "w/grad_accum"), _take_grad(task, "w/grad_accum")
    task.run(apply, {"g": np.array([1.0, 3.0], np.float32)})
    task.run(apply, {"g": np.array([3.0, 7.0], np.float32)})
    assert task.run(take, recvs=["avg"])[0].tolist() == [2.0, 5.0]
    stale = _apply_grad(task, "w/grad_accum", local_step=0)  # the take made the global step 1: 0 is stale
    fresh = _apply_grad(task, "w/grad_accum", local_step=1)
    task.run(stale, {"g": np.array([100.0, 100.0], np.float32)})
    task.run(fresh, {"g": np.array([4.0, 4.0], np.float32)})
    task.run(fresh, {"g": np.array([2.0, 0.0], np.float32)})
    assert task.run(take, recvs=["avg"])[0].tolist() == [3.0, 2.0]


def test_a_blocked_take_is_served_by_another_session_s_apply(fresh_task):
    """SyncReplicas on a ps: the chief's take waits while a worker's session applies gradients."""
    task = fresh_task
    task.session("worker-1")
    take = _take_grad(task, "sync/grad_accum")
    apply = _apply_grad(task, "sync/grad_accum")
    elsewhere = task.register([_accumulator(task, "sync/grad_accum"), task.recv("g"),
                               task.node("step", "Const", dtype=A(type=types_pb2.DT_INT64),
                                         value=A(tensor=make_tensor_proto(np.int64(0)))),
                               task.node("apply", "AccumulatorApplyGradient", ["acc", "step", "_recv_g_0"],
                                         dtype=A(type=F32))], session="worker-1")
    got = []
    thread = threading.Thread(target=lambda: got.append(task.run(take, recvs=["avg"], timeout=60)[0]), daemon=True)
    thread.start()
    task.run(apply, {"g": np.array([1.0, 2.0], np.float32)})
    task.run(elsewhere, {"g": np.array([3.0, 6.0], np.float32)}, session="worker-1")
    thread.join(60)
    assert not thread.is_alive() and [g.tolist() for g in got] == [[2.0, 4.0]]


def test_blocking_dequeue_is_bounded_by_the_run_deadline(ref_task):
    dequeue = _dequeue(ref_task, "tokens")
    with pytest.raises(errors.DeadlineExceededError) as e:
        ref_task.run(dequeue, recvs=["token"], timeout=2)
    message = str(e.value)
    for part in ("Dequeue on /job:localhost/replica:0/task:0", "FIFOQueue 'tokens' holds 0 element(s)",
                 "1 more element(s)", "{{node dequeue}}"):
        assert part in message
    # the worker is not stuck, and the queue is the shared one
    ref_task.run(_enqueue(ref_task, "tokens"), {"v": np.float32(4.5)})
    assert ref_task.run(dequeue, recvs=["token"], timeout=10)[0] == np.float32(4.5)


def test_take_grad_deadline_says_how_many_gradients_it_holds(ref_task):
    apply, take = _apply_grad(ref_task, "b/grad_accum"), _take_grad(ref_task, "b/grad_accum")
    ref_task.run(apply, {"g": np.array([1.0, 3.0], np.float32)})
    with pytest.raises(errors.DeadlineExceededError) as e:
        ref_task.run(take, recvs=["avg"], timeout=2)
    assert "1 of 2 gradients for global step 0" in str(e.value) and "{{node take}}" in str(e.value)
    assert "take_grad on /job:localhost/replica:0/task:0" in str(e.value)
    ref_task.run(apply, {"g": np.array([3.0, 5.0], np.float32)})
    assert ref_task.run(take, recvs=["avg"])[0].tolist() == [2.0, 4.0]


def test_deleting_the_session_cancels_its_blocked_run(ref_task):
    ref_task.session("doomed")
    dequeue = _dequeue(ref_task, "never", session="doomed")
    caught = []

    def blocked():
        try:
            ref_task.run(dequeue, recvs=["token"], session="doomed", timeout=60)
        except errors.OpError as e:
            caught.append(e)

    thread = threading.Thread(target=blocked, daemon=True)
    thread.start()
    thread.join(0.5)  # let it block (if it has not yet, the cancel still reaches its first wait)
    ref_task.client.DeleteWorkerSession(worker_pb2.DeleteWorkerSessionRequest(session_handle="doomed"), timeout=10)
    thread.join(30)
    assert not thread.is_alive()
    assert len(caught) == 1 and isinstance(caught[0], (errors.CancelledError, errors.AbortedError))


@pytest.mark.parametrize("mutate, error, text", [
    (lambda n: setattr(n, "device", "/job:ps/replica:0/task:7/device:CPU:0"), errors.InvalidArgumentError,
     "another task"),
])
def test_partitions_ref_cannot_run_are_refused_by_name(ref_task, mutate, error, text):
    nodes = [ref_task.variable(), ref_task.recv("x"),
             ref_task.node("assign", "AssignVariableOp", ["w", "_recv_x_0"], dtype=A(type=F32))]
    mutate(nodes[2])
    with pytest.raises(error, match=text):
        ref_task.register(nodes)


def test_legacy_session_serves_requests_without_create_worker_session(ref_task):
    request = worker_pb2.RegisterGraphRequest(graph_def=graph_pb2.GraphDef(node=[
        ref_task.variable("legacy"), ref_task.recv("x"),
        ref_task.node("assign", "AssignVariableOp", ["legacy", "_recv_x_0"], dtype=A(type=F32))]))
    handle = ref_task.client.RegisterGraph(request, timeout=10).graph_handle
    run = worker_pb2.RunGraphRequest(graph_handle=handle)
    run.send.add(name=ref_task.key("x"), tensor=make_tensor_proto(np.array([5.0, 6.0], np.float32)))
    ref_task.client.RunGraph(run, timeout=10)
    # the legacy session shares the worker's state with the others
    assert ref_task.run(ref_task.read("legacy"), recvs=["read"])[0].tolist() == [5.0, 6.0]


@pytest.mark.parametrize("method", ["Logging", "Tracing"])
def test_logging_and_tracing_rpcs_are_unimplemented(ref_task, method):
    request_cls, _ = rpc.WORKER_METHODS[method]
    with pytest.raises(errors.UnimplementedError, match=method):
        getattr(ref_task.client, method)(request_cls(), timeout=10)


def test_recv_tensor_waits_bounded_and_an_ended_step_fails_at_once(ref_task):
    """RecvTensor for a key nobody sent waits until the call's deadline; after CleanupGraph
    of its step it fails at once (no wait outlives its step)."""
    key = "/job:ps/replica:0/task:0/device:CPU:0;0000000000000001;/job:worker/replica:0/task:0/device:CPU:0;x;0:0"
    start = time.monotonic()
    with pytest.raises(errors.DeadlineExceededError):
        ref_task.client.RecvTensor(worker_pb2.RecvTensorRequest(step_id=77, rendezvous_key=key), timeout=1.0)
    assert time.monotonic() - start < 10
    ref_task.client.CleanupGraph(worker_pb2.CleanupGraphRequest(step_id=77), timeout=10)
    start = time.monotonic()
    with pytest.raises(errors.AbortedError, match="step 77"):
        ref_task.client.RecvTensor(worker_pb2.RecvTensorRequest(step_id=77, rendezvous_key=key), timeout=30)
    assert time.monotonic() - start < 5
