"""A TF1 cond split across tasks: the Switch on the ps, the Merge on the worker.
TF's workers hand the untaken branch's dead tensor to each other (the
rendezvous' ``is_dead``); ref's partitions pass values through the master, so a
dead value must travel too (``ref.distributed.worker.dead_tensor_proto``) --
before, the ps partition failed with "Retval[1] does not have value" (the
global step's ``initialized_value()`` cond under replica_device_setter). The
oracle: the same graph run in one process, and the branch arithmetic."""
import socket

import numpy as np
import pytest

import ref as tf
from ref.distributed import worker as worker_mod
from ref.distributed.server import Server
from ref.framework.op_def_library import apply_op

pytest.importorskip("grpc")


def _spec():
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{ports[1]}"]}


def _graph(split):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0" if split else None):
            v = tf.Variable(3.0, name="v")
            pred = tf.placeholder(tf.bool, [], name="pred")
            sw_f, sw_t = apply_op("Switch", data=v.value(), pred=pred)
        with tf.device("/job:worker/task:0" if split else None):
            out = apply_op("Merge", inputs=[sw_f * 10.0, sw_t + 1.0])[0]
        init = tf.global_variables_initializer()
    return g, pred, out, init


def test_dead_tensor_proto_round_trip():
    t = worker_mod.dead_tensor_proto("float32")
    assert worker_mod.is_dead_tensor_proto(t)
    assert not worker_mod.is_dead_tensor_proto(tf.make_tensor_proto(np.float32(0)))


@pytest.mark.parametrize("take", [True, False])
def test_cond_across_tasks_equals_local(take):
    g, pred, out, init = _graph(False)
    with tf.Session(graph=g) as s:
        s.run(init)
        local = s.run(out, {pred: take})
    assert local == (4.0 if take else 30.0)
    spec = _spec()
    servers = [Server(spec, job_name=j, task_index=0) for j in ("ps", "worker")]
    try:
        g, pred, out, init = _graph(True)
        with tf.Session(servers[1].target, graph=g) as s:
            s.run(init)
            assert s.run(out, {pred: take}) == local
            assert s.run(out, {pred: not take}) == (4.0 if not take else 30.0)
    finally:
        for srv in servers:
            srv.stop()
