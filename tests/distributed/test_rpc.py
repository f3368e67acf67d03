"""ref.distributed.rpc: TF's method paths served and called over grpcio on 127.0.0.1."""
import time

import pytest

from ref.types import errors
from ref.protos import master_pb2, worker_pb2

grpc = pytest.importorskip("grpc")
from ref.distributed import rpc  # noqa: E402


class _FakeWorker:
    def GetStatus(self, request, timeout=None):
        r = worker_pb2.GetStatusResponse()
        r.device_attributes.add(name="/job:w/replica:0/task:0/device:CPU:0", device_type="CPU", incarnation=7)
        return r

    def RunGraph(self, request, timeout=None):
        raise errors.FailedPreconditionError(None, None, "uninitialized {{node w}}")

    def CleanupGraph(self, request, timeout=None):
        self.seen_timeout = timeout
        return worker_pb2.CleanupGraphResponse()


@pytest.fixture(scope="module")
def fake():
    impl = _FakeWorker()
    server, port = rpc.serve("127.0.0.1:0", {rpc.WORKER_SERVICE: impl})
    yield impl, rpc.Client(f"127.0.0.1:{port}", rpc.WORKER_SERVICE, name="/job:w/task:0"), port
    server.stop(0)


def test_method_tables_are_tfs():
    assert set(rpc.MASTER_METHODS) == {"CreateSession", "ExtendSession", "PartialRunSetup", "RunStep",
                                       "CloseSession", "ListDevices", "Reset", "MakeCallable",
                                       "RunCallable", "ReleaseCallable"}
    assert rpc.WORKER_METHODS["RunGraph"] == (worker_pb2.RunGraphRequest, worker_pb2.RunGraphResponse)
    assert rpc.MASTER_METHODS["RunStep"] == (master_pb2.RunStepRequest, master_pb2.RunStepResponse)


def test_round_trip(fake):
    _, client, _ = fake
    r = client.GetStatus(worker_pb2.GetStatusRequest(), timeout=5)
    assert [d.name for d in r.device_attributes] == ["/job:w/replica:0/task:0/device:CPU:0"]
    assert r.device_attributes[0].incarnation == 7


@pytest.mark.parametrize("in_body", [False, True])
def test_errors_keep_tfs_code_and_name_the_task(fake, in_body):
    _, client, port = fake
    with pytest.raises(errors.FailedPreconditionError) as e:
        client.RunGraph(worker_pb2.RunGraphRequest(store_errors_in_response_body=in_body), timeout=5)
    assert "uninitialized {{node w}}" in str(e.value)
    if not in_body:  # a gRPC status: the client says where it came from
        assert f"/job:w/task:0 at 127.0.0.1:{port}" in str(e.value) and "WorkerService/RunGraph" in str(e.value)


def test_error_in_body_is_an_ok_status_with_the_code(fake):
    _, _, port = fake
    ch = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = ch.unary_unary("/tensorflow.WorkerService/RunGraph",
                          request_serializer=worker_pb2.RunGraphRequest.SerializeToString,
                          response_deserializer=worker_pb2.RunGraphResponse.FromString)
    r = call(worker_pb2.RunGraphRequest(store_errors_in_response_body=True), timeout=5)
    assert r.status_code == errors.FAILED_PRECONDITION
    assert r.status_error_message == "uninitialized {{node w}}"
    ch.close()


def test_missing_method_is_unimplemented(fake):
    _, client, _ = fake
    with pytest.raises(errors.UnimplementedError, match="CleanupAll"):
        client.CleanupAll(worker_pb2.CleanupAllRequest(), timeout=5)


def test_the_callers_deadline_reaches_the_service(fake):
    impl, client, _ = fake
    client.CleanupGraph(worker_pb2.CleanupGraphRequest(step_id=1), timeout=30)
    assert 0 < impl.seen_timeout <= 31  # grpcio rounds deadlines up a little
    client.CleanupGraph(worker_pb2.CleanupGraphRequest(step_id=1))
    assert impl.seen_timeout is None


def test_nothing_listening_fails_within_the_connect_timeout():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # a port with nothing behind it
    client = rpc.Client(f"grpc://127.0.0.1:{port}", rpc.WORKER_SERVICE, name="/job:ps/task:0",
                        connect_timeout=0.5)
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError, match=rf"/job:ps/task:0 at 127.0.0.1:{port}"):
        client.GetStatus(worker_pb2.GetStatusRequest())
    assert time.monotonic() - start < 10


def test_get_status_from_a_tensorflow_server():
    tf = pytest.importorskip("tensorflow").compat.v1
    server = tf.train.Server.create_local_server()
    client = rpc.Client(server.target, rpc.WORKER_SERVICE)
    r = client.GetStatus(worker_pb2.GetStatusRequest(), timeout=10)
    assert r.device_attributes[0].name == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert r.device_attributes[0].incarnation != 0
    m = rpc.Client(server.target, rpc.MASTER_SERVICE).ListDevices(master_pb2.ListDevicesRequest(), timeout=10)
    assert [d.name for d in m.local_device] == [r.device_attributes[0].name]


def test_connect_prefers_the_service_in_this_process():
    impl = _FakeWorker()
    rpc.register_local("127.0.0.1:9", rpc.WORKER_SERVICE, impl)
    try:
        assert rpc.connect("grpc://127.0.0.1:9", rpc.WORKER_SERVICE) is impl
        assert isinstance(rpc.connect("127.0.0.1:9", rpc.MASTER_SERVICE), rpc.Client)
    finally:
        rpc.unregister_local("127.0.0.1:9", rpc.WORKER_SERVICE)
    assert isinstance(rpc.connect("127.0.0.1:9", rpc.WORKER_SERVICE), rpc.Client)
