"""The master inside real ref servers (gRPC on 127.0.0.1): a ref client and a TensorFlow
client train through it with a ps task; the numbers of a local session. Needs the real
Worker and Server."""
import socket

import numpy as np
import pytest

import ref as tf
from ref.distributed import rpc
from tests.distributed.test_master import AFTER, _assert_same, _local_numbers, _model

pytest.importorskip("grpc")


def _spec():
    ports = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        s.close()
    return {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{ports[1]}"]}


@pytest.fixture()
def cluster():
    spec = _spec()
    servers = [tf.train.Server(tf.train.ClusterSpec(spec), job_name=j, task_index=0) for j in ("ps", "worker")]
    yield spec, servers[1].target
    for s in servers:
        s.stop()


def test_a_ref_client_trains_with_a_ps_task(cluster):
    spec, target = cluster
    master = rpc.local(target, rpc.MASTER_SERVICE)
    g, fetches, train, init = _model(cluster=spec)
    with g.as_default(), tf.Session(target, config=tf.ConfigProto(operation_timeout_in_ms=30000)) as s:
        s.run(init)
        got = [s.run(fetches + [train], {"x:0": [1.0, 2.0]})[:-1] + s.run(AFTER) for _ in range(3)]
        assert len(master._sessions) == 1  # the steps went through this task's master
    _assert_same(_local_numbers(), got)


def test_a_tensorflow_client_trains_on_ref_servers(cluster):
    tfm = pytest.importorskip("tensorflow").compat.v1
    spec, target = cluster

    def train(target):
        with tfm.Graph().as_default():
            setter = tfm.train.replica_device_setter(cluster=tfm.train.ClusterSpec(spec),
                                                     worker_device="/job:worker/task:0")
            with tfm.device(setter if target else None):
                x = tfm.placeholder(tfm.float32, [2], name="x")
                w = tfm.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
                loss = tfm.reduce_sum(tfm.square(w * x), name="loss")
                step = tfm.train.GradientDescentOptimizer(0.1).minimize(
                    loss, global_step=tfm.train.get_or_create_global_step())
            init = tfm.global_variables_initializer()
            with tfm.Session(target, config=tfm.ConfigProto(operation_timeout_in_ms=30000)) as s:
                s.run(init)
                return [s.run([loss, step], {x: [1.0, 2.0]})[0] for _ in range(3)] + [s.run(w * 2.0)]
    ps = rpc.local(spec["ps"][0], rpc.WORKER_SERVICE)  # what the master calls for the ps task
    run_graph, runs = ps.RunGraph, []
    ps.RunGraph = lambda request, timeout=None: runs.append(1) or run_graph(request, timeout)
    for a, b in zip(train(""), train(target)):
        np.testing.assert_array_equal(a, b)
    assert len(runs) >= 5  # init, three steps (two ps stages each), one read: on the ps task
