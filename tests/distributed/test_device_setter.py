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
    # TF colocates the initializer Assign with its variable: ref.graph_ops.variables does not (reported).
    return {op.name: op.device for op in g.get_operations() if op.type != "Assign"}


SETTERS = [
    dict(cluster={"ps": ["a:1", "b:1"], "worker": ["w:1"]}),
    dict(cluster={"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1"]}, worker_device="/job:worker/task:0"),
    dict(ps_tasks=2),
    dict(ps_tasks=1, ps_device="/job:param", worker_device="/job:worker/task:1/device:CPU:0"),
    dict(ps_tasks=2, ps_ops=["Identity"]),
    dict(ps_tasks=2, ps_strategy=lambda op: 1),
]
# merge_devices=False needs the device inner scopes set, which ref's Graph does
# not show a device function (reported): compared without inner scopes.
SETTERS = [(k, True) for k in SETTERS] + [(dict(ps_tasks=2, merge_devices=False), False)]


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
