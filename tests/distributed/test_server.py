"""tf.train.Server with protocol "grpc": both services on the task's address, start/join/stop."""
import logging
import os
import socket
import threading

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
pytest.importorskip("grpc")

from ref.types import errors  # noqa: E402
from ref.distributed import rpc  # noqa: E402
from ref.distributed.master import Master  # noqa: E402
from ref.distributed.server import Server  # noqa: E402
from ref.distributed.worker import Worker  # noqa: E402
from ref.protos import attr_value_pb2, graph_pb2, node_def_pb2, types_pb2, worker_pb2  # noqa: E402

A = attr_value_pb2.AttrValue


def _status(address, timeout=10):
    client = rpc.Client(address, rpc.WORKER_SERVICE, connect_timeout=timeout)
    return client.GetStatus(worker_pb2.GetStatusRequest(), timeout=timeout).device_attributes[0]


def _listening(host, port):
    try:
        socket.create_connection((host, port), timeout=2).close()
        return True
    except OSError:
        return False


@pytest.mark.parametrize("cluster, job, task", [
    ({"local": ["127.0.0.1:0"]}, "local", 0),
    ({"ps": ["127.0.0.1:0"], "worker": ["127.0.0.1:1", "127.0.0.1:2"]}, "ps", 0),
])
def test_port_zero_takes_a_free_port_shown_in_target_and_server_def(cluster, job, task):
    server = Server(cluster, job_name=job, task_index=task)
    try:
        port = int(server.target.rsplit(":", 1)[1])
        assert server.target == f"grpc://127.0.0.1:{port}" and port > 0
        tasks = {j.name: dict(j.tasks) for j in server.server_def.cluster.job}
        assert tasks[job][task] == f"127.0.0.1:{port}"
        assert _status(server.target).name == f"/job:{job}/replica:0/task:{task}/device:CPU:0"
    finally:
        server.stop()


def test_server_def_port_overrides_the_cluster_spec():
    from ref.protos import cluster_pb2, tensorflow_server_pb2
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # a free port (the spec lists another address, as for a proxy in front of the task)
    cluster = cluster_pb2.ClusterDef()
    job = cluster.job.add(name="ps")
    job.tasks[0] = "127.0.0.1:1"
    server = Server(tensorflow_server_pb2.ServerDef(cluster=cluster, job_name="ps", task_index=0, protocol="grpc",
                                                    port=port))
    try:
        assert server.target == f"grpc://127.0.0.1:{port}"
        assert _status(server.target).name == "/job:ps/replica:0/task:0/device:CPU:0"
    finally:
        server.stop()


def test_services_are_registered_in_the_process_until_stop():
    server = Server.create_local_server()
    worker = rpc.local(server.target, rpc.WORKER_SERVICE)
    master = rpc.local(server.target, rpc.MASTER_SERVICE)
    assert isinstance(worker, Worker) and isinstance(master, Master)
    assert worker.incarnation == _status(server.target).incarnation  # the one gRPC serves
    server.stop()
    assert rpc.local(server.target, rpc.WORKER_SERVICE) is None
    assert rpc.local(server.target, rpc.MASTER_SERVICE) is None
    with pytest.raises(errors.UnavailableError, match="has been stopped"):
        worker.GetStatus(worker_pb2.GetStatusRequest())


def test_a_stopped_server_is_unavailable_naming_its_address():
    server = Server({"ps": ["127.0.0.1:0"]})
    address = server.target[len("grpc://"):]
    _status(address)
    server.stop()
    rpc.forget_channel(address)
    with pytest.raises(errors.UnavailableError, match=address):
        _status(address, timeout=1)


def test_binds_the_host_of_the_cluster_spec_unless_told():
    # 127.0.0.2 is loopback too: a server for it must not listen on 127.0.0.1
    server = Server({"ps": ["127.0.0.2:0"]})
    everywhere = Server({"ps": ["127.0.0.2:0"]}, bind_address="0.0.0.0")
    try:
        port = int(server.target.rsplit(":", 1)[1])
        if not _listening("127.0.0.2", port):
            pytest.skip("127.0.0.2 is not routed to loopback here")
        assert not _listening("127.0.0.1", port)
        other = int(everywhere.target.rsplit(":", 1)[1])
        assert everywhere.target == f"grpc://127.0.0.2:{other}"
        assert _listening("127.0.0.1", other) and _listening("127.0.0.2", other)
    finally:
        server.stop()
        everywhere.stop()


def test_a_taken_port_is_an_error_naming_the_address():
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    port = blocker.getsockname()[1]
    try:
        with pytest.raises(errors.UnknownError, match=f"127.0.0.1:{port}"):  # TF: UnknownError
            Server({"ps": [f"127.0.0.1:{port}"]})
    finally:
        blocker.close()


def test_start_false_serves_only_after_start():
    server = Server({"ps": ["127.0.0.1:0"]}, start=False)
    try:
        with pytest.raises(errors.UnavailableError):
            _status(server.target, timeout=0.5)
        server.start()
        server.start()  # a second start does nothing
        assert _status(server.target).device_type == "CPU"
    finally:
        server.stop()
    with pytest.raises(RuntimeError):
        server.start()


def test_logs_the_target_once_started(caplog):
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        server = Server({"ps": ["127.0.0.1:0"]})
        server.stop()
    assert [r.getMessage() for r in caplog.records if r.name == "tensorflow"] == \
        [f"Started server with target: {server.target}"]


def test_join_returns_when_another_thread_stops_it():
    server = Server({"ps": ["127.0.0.1:0"]})
    joined = []
    thread = threading.Thread(target=lambda: joined.append(server.join()), daemon=True)
    thread.start()
    assert server.join(timeout=0.01) is False
    server.stop()
    thread.join(10)
    assert joined == [True]


def test_stop_cancels_a_kernel_blocked_in_run_graph():
    server = Server({"ps": ["127.0.0.1:0"]})
    device = "/job:ps/replica:0/task:0/device:CPU:0"
    floats = A(list=A.ListValue(type=[types_pb2.DT_FLOAT]))
    nodes = [node_def_pb2.NodeDef(name="q", op="FIFOQueueV2", device=device,
                                  attr={"component_types": floats, "shared_name": A(s=b"q")}),
             node_def_pb2.NodeDef(name="dequeue", op="QueueDequeueV2", input=["q"], device=device,
                                  attr={"component_types": floats})]
    client = rpc.Client(server.target, rpc.WORKER_SERVICE, connect_timeout=10)
    handle = client.RegisterGraph(worker_pb2.RegisterGraphRequest(graph_def=graph_pb2.GraphDef(node=nodes)),
                                  timeout=10).graph_handle
    caught = []

    def blocked():
        try:
            client.RunGraph(worker_pb2.RunGraphRequest(graph_handle=handle), timeout=60)
        except errors.OpError as e:
            caught.append(e)

    thread = threading.Thread(target=blocked, daemon=True)
    thread.start()
    thread.join(0.5)
    server.stop()
    thread.join(30)
    assert not thread.is_alive() and len(caught) == 1
    assert isinstance(caught[0], (errors.CancelledError, errors.UnavailableError))


def test_inprocess_protocol_keeps_the_stand_in():
    server = Server({"local": ["localhost:0"]}, protocol="inprocess")
    try:
        assert server.target.startswith("inprocess://localhost:")
        assert rpc.local(server.target, rpc.WORKER_SERVICE) is None
    finally:
        server.stop()
