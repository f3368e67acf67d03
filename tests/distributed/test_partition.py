"""ref.distributed.partition: stages, client-terminated _Recv/_Send in TF's format, and
staged execution over simulated tasks equal to one local Session, bit for bit."""
import time

import numpy as np
import pytest

import ref as tf
from ref.distributed.cluster import ClusterSpec
from ref.distributed import rpc
from ref.distributed.master import Master
from ref.distributed.worker import Worker
from ref.distributed.partition import partition, rendezvous_key, stages
from ref.distributed.placement import place, task_of
from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.protos import master_pb2, tensorflow_server_pb2
from ref.session.interpreter import needed_ops
from tests.distributed.fake_worker import FakeWorker

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

TASKS = ["/job:ps/task:0", "/job:ps/task:1", "/job:worker/task:0"]
CLUSTER = ClusterSpec({"ps": ["127.0.0.1:1", "127.0.0.1:2"], "worker": ["127.0.0.1:3"]})
DEVICES = [f"/job:{j}/replica:0/task:{i}/device:CPU:0" for j, i in (("ps", 0), ("ps", 1), ("worker", 0))]
MASTER = DEVICES[2]


@pytest.mark.parametrize("device,inc,name,key", [
    ("/job:ps/replica:0/task:0/device:CPU:0", 0xd1b79f930596ccbc, "x:0",
     "/job:ps/replica:0/task:0/device:CPU:0;d1b79f930596ccbc;/job:ps/replica:0/task:0/device:CPU:0;x:0;0:0"),
    ("/job:w/replica:0/task:1/device:CPU:0", 7, "a/b:1",
     "/job:w/replica:0/task:1/device:CPU:0;0000000000000007;/job:w/replica:0/task:1/device:CPU:0;a/b:1;0:0"),
    ("/job:w/replica:0/task:1/device:CPU:0", -1, "y:0",
     "/job:w/replica:0/task:1/device:CPU:0;ffffffffffffffff;/job:w/replica:0/task:1/device:CPU:0;y:0;0:0"),
])
def test_rendezvous_key_is_tfs(device, inc, name, key):
    assert rendezvous_key(device, inc, name) == key


def _plan(g, fetches, targets=(), feeds=(), incarnations=None):
    ops = needed_ops(list(fetches), list(targets), list(feeds))
    placement = place(ops, DEVICES, MASTER, fetches=list(fetches), graph=g)
    node_defs = {n.name: n for n in g.as_graph_def().node}
    return ops, placement, partition(ops, node_defs, placement, [t.name for t in feeds], [t.name for t in fetches],
                                     incarnations)


def test_ps_pattern_partitions_and_client_terminated_nodes():
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=CLUSTER)):
            x = tf.placeholder(tf.float32, [2], name="x")
            w = tf.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
            loss = tf.reduce_sum(tf.square(w * x), name="loss")
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    inc = {"/job:ps/replica:0/task:0": 0xabc, "/job:worker/replica:0/task:0": -5}
    ops, placement, plan = _plan(g, [loss], [train], [x], inc)
    assert [(plan.partitions[i].task, plan.partitions[i].stage) for lvl in plan.levels for i in lvl] == [
        ("/job:ps/replica:0/task:0", 0), ("/job:worker/replica:0/task:0", 1), ("/job:ps/replica:0/task:0", 2)]
    ps0, wk, ps2 = (plan.partitions[lvl[0]] for lvl in plan.levels)
    assert "x:0" in wk.recvs.values() and "loss:0" in wk.sends.values()
    assert "x" not in {n.name for p in plan.partitions for n in p.graph_def.node}  # fed: never run
    recv = next(n for n in wk.graph_def.node if n.op == "_Recv" and n.attr["tensor_name"].s == b"x:0")
    dev = "/job:worker/replica:0/task:0/device:CPU:0"
    assert recv.name == "_recv_x_0" and recv.device == dev
    assert recv.attr["send_device"].s == recv.attr["recv_device"].s == dev.encode()
    assert recv.attr["send_device_incarnation"].i == -5 and recv.attr["client_terminated"].b
    assert recv.attr["tensor_type"].type == tf.float32.as_datatype_enum
    assert rendezvous_key(dev, -5, "x:0") in wk.recvs
    send = next(n for n in ps0.graph_def.node if n.op == "_Send")
    assert send.attr["T"].type == tf.float32.as_datatype_enum and send.attr["client_terminated"].b
    assert send.attr["send_device_incarnation"].i == 0xabc
    # every value a partition receives was sent by an earlier level (or fed)
    sent = {"x:0"}
    for lvl in plan.levels:
        for i in lvl:
            assert set(plan.partitions[i].recvs.values()) <= sent
        for i in lvl:
            sent |= set(plan.partitions[i].sends.values())
    assert ps2.task == ps0.task and all(n.device.startswith(ps2.task) for n in ps2.graph_def.node)


