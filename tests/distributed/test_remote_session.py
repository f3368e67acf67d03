"""ref.Session("grpc://host:port"): a MasterService client (ref.distributed.remote_session).

The oracle for values is a local ``ref.Session`` on the same graph; the master is a
real TensorFlow server (an in-process ``create_local_server`` and a 1 ps + 1 worker
cluster on 127.0.0.1), as in experiment H of DISTRIBUTED.md, or a fake master that
records the requests TF's client would send (§1.3).
"""
import logging
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ref.distributed import ports
import ref
from ref.types import errors
from ref.protos import master_pb2
from ref.formats.tensor_util import make_ndarray, make_tensor_proto

grpc = pytest.importorskip("grpc")
from ref.distributed import rpc  # noqa: E402

BOUND = 60  # seconds: a generous bound for anything that must not hang



# -- TensorFlow servers (one per module: a TF server cannot be stopped) --------------


@pytest.fixture(scope="module")
def tfv1():
    return pytest.importorskip("tensorflow").compat.v1


@pytest.fixture(scope="module")
def _tf_local(tfv1):
    return tfv1.train.Server.create_local_server()


@pytest.fixture(scope="module")
def _tf_cluster(tfv1):
    spec = {"ps": [f"127.0.0.1:{ports.free_port()}"], "worker": [f"127.0.0.1:{ports.free_port()}"]}
    cluster = tfv1.train.ClusterSpec(spec)
    ps = tfv1.train.Server(cluster, job_name="ps", task_index=0)
    worker = tfv1.train.Server(cluster, job_name="worker", task_index=0)
    return spec, ps, worker


@pytest.fixture
def tf_local(_tf_local):
    """The target of a TF local server, its containers reset (variables of other tests gone)."""
    ref.Session.reset(_tf_local.target)
    return _tf_local.target


@pytest.fixture
def tf_cluster(_tf_cluster):
    """(ClusterSpec dict, the TF worker's target), containers reset on both tasks."""
    spec, _, worker = _tf_cluster
    ref.Session.reset(worker.target)
    return spec, worker.target


def _model(optimizer, spec=None):
    """A linear model trained on a fed x; variables on the ps under replica_device_setter."""
    g = ref.Graph()
    with g.as_default():
        setter = ref.train.replica_device_setter(cluster=ref.train.ClusterSpec(spec)) if spec else None
        with ref.device(setter):
            gs = ref.train.get_or_create_global_step()
            x = ref.placeholder(ref.float32, [None, 2], name="x")
            w = ref.get_variable("w", [2, 1], initializer=ref.constant_initializer([[1.0], [-0.5]]))
            b = ref.Variable(0.25, name="b")
            loss = ref.reduce_mean(ref.square(ref.matmul(x, w) + b - 1.0), name="loss")
            opt = {"gd": lambda: ref.train.GradientDescentOptimizer(0.1),
                   "adam": lambda: ref.train.AdamOptimizer(0.05),
                   "momentum": lambda: ref.train.MomentumOptimizer(0.1, 0.9)}[optimizer]()
            train = opt.minimize(loss, global_step=gs)
            init = ref.global_variables_initializer()
    return g, dict(x=x, w=w, b=b, gs=gs, loss=loss, train=train, init=init)


def _train(target, g, m):
    """Everything a TF1 client does in a session: init, steps with a feed, fetches,
    nodes added after the first run, make_callable, nested fetch structures."""
    out = []
    feed = {m["x"]: np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)}
    with ref.Session(target, graph=g) as s:
        s.run(m["init"])
        for _ in range(3):
            out.append(s.run([m["loss"], m["train"]], feed))
            out.append(s.run([m["w"], m["b"], m["gs"]]))
        with g.as_default():  # new nodes: an ExtendSession before the next step
            z = ref.add(m["w"] * 2.0, m["b"], name="z")
            total = ref.reduce_sum(z, name="total")
        out.append(s.run({"z": z, "t": (total, m["gs"])}))
        step = s.make_callable([m["loss"], m["train"]], [m["x"]])
        out.append(step(np.array([[0.5, 0.5]], np.float32)))
        out.append(step(np.array([[2.0, 0.0]], np.float32)))
        out.append(s.run(m["loss"], {m["x"]: [[1, 1]]}))  # a list feed, converted as locally
    return out


