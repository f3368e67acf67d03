"""ref.distributed.testing.FaultProxy: faults between an rpc.Client and a service made with rpc.serve."""
import time

import pytest

from ref.types import errors
from ref.protos import worker_pb2

grpc = pytest.importorskip("grpc")
from ref.distributed import rpc  # noqa: E402
from ref.distributed.testing import FaultProxy  # noqa: E402

BOUND = 30.0  # seconds: a generous ceiling for anything that should end
TASK = "/job:ps/replica:0/task:0"


class _Fake:
    """A WorkerService with a fixed incarnation and one failing method."""

    def GetStatus(self, request, timeout=None):
        r = worker_pb2.GetStatusResponse()
        r.device_attributes.add(name=TASK + "/device:CPU:0", device_type="CPU", incarnation=42)
        return r

    def RunGraph(self, request, timeout=None):
        raise errors.FailedPreconditionError(None, None, "uninitialized {{node w}}")

    def CleanupGraph(self, request, timeout=None):
        return worker_pb2.CleanupGraphResponse()


@pytest.fixture()
def proxy():
    server, port = rpc.serve("127.0.0.1:0", {rpc.WORKER_SERVICE: _Fake()})
    p = FaultProxy(f"127.0.0.1:{port}")
    yield p
    p.stop()
    server.stop(0)


def client(proxy, connect_timeout=BOUND):
    return rpc.Client(proxy.address, rpc.WORKER_SERVICE, name=TASK, connect_timeout=connect_timeout)


def get_status(c, timeout=BOUND):
    return c.GetStatus(worker_pb2.GetStatusRequest(), timeout=timeout)


def test_passes_calls_and_errors_through_and_logs_them(proxy):
    assert proxy.address.startswith("127.0.0.1:") and proxy.address != proxy.target
    c = client(proxy)
    assert get_status(c).device_attributes[0].incarnation == 42
    with pytest.raises(errors.FailedPreconditionError, match=r"uninitialized \{\{node w\}\}"):
        c.RunGraph(worker_pb2.RunGraphRequest(), timeout=BOUND)
    assert proxy.calls == ["/tensorflow.WorkerService/GetStatus", "/tensorflow.WorkerService/RunGraph"]


# (fault, its method filter, the call's deadline, the error, at least this many seconds)
FAULTS = [
    ("drop", None, BOUND, errors.UnavailableError, 0.0),
    ("drop", "GetStatus", BOUND, errors.UnavailableError, 0.0),
    ("drop", "/tensorflow.WorkerService/GetStatus", BOUND, errors.UnavailableError, 0.0),
    ("blackhole", None, 1.0, errors.DeadlineExceededError, 1.0),
    ("blackhole", "GetStatus", 1.0, errors.DeadlineExceededError, 1.0),
    ("delay", None, 0.5, errors.DeadlineExceededError, 0.5),  # delayed 60 s, deadline 0.5 s
]


@pytest.mark.parametrize("kind, method, deadline, error, at_least", FAULTS)
def test_fault_gives_the_error_within_the_deadline(proxy, kind, method, deadline, error, at_least):
    c = client(proxy)
    get_status(c)  # connected
    getattr(proxy, kind)(*((60.0,) if kind == "delay" else ()), method=method)
    start = time.monotonic()
    with pytest.raises(error) as e:
        get_status(c, timeout=deadline)
    elapsed = time.monotonic() - start
    assert at_least * 0.95 <= elapsed < BOUND
    assert f"{TASK} at {proxy.address}" in str(e.value) and "GetStatus" in str(e.value)
    # a fault for GetStatus only leaves the other methods alone
    if method is not None:
        c.CleanupGraph(worker_pb2.CleanupGraphRequest(), timeout=BOUND)
    proxy.restore()
    assert get_status(c).device_attributes[0].incarnation == 42


def test_delay_is_at_least_the_delay(proxy):
    c = client(proxy)
    get_status(c)
    proxy.delay(0.3, method="GetStatus")
    start = time.monotonic()
    assert get_status(c).device_attributes[0].incarnation == 42
    assert 0.3 * 0.95 <= time.monotonic() - start < BOUND


def test_kill_then_restore_on_the_same_port(proxy):
    c = client(proxy, connect_timeout=1.0)
    get_status(c)
    address = proxy.address
    proxy.kill()
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError, match=f"{TASK} at {address}"):
        get_status(c, timeout=1.0)
    assert time.monotonic() - start < BOUND
    proxy.restore()
    assert proxy.address == address
    rpc._CHANNELS.pop(address, None)  # a fresh channel, without the killed one's reconnect backoff
    assert get_status(client(proxy)).device_attributes[0].incarnation == 42


def test_restore_wakes_blackholed_calls(proxy):
    import threading
    c = client(proxy)
    get_status(c)
    proxy.blackhole()
    out = []
    t = threading.Thread(target=lambda: out.append(pytest.raises(Exception, get_status, c, BOUND)))
    t.start()
    deadline = time.monotonic() + BOUND
    while len(proxy.calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    proxy.restore()
    t.join(BOUND)
    assert not t.is_alive() and out and out[0].type is errors.UnavailableError


def test_passes_a_tensorflow_client_and_server_through():
    tf = pytest.importorskip("tensorflow").compat.v1
    server = tf.train.Server.create_local_server()
    with FaultProxy(server.target) as p:
        status = get_status(client(p))
        assert status.device_attributes[0].name == "/job:localhost/replica:0/task:0/device:CPU:0"
        with tf.Graph().as_default():
            total = tf.constant(3.0) + 1.0
            config = tf.ConfigProto(operation_timeout_in_ms=1000)
            with tf.Session("grpc://" + p.address, config=config) as sess:
                assert sess.run(total) == 4.0
                p.blackhole("RunStep")
                start = time.monotonic()
                with pytest.raises(tf.errors.DeadlineExceededError):
                    sess.run(total)
                assert 0.95 <= time.monotonic() - start < BOUND
                p.restore()
        assert p.calls[:3] == ["/tensorflow.WorkerService/GetStatus", "/tensorflow.MasterService/CreateSession",
                               "/tensorflow.MasterService/RunStep"]
        assert p.calls.count("/tensorflow.MasterService/RunStep") == 2