# -- random graphs over three simulated tasks -----------------------------------------

def _program():
    step = st.tuples(st.sampled_from(["add", "mul", "sub", "square", "identity", "read", "const"]),
                     st.integers(0, 100), st.integers(0, 100), st.sampled_from([None] + TASKS),
                     st.booleans())
    return st.tuples(st.lists(st.tuples(st.sampled_from(TASKS), st.booleans()), min_size=1, max_size=3),
                     st.lists(step, min_size=1, max_size=12), st.integers(0, 2 ** 16), st.booleans())


def _build(program):
    """A graph from ``program``: variables on tasks, then ops on random devices with an
    occasional control dependency; returns graph, variables, tensors, updates, placeholder."""
    var_specs, steps, seed, feed_one = program
    rng = np.random.RandomState(seed)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        variables = []
        for i, (task, resource) in enumerate(var_specs):
            with tf.device(task):
                init = rng.randint(-4, 5, size=3).astype(np.float32)
                variables.append(tf.get_variable(f"v{i}", initializer=init, use_resource=resource)
                                 if resource else tf.Variable(init, name=f"v{i}"))
        tensors, ops, reading = [x], [], set()  # reading: tensors that depend on a variable's value
        for kind, a, b, device, control in steps:
            ta, tb = tensors[a % len(tensors)], tensors[b % len(tensors)]
            deps = [ops[a % len(ops)]] if control and ops else []
            with tf.device(device), tf.control_dependencies(deps):
                if kind == "read":
                    var = variables[a % len(variables)]
                    with tf.control_dependencies(None):
                        t = tf.identity(var.read_value() if hasattr(var, "read_value") else var)
                elif kind == "const":
                    t = tf.constant(rng.randint(-3, 4, size=3).astype(np.float32))
                else:
                    fn = {"add": tf.add, "mul": tf.multiply, "sub": tf.subtract,
                          "square": lambda p, q: tf.square(p), "identity": lambda p, q: tf.identity(p)}[kind]
                    t = fn(ta, tb)
            if kind == "read" or (kind != "const" and {ta.name, tb.name} & reading) or (deps and deps[0].name in
                                                                                       {r[:-2] for r in reading}):
                reading.add(t.name)
            tensors.append(t)
            ops.append(t.op)
        # the updates add values that read no variable: a read and an update of one variable
        # that no dependency orders are a race (TF leaves their order open too)
        pure = [t for t in tensors if t.name not in reading]
        updates = []
        for i, var in enumerate(variables):
            with tf.device(TASKS[(i + seed) % 3]):
                u = tf.assign_add(var, pure[-1 - i % len(pure)])
                updates.append(u if isinstance(u, tf.Operation) else u.op)
        init = tf.global_variables_initializer()
    return g, variables, tensors, updates, x, init, feed_one


def _master():
    workers = {}

    def connect(task, address):
        return workers.setdefault(task, FakeWorker(task, incarnation=len(workers) + 11))
    sd = tensorflow_server_pb2.ServerDef(cluster=CLUSTER.as_cluster_def(), job_name="worker", task_index=0)
    m = Master(sd, local_worker=connect("/job:worker/replica:0/task:0", None), connect_worker=connect)
    m.exchange = "master"  # phase 1's staged partitions: the fake worker runs client-terminated ones only
    return m, workers


