"""``tf.test.TestCase``: TF1's base class for graph-mode unit tests.

As TensorFlow's ``TensorFlowTestCase`` in graph mode: each test starts on a
fresh default graph with the graph-level seed ``DEFAULT_GRAPH_SEED`` and
Python's and NumPy's generators seeded with it; ``cached_session()`` is one
Session per test (closed in ``tearDown``), ``session()`` a new one each time;
both make the session and its graph the defaults inside the block.
``evaluate`` runs any nesting of Tensors in the default session (or the cached
one). The assertions compare NumPy values, evaluating Tensors first:
``assertAllClose`` recurses through dicts, lists, tuples and namedtuples with
``|a - b| <= atol + rtol * |b|``; ``assertAllCloseAccordingToType`` widens the
tolerance to at least 1e-3 for float16 and 1e-2 for bfloat16;
``assertRaisesOpError(regex)`` expects an ``OpError`` whose message matches.
"""
from __future__ import annotations

import collections.abc
import contextlib
import functools
import random
import re
import socket
import tempfile
import threading
import unittest

import numpy as np
from google.protobuf import text_format

from ref import protos
from ref.types import dtypes, errors, nest
from ref.types.device_spec import canonical_name
from ref.platform import modes
from ref.framework.graph import clear_default_graph_stack, get_collection_proto_functions, reset_default_graph
from ref.framework.random_seed import DEFAULT_GRAPH_SEED, set_random_seed
from ref.framework.importer import import_graph_def
from ref.framework.stack import get_default_session
from ref.framework.tensor import Tensor
from ref.session.session import Session
from ref.distributed import ports
from ref.distributed.server import Server
from ref.graph_ops.array_ops import transpose
from ref.graph_ops.ragged_tensor import RaggedTensor, RaggedTensorValue

config_pb2 = protos.config_pb2
__all__ = ["TestCase", "main", "get_temp_dir", "deterministic_ops", "set_producer_version", "create_local_cluster", "assert_equal_graph_def",
           "assert_meta_graph_protos_equal", "get_node_def_from_graph", "enable_control_flow_v2",
           "disable_control_flow_v2", "with_control_flow_v2", "NHWCToNCHW", "NCHWToNHWC"]

_SHARDED_SAVE_TEMP = re.compile(rb"_temp_[0-9a-z]{32}/part")


@contextlib.contextmanager
def deterministic_ops():
    """TF's ``test_util.deterministic_ops``: op determinism on inside the block, off after it."""
    try:
        modes.enable_op_determinism()
        yield
    finally:
        modes.disable_op_determinism()


def set_producer_version(graph, producer_version):
    """TF's ``test_util.set_producer_version``: ``graph.graph_def_versions.producer`` becomes
    ``producer_version``, by importing an empty GraphDef of that version (as TF does)."""
    graph_def = protos.graph_pb2.GraphDef()
    graph_def.versions.producer = producer_version
    with graph.as_default():
        import_graph_def(graph_def)
    assert graph.graph_def_versions.producer == producer_version


def get_node_def_from_graph(node_name, graph_def):
    """The NodeDef named ``node_name`` among ``graph_def.node`` (not its functions), or None."""
    return next((n for n in graph_def.node if n.name == node_name), None)


