"""TF's ClusterSpec propagation: a Session whose ``ConfigProto.cluster_def`` names
in-process servers runs over that cluster through the target's master (not on the
server's own state): nodes placed on ``/job:<name>/task:<i>`` run on the server at
that address, which the session knows by that name (step stats, devices); sessions
are isolated unless ``share_session_state_in_clusterspec_propagation``. Each row
runs the same program on ref and on TensorFlow and compares what it returns."""
import numpy as np
import pytest

import ref
from ref.distributed import master as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1


def _config(t, servers, job="worker", share=False, order=None):
    cluster = t.train.ClusterSpec({job: [s.target[len("grpc://"):] for s in
                                         (servers if order is None else [servers[i] for i in order])]})
    config = t.ConfigProto(cluster_def=cluster.as_cluster_def())
    if share:
        config.experimental.share_session_state_in_clusterspec_propagation = True
    return config


def _servers(t, n, **kw):
    return [t.train.Server.create_local_server(**kw) for _ in range(n)]


def _traced_devices(t, sess, fetch, feeds=None):
    md = t.RunMetadata()
    value = sess.run(fetch, feeds, options=t.RunOptions(trace_level=t.RunOptions.FULL_TRACE), run_metadata=md)
    const_devices = sorted({d.device for d in md.step_stats.dev_stats for n in d.node_stats
                            if n.node_name.startswith("Const")})
    return np.asarray(value).tolist(), const_devices


def placed_on_task(t, device):
    servers = _servers(t, 2)
    with t.Graph().as_default() as g, t.device(device):
        c = t.constant(17)
    return _traced_devices(t, t.Session(servers[0].target, graph=g, config=_config(t, servers, job="renamed")), c)


def master_not_task_0(t):
    servers = _servers(t, 3)
    with t.Graph().as_default() as g:
        feeds, parts = [], []
        for task in (1, 2, 0):
            with t.device(f"/job:worker/task:{task}"):
                f = t.placeholder(t.float32, [2])
                feeds.append(f)
                parts.append(t.constant(2.0) * f)
        total = parts[0] + parts[1] + parts[2]
    with t.Session(servers[0].target, graph=g, config=_config(t, servers, order=[2, 1, 0])) as sess:
        return _traced_devices(t, sess, total, {f: np.ones(2, np.float32) for f in feeds})


def isolation(t, share):
    server = _servers(t, 1)[0]
    out = []
    with t.Graph().as_default() as g:
        init = t.placeholder(t.int32, [])
        v = t.Variable(init)
    config = _config(t, [server], share=share)
    s1, s2 = t.Session(server.target, graph=g, config=config), t.Session(server.target, graph=g, config=config)

    def read(sess):
        try:
            return int(sess.run(v))
        except t.errors.FailedPreconditionError:
            return "uninitialized"
    out.append((read(s1), read(s2)))
    s1.run(v.initializer, {init: 37})
    out.append((read(s1), read(s2)))
    s2.close()
    out.append((read(s1), read(t.Session(server.target, graph=g, config=config))))
    return out


def two_clusters_one_master(t):
    servers = _servers(t, 3)
    with t.Graph().as_default() as g, t.device("/job:worker/task:1"):
        v = t.Variable(t.zeros([2]), name="var")
        update = v.assign_add(t.ones([2]))
        init = t.global_variables_initializer()
    s1 = t.Session(servers[1].target, graph=g, config=_config(t, servers, order=[1, 0]))
    s2 = t.Session(servers[1].target, graph=g, config=_config(t, servers, order=[1, 2]))
    s1.run(init)
    s2.run(init)
    s1.run(update)
    s1.run(update)
    s2.run(update)
    return [s1.run(v).tolist(), s2.run(v).tolist()]


def two_cpus_per_task(t):
    servers = _servers(t, 2, config=t.ConfigProto(device_count={"CPU": 2}))
    with t.Graph().as_default() as g:
        with t.device("/job:worker/task:1/cpu:1"):
            a = t.constant(17.0)
        with t.device("/job:worker/task:0/cpu:1"):
            b = t.constant(3.0)
        with t.device("/job:worker/task:1/cpu:0"):
            s = a + b
        with t.device("/job:worker/task:0/cpu:0"):
            total = s + (b + a)
    with t.Session(servers[0].target, graph=g, config=_config(t, servers)) as sess:
        return [float(sess.run(total)), sorted(d.name for d in sess.list_devices())]


def the_server_own_name(t):
    server = _servers(t, 1)[0]
    with t.Graph().as_default() as g:
        c = t.constant(1)
    try:
        t.Session(server.target, graph=g, config=_config(t, [server], job="localhost")).run(c)
    except t.errors.InvalidArgumentError as e:
        return "InvalidArgumentError", "same names that were provided when the server booted" in e.message
    return "ran"


def listed_devices(t):
    servers = _servers(t, 2)
    with t.Graph().as_default() as g:
        t.constant(1)
    with t.Session(servers[0].target, graph=g, config=_config(t, servers)) as sess:
        devices = sess.list_devices()
        return sorted(d.name for d in devices), all(d.incarnation != 0 for d in devices)


PROGRAMS = {
    "list_devices": listed_devices,
    "task1_short": lambda t: placed_on_task(t, "/job:renamed/task:1"),
    "task1_full": lambda t: placed_on_task(t, "/job:renamed/replica:0/task:1/device:CPU:0"),
    "task0_legacy_cpu": lambda t: placed_on_task(t, "/job:renamed/task:0/cpu:0"),
    "master_not_task_0": master_not_task_0,
    "isolated": lambda t: isolation(t, share=False),
    "shared": lambda t: isolation(t, share=True),
    "two_clusters_one_master": two_clusters_one_master,
    "two_cpus_per_task": two_cpus_per_task,
    "the_server_own_name": the_server_own_name,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_cluster_spec_propagation_matches_tf(name):
    assert PROGRAMS[name](ref) == PROGRAMS[name](tf1)
