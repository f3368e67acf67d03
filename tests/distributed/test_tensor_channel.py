"""ref's tensor channel (RecvTensor between ref tasks over TCP): the bytes and errors a
task's ``Worker.RecvTensor`` gives come back unchanged, a lost task is UnavailableError
naming it, and a cluster trains to the same numbers with the channel as over gRPC, falling
back to gRPC where a task has none (``REF_TENSOR_CHANNEL=0``)."""
import json
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time
import weakref

import numpy as np
import pytest

from ref.distributed import ports
import ref as tf
from ref.distributed import tensor_channel as _under_test
from ref.distributed.server import Server
from ref.distributed.tensor_coding import decode_recv_tensor_response, encode_recv_tensor_response_parts
from ref.types import dtypes, errors

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOUND = 60.0


class _Wait:
    def __init__(self, seconds):
        self.seconds = seconds


class _Worker:
    """RecvTensor of a fixed table: key -> value (an array), None (dead) or an exception."""

    def __init__(self, table):
        self.table, self.timeouts = table, []

    def recv_tensor_parts(self, request, timeout=None):
        self.timeouts.append(timeout)
        value = self.table[request.rendezvous_key]
        if isinstance(value, BaseException):
            raise value
        if isinstance(value, _Wait):  # a wait of that many seconds, then a deadline
            time.sleep(value.seconds)
            raise errors.DeadlineExceededError(None, None, f"waited {value.seconds}")
        if value is None:
            return encode_recv_tensor_response_parts(None, dtypes.float32, is_dead=True)
        arr = np.asarray(value)
        dtype = dtypes.string if arr.dtype.kind in "OSU" else dtypes.as_dtype(arr.dtype)
        return encode_recv_tensor_response_parts(value, dtype, send_start_micros=123)

    def RecvTensor(self, request, timeout=None):  # the one message, as gRPC carries it
        return b"".join(self.recv_tensor_parts(request, timeout))


VALUES = [
    ("f32", np.arange(12, dtype=np.float32).reshape(3, 4) / 7),
    ("f64_scalar", np.float64(np.pi)),
    ("i64", np.array([-(2 ** 40), 0, 5], np.int64)),
    ("bool", np.array([[True, False]])),
    ("f16", np.array([1.5, -2.25], np.float16)),
    ("empty", np.zeros((0, 3), np.float32)),
    ("strings", np.array([b"ab", b"", b"\x00z"], object)),
    ("large", np.random.RandomState(0).standard_normal((512, 784)).astype(np.float32)),
    ("strided", np.arange(40, dtype=np.float64).reshape(5, 8)[:, ::3]),
    ("fortran", np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))),
]
ERRORS = [errors.NotFoundError, errors.AbortedError, errors.InvalidArgumentError, errors.CancelledError]


@pytest.fixture()
def channel():
    table = {name: v for name, v in VALUES}
    table.update({cls.__name__: cls(None, None, f"{cls.__name__} from the task") for cls in ERRORS})
    table.update(dead=None, python_error=RuntimeError("boom"), slow=_Wait(0.2))
    worker = _Worker(table)
    server = _under_test.ChannelServer(worker, "127.0.0.1")
    client = _under_test.ChannelClient(server.address, "/job:ps/replica:0/task:0 at 127.0.0.1:1")
    yield server, client, worker
    client.close()
    server.close()


@pytest.mark.parametrize("name,value", VALUES, ids=[v[0] for v in VALUES])
def test_values_come_back_as_the_task_encoded_them(channel, name, value):
    _, client, worker = channel
    data = client.recv_tensor(5, name, timeout=3.0)
    assert bytes(data) == bytes(worker.RecvTensor(type("R", (), {"rendezvous_key": name})()))
    got, _, dead, _ = decode_recv_tensor_response(data)
    assert not dead
    np.testing.assert_array_equal(got, value)
    assert np.asarray(got).shape == np.shape(value)
    assert worker.timeouts[0] == 3.0  # the caller's bound reaches the task


