"""A parameter server updates its variables in place, as TF's does: a sparse
step (32 rows of a 1 MiB embedding) allocates no copy of the variable on the
ps -- before, the ps ran each update through the copying commit and held every
sent value until the step ended -- and the numbers equal a local session's.
A rendezvous key is received once and then no longer held (TF's rendezvous)."""
import socket
import tracemalloc

import numpy as np
import pytest

import ref as tf
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
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{ports[1]}"]}


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