def _assert_same(got, want):
    """The same structure, Python types, dtypes and (to float32 rounding) values."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for k in want:
            _assert_same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _assert_same(a, b)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(got, want)
    else:
        assert got == want


@pytest.mark.parametrize("optimizer", ["gd", "adam"])
def test_tf_local_server_trains_like_a_local_session(tf_local, optimizer):
    g, m = _model(optimizer)
    _assert_same(_train(tf_local, g, m), _train("", g, m))


@pytest.mark.parametrize("optimizer", ["gd", "adam", "momentum"])
def test_tf_ps_worker_cluster_trains_like_a_local_session(tf_cluster, optimizer):
    spec, target = tf_cluster
    g, m = _model(optimizer, spec)
    assert m["w"].device == "/job:ps/task:0"
    _assert_same(_train(target, g, m), _train("", g, m))


def _values_graph():
    g = ref.Graph()
    with g.as_default():
        sp = ref.sparse_placeholder(ref.float32, name="sp")
        params = ref.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        idx = ref.placeholder(ref.int32, [None], name="idx")
        slices = ref.gradients(ref.reduce_sum(ref.gather(params, idx)), params)[0]
        s = ref.placeholder(ref.string, [], name="s")
        fetches = {
            "int32": ref.constant(7), "int64": ref.constant([1, 2], ref.int64), "bool": ref.constant(True),
            "f64": ref.constant([[0.5]], ref.float64), "string": ref.constant([b"a", b"bc"]),
            "joined": ref.identity(s), "fed_too": idx,
            "sparse_sum": ref.sparse.reduce_sum(sp), "sparse": ref.sparse.add(sp, sp),
            "slices": slices, "empty": ref.zeros([0, 3]),
        }
    feed = {sp: ref.SparseTensorValue([[0, 0], [1, 2]], np.float32([1.5, -2.0]), [2, 3]),
            idx: np.int32([2, 0, 2]), s: b"hi"}
    return g, fetches, feed


def test_values_come_back_as_a_local_session_returns_them(tf_local):
    """Scalars as NumPy scalars, strings as bytes, fed tensors as the fed value,
    SparseTensor and IndexedSlices fed and fetched through their components."""
    g, fetches, feed = _values_graph()
    with ref.Session(tf_local, graph=g) as remote, ref.Session(graph=g) as local:
        got, want = remote.run(fetches, feed), local.run(fetches, feed)
    assert isinstance(got["sparse"], ref.SparseTensorValue) and isinstance(got["slices"], ref.IndexedSlicesValue)
    for key in fetches:
        for a, b in zip(np.atleast_1d(got[key]) if key not in ("sparse", "slices") else got[key],
                        np.atleast_1d(want[key]) if key not in ("sparse", "slices") else want[key]):
            _assert_same(a, b)
        if key not in ("sparse", "slices"):
            _assert_same(got[key], want[key])


# -- graphs that grow between steps ----------------------------------------------------
# Builders that edit ops already made (a variable initialized from another rewires
# its initial value, tf.cond adds control inputs) bump the graph's version past
# its op count: the ops made after the first step must still reach the master.

def _grow_variable_from_variable(tf):
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(v * 2.0, name="w")
    return [v.initializer], lambda: [tf.is_variable_initialized(v), w.initialized_value() + 1.0]


def _grow_cond(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    c = tf.cond(x > 0, lambda: x * 3.0, lambda: -x)
    return [c], lambda: [c + 1.0, tf.square(x)]


def _grow_while(tf):
    i = tf.constant(0)
    n = tf.while_loop(lambda k: k < 4, lambda k: k + 1, [i])
    return [n], lambda: [n * 10, tf.constant(7)]


GROWING = {"variable_from_variable": _grow_variable_from_variable, "cond": _grow_cond, "while_loop": _grow_while}


@pytest.mark.parametrize("name", sorted(GROWING))
def test_ops_made_after_a_step_reach_the_master(tf_local, name):
    results = []
    for target in (tf_local, ""):
        g = ref.Graph()
        with g.as_default(), ref.Session(target, graph=g) as sess:
            first, later = GROWING[name](ref)
            feed = {g.get_tensor_by_name("x:0"): 2.0} if name == "cond" else {}
            sess.run(first, feed)
            assert g.version > len(g.get_operations())
            results.append(sess.run(later(), feed))
    for got, want in zip(*results):
        _assert_same(got, want)


# -- errors and deadlines -------------------------------------------------------------


def _error_cases():
    def uninitialized():
        v = ref.Variable([1.0, 2.0], name="v")
        return v * 2.0, {}

    def missing_feed():
        x = ref.placeholder(ref.float32, [None], name="x")
        return x + 1.0, {}

    def bad_feed_for_the_op():  # accepted by the placeholder, rejected by MatMul
        a = ref.placeholder(ref.float32, name="a")
        return ref.matmul(a, ref.ones([3, 1])), {a: np.ones((2, 2), np.float32)}

    def bad_reshape():
        a = ref.placeholder(ref.float32, [None], name="a")
        return ref.reshape(a, [2, 2], name="r"), {a: np.ones(3, np.float32)}

    return [("uninitialized", uninitialized, errors.FailedPreconditionError, "v/read"),
            ("missing_feed", missing_feed, errors.InvalidArgumentError, "x"),
            ("bad_feed_for_the_op", bad_feed_for_the_op, errors.InvalidArgumentError, "MatMul"),
            ("bad_reshape", bad_reshape, errors.InvalidArgumentError, "r")]


@pytest.mark.parametrize("name,build,cls,node", _error_cases(), ids=[c[0] for c in _error_cases()])
def test_errors_are_the_class_tf_gives_and_name_the_node(tf_local, name, build, cls, node):
    g = ref.Graph()
    with g.as_default():
        fetch, feed = build()
    with ref.Session(graph=g) as local, pytest.raises(cls):
        local.run(fetch, feed)
    with ref.Session(tf_local, graph=g) as remote, pytest.raises(cls) as e:
        remote.run(fetch, feed)
    assert "{{node " + node + "}}" in e.value.message
    assert e.value.op is g.get_operation_by_name(node)  # found from the message, as TF's client does


def test_a_feed_the_tensor_cannot_take_fails_before_any_rpc():
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [2], name="x")
    with ref.Session("grpc://127.0.0.1:1", graph=g) as s, pytest.raises(ValueError, match="Cannot feed value of shape"):
        s.run(x, {x: [1.0, 2.0, 3.0]})


def _blocking_dequeue():
    g = ref.Graph()
    with g.as_default():
        q = ref.FIFOQueue(2, ref.float32, shapes=[[]], name="q")
        dequeue = q.dequeue(name="dequeue")
    return g, dequeue


@pytest.mark.parametrize("how", ["operation_timeout_in_ms", "RunOptions.timeout_in_ms"])
def test_deadline_ends_a_blocked_dequeue(tf_local, how):
    g, dequeue = _blocking_dequeue()
    config = ref.ConfigProto(operation_timeout_in_ms=1500) if how == "operation_timeout_in_ms" else None
    options = ref.RunOptions(timeout_in_ms=1500) if how != "operation_timeout_in_ms" else None
    start = time.monotonic()
    with ref.Session(tf_local, graph=g, config=config) as s, pytest.raises(errors.DeadlineExceededError):
        s.run(dequeue, options=options)
    assert time.monotonic() - start < BOUND


def test_a_dead_address_fails_within_the_connect_deadline(monkeypatch):
    port = ports.free_port()  # nothing listens there
    monkeypatch.setattr(rpc, "DEFAULT_CONNECT_TIMEOUT", 1.0)
    g = ref.Graph()
    with g.as_default():
        c = ref.constant(1.0)
    start = time.monotonic()
    with ref.Session(f"grpc://127.0.0.1:{port}", graph=g) as s, pytest.raises(errors.UnavailableError) as e:
        s.run(c)
    assert f"127.0.0.1:{port}" in str(e.value)
    assert time.monotonic() - start < BOUND


def test_operation_timeout_bounds_the_connect_wait():
    port = ports.free_port()
    g = ref.Graph()
    with g.as_default():
        c = ref.constant(1.0)
    start = time.monotonic()
    config = ref.ConfigProto(operation_timeout_in_ms=1000)
    with ref.Session(f"grpc://127.0.0.1:{port}", graph=g, config=config) as s, \
            pytest.raises(errors.UnavailableError, match=f"127.0.0.1:{port}"):
        s.run(c)
    assert time.monotonic() - start < BOUND


# -- devices, reset -----------------------------------------------------------------------


def test_list_devices_names_every_task(tf_cluster):
    spec, target = tf_cluster
    g = ref.Graph()
    with g.as_default():
        ref.constant(1.0)
    with ref.Session(target, graph=g) as s:
        devices = s.list_devices()
    assert sorted(d.name for d in devices) == ["/job:ps/replica:0/task:0/device:CPU:0",
                                                "/job:worker/replica:0/task:0/device:CPU:0"]
    assert all(d.device_type == "CPU" and d.incarnation != 0 for d in devices)


def test_variables_live_on_the_server_until_reset(tf_cluster):
    spec, target = tf_cluster
    g, m = _model("gd", spec)
    with ref.Session(target, graph=g) as s:
        s.run(m["init"])
    with ref.Session(target, graph=g) as s:  # another session sees the ps's variables
        np.testing.assert_array_equal(s.run(m["w"]), [[1.0], [-0.5]])
    ref.Session.reset(target)
    with ref.Session(target, graph=g) as s, pytest.raises(errors.FailedPreconditionError):
        s.run(m["w"])


# -- the exact requests (a fake master) ---------------------------------------------------


class _FakeMaster:
    """Records every request; answers fetches from ``values`` in reverse order."""

    def __init__(self):
        self.calls = []
        self.values = {}
        self.fail = None

    def _record(self, method, request, timeout):
        copy = type(request)()
        copy.CopyFrom(request)
        self.calls.append((method, copy, timeout))

    def CreateSession(self, request, timeout=None):
        self._record("CreateSession", request, timeout)
        return master_pb2.CreateSessionResponse(session_handle="h1", graph_version=0)

    def ExtendSession(self, request, timeout=None):
        self._record("ExtendSession", request, timeout)
        return master_pb2.ExtendSessionResponse(new_graph_version=request.current_graph_version + 1)

    def RunStep(self, request, timeout=None):
        self._record("RunStep", request, timeout)
        if self.fail is not None:
            code, message = self.fail
            if request.store_errors_in_response_body:
                return master_pb2.RunStepResponse(status_code=code, status_error_message=message)
            raise rpc.error_from_status(code, message)
        response = master_pb2.RunStepResponse()
        for name in reversed(request.fetch):
            response.tensor.add(name=name, tensor=make_tensor_proto(self.values[name]))
        return response

    def CloseSession(self, request, timeout=None):
        self._record("CloseSession", request, timeout)
        return master_pb2.CloseSessionResponse()

    def ListDevices(self, request, timeout=None):
        self._record("ListDevices", request, timeout)
        r = master_pb2.ListDevicesResponse()
        r.local_device.add(name="/job:worker/replica:0/task:0/device:CPU:0", device_type="CPU", incarnation=5)
        r.remote_device.add(name="/job:ps/replica:0/task:0/device:CPU:0", device_type="CPU", incarnation=6)
        return r

    def Reset(self, request, timeout=None):
        self._record("Reset", request, timeout)
        return master_pb2.ResetResponse()


@pytest.fixture
def fake_master():
    impl = _FakeMaster()
    server, port = rpc.serve("127.0.0.1:0", {rpc.MASTER_SERVICE: impl})
    yield impl, f"grpc://127.0.0.1:{port}"
    server.stop(0)


def _names(graph_def):
    return [n.name for n in graph_def.node]


def test_the_requests_are_tfs(fake_master):
    impl, target = fake_master
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [2], name="x")
        y = ref.multiply(x, 2.0, name="y")
        noop = ref.no_op(name="noop")
    impl.values = {"y:0": np.float32([2.0, 4.0]), "z:0": np.float32(9.0), "x:0": np.float32([0.0, 0.0])}
    s = ref.Session(target, graph=g)
    assert impl.calls == []  # nothing before the first run
    got = s.run([y, noop, x], {x: [1.0, 2.0]}, options=ref.RunOptions(timeout_in_ms=5000))
    _assert_same(got, [np.float32([2.0, 4.0]), None, np.float32([1.0, 2.0])])  # a fed fetch: the fed value
    first_nodes = _names(g.as_graph_def())
    with g.as_default():
        z = ref.reduce_sum(y, name="z")
    assert s.run({"z": z, "y": y}) == {"z": np.float32(9.0), "y": pytest.approx(np.float32([2.0, 4.0]))}
    with g.as_default():
        ref.identity(z, name="z2")
    s.run(noop)
    s.run(noop)  # nothing new: no ExtendSession
    s.close()
    assert [c[0] for c in impl.calls] == ["CreateSession", "RunStep", "ExtendSession", "RunStep",
                                         "ExtendSession", "RunStep", "RunStep", "CloseSession"]
    create, run1, ext1, run2, ext2 = (c[1] for c in impl.calls[:5])
    assert _names(create.graph_def) == first_nodes and create.target == target
    assert [(f.name, make_ndarray(f.tensor).tolist()) for f in run1.feed] == [("x:0", [1.0, 2.0])]
    assert list(run1.fetch) == ["y:0"] and list(run1.target) == ["noop"]  # the fed x is not fetched
    assert run1.session_handle == "h1" and run1.store_errors_in_response_body
    assert run1.options.timeout_in_ms == 5000
    assert _names(ext1.graph_def) == _names(g.as_graph_def(from_version=len(first_nodes)))[:len(ext1.graph_def.node)]
    assert "z" in _names(ext1.graph_def) and not set(_names(ext1.graph_def)) & set(first_nodes)
    assert (ext1.session_handle, ext1.current_graph_version) == ("h1", 0)
    assert _names(ext2.graph_def) == ["z2"] and ext2.current_graph_version == 1
    assert sorted(run2.fetch) == ["y:0", "z:0"] and not run2.feed
    assert len({c[1].request_id for c in impl.calls if c[0] == "RunStep"}) == 4
    assert impl.calls[-1][1].session_handle == "h1"


def test_every_call_carries_the_operation_timeout(fake_master):
    impl, target = fake_master
    g = ref.Graph()
    with g.as_default():
        c = ref.constant(1.0, name="c")
    impl.values = {"c:0": np.float32(1.0)}
    with ref.Session(target, graph=g, config=ref.ConfigProto(operation_timeout_in_ms=20000)) as s:
        s.run(c)
        s.list_devices()
    assert [m for m, _, _ in impl.calls] == ["CreateSession", "RunStep", "ListDevices", "CloseSession"]
    # (gRPC may round a deadline up by a fraction of a second)
    assert all(t is not None and 0 < t <= 20.5 for _, _, t in impl.calls), [t for _, _, t in impl.calls]


def test_list_devices_creates_the_session_first_and_reset_needs_none(fake_master):
    impl, target = fake_master
    g = ref.Graph()
    with g.as_default():
        ref.constant(1.0)
    with ref.Session(target, graph=g) as s:
        devices = s.list_devices()
    assert [(d.name, d.incarnation) for d in devices] == [("/job:worker/replica:0/task:0/device:CPU:0", 5),
                                                          ("/job:ps/replica:0/task:0/device:CPU:0", 6)]
    ref.Session.reset(target, ["c1", "c2"])
    assert [m for m, _, _ in impl.calls] == ["CreateSession", "ListDevices", "CloseSession", "Reset"]
    assert list(impl.calls[-1][1].container) == ["c1", "c2"]


@pytest.mark.parametrize("code,cls", [(9, errors.FailedPreconditionError), (3, errors.InvalidArgumentError),
                                      (10, errors.AbortedError), (4, errors.DeadlineExceededError)])
def test_errors_in_the_response_body_raise_tfs_class_with_the_op(fake_master, code, cls):
    impl, target = fake_master
    g = ref.Graph()
    with g.as_default():
        v = ref.Variable(1.0, name="v")
        y = ref.identity(v, name="y")
    impl.fail = (code, "Attempting to use uninitialized value v\n\t [[{{node y}}]]")
    with ref.Session(target, graph=g) as s, pytest.raises(cls) as e:
        s.run(y)
    assert e.value.op is y.op and "{{node y}}" in e.value.message


def test_a_master_in_this_process_is_called_directly():
    """TF's LocalMaster: a master registered under the address gets the requests
    as objects, and no socket is needed."""
    impl = _FakeMaster()
    address = f"127.0.0.1:{ports.free_port()}"  # nothing listens there
    rpc.register_local(address, rpc.MASTER_SERVICE, impl)
    try:
        g = ref.Graph()
        with g.as_default():
            c = ref.constant(3.0, name="c")
        impl.values = {"c:0": np.float32(3.0)}
        with ref.Session(f"grpc://{address}", graph=g) as s:
            assert s.run(c) == np.float32(3.0)
        assert [m for m, _, _ in impl.calls] == ["CreateSession", "RunStep", "CloseSession"]
    finally:
        rpc.unregister_local(address, rpc.MASTER_SERVICE)


def test_use_rpc_for_inprocess_master_goes_through_grpc(fake_master):
    """With rpc_options.use_rpc_for_inprocess_master a master registered in this
    process is still called over gRPC (TF's option)."""
    impl, target = fake_master
    local = _FakeMaster()
    rpc.register_local(target, rpc.MASTER_SERVICE, local)
    try:
        g = ref.Graph()
        with g.as_default():
            c = ref.constant(3.0, name="c")
        impl.values = local.values = {"c:0": np.float32(3.0)}
        config = ref.ConfigProto()
        config.rpc_options.use_rpc_for_inprocess_master = True
        for cfg, used, unused in ((config, impl, local), (None, local, impl)):
            with ref.Session(target, graph=g, config=cfg) as s:
                s.run(c)
            assert [m for m, _, _ in used.calls] == ["CreateSession", "RunStep", "CloseSession"]
            assert unused.calls == []
            used.calls.clear()
    finally:
        rpc.unregister_local(target, rpc.MASTER_SERVICE)


def test_import_ref_and_a_grpc_session_load_no_grpc():
    code = ("import sys, ref\n"
            "s = ref.Session('grpc://127.0.0.1:1')\n"
            "assert 'grpc' not in sys.modules, 'grpc imported before the first run'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=BOUND)


# -- session creators and readiness ----------------------------------------------------


def test_wait_for_session_polls_until_the_chief_initializes(tf_cluster, caplog):
    """A non-chief waits for a chief that initializes later in another thread; the
    wait ends soon after (backoff from 0.1 s, not TF's 30 s sleeps) and the log
    names the variables that were not ready and where they are placed."""
    spec, target = tf_cluster
    g, m = _model("gd", spec)
    with g.as_default():
        ready = ref.report_uninitialized_variables()
    sm = ref.train.SessionManager(graph=g, ready_op=ready)  # recovery_wait_secs=30, TF's default
    chief = ref.train.SessionManager(graph=g, ready_op=ready)

    def chief_initializes():
        time.sleep(1.0)
        chief.prepare_session(target, init_op=m["init"]).close()

    thread = threading.Thread(target=chief_initializes)
    start = time.monotonic()
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        thread.start()
        sess = sm.wait_for_session(target, max_wait_secs=BOUND)
    waited = time.monotonic() - start
    thread.join(BOUND)
    np.testing.assert_array_equal(sess.run(m["w"]), [[1.0], [-0.5]])
    sess.close()
    assert waited < 20  # TF would sleep recovery_wait_secs (30 s) after the first miss
    text = caplog.text
    assert "Waiting for model to be ready" in text
    assert "Variables not initialized: global_step, w, b" in text and "on /job:ps/task:0" in text


def test_wait_for_session_deadline_says_what_is_not_ready(tf_local):
    g, m = _model("gd")
    with g.as_default():
        ready = ref.report_uninitialized_variables()
    sm = ref.train.SessionManager(graph=g, ready_op=ready, recovery_wait_secs=0.5)
    with pytest.raises(errors.DeadlineExceededError, match="Session was not ready after waiting") as e:
        sm.wait_for_session(tf_local, max_wait_secs=1.5)
    assert "Variables not initialized: global_step, w, b" in str(e.value)


def _mts_run(target, g, m, checkpoint_dir, steps=3, is_chief=True):
    losses = []
    with g.as_default(), ref.train.MonitoredTrainingSession(
            master=target, is_chief=is_chief, checkpoint_dir=checkpoint_dir, save_summaries_steps=None,
            save_summaries_secs=None) as sess:
        for _ in range(steps):
            losses.append(sess.run([m["loss"], m["train"]], {m["x"]: [[1.0, 2.0]]})[0])
    return losses


def _cond_free_step_read(g, m):
    """The hooks' global-step read without ``tf.cond``: ref writes a cond as a
    functional ``If`` in its own encoding, which a TF master rejects (see
    test_monitored_training_session_default_hooks_on_a_tf_master)."""
    with g.as_default():
        g.add_to_collection("global_step_read_op_cache", ref.identity(m["gs"], name="global_step_read"))


def test_monitored_training_session_chief_and_worker_on_a_tf_cluster(tf_cluster, tmp_path):
    """The chief trains and checkpoints through the TF master; a non-chief that
    started first waits for the chief's initialization; after a Reset a new
    chief restores the checkpoint."""
    spec, target = tf_cluster
    g, m = _model("gd", spec)
    _cond_free_step_read(g, m)
    want = _mts_run("", g, m, str(tmp_path / "local"))
    seen = []

    def non_chief():
        with g.as_default(), ref.train.MonitoredTrainingSession(master=target, is_chief=False) as sess:
            seen.append(sess.run(m["w"]))

    worker = threading.Thread(target=non_chief)
    worker.start()
    time.sleep(0.5)  # (ordering only: the worker is usually waiting when the chief starts)
    got = _mts_run(target, g, m, str(tmp_path / "remote"))
    worker.join(BOUND)
    assert not worker.is_alive() and len(seen) == 1 and seen[0].shape == (2, 1)
    np.testing.assert_allclose(got, want, rtol=2e-6)
    assert ref.train.latest_checkpoint(str(tmp_path / "remote")).endswith("model.ckpt-3")
    ref.Session.reset(target)  # the ps loses its variables; the checkpoint restores them
    saver, = g.get_collection(ref.GraphKeys.SAVERS)
    with ref.Session(target, graph=g) as sess:
        saver.restore(sess, ref.train.latest_checkpoint(str(tmp_path / "remote")))
        assert sess.run(m["gs"]) == 3


def test_monitored_training_session_default_hooks_on_a_tf_master(tf_local, tmp_path):
    g, m = _model("gd")
    want = _mts_run("", g, m, str(tmp_path / "local"))
    np.testing.assert_allclose(_mts_run(tf_local, g, m, str(tmp_path / "remote")), want, rtol=2e-6)


def test_supervisor_managed_session_on_a_tf_master(tf_local, tmp_path):
    g, m = _model("gd")
    results = []
    for target in ("", tf_local):
        with g.as_default():
            sv = ref.train.Supervisor(logdir=str(tmp_path / (target or "local").replace("/", "_")),
                                      save_summaries_secs=0, save_model_secs=0)
        with sv.managed_session(target) as sess:
            results.append([sess.run([m["loss"], m["train"]], {m["x"]: [[1.0, 2.0]]})[0] for _ in range(3)])
    np.testing.assert_allclose(results[1], results[0], rtol=2e-6)


def test_interactive_session_on_a_remote_target(fake_master):
    impl, target = fake_master
    g = ref.Graph()
    with g.as_default():
        c = ref.constant(2.0, name="c")
    impl.values = {"c:0": np.float32(2.0)}
    with g.as_default():
        sess = ref.InteractiveSession(target)
        assert c.eval() == np.float32(2.0)  # the default session runs it on the master
        sess.close()
    assert [m for m, _, _ in impl.calls] == ["CreateSession", "RunStep", "CloseSession"]