def test_the_task_lets_go_of_the_array_it_sent(channel):
    # the message went from the array's own buffer into the socket; once sent, the channel
    # holds no reference to it (a variable read that did would keep the ps's update from
    # running in place)
    _, client, worker = channel
    worker.table["mine"] = np.random.RandomState(2).standard_normal((1024, 512)).astype(np.float32)
    expected = worker.table["mine"].copy()
    gone = weakref.ref(worker.table["mine"])
    got, _, dead, _ = decode_recv_tensor_response(client.recv_tensor(4, "mine", timeout=10))
    assert got.tobytes() == expected.tobytes() and not dead
    del worker.table["mine"]
    deadline = time.monotonic() + 10
    while gone() is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gone() is None


def test_dead_tensors_stay_dead(channel):
    _, client, _ = channel
    assert decode_recv_tensor_response(client.recv_tensor(1, "dead"))[2] is True


@pytest.mark.parametrize("cls", ERRORS, ids=[c.__name__ for c in ERRORS])
def test_a_task_error_keeps_its_class_and_message(channel, cls):
    _, client, _ = channel
    with pytest.raises(cls, match=f"{cls.__name__} from the task"):
        client.recv_tensor(1, cls.__name__)
    np.testing.assert_array_equal(decode_recv_tensor_response(client.recv_tensor(2, "f32"))[0],
                                  VALUES[0][1])  # the connection serves the next request


def test_a_python_failure_is_internal_and_a_wait_is_deadline_exceeded(channel):
    _, client, _ = channel
    with pytest.raises(errors.InternalError, match="boom"):
        client.recv_tensor(1, "python_error")
    with pytest.raises(errors.DeadlineExceededError, match="waited"):
        client.recv_tensor(1, "slow", timeout=0.1)


def test_concurrent_requests_each_get_their_own_answer(channel):
    _, client, _ = channel
    out = {}

    def get(name):
        out[name] = decode_recv_tensor_response(client.recv_tensor(3, name, timeout=10))[0]
    threads = [threading.Thread(target=get, args=(name,)) for name, _ in VALUES * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join(BOUND)
    for name, value in VALUES:
        np.testing.assert_array_equal(out[name], value)


def test_a_closed_task_is_unavailable_naming_it_and_garbage_is_dropped(channel):
    server, client, _ = channel
    host, port = server.address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as s:  # not ref's channel: the task hangs up
        s.sendall(b"GET / HTTP/1.1\r\n\r\n" + b"x" * 64)
        s.settimeout(5)
        try:
            answer = s.recv(10)
        except ConnectionResetError:  # closed with our bytes unread
            answer = b""
        assert answer == b""
    server.close()
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError, match="/job:ps/replica:0/task:0 .*RecvTensor over ref's tensor channel"):
        client.recv_tensor(1, "f32", timeout=5)
    assert time.monotonic() - start < 10
    assert not _under_test.ChannelClient(server.address, "x").probe()


def test_switched_off_by_the_environment(monkeypatch):
    for off in ("0", "false", "no"):
        monkeypatch.setenv("REF_TENSOR_CHANNEL", off)
        assert not _under_test.enabled()
    monkeypatch.setenv("REF_TENSOR_CHANNEL", "1")
    assert _under_test.enabled()


# -- a cluster: ps in its own process, the worker here -------------------------------------



def _listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _train(spec, steps=3):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        with tf.device(tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(spec)) if spec else None):
            x = tf.constant(np.random.RandomState(1).standard_normal((16, 20)).astype(np.float32))
            h = tf.layers.dense(x, 30, activation=tf.nn.relu)
            loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 1) - 1.0))
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    return g, train, loss, init


def _run(target, spec):
    g, train, loss, init = _train(spec)
    with tf.Session(target, graph=g) as s:
        s.run(init)
        losses = [s.run([train, loss])[1] for _ in range(3)]
        return losses, s.run(g.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES))