def _graph_def_difference(actual, expected):
    """TF's EqualGraphDef: the first difference between two GraphDefs as a message,
    or None. Nodes are matched by name (any order); op, device, data inputs (in
    order), control inputs (as sets) and attrs compare, attrs named ``_...`` aside."""
    a, e = {n.name: n for n in actual.node}, {n.name: n for n in expected.node}
    for name in e:
        if name not in a:
            return f"Did not find expected node '{name}'"
    for name in a:
        if name not in e:
            return f"Found unexpected node '{name}'"
    for name, x in a.items():
        y = e[name]
        if x.op != y.op:
            return f"Node named '{name}' has op {x.op} that does not match expected {y.op}"
        if x.device != y.device:
            return f"Node named '{name}' has device '{x.device}' that does not match expected '{y.device}'"
        xd, yd = [i for i in x.input if not i.startswith("^")], [i for i in y.input if not i.startswith("^")]
        if xd != yd:
            return f"Node named '{name}' has inputs {xd} that do not match expected {yd}"
        if {i for i in x.input if i.startswith("^")} != {i for i in y.input if i.startswith("^")}:
            return f"Node named '{name}' has control inputs that do not match the expected ones"
        xa = {k: v for k, v in x.attr.items() if not k.startswith("_")}
        ya = {k: v for k, v in y.attr.items() if not k.startswith("_")}
        for k in set(xa) | set(ya):
            if k not in xa or k not in ya:
                return f"Node named '{name}' {'missing expected' if k not in xa else 'has unexpected'} attr {k}"
            if xa[k].SerializeToString(deterministic=True) != ya[k].SerializeToString(deterministic=True):
                return f"Node named '{name}' has attr {k} that does not match the expected value"
    return None


def _strip_sharded_save_temp(graph_def):
    """Drops attrs holding a sharded save's random ``_temp_<hex>/part`` name (TF does too)."""
    for node in graph_def.node:
        for key in [k for k, v in node.attr.items() if len(v.tensor.string_val) == 1
                    and _SHARDED_SAVE_TEMP.match(v.tensor.string_val[0])]:
            del node.attr[key]


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """AssertionError naming the first difference unless the GraphDefs are equal
    as TF's ``test_util.assert_equal_graph_def`` compares them (``checkpoint_v2``:
    a sharded save's random temp names are ignored)."""
    for what, g in (("actual", actual), ("expected", expected)):
        if type(g).__name__ != "GraphDef":
            raise TypeError(f"Expected tf.GraphDef for {what}, got {type(g).__name__}")
    if checkpoint_v2:
        _strip_sharded_save_temp(actual)
        _strip_sharded_save_temp(expected)
    if hash_table_shared_name:
        for g in (actual, expected):
            for n in g.node:
                if n.op == "HashTableV2" and re.match(rb"hash_table_[0-9a-z\-]+", n.attr["shared_name"].s):
                    del n.attr["shared_name"]
    diff = _graph_def_difference(actual, expected)
    if diff:
        raise AssertionError(diff)


def assert_meta_graph_protos_equal(tester, a, b):
    """Compares MetaGraphDefs ``a`` and ``b`` in test case ``tester`` as TF's helper:
    collections item by item (as their registered protos), the GraphDefs as
    :func:`assert_equal_graph_def` with their versions, then the rest. Clears
    ``collection_def`` and ``graph_def`` of both."""
    tester.assertEqual(set(a.collection_def), set(b.collection_def))
    for k in a.collection_def.keys():
        av, bv = a.collection_def[k], b.collection_def[k]
        proto_type = get_collection_proto_functions(k)[0]
        if proto_type:
            tester.assertEqual(len(av.bytes_list.value), len(bv.bytes_list.value))
            for x, y in zip(av.bytes_list.value, bv.bytes_list.value):
                px, py = proto_type(), proto_type()
                px.ParseFromString(x)
                py.ParseFromString(y)
                tester.assertProtoEquals(px, py)
        else:
            tester.assertEqual(av, bv)
    a.ClearField("collection_def")
    b.ClearField("collection_def")
    assert_equal_graph_def(a.graph_def, b.graph_def, checkpoint_v2=True)
    tester.assertProtoEquals(a.graph_def.versions, b.graph_def.versions)
    a.ClearField("graph_def")
    b.ClearField("graph_def")
    tester.assertProtoEquals(a, b)

_TEMP_DIR = None


_TO_NCHW = {3: [0, 2, 1], 4: [0, 3, 1, 2], 5: [0, 4, 1, 2, 3]}
_TO_NHWC = {4: [0, 2, 3, 1], 5: [0, 2, 3, 4, 1]}


def _permute_layout(value, perms):
    if isinstance(value, Tensor):
        return transpose(value, perms[value.shape.ndims])
    return [value[a] for a in perms[len(value)]]


