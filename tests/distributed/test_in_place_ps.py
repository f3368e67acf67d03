"""A parameter server updates its variables in place, as TF's does: a sparse
step (32 rows of a 1 MiB embedding) allocates no copy of the variable on the
ps -- before, the ps ran each update through the copying commit and held every
sent value until the step ended -- and the numbers equal a local session's.
A rendezvous key is received once and then no longer held (TF's rendezvous)."""
import tracemalloc

import numpy as np
import pytest

import ref as tf
from ref.distributed import ports
from ref.distributed import rendezvous as _under_test
from ref.distributed.server import Server
from ref.types import errors

pytest.importorskip("grpc")

VOCAB, DIM, BATCH = 4096, 64, 32
VAR_BYTES = VOCAB * DIM * 4

OPTIMIZERS = [
    ("sgd", lambda: tf.train.GradientDescentOptimizer(0.5)),
    ("momentum", lambda: tf.train.MomentumOptimizer(0.1, 0.9)),
    ("adagrad", lambda: tf.train.AdagradOptimizer(0.1)),
    ("rmsprop", lambda: tf.train.RMSPropOptimizer(0.01)),
    ("ftrl", lambda: tf.train.FtrlOptimizer(0.1)),
]


def _spec():
    ps, worker = ports.free_ports(2)
    return {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{worker}"]}


def _program(make_opt, spec):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        setter = tf.train.replica_device_setter(cluster=spec) if spec else None
        with tf.device(setter):
            emb = tf.get_variable("emb", [VOCAB, DIM], initializer=tf.random_uniform_initializer(-1, 1))
            ids = tf.placeholder(tf.int32, [BATCH])
            loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids) - 0.5))
            train = make_opt().minimize(loss)
        init = tf.global_variables_initializer()
    return g, train, ids, emb, init


@pytest.mark.parametrize("name,make_opt", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_a_ps_sparse_step_allocates_no_variable_copy(name, make_opt):
    feeds = [np.random.RandomState(i).randint(0, VOCAB, BATCH) for i in range(4)]
    g, train, ids, emb, init = _program(make_opt, None)
    with tf.Session(graph=g) as s:
        s.run(init)
        for f in feeds:
            s.run(train, {ids: f})
        local = s.run(emb)
    spec = _spec()
    servers = [Server(spec, job_name=j, task_index=0) for j in ("ps", "worker")]
    try:
        g, train, ids, emb, init = _program(make_opt, tf.train.ClusterSpec(spec))
        with tf.Session(servers[1].target, graph=g) as s:
            s.run(init)
            s.run(train, {ids: feeds[0]})  # plans and compiles
            peaks = []
            for f in feeds[1:]:
                tracemalloc.start()
                try:
                    s.run(train, {ids: f})
                    peaks.append(tracemalloc.get_traced_memory()[1])
                finally:
                    tracemalloc.stop()
            remote = s.run(emb)
    finally:
        for srv in servers:
            srv.stop()
    np.testing.assert_array_equal(remote, local)
    assert max(peaks) < VAR_BYTES // 2, f"{name}: a ps step allocated {max(peaks)} bytes (variable: {VAR_BYTES})"


def test_a_rendezvous_key_is_received_once():
    step = _under_test.StepRendezvous(7)
    value = np.arange(3.0)
    step.send("k", value)
    got, dead = step.recv("k", timeout=1)
    assert got is value and not dead
    assert "k" not in step.items  # no longer held by the step
    with pytest.raises(errors.DeadlineExceededError, match="rendezvous key k"):
        step.recv("k", timeout=0.05)


DENSE = [  # (name, optimizer, its slots, resource variables)
    ("sgd", lambda: tf.train.GradientDescentOptimizer(0.1), (), False),
    ("momentum", lambda: tf.train.MomentumOptimizer(0.1, 0.9), ("Momentum",), False),
    ("adam", lambda: tf.train.AdamOptimizer(0.01), ("Adam", "Adam_1"), False),
    ("rmsprop", lambda: tf.train.RMSPropOptimizer(0.01), ("RMSProp", "RMSProp_1"), False),
    ("adam-resource", lambda: tf.train.AdamOptimizer(0.01), ("Adam", "Adam_1"), True),
    ("sgd-resource", lambda: tf.train.GradientDescentOptimizer(0.1), (), True),
]


def _dense_program(make_opt, resource, spec):
    """A layer whose kernel (1 MiB, updated in blocks on the helper threads) the ps reads,
    sends to the worker for the forward pass, and later updates with the gradient."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        with tf.device(tf.train.replica_device_setter(cluster=spec) if spec else None):
            w = tf.get_variable("w", [512, 512], initializer=tf.random_uniform_initializer(-0.1, 0.1),
                                use_resource=resource)
            b = tf.get_variable("b", [512], initializer=tf.zeros_initializer(), use_resource=resource)
            x = tf.placeholder(tf.float32, [8, 512])
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - 0.5))
            train = make_opt().minimize(loss)
        init = tf.global_variables_initializer()
    return g, train, x, w, init


@pytest.mark.parametrize("name,make_opt,slots,resource", DENSE, ids=[o[0] for o in DENSE])
def test_a_ps_dense_step_updates_the_variable_it_sent_in_place(name, make_opt, slots, resource):
    """The ps reads ``w``, sends it to the worker and applies the gradient to it in the same
    step: once the value is sent, neither the partition's executor nor the matrix threads
    refer to it, so the update runs on the stored arrays themselves (the same objects after
    every step) and the numbers equal a local session's bit for bit."""
    feeds = [np.random.RandomState(i).rand(8, 512).astype(np.float32) for i in range(4)]
    g, train, x, w, init = _dense_program(make_opt, resource, None)
    with tf.Session(graph=g) as s:
        s.run(init)
        for f in feeds:
            s.run(train, {x: f})
        local = s.run(w)
    spec = _spec()
    servers = [Server(spec, job_name=j, task_index=0) for j in ("ps", "worker")]
    try:
        g, train, x, w, init = _dense_program(make_opt, resource, tf.train.ClusterSpec(spec))
        store = servers[0].worker._state.store.values
        keys = ["w"] + [f"w/{slot}" for slot in slots]
        with tf.Session(servers[1].target, graph=g) as s:
            s.run(init)
            s.run(train, {x: feeds[0]})  # plans and compiles
            before = [id(store[k]) for k in keys]
            for f in feeds[1:]:
                s.run(train, {x: f})
            after = [id(store[k]) for k in keys]
            remote = s.run(w)
    finally:
        for srv in servers:
            srv.stop()
    np.testing.assert_array_equal(remote, local)
    assert after == before, f"{name}: the ps replaced {[k for k, i, j in zip(keys, before, after) if i != j]}"