@pytest.mark.parametrize("ps_channel", ["1", "0"], ids=["channel", "ps_without_channel"])
def test_a_cluster_trains_to_the_local_numbers(ps_channel):
    want_losses, want_vars = _run("", None)
    chosen = ports.free_ports(2)
    spec = {"ps": [f"127.0.0.1:{chosen[0]}"], "worker": [f"127.0.0.1:{chosen[1]}"]}
    env = dict(os.environ, PYTHONPATH=str(ROOT), REF_TENSOR_CHANNEL=ps_channel)
    ps = subprocess.Popen([sys.executable, "-m", "ref", "server", "--cluster", json.dumps(spec), "--job", "ps",
                           "--task", "0"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        deadline = time.monotonic() + BOUND
        while not _listening(chosen[0]):
            assert time.monotonic() < deadline and ps.poll() is None, "the ps did not start"
            time.sleep(0.1)
        worker = Server(spec, job_name="worker", task_index=0)
        losses, variables = _run(worker.target, spec)
        used = worker.worker._channels.get("/job:ps/replica:0/task:0")
        assert (isinstance(used, _under_test.ChannelClient)) == (ps_channel == "1")
    finally:
        if worker is not None:
            worker.stop()
        ps.kill()
        ps.wait(BOUND)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-6)
    for got, want in zip(variables, want_vars):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# -- several keys of a step in one request (RTC2) --------------------------------------------

def _key(name):
    return f"/job:ps/replica:0/task:0/device:CPU:0;0000000000000001;/job:worker/replica:0/task:0/device:CPU:0;{name};0:0"


@pytest.fixture()
def real_worker():
    from ref.distributed.worker import Worker
    from ref.protos import tensorflow_server_pb2
    worker = Worker(tensorflow_server_pb2.ServerDef(job_name="ps", task_index=0))
    server = _under_test.ChannelServer(worker, "127.0.0.1")
    client = _under_test.ChannelClient(server.address, "/job:ps/replica:0/task:0 at 127.0.0.1:1")
    yield worker, client
    client.close()
    server.close()
    worker.close()


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]], ids=str)
def test_a_batch_is_answered_in_the_order_the_values_are_sent(real_worker, order):
    # a gradient batch: the ps asks for all of a step's gradients at once, the worker sends
    # them last layer first; each answer comes as its value is sent, not in the asked order
    worker, client = real_worker
    values = [VALUES[i][1] for i in (0, 2, 7, 4)]
    keys = [_key(f"g{i}") for i in range(4)]
    step = worker._rendezvous.step(7)

    def send():
        for i in order:
            time.sleep(0.05)
            step.send(keys[i], values[i])
    sender = threading.Thread(target=send)
    sender.start()
    got = [(key, decode_recv_tensor_response(data)) for key, data in client.recv_tensors(7, keys, timeout=BOUND)]
    sender.join(BOUND)
    assert [k for k, _ in got] == [keys[i] for i in order]
    for key, (value, _, dead, _) in got:
        assert not dead
        np.testing.assert_array_equal(value, values[keys.index(key)])
    assert len(client._idle) == 1  # one connection served the batch and went back to the pool


def test_a_batch_carries_dead_values_and_the_connection_is_reused(real_worker):
    worker, client = real_worker
    keys = [_key("a"), _key("b")]
    for step_id in (1, 2):  # the second batch goes over the connection the first one returned
        step = worker._rendezvous.step(step_id)
        step.send(keys[1], None, True)
        step.send(keys[0], np.float32(step_id))
        got = {k: decode_recv_tensor_response(d) for k, d in client.recv_tensors(step_id, keys, timeout=BOUND)}
        assert got[keys[1]][2] is True and got[keys[0]][2] is False and got[keys[0]][0] == step_id
    assert len(client._idle) == 1


@pytest.mark.parametrize("how", ["cleanup", "deadline"])
def test_a_batch_that_fails_raises_the_tasks_error_after_its_answers(real_worker, how):
    # the values sent before the failure arrive; then the step's error (or the deadline) with its
    # class; the connection stays usable for the next request
    worker, client = real_worker
    keys = [_key("x"), _key("y")]
    worker._rendezvous.step(3).send(keys[1], np.arange(3.0))
    if how == "cleanup":
        threading.Timer(0.2, worker._rendezvous.cleanup, (3,)).start()
    got = []
    with pytest.raises(errors.AbortedError if how == "cleanup" else errors.DeadlineExceededError,
                       match="CleanupGraph" if how == "cleanup" else "never sent"):
        for key, data in client.recv_tensors(3, keys, timeout=BOUND if how == "cleanup" else 0.3):
            got.append(key)
    assert got == [keys[1]]
    worker._rendezvous.step(4).send(keys[0], np.ones(2))
    assert [k for k, _ in client.recv_tensors(4, keys[:1], timeout=BOUND)] == keys[:1]
    assert len(client._idle) == 1
