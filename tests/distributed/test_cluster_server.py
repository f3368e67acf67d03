"""ClusterSpec and Server (grpc and the in-process stand-in), against tf.train.ClusterSpec / TF's ServerDef."""
import os
import threading

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import ref as rtf
from ref.distributed.cluster import ClusterSpec
from ref.distributed.server import Server
from ref.protos import cluster_pb2

CLUSTERS = [
    {"worker": ["w0:2222", "w1:2222", "w2:2222"], "ps": ["ps0:2222", "ps1:2222"]},
    {"local": ["localhost:2222"]},
    {"sparse": {1: "a:1", 3: "b:1"}, "dense": ["c:1"]},
    {"empty": []},
    {"b": ("x:1",), "a": {0: "y:1", 1: "z:1"}},
]


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_cluster_spec_matches_tf(cluster):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = ClusterSpec(cluster), tf.train.ClusterSpec(cluster)
    assert ours.as_dict() == theirs.as_dict()
    assert ours.jobs == theirs.jobs
    assert bool(ours) == bool(theirs)
    assert repr(ours) == repr(theirs)
    assert ours.as_cluster_def().SerializeToString(deterministic=True) == \
        theirs.as_cluster_def().SerializeToString(deterministic=True)
    for job in ours.jobs:
        assert ours.num_tasks(job) == theirs.num_tasks(job)
        assert ours.task_indices(job) == theirs.task_indices(job)
        if ours.task_indices(job):
            assert ours.job_tasks(job) == theirs.job_tasks(job)
        for i in ours.task_indices(job):
            assert ours.task_address(job, i) == theirs.task_address(job, i)
    # round trips: from our ClusterDef, from TF's ClusterDef, from a ClusterSpec
    assert ClusterSpec(ours.as_cluster_def()).as_dict() == theirs.as_dict()
    assert ClusterSpec(theirs.as_cluster_def()).as_dict() == theirs.as_dict()
    assert ClusterSpec(ours) == ours and ClusterSpec(ours).as_dict() == theirs.as_dict()


@pytest.mark.parametrize("call, error", [
    (lambda: ClusterSpec(["a:1"]), TypeError),
    (lambda: ClusterSpec({"job": "a:1"}), TypeError),
    (lambda: ClusterSpec({"job": [1]}), TypeError),
    (lambda: ClusterSpec({"job": ["a:1"]}).num_tasks("nope"), ValueError),
    (lambda: ClusterSpec({"job": ["a:1"]}).task_indices("nope"), ValueError),
    (lambda: ClusterSpec({"job": ["a:1"]}).job_tasks("nope"), ValueError),
    (lambda: ClusterSpec({"job": ["a:1"]}).task_address("job", 3), ValueError),
])
def test_cluster_spec_errors(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("a, b, equal", [
    ({"w": ["a:1"]}, {"w": ["a:1"]}, True),
    ({"w": ["a:1"]}, {"w": {0: "a:1"}}, True),
    ({"w": ["a:1"]}, {"w": ["b:1"]}, False),
])
def test_cluster_spec_eq(a, b, equal):
    tf = pytest.importorskip("tensorflow")
    assert (ClusterSpec(a) == ClusterSpec(b)._cluster_spec) == equal
    assert (tf.train.ClusterSpec(a) == tf.train.ClusterSpec(b)._cluster_spec) == equal
    assert (ClusterSpec(a) == ClusterSpec(b).as_dict()) == (tf.train.ClusterSpec(a) == tf.train.ClusterSpec(b).as_dict())


SERVER_ARGS = [
    (({"worker": ["localhost:30001", "localhost:30002"]},), {"job_name": "worker", "task_index": 1}),
    (({"local": ["localhost:30003"]},), {}),
    (({"ps": ["a:1"], "worker": ["localhost:30005"]},), {"job_name": "worker"}),
]


@pytest.mark.parametrize("args, kwargs", SERVER_ARGS)
def test_server_def_and_target_match_tf(args, kwargs):
    pytest.importorskip("tensorflow")
    from tensorflow.python.training import server_lib

    theirs = server_lib._make_server_def(*args, kwargs.get("job_name"), kwargs.get("task_index"),
                                         kwargs.get("protocol"), None)
    server = Server(*args, start=False, **kwargs)
    assert server.server_def.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True)
    job, task = theirs.job_name, theirs.task_index
    address = {j.name: dict(j.tasks) for j in theirs.cluster.job}[job][task]
    assert server.target == f"{theirs.protocol}://{address}"