def NHWCToNCHW(input_tensor):  # noqa: N802 -- TF's name
    """A rank-3, 4 or 5 Tensor transposed from channels-last to
    channels-first, or a shape (a list) permuted the same way (TF's test_util)."""
    return _permute_layout(input_tensor, _TO_NCHW)


def NCHWToNHWC(input_tensor):  # noqa: N802 -- TF's name
    """The inverse of :func:`NHWCToNCHW`: channels-first to channels-last."""
    return _permute_layout(input_tensor, _TO_NHWC)


def get_temp_dir():
    """A directory for this test process's files (created once, removed at exit)."""
    global _TEMP_DIR
    if _TEMP_DIR is None:
        _TEMP_DIR = tempfile.mkdtemp(prefix="ref_test_")
    return _TEMP_DIR


def main(argv=None):
    """Runs the test cases of ``__main__`` (``unittest.main``), as ``tf.test.main``."""
    return unittest.main(argv=argv)


def enable_control_flow_v2(fn):
    """Decorator: ``fn`` runs with control flow v2 on (``While``/``If``), the
    previous mode restored after it, whatever it raises. As TF's, the switch
    happens inside the call, so a test method's ``setUp``/``tearDown`` run in
    the mode they found."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        was = modes.control_flow_v2_enabled()
        modes.enable_control_flow_v2()
        try:
            return fn(*args, **kwargs)
        finally:
            if not was:
                modes.disable_control_flow_v2()
    return wrapper


def disable_control_flow_v2(unused_msg):
    """Decorator for a test method of a :func:`with_control_flow_v2` class:
    no ``...WithControlFlowV2`` copy is made of it (``unused_msg``: why)."""
    def mark(fn):
        fn._disable_control_flow_v2 = True
        return fn
    return mark


def with_control_flow_v2(cls):
    """Class decorator: for each callable ``test...`` attribute defined on
    ``cls`` itself (not inherited) and not marked by
    :func:`disable_control_flow_v2`, adds ``<name>WithControlFlowV2``, the same
    method run under :func:`enable_control_flow_v2`. Returns ``cls`` unchanged
    when control flow v2 is already on (the copies would repeat the tests)."""
    if modes.control_flow_v2_enabled():
        return cls
    for name, value in list(cls.__dict__.items()):
        if callable(value) and name.startswith(unittest.TestLoader.testMethodPrefix) and \
                not getattr(value, "_disable_control_flow_v2", False):
            setattr(cls, name + "WithControlFlowV2", enable_control_flow_v2(value))
    return cls


def _free_port():
    """A port that 127.0.0.1 could bind just now (TF's test helper uses portpicker)."""
    return ports.free_port()


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """Starts ``num_workers`` worker and ``num_ps`` ps servers of one cluster in this process,
    on free ports of 127.0.0.1 (TF's ``test.create_local_cluster``); returns
    ``(worker_servers, ps_servers)``."""
    cluster = {"worker": [f"localhost:{_free_port()}" for _ in range(num_workers)],
               "ps": [f"localhost:{_free_port()}" for _ in range(num_ps)]}
    workers = [Server(cluster, job_name="worker", protocol=protocol, task_index=i, config=worker_config,
                      start=True, bind_address="127.0.0.1") for i in range(num_workers)]
    ps_servers = [Server(cluster, job_name="ps", protocol=protocol, task_index=i, config=ps_config,
                         start=True, bind_address="127.0.0.1") for i in range(num_ps)]
    return workers, ps_servers


class _CheckedThread:
    """A thread whose exception fails the test at ``join`` (``TestCase.checkedThread``)."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase, self._target = testcase, target
        self._args, self._kwargs = tuple(args or ()), dict(kwargs or {})
        self._thread = threading.Thread(target=self._run)
        self._exception = None
        self._joined = False

    def _run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 -- reported at join()
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        self._joined = True
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        if not self._joined:
            self._testcase.fail("A checked thread was not joined.")
        if self._thread.is_alive():
            raise RuntimeError("Thread was not joined with main thread, and is still running when the test finished.")


def _ragged(x):
    return isinstance(x, (RaggedTensor, RaggedTensorValue))


def _is_tensor(x):
    return isinstance(x, Tensor) or (hasattr(x, "graph") and hasattr(x, "dtype") and hasattr(x, "op"))


class TestCase(unittest.TestCase):
    """Base class for TF1 graph-mode tests (``tf.test.TestCase``)."""

    _set_default_seed = True

    def __init__(self, methodName="runTest"):
        super().__init__(methodName)
        self._threads = []
        self._cached_session = None
        self._cached_graph = None
        self._cached_config = None
        self._cached_force_gpu = False

    def setUp(self):
        super().setUp()
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        clear_default_graph_stack()  # a failed test may have left a graph entered
        reset_default_graph()
        if self._set_default_seed:
            set_random_seed(DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):  # the context manager below, found by name as a test
            self.skipTest("Not a test.")

    def tearDown(self):
        for t in self._threads:
            t.check_termination()
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    # -- sessions -------------------------------------------------------------

    def get_temp_dir(self):
        """This test method's own directory: made on the first call, the same after (as TF's)."""
        if getattr(self, "_temp_dir", None) is None:
            self._temp_dir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._temp_dir

    @contextlib.contextmanager
    def _as_defaults(self, sess, use_gpu, force_gpu):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device("/device:GPU:0"):
                    yield sess
            elif not use_gpu:
                with sess.graph.device("/device:CPU:0"):
                    yield sess
            else:
                yield sess

    @staticmethod
    def _new_session(graph, config, force_gpu):
        """TF's test sessions place softly unless ``force_gpu`` (an op pinned to a GPU the
        machine lacks runs on the CPU)."""
        if config is None:
            config = config_pb2.ConfigProto(allow_soft_placement=not force_gpu)
        elif force_gpu and config.allow_soft_placement:
            config = config_pb2.ConfigProto.FromString(config.SerializeToString())
            config.allow_soft_placement = False
        return Session(graph=graph, config=config)

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new Session on ``graph`` (default: the default graph), closed at the end
        of the block; it and its graph are the defaults inside."""
        with self._new_session(graph, config, force_gpu) as sess:
            with self._as_defaults(sess, use_gpu, force_gpu):
                yield sess

    def _get_cached_session(self, graph, config, force_gpu, strict):
        if self._cached_session is None:
            self._cached_session = self._new_session(graph, config, force_gpu)
            self._cached_graph, self._cached_config, self._cached_force_gpu = graph, config, force_gpu
        elif strict:
            for what, cached, now in (("graph", self._cached_graph, graph), ("config", self._cached_config, config),
                                      ("force_gpu", self._cached_force_gpu, force_gpu)):
                if cached is not now:
                    raise ValueError(f"The {what} used to get the cached session is different than the one that "
                                     "was used to create the session. Maybe create a new session with "
                                     "self.session()")
        return self._cached_session

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """The Session of this test (created on first use, closed in ``tearDown``)."""
        sess = self._get_cached_session(graph, config, force_gpu, strict=True)
        with self._as_defaults(sess, use_gpu, force_gpu):
            yield sess

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """Deprecated in TF: the cached session without ``graph``, else a new one."""
        if graph is None:
            sess = self._get_cached_session(graph, config, force_gpu, strict=False)
            with self._as_defaults(sess, use_gpu, force_gpu):
                yield sess
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors):
        """The values of a nesting of Tensors, run in the default session (or this
        test's cached one)."""
        flat = nest.flatten(tensors)
        sess = get_default_session()
        if sess is None:
            with self.test_session() as sess:
                values = sess.run(flat)
        else:
            values = sess.run(flat)
        return nest.pack_sequence_as(tensors, values)

    def checkedThread(self, target, args=None, kwargs=None):
        """A thread that fails this test if ``target`` raises (check it with ``join``)."""
        t = _CheckedThread(self, target, args, kwargs)
        self._threads.append(t)
        return t

    # -- value assertions ------------------------------------------------------

    def _GetNdArray(self, a):
        if _is_tensor(a):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                return np.array(a)
            except ValueError:
                return np.array(a, dtype=object)
        return a

    def _py_list(self, a):
        """A ragged value (or a Tensor, array or list) as nested Python lists."""
        if isinstance(a, RaggedTensor) or _is_tensor(a):
            a = self.evaluate(a)
        if isinstance(a, RaggedTensorValue):
            return a.to_list()
        return a.tolist() if isinstance(a, np.ndarray) else list(a)

    def _assert_ragged(self, a, b, close, msg):
        """TF's ragged comparison: the nested lists agree (exactly, or within
        tolerance), and so do the ragged ranks unless one side is a list."""
        a_list, b_list = self._py_list(a), self._py_list(b)
        if close is None:
            self.assertEqual(a_list, b_list, msg)
        else:
            self._assert_close_recursive(a_list, b_list, close[0], close[1], [], msg)
        if not (isinstance(a, (list, tuple)) or isinstance(b, (list, tuple))):
            rank = lambda x: x.ragged_rank if isinstance(x, (RaggedTensor, RaggedTensorValue)) else 0  # noqa: E731
            self.assertEqual(rank(a), rank(b), msg)

    def _evaluate_pair(self, a, b):
        if _is_tensor(a) and _is_tensor(b):
            return self.evaluate((a, b))
        return a, b

    def _assert_array_close(self, a, b, rtol, atol, msg):
        a, b = self._evaluate_pair(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}.")
        wide = {dtypes.bfloat16.np, np.dtype(np.float16)}
        a = a.astype(np.float32) if a.dtype in wide and a.dtype != np.float16 else a
        b = b.astype(np.float32) if b.dtype in wide and b.dtype != np.float16 else b
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)

    def _assert_close_recursive(self, a, b, rtol, atol, path, msg):
        if _ragged(a) or _ragged(b):
            return self._assert_ragged(a, b, (rtol, atol), msg)
        where = "".join(f"[{p}]" for p in path)
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_dict, b_dict = isinstance(a, collections.abc.Mapping), isinstance(b, collections.abc.Mapping)
        if a_dict != b_dict:
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg or ''}")
        if a_dict:
            self.assertCountEqual(a.keys(), b.keys(), msg=f"mismatched keys: a{where} has keys {a.keys()}, "
                                                          f"but b{where} has keys {b.keys()}. {msg or ''}")
            for k in a:
                self._assert_close_recursive(a[k], b[k], rtol, atol, path + [k], msg)
        elif isinstance(a, (list, tuple)):
            try:
                a2, b2 = self._evaluate_pair(a, b)
                self._assert_array_close(self._GetNdArray(a2), self._GetNdArray(b2), rtol, atol,
                                         f"Mismatched value: a{where} is different from b{where}. {msg or ''}")
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{where} has {len(a)} items, but b{where} has "
                                     f"{len(b)} items. {msg or ''}") from None
                for i, (x, y) in enumerate(zip(a, b)):
                    self._assert_close_recursive(x, y, rtol, atol, path + [str(i)], msg)
        else:
            self._assert_array_close(a, b, rtol, atol,
                                     f"Mismatched value: a{where} is different from b{where}. {msg or ''}")

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Element-wise ``|a - b| <= atol + rtol * |b|`` over any nesting (NaNs equal)."""
        self._assert_close_recursive(a, b, rtol, atol, [], msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """``assertAllClose`` with the tolerance widened by the arrays' dtype."""
        a, b = self._evaluate_pair(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        kinds = {a.dtype, b.dtype}
        if kinds & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if dtypes.bfloat16.np in kinds:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def assertAllEqual(self, a, b, msg=None):
        """Same shape and equal elements (NaN equals NaN for floats; str vs bytes by UTF-8);
        a ragged side compares as nested lists (and ragged ranks)."""
        if _ragged(a) or _ragged(b):
            return self._assert_ragged(a, b, None, msg)
        a, b = self._evaluate_pair(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg or ''}")
        if {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
            enc = np.vectorize(lambda s: s.encode("utf-8") if isinstance(s, str) else s, otypes=[object])
            a, b = (enc(a) if a.size else a), (enc(b) if b.size else b)
        same = a == b
        if a.dtype.kind in "fc":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a, comparison_target):
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False):
        """Every element in the (closed by default) range, none NaN."""
        target = self._GetNdArray(target)
        if target.dtype.kind not in "fiu":
            raise AssertionError(f"The value of {target} does not have an ordered numeric type, instead it has "
                                 f"type: {target.dtype}")
        if np.any(np.isnan(target)):
            raise AssertionError(f"{int(np.sum(np.isnan(target)))} of the {target.size} element(s) are NaN.")
        low = target <= lower_bound if open_lower_bound else target < lower_bound
        high = target >= upper_bound if open_upper_bound else target > upper_bound
        bad = np.logical_or(low, high)
        if np.any(bad):
            rng = ("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}" + (
                ")" if open_upper_bound else "]")
            raise AssertionError(f"{int(np.sum(bad))} of the {target.size} element(s) are outside the range {rng}.")

    def assertAllInSet(self, target, expected_set):
        diff = np.setdiff1d(self._GetNdArray(target).flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(f"{np.size(diff)} unique element(s) are not in the set {expected_set}: {diff}")

    def assertDTypeEqual(self, target, expected_dtype):
        target = self._GetNdArray(target)
        arrays = target if isinstance(target, list) else [target]
        for arr in arrays:
            self.assertEqual(arr.dtype, expected_dtype)

    def assertNear(self, f1, f2, err, msg=None):
        """``|f1 - f2| <= err`` for two floats."""
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        f"{f1!r} != {f2!r} +/- {err!r}{' (' + msg + ')' if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        self.assertTrue(np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) <= err, msg=msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):
        """The NumPy shape of one equals the (static) shape of the other."""
        def shape(x):
            if isinstance(x, (np.ndarray, np.generic)):
                return list(x.shape)
            if _is_tensor(x):
                return x.get_shape().as_list()
            raise TypeError(f"input must be a Numpy ndarray, Numpy scalar, or a Tensor. Instead received {type(x)}")
        self.assertAllEqual(shape(input_a), shape(input_b), msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):
        d1, d2 = canonical_name(device1), canonical_name(device2)
        self.assertEqual(d1, d2, f"Devices {d1} and {d2} are not equal. {msg or ''}")

    def assertStartsWith(self, actual, expected_start, msg=None):
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r} {msg or ''}")

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):
        """``message`` equals the expected proto (a message or its text format)."""
        if isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = type(message)()
            text = expected_message_maybe_ascii
            text_format.Merge(text.decode() if isinstance(text, bytes) else text, expected)
        else:
            expected = expected_message_maybe_ascii
        if expected != message:  # maps compare as sets; the text shows the difference
            self.assertEqual(text_format.MessageToString(expected), text_format.MessageToString(message), msg=msg)
            self.fail(msg or "protos differ")

    assertRaisesRegexp = unittest.TestCase.assertRaisesRegex  # the Python 2 names TF tests still use

    def assertItemsEqual(self, expected_seq, actual_seq, msg=None):
        self.assertCountEqual(expected_seq, actual_seq, msg=msg)

    # -- error assertions ------------------------------------------------------

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """The block raises ``exception_type`` whose message matches the regex (searched)
        or for which the predicate returns True."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = e.message if isinstance(e, errors.OpError) else str(e)
                op = getattr(e, "op", None) if isinstance(e, errors.OpError) else None
                while op is not None:
                    text += "\nCaused by: " + op.name
                    op = getattr(op, "_original_op", None)
                return re.search(expected_err_re_or_predicate, text)
        try:
            yield
        except Exception as e:  # noqa: BLE001 -- matched against the expectation
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
        else:
            self.fail(f"{getattr(exception_type, '__name__', exception_type)} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """The block raises an ``OpError`` matching the regex or predicate."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=errors.InvalidArgumentError):
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes")

