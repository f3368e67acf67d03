"""ref.distributed.placement: TF's placer rules as a pure function, checked against the rules
(colocation_graph.cc, placer.cc) and against a real TF master's partition graphs."""

import pytest

from ref.distributed import ports
import ref as tf
from ref.types import errors
from ref.distributed.cluster import ClusterSpec
from ref.distributed.placement import full_device, matching, place, task_of
from ref.session.interpreter import needed_ops

PS0 = "/job:ps/replica:0/task:0/device:CPU:0"
PS1 = "/job:ps/replica:0/task:1/device:CPU:0"
W0 = "/job:worker/replica:0/task:0/device:CPU:0"
W1 = "/job:worker/replica:0/task:1/device:CPU:0"
DEVICES = [PS0, PS1, W0, W1]


@pytest.mark.parametrize("spec,full", [
    ("/job:ps/task:0", PS0),
    ("/job:ps/replica:0/task:1/device:CPU:0", PS1),
    ("/job:worker/task:1/cpu:0", W1),
    ("/job:ps/task:3/device:GPU:1", "/job:ps/replica:0/task:3/device:GPU:1"),
])
def test_full_device(spec, full):
    assert full_device(spec) == full
    assert task_of(full) == full.rsplit("/device:", 1)[0]


@pytest.mark.parametrize("spec,expected", [
    ("/job:ps", [PS0, PS1]), ("/job:ps/task:1", [PS1]), ("/device:CPU:0", DEVICES),
    ("/job:worker/task:0/device:GPU:0", []), ("", DEVICES), ("/job:chief", []),
])
def test_matching(spec, expected):
    assert matching(spec, DEVICES) == expected


def _placement(graph, fetches, master=W0, soft=False, devices=DEVICES):
    fetch_t = [f for f in fetches if isinstance(f, tf.Tensor)]
    ops = needed_ops(fetch_t, [f for f in fetches if isinstance(f, tf.Operation)], [])
    return place(ops, devices, master, soft, fetches=fetch_t, graph=graph)


def test_explicit_partial_and_default_devices():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:1"):
            a = tf.constant(1.0, name="a") + 1.0
        with tf.device("/job:ps"):  # a partial spec: the first task that matches
            b = tf.add(a, 2.0, name="b")
        c = tf.multiply(b, 3.0, name="c")  # no device: the master's task
        with tf.device("/device:CPU:0"):  # no job: the master's own device matches first
            d = tf.identity(c, name="d")
    p = _placement(g, [d], master=W1)
    assert p["add"] == PS1 and p["b"] == PS0 and p["c"] == W1 and p["d"] == W1


def test_resource_and_ref_consumers_run_with_their_variable():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:1"):
            w = tf.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
            v = tf.Variable([3.0, 4.0], name="v")
        with tf.device("/job:worker/task:0"):  # the variable's device wins (TF ignores this one)
            up = w.assign_add([1.0, 1.0])
            assign = tf.assign(v, [0.0, 0.0], name="set_v")
            read = w.read_value()
            total = tf.add(read, v, name="total")
    p = _placement(g, [up.op, assign, total])  # an update's result stands for its op (TF's _UnreadVariable)
    reader = read.op if read.op.type == "ReadVariableOp" else read.op.inputs[0].op
    assert reader.type == "ReadVariableOp"
    assert p[up.op.name] == PS1 and p["set_v"] == PS1 and p[reader.name] == PS1
    assert p["total"] == W0  # plain consumers (a ref tensor auto-read by Add) keep their own device


def test_colocation_class_and_conflicts():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:1"):
            a = tf.constant([1.0], name="a")
        with tf.colocate_with(a):
            b = tf.identity(a, name="b")
            c = tf.square(b, name="c")
    p = _placement(g, [c])
    assert p["b"] == PS1 and p["c"] == PS1
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:1"):
            a = tf.constant([1.0], name="a")
        with tf.device("/job:ps/task:0"):
            b = tf.identity(a, name="b")
        b.op._set_attr("_class", ["loc:@a"]) if hasattr(b.op, "_set_attr") else b.op._attrs.__setitem__(
            "_class", ["loc:@a"])
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot colocate nodes.*colocation_node a.*incompatible"):
        _placement(g, [b])


def test_unknown_device_and_soft_placement():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:7"):
            a = tf.add(tf.constant(1.0), 1.0, name="far")
    with pytest.raises(errors.InvalidArgumentError) as e:
        _placement(g, [a])
    msg = str(e.value)
    assert "{{node far}}" in msg and "/job:ps/task:7" in msg and PS0 in msg and W1 in msg
    p = _placement(g, [a], soft=True)
    assert p["far"] == W0


def test_generators_follow_their_consumers_and_identity_its_input():
    g = tf.Graph()
    with g.as_default():
        lr = tf.constant(0.5, name="lr")  # heuristic A: a device-less generator goes to its consumers
        with tf.device("/job:ps/task:1"):
            y = tf.multiply(tf.constant(2.0, name="two"), lr, name="y")
        with tf.device("/job:worker/task:1"):
            z = tf.identity(y, name="z")
        both = tf.constant(3.0, name="both")  # consumers on two devices: the default device
        u = tf.add(y, both, name="u")
        with tf.device("/job:ps/task:1"):
            t = tf.add(z, both, name="t")
    p = _placement(g, [u, t])
    assert p["lr"] == PS1 and p["two"] == PS1 and p["y"] == PS1 and p["z"] == W1
    assert p["both"] == W0



def test_placement_equals_a_tensorflow_masters():
    """A ref-built replica_device_setter graph, run by a real TF master: every node TF keeps
    in its partition graphs sits on the device our placer picks."""
    tfm = pytest.importorskip("tensorflow").compat.v1
    spec = {"ps": [f"127.0.0.1:{ports.free_port()}", f"127.0.0.1:{ports.free_port()}"],
            "worker": [f"127.0.0.1:{ports.free_port()}"]}
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=ClusterSpec(spec))):
            x = tf.placeholder(tf.float32, [2], name="x")
            w = tf.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
            v = tf.Variable([3.0, 4.0], name="v")
            gs = tf.train.get_or_create_global_step()
            loss = tf.reduce_sum(tf.square(w * x + v - 1.0), name="loss")
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        init = tf.global_variables_initializer()
    servers = [tfm.train.Server(tfm.train.ClusterSpec(spec), job_name=j, task_index=i)
               for j, i in (("ps", 0), ("ps", 1), ("worker", 0))]
    devices = [d.rsplit("/device:", 1)[0] + "/device:CPU:0" for d in
               ["/job:ps/replica:0/task:0/", "/job:ps/replica:0/task:1/", "/job:worker/replica:0/task:0/"]]
    with tfm.Graph().as_default() as tg:
        tfm.import_graph_def(tfm.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
        config = tfm.ConfigProto(operation_timeout_in_ms=30000)
        with tfm.Session(servers[2].target, config=config) as s:
            s.run("init")
            meta = tfm.RunMetadata()
            s.run(["loss:0", train.name], {"x:0": [1.0, 2.0]},
                  options=tfm.RunOptions(output_partition_graphs=True), run_metadata=meta)
    tf_devices = {n.name: n.device for pg in meta.partition_graphs for n in pg.node}
    ours = _placement(g, [loss, train])
    common = [n for n in ours if n in tf_devices]
    assert len(common) > 10
    assert {n: ours[n] for n in common} == {n: tf_devices[n] for n in common}
    del tg, servers, devices, init
