"""replica_device_setter: the device strings of a small model's ops, against TF's."""
import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import ref as rtf
from ref.distributed.cluster import ClusterSpec
from ref.distributed.device_setter import replica_device_setter


def _model(tf, setter_kwargs, setter, inner=True):
    g = tf.Graph()
    with g.as_default():
        with tf.device(setter(**setter_kwargs)):
            v1 = tf.Variable(1.0, name="v1")
            v2 = tf.Variable([1.0, 2.0], name="v2")
            v3 = tf.Variable(3.0, name="v3")
            y = v1 * v2 + v3
            if inner:
                with tf.device("/cpu:0"):
                    tf.identity(y, name="z")
                with tf.device("/job:worker/task:3"):
                    tf.identity(y, name="w")
    return {op.name: op.device for op in g.get_operations()}


SETTERS = [
    dict(cluster={"ps": ["a:1", "b:1"], "worker": ["w:1"]}),
    dict(cluster={"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1"]}, worker_device="/job:worker/task:0"),
    dict(ps_tasks=2),
    dict(ps_tasks=1, ps_device="/job:param", worker_device="/job:worker/task:1/device:CPU:0"),
    dict(ps_tasks=2, ps_ops=["Identity"]),
    dict(ps_tasks=2, ps_strategy=lambda op: 1),
]
SETTERS = [(k, True) for k in SETTERS] + [(dict(ps_tasks=2, merge_devices=False), inner) for inner in (False, True)]


@pytest.mark.parametrize("kwargs, inner", SETTERS)
def test_device_strings_match_tf(kwargs, inner):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    # TF1 reference variables, as ref builds by default; the global switch is
    # restored so the rest of the suite keeps TF's defaults (eager, resources).
    was_enabled = tf1.resource_variables_enabled()
    tf1.disable_resource_variables()
    try:
        theirs = _model(tf1, kwargs, tf1.train.replica_device_setter, inner)
    finally:
        if was_enabled:
            tf1.enable_resource_variables()
    ours = _model(rtf, kwargs, replica_device_setter, inner)
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [dict(), dict(ps_tasks=0), dict(cluster={"worker": ["w:1"]}),
                                    dict(cluster=ClusterSpec({"worker": ["w:1"]}))])
def test_no_ps_tasks_gives_none(kwargs):
    assert replica_device_setter(**kwargs) is None


@pytest.mark.parametrize("kwargs, tasks", [
    (dict(cluster=ClusterSpec({"ps": ["a:1", "b:1"]})), [0, 1, 0, 1]),
    (dict(cluster=ClusterSpec({"ps": ["a:1", "b:1"]}).as_cluster_def()), [0, 1, 0, 1]),
    (dict(ps_tasks=3), [0, 1, 2, 0]),
])
def test_round_robin(kwargs, tasks):
    g = rtf.Graph()
    with g.as_default(), rtf.device(replica_device_setter(**kwargs)):
        vs = [rtf.Variable(float(i), name=f"v{i}") for i in range(4)]
    assert [v.op.device for v in vs] == [f"/job:ps/task:{t}" for t in tasks]


def test_ps_strategy_must_be_callable():
    with pytest.raises(TypeError):
        replica_device_setter(ps_tasks=1, ps_strategy=3)


# -- a training step under the setter: every variable-related op where TF puts it ----------

_VARIABLE_OPS = ("VariableV2", "VarHandleOp", "Assign", "AssignAdd", "AssignVariableOp", "AssignAddVariableOp",
                 "ReadVariableOp", "VarIsInitializedOp", "Identity", "NoOp", "ResourceCountUpTo", "CountUpTo")


def _training_step(tf, use_resource, optimizer):
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            v = tf.get_variable("v", [2], use_resource=use_resource, initializer=tf.zeros_initializer())
            w = tf.get_variable("w", [2], use_resource=use_resource, initializer=tf.ones_initializer())
            step = tf.get_variable("step", [], tf.int32, use_resource=use_resource,
                                   initializer=tf.zeros_initializer(), trainable=False)
            v.read_value()
            y = tf.reduce_sum(v * w)
            v.assign_add([1.0, 2.0])
            step.count_up_to(5)
            with tf.device("/cpu:0"):
                w.assign([3.0, 4.0])
            optimizer(tf).minimize(y)
    return {op.name: (op.type, op.device, op.colocation_groups()) for op in g.get_operations()}


OPTIMIZERS = {
    "sgd": lambda tf: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
    "adam": lambda tf: tf.train.AdamOptimizer(0.1),
}


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_variable_ops_placed_as_tf(use_resource, optimizer):
    """Variables, initializers, reads, updates and the optimizer's slots and
    ``Apply*``/``ResourceApply*`` ops: same names, devices and colocation groups
    as TF (gradient internals, named differently, are not compared)."""
    tf1 = pytest.importorskip("tensorflow").compat.v1
    theirs = _training_step(tf1, use_resource, OPTIMIZERS[optimizer])
    ours = _training_step(rtf, use_resource, OPTIMIZERS[optimizer])

    def variable_related(ops):
        # ref's AdamOptimizer._finish names its beta-power reads and products differently
        # (``Adam/Mul``, not ``Adam/mul``): those are left out, the rest must agree
        return {n: d for n, d in ops.items() if not n.startswith("gradients")
                and (d[0] in _VARIABLE_OPS or "Apply" in d[0] or d[0] == "Const")
                and not (n.startswith("Adam/") and d[0] == "ReadVariableOp")}
    assert variable_related(ours) == variable_related(theirs)


# -- TF's device_setter_test.py, innermost scope first -----------------------------------------

_CLUSTER = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]}


def _pinned(tf):
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=_CLUSTER)):
            v = tf.Variable([1, 2])
            with tf.device("/job:moon"):
                w = tf.Variable([2, 1])
                with tf.device("/job:ps"):  # an explicit ps job gets its task
                    x = tf.Variable([0, 1])
            with tf.device("/cpu:0"):
                y = tf.Variable([1, 2])
            a = v + w + x
        return [t.device for t in (v, v.initializer, w, w.initializer, x, x.initializer, y, y.initializer, a)]


def _no_merging(tf):
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=_CLUSTER, merge_devices=False)):
            v = tf.Variable([1, 2])
            with tf.device("/job:ps"):  # no task without merging
                w = tf.Variable([2, 1])
            a = v + w
        return [t.device for t in (v, v.initializer, w, w.initializer, a)]


def _device_none(tf):
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            with tf.device(None):
                v = tf.Variable([1, 2])
            with tf.device("/job:worker/task:1"):
                with tf.device(lambda op: "/device:CPU:1"):
                    c = tf.constant(1.0)
        return [v.device, v.initializer.device, c.device]


@pytest.mark.parametrize("program", [_pinned, _no_merging, _device_none])
def test_inner_scopes_as_tf(program):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    was_enabled = tf1.resource_variables_enabled()
    tf1.disable_resource_variables()
    try:
        theirs = program(tf1)
    finally:
        if was_enabled:
            tf1.enable_resource_variables()
    assert program(rtf) == theirs