def _run(m, handle, fetches, targets=(), feeds=None):
    req = master_pb2.RunStepRequest(session_handle=handle, fetch=[t.name for t in fetches],
                                    target=[t.name for t in targets])
    for t, v in (feeds or {}).items():
        req.feed.add(name=t.name, tensor=make_tensor_proto(v))
    resp = m.RunStep(req)
    assert [t.name for t in resp.tensor] == [t.name for t in fetches]
    return [make_ndarray(t.tensor) for t in resp.tensor]


def _ref_workers_master():
    """A master whose tasks are ref Workers in this process, reaching each other's
    ``RecvTensor`` through the in-process registry (phase 2: direct exchange)."""
    workers = {}
    for job in CLUSTER.jobs:
        for i in CLUSTER.task_indices(job):
            sd = tensorflow_server_pb2.ServerDef(cluster=CLUSTER.as_cluster_def(), job_name=job, task_index=i)
            w = workers[f"/job:{job}/replica:0/task:{i}"] = Worker(sd)
            rpc.register_local(CLUSTER.task_address(job, i), rpc.WORKER_SERVICE, w)
    sd = tensorflow_server_pb2.ServerDef(cluster=CLUSTER.as_cluster_def(), job_name="worker", task_index=0)
    m = Master(sd, local_worker=workers["/job:worker/replica:0/task:0"],
               connect_worker=lambda task, address: workers[task])
    m.exchange = "direct"

    def close():
        m.close()
        for job in CLUSTER.jobs:
            for i in CLUSTER.task_indices(job):
                rpc.unregister_local(CLUSTER.task_address(job, i), rpc.WORKER_SERVICE)
        deadline = time.monotonic() + 10  # CleanupGraph goes out in the background after each step
        while any(w._rendezvous.active() for w in workers.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        leaked = {t: w._rendezvous.active() for t, w in workers.items()}
        for w in workers.values():
            w.close()
        return leaked
    return m, close


@hypothesis.settings(max_examples=12, deadline=None)
@hypothesis.given(_program())
def test_direct_execution_equals_a_local_session(program):
    """Phase 2: one partition per task, _Send/_Recv between ref Workers (RecvTensor,
    the dataflow executor, control edges as sent constants): a local Session's values."""
    m, close = _ref_workers_master()
    _check_against_local(program, m, close)


@hypothesis.settings(max_examples=30)
@hypothesis.given(_program())
def test_staged_execution_equals_a_local_session(program):
    m, _ = _master()
    _check_against_local(program, m, m.close, check_stages=True)


def _check_against_local(program, m, close, check_stages=False):
    g, variables, tensors, updates, x, init, feed_one = _build(program)
    xv = np.array([1.5, -2.0, 0.25], np.float32)
    fetch = tensors[1:] or [x]
    feeds = {x: xv}
    if feed_one and len(tensors) > 2:  # a fed intermediate: its producer does not run
        feeds[tensors[2]] = np.array([7.0, 8.0, 9.0], np.float32)
    reads = [v.value() if hasattr(v, "value") else v for v in variables]
    # structure: stages are a topological order, cross-task edges cross a stage boundary
    ops = needed_ops(fetch, updates, list(feeds))
    placement = place(ops, DEVICES, MASTER, fetches=fetch, graph=g)
    task = {op.name: task_of(placement[op.name]) for op in ops}
    stage = stages(ops, task, [t.name for t in feeds])
    for op in ops if check_stages else ():
        for src in [t.op for t in op.inputs if t not in feeds] + list(op.control_inputs):
            if src.name in stage:
                assert stage[src.name] + (task[src.name] != task[op.name]) <= stage[op.name]
    with tf.Session(graph=g) as s:
        s.run(init)
        local = [s.run(fetch, feeds), s.run(fetch + reads, feeds)]
        s.run(updates, feeds)
        local.append(s.run(reads))
    try:
        h = m.CreateSession(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())).session_handle
        _run(m, h, [], [init])
        remote = [_run(m, h, fetch, (), feeds), _run(m, h, fetch + reads, (), feeds)]
        _run(m, h, [], updates, feeds)
        remote.append(_run(m, h, reads))
    finally:
        leaked = close()
    assert not any(leaked.values()) if isinstance(leaked, dict) else True
    for a, b in zip(local, remote):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(np.asarray(u), v)
            assert np.asarray(u).dtype == v.dtype