@pytest.mark.parametrize("args, kwargs, error", [
    (({"worker": ["a:1", "b:1"]},), {"job_name": "worker"}, ValueError),  # task_index needed
    (({"worker": ["a:1"], "ps": ["b:1"]},), {}, ValueError),  # job_name needed
    ((["a:1"],), {}, TypeError),
])
def test_server_errors(args, kwargs, error):
    with pytest.raises(error):
        Server(*args, start=False, **kwargs)


@pytest.mark.parametrize("args, kwargs", [
    (({"local": ["localhost:0"]},), {"protocol": "grpc+verbs"}),  # no such server factory
    (({"local": ["localhost"]},), {}),  # no port
])
def test_server_run_time_errors_match_tf(args, kwargs):
    tf = pytest.importorskip("tensorflow").compat.v1
    with pytest.raises(tf.errors.OpError) as theirs:
        tf.train.Server(*args, start=False, **kwargs)
    with pytest.raises(rtf.errors.OpError) as ours:
        Server(*args, start=False, **kwargs)
    assert ours.value.error_code == theirs.value.error_code


def test_local_servers_get_distinct_targets():
    a, b = Server.create_local_server(start=False), Server.create_local_server(start=False)
    try:
        assert a.target.startswith("grpc://localhost:") and a.target != b.target
        assert a.server_def.job_name == "localhost" and a.server_def.task_index == 0
    finally:
        a.stop()
        b.stop()


def _counter_graph():
    g = rtf.Graph()
    with g.as_default():
        v = rtf.Variable(0.0, name="v")
        inc = rtf.assign_add(v, 1.0)
        q = rtf.FIFOQueue(10, rtf.float32, shapes=(), shared_name="q")
        enq, deq = q.enqueue(3.5), q.dequeue()
        init = rtf.global_variables_initializer()
    return g, v, inc, enq, deq, init


@pytest.mark.parametrize("same_cluster, shares", [(True, True), (False, False)])
def test_sessions_on_a_cluster_share_variables_and_queues(same_cluster, shares):
    cluster = {"worker": ["localhost:31001", "localhost:31002"]}
    other = {"worker": ["localhost:31003", "localhost:31004"]}
    # protocol "inprocess": the stand-in whose sessions share one store (no sockets)
    s0 = Server(cluster, job_name="worker", task_index=0, protocol="inprocess")
    s1 = Server(cluster if same_cluster else other, job_name="worker", task_index=1, protocol="inprocess")
    try:
        g0, v0, inc0, enq0, _, init0 = _counter_graph()
        g1, v1, inc1, _, deq1, _ = _counter_graph()
        sess0, sess1 = rtf.Session(s0.target, graph=g0), rtf.Session(s1.target, graph=g1)
        sess0.run(init0)
        sess0.run(inc0)
        sess0.run(enq0)
        sess0.close()  # closing a session leaves the server's state alone
        if shares:
            assert sess1.run(inc1) == np.float32(2.0)
            assert sess1.run(deq1) == np.float32(3.5)
        else:
            with pytest.raises(rtf.errors.FailedPreconditionError):
                sess1.run(v1)
    finally:
        s0.stop()
        s1.stop()


@pytest.mark.parametrize("protocol", ["grpc", "inprocess"])
@pytest.mark.parametrize("stop_after", [0.05])
def test_join_returns_after_stop(stop_after, protocol):
    server = Server({"local": ["localhost:0"]}, protocol=protocol)
    assert server.join(timeout=0.01) is False
    threading.Timer(stop_after, server.stop).start()
    assert server.join(timeout=5) is True
    with pytest.raises(RuntimeError):
        server.start()


@pytest.mark.parametrize("protocol", ["grpc", "inprocess"])
def test_stopped_target_is_released_and_duplicate_address_refused(protocol):
    a = Server({"local": ["localhost:0"]}, protocol=protocol)
    address = a.target.split("://")[1]
    with pytest.raises(rtf.errors.UnknownError, match=address):  # TF: "Could not start gRPC server"
        Server({"local": [address]}, protocol=protocol)
    a.stop()
    b = Server({"local": [address]}, protocol=protocol)
    b.stop()
