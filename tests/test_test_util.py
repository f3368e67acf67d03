"""``tf.test.TestCase`` / ``tf.test.main`` (ref.test_util): sessions, evaluate,
seeding, and the assertions, against a table of expected outcomes and, where
TensorFlow is installed, against TF's own ``tf.test.TestCase``."""
import collections
import unittest

import numpy as np
import pytest

import ref
from ref import test as ref_test

Pair = collections.namedtuple("Pair", "x y")

# (assertion, args, kwargs, passes): `passes` is TF's documented rule, e.g.
# assertAllClose: |a - b| <= atol + rtol * |b| element-wise, over nestings.
ASSERTION_ROWS = [
    ("assertAllClose", ([1.0, 2.0], [1.0, 2.0 + 1e-7]), {}, True),
    ("assertAllClose", ([1.0, 2.0], [1.0, 2.001]), {}, False),
    ("assertAllClose", ([1.0, 2.0], [1.0, 2.001]), {"atol": 1e-2}, True),
    ("assertAllClose", ([100.0], [100.5]), {"rtol": 1e-2}, True),
    ("assertAllClose", ([1.0, 2.0], [1.0, 2.0, 3.0]), {}, False),
    ("assertAllClose", ({"a": [1.0], "b": (2.0, 3.0)}, {"a": [1.0], "b": (2.0, 3.0)}), {}, True),
    ("assertAllClose", ({"a": [1.0]}, {"a": [1.5]}), {}, False),
    ("assertAllClose", (Pair(1.0, [2.0]), Pair(1.0, [2.0])), {}, True),
    ("assertAllClose", ([np.nan, 1.0], [np.nan, 1.0]), {}, True),
    ("assertAllClose", ([[1.0], [2.0, 3.0]], [[1.0], [2.0, 3.0]]), {}, True),
    ("assertAllCloseAccordingToType", (np.float16([1.0]), np.float16([1.0005])), {}, True),
    ("assertAllCloseAccordingToType", (np.float32([1.0]), np.float32([1.0005])), {}, False),
    ("assertAllCloseAccordingToType", (np.float64([1.0]), np.float64([1.00001])), {}, False),
    ("assertNotAllClose", ([1.0], [2.0]), {}, True),
    ("assertNotAllClose", ([1.0], [1.0]), {}, False),
    ("assertAllEqual", ([1, 2], [1, 2]), {}, True),
    ("assertAllEqual", ([1, 2], [1, 3]), {}, False),
    ("assertAllEqual", ([1, 2], [[1, 2]]), {}, False),
    ("assertAllEqual", ([b"a", b"b"], ["a", "b"]), {}, True),
    ("assertAllEqual", (np.array([np.nan, 1.0]), np.array([np.nan, 1.0])), {}, True),
    ("assertNotAllEqual", ([1, 2], [1, 3]), {}, True),
    ("assertAllGreater", ([2, 3], 1), {}, True),
    ("assertAllGreater", ([1, 3], 1), {}, False),
    ("assertAllLess", ([2, 3], 4), {}, True),
    ("assertAllGreaterEqual", ([1, 3], 1), {}, True),
    ("assertAllLessEqual", ([1, 4], 3), {}, False),
    ("assertAllInRange", (np.array([0.0, 1.0]), 0.0, 1.0), {}, True),
    ("assertAllInRange", (np.array([0.0, 1.0]), 0.0, 1.0), {"open_upper_bound": True}, False),
    ("assertAllInRange", (np.array([np.nan]), 0.0, 1.0), {}, False),
    ("assertAllInSet", (np.array([1, 2, 1]), {1, 2}), {}, True),
    ("assertAllInSet", (np.array([1, 3]), {1, 2}), {}, False),
    ("assertNear", (1.0, 1.05, 0.1), {}, True),
    ("assertNear", (1.0, 1.2, 0.1), {}, False),
    ("assertArrayNear", ([1.0, 2.0], [1.05, 2.05], 0.1), {}, True),
    ("assertNDArrayNear", (np.ones((2, 2)), np.ones((2, 2)) * 1.01, 0.1), {}, True),
    ("assertShapeEqual", (np.zeros((2, 3)), np.zeros((2, 3))), {}, True),
    ("assertShapeEqual", (np.zeros((2, 3)), np.zeros((3, 2))), {}, False),
    ("assertDTypeEqual", (np.zeros(2, np.float32), np.float32), {}, True),
    ("assertDeviceEqual", ("/cpu:0", "/device:CPU:0"), {}, True),
    ("assertStartsWith", ("abcdef", "abc"), {}, True),
    ("assertStartsWith", ("abcdef", "bcd"), {}, False),
    ("assertItemsEqual", ([1, 2, 2], [2, 1, 2]), {}, True),
]


class _Case(ref_test.TestCase):
    __test__ = False  # a fixture, not a test class

    def runTest(self):
        pass


def _outcome(case, method, args, kwargs):
    try:
        getattr(case, method)(*args, **kwargs)
        return True
    except AssertionError:
        return False


@pytest.mark.parametrize("method, args, kwargs, passes", ASSERTION_ROWS)
def test_assertions_follow_tf_rules(method, args, kwargs, passes):
    assert _outcome(_Case(), method, args, kwargs) is passes


@pytest.mark.parametrize("method, args, kwargs, passes", ASSERTION_ROWS)
def test_assertions_agree_with_tf(method, args, kwargs, passes):
    tf = pytest.importorskip("tensorflow")

    class TFCase(tf.test.TestCase):
        def runTest(self):
            pass
    assert _outcome(TFCase(), method, args, kwargs) is _outcome(_Case(), method, args, kwargs)


# (test body, expected outcome): what unittest reports for a TestCase running it.
def _cached_session_is_reused(self):
    with self.cached_session() as s1:
        pass
    with self.cached_session() as s2:
        self.assertIs(s1, s2)
        self.assertIs(ref.get_default_session(), s2)


def _session_is_new_and_default(self):
    with self.session() as s1:
        self.assertIs(ref.get_default_session(), s1)
    with self.session() as s2:
        self.assertIsNot(s1, s2)


def _evaluate_nested(self):
    a, b = ref.constant([1.0, 2.0]), ref.constant(3)
    got = self.evaluate({"a": a, "t": (b, [a])})
    self.assertAllEqual(got["a"], [1.0, 2.0])
    self.assertEqual(got["t"][0], 3)
    self.assertAllEqual(got["t"][1][0], [1.0, 2.0])


def _evaluate_variables(self):
    v = ref.Variable([1.0, 2.0])
    self.evaluate(ref.global_variables_initializer())
    self.evaluate(ref.assign_add(v, [1.0, 1.0]))
    self.assertAllClose(self.evaluate(v), [2.0, 3.0])


def _assert_all_close_on_tensors(self):
    self.assertAllClose(ref.constant([1.0, 2.0]), [1.0, 2.0])
    self.assertAllEqual(ref.constant([1, 2]), ref.constant([1, 2]))


def _fresh_graph_with_default_seed(self):
    g = ref.get_default_graph()
    self.assertEqual(g.get_operations(), [])
    self.assertEqual(g.seed, 87654321)
    self.assertEqual(np.random.get_state()[1][0], np.random.RandomState(87654321).get_state()[1][0])


def _op_error_matches(self):
    x = ref.placeholder(ref.float32)
    with self.assertRaisesOpError("must feed a value for placeholder"):
        self.evaluate(x)


def _op_error_predicate(self):
    with self.assertRaisesWithPredicateMatch(ValueError, lambda e: "boom" in str(e)):
        raise ValueError("boom")


def _op_error_not_raised(self):
    with self.assertRaisesOpError("anything"):
        pass


def _op_error_wrong_message(self):
    with self.assertRaisesOpError("other text"):
        raise ref.errors.InvalidArgumentError(None, None, "this text")


def _proto_equals_ignores_map_order(self):
    node = ref.FIFOQueue(10, ref.float32, name="Q").queue_ref.op.node_def
    self.assertProtoEquals("""
        name: 'Q' op: 'FIFOQueueV2' device: '/device:CPU:*'
        attr { key: 'capacity' value { i: 10 } }
        attr { key: 'component_types' value { list { type: DT_FLOAT } } }
        attr { key: 'container' value { s: '' } }
        attr { key: 'shapes' value { list {} } }
        attr { key: 'shared_name' value { s: '' } }""", node)


def _proto_equals_mismatch(self):
    self.assertProtoEquals("name: 'P' op: 'FIFOQueueV2'", ref.FIFOQueue(10, ref.float32, name="Q").queue_ref.op.node_def)


def _checked_thread_failure(self):
    t = self.checkedThread(lambda: 1 / 0)
    t.start()
    t.join()


def _soft_placement_without_a_gpu(self):
    with self.cached_session():
        with ref.device("/device:GPU:0"):
            x = ref.constant(1.0) + 1.0
        self.assertEqual(self.evaluate(x), 2.0)


def _temp_dir_exists(self):
    import os
    self.assertTrue(os.path.isdir(self.get_temp_dir()))
    self.assertEqual(self.get_temp_dir(), self.get_temp_dir())  # one directory per test, as TF's
    self.assertTrue(os.path.isdir(ref.test.get_temp_dir()))


BODY_ROWS = [
    (_cached_session_is_reused, "passed"),
    (_session_is_new_and_default, "passed"),
    (_evaluate_nested, "passed"),
    (_evaluate_variables, "passed"),
    (_assert_all_close_on_tensors, "passed"),
    (_fresh_graph_with_default_seed, "passed"),
    (_op_error_matches, "passed"),
    (_op_error_predicate, "passed"),
    (_op_error_not_raised, "failed"),
    (_op_error_wrong_message, "failed"),
    (_checked_thread_failure, "failed"),
    (_proto_equals_ignores_map_order, "passed"),
    (_proto_equals_mismatch, "failed"),
    (_temp_dir_exists, "passed"),
    (_soft_placement_without_a_gpu, "passed"),
]


def _run(body):
    ref.constant(0.0, name="left_over_from_before")  # setUp must start a fresh graph
    ref.Graph().as_default().__enter__()  # ... even when a failed test left one entered
    case = type("Case", (ref_test.TestCase,), {"test_body": body})("test_body")
    result = unittest.TestResult()
    case.run(result)
    if result.errors:
        return "error: " + result.errors[0][1]
    return "failed" if result.failures else "passed"


@pytest.mark.parametrize("body, expected", BODY_ROWS, ids=lambda r: getattr(r, "__name__", str(r)))
def test_test_case_bodies(body, expected):
    assert _run(body) == expected


def test_main_runs_the_test_cases_of_a_module():
    ran = []

    class One(ref.test.TestCase):
        def test_it(self):
            ran.append(1)
    module = type(unittest)("fake_tests")
    module.One = One
    with pytest.raises(SystemExit) as exit_info:
        unittest.main(module=module, argv=["x"], exit=True)  # ref.test.main == unittest.main on __main__
    assert ran == [1] and exit_info.value.code == 0
    assert ref.test.main.__module__ == "ref.test_util"


def _register_checker_grads(lib):
    """Two deliberately wrong gradients (as TF's gradient_checker_test registers them)."""
    if getattr(lib, "_smalltests_checker_grads", False):
        return
    lib.RegisterGradient("SmalltestsTransposedGrad")(lambda op, grad: lib.transpose(grad))
    lib.RegisterGradient("SmalltestsNaNGrad")(lambda op, grad: np.nan * grad)
    lib._smalltests_checker_grads = True


# (override, x shape, function, args): the outcome (error kind and message, or the error's NaN-ness)
CHECKER_EDGE_ROWS = {
    "empty_wrong_shape": ("SmalltestsTransposedGrad", (0, 3), "compute_gradient"),
    "empty_wrong_shape_error": ("SmalltestsTransposedGrad", (0, 3), "compute_gradient_error"),
    "nan_gradient_error": ("SmalltestsNaNGrad", (), "compute_gradient_error"),
    "empty_fine": (None, (0, 3), "compute_gradient_error"),
}


@pytest.mark.parametrize("row", sorted(CHECKER_EDGE_ROWS))
def test_gradient_checker_edges_as_tensorflow(row):
    tf = pytest.importorskip("tensorflow").compat.v1
    override, shape, fn = CHECKER_EDGE_ROWS[row]
    outcomes = []
    for lib in (tf, ref):
        _register_checker_grads(lib)
        with lib.Graph().as_default() as g, lib.Session(graph=g):
            x = lib.placeholder(lib.float32)
            with g.gradient_override_map({"Identity": override} if override else {}):
                y = lib.identity(x)
            try:
                out = getattr(lib.test, fn)(x, shape, y, shape)
                outcomes.append(("nan", bool(np.isnan(out))) if fn.endswith("error") else ("ok",))
            except ValueError as e:
                outcomes.append(("ValueError", str(e)))
    assert outcomes[1] == outcomes[0]


# GraphDef pairs for assert_equal_graph_def: (text a, text b, equal by TF's rule);
# the verdict is checked against TF's own test_util.assert_equal_graph_def.
_C = "node {{ name: '{0}' op: 'Const' {1} attr {{ key: 'dtype' value {{ type: DT_FLOAT }} }} }}"
_ID = "node {{ name: '{0}' op: 'Identity' input: '{1}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} }}"
GRAPH_DEF_ROWS = [
    (_C.format("a", "") + _C.format("b", ""), _C.format("b", "") + _C.format("a", ""), True),   # order-free
    (_C.format("a", ""), _C.format("a", "") + _C.format("b", ""), False),                         # missing node
    (_C.format("a", "device: '/cpu:0'"), _C.format("a", ""), False),                              # device
    (_C.format("a", "attr { key: '_x' value { i: 1 } }"), _C.format("a", ""), True),              # internal attr
    (_C.format("a", "") + _ID.format("b", "a"), _C.format("a", "") + _ID.format("b", "^a"), False),
    (_C.format("a", "") + _C.format("c", "") + _ID.format("b", "a' input: '^c"),
     _C.format("a", "") + _C.format("c", "") + _ID.format("b", "a' input: '^c"), True),
]


@pytest.mark.parametrize("a, b, equal", GRAPH_DEF_ROWS)
def test_assert_equal_graph_def_as_tf(a, b, equal):
    from google.protobuf import text_format
    from ref.test_util import assert_equal_graph_def

    def verdict(graph_def_cls, check):
        ga, gb = graph_def_cls(), graph_def_cls()
        text_format.Merge(a, ga)
        text_format.Merge(b, gb)
        try:
            check(ga, gb)
            return True
        except AssertionError:
            return False
    assert verdict(ref.GraphDef, assert_equal_graph_def) == equal
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import test_util as tf_test_util
    assert verdict(tf.compat.v1.GraphDef, tf_test_util.assert_equal_graph_def) == equal


def test_get_node_def_from_graph():
    from google.protobuf import text_format
    from ref.test_util import get_node_def_from_graph
    gd = text_format.Merge(_C.format("a", "") + _C.format("b", ""), ref.GraphDef())
    assert get_node_def_from_graph("b", gd).name == "b" and get_node_def_from_graph("z", gd) is None


# Ragged operands: (method, a, b, passes); ("rv", pylist) is a RaggedTensorValue
# built by the library's ragged.constant_value, ("rt", pylist) a RaggedTensor
# (evaluated by the assertion). TF's rule: the nested lists agree (within
# tolerance for assertAllClose), and so do the ragged ranks unless a side is a list.
RAGGED_ROWS = [
    ("assertAllEqual", ("rv", [[1, 2], [3]]), [[1, 2], [3]], True),
    ("assertAllEqual", ("rv", [[1, 2], [3]]), [[1, 2], [4]], False),
    ("assertAllEqual", ("rv", [[1, 2], [3]]), ("rv", [[1, 2], [3]]), True),
    ("assertAllEqual", ("rv", [[[1], [2]], []]), ("rv", [[1, 2], []]), False),
    ("assertAllEqual", ("rt", [[1, 2], [], [3]]), [[1, 2], [], [3]], True),
    ("assertAllEqual", ("rt", [[1, 2], [], [3]]), [[1, 2], [3]], False),
    ("assertAllClose", ("rv", [[1.0, 2.0], [3.0]]), [[1.0, 2.0 + 1e-7], [3.0]], True),
    ("assertAllClose", ("rv", [[1.0, 2.0], [3.0]]), [[1.0, 2.1], [3.0]], False),
    ("assertAllClose", ("rt", [[1.0], []]), ("rv", [[1.0], []]), True),
]


def _ragged_operand(lib, x):
    if isinstance(x, tuple) and x[0] == "rv":
        return lib.ragged.constant_value(x[1])
    if isinstance(x, tuple) and x[0] == "rt":
        return lib.ragged.constant(x[1])
    return x


def _ragged_outcome(lib, case, method, a, b):
    with lib.Graph().as_default():
        with case.session():
            return _outcome(case, method, (_ragged_operand(lib, a), _ragged_operand(lib, b)), {})


@pytest.mark.parametrize("method, a, b, passes", RAGGED_ROWS)
def test_ragged_assertions(method, a, b, passes):
    assert _ragged_outcome(ref, _Case(), method, a, b) is passes


@pytest.mark.parametrize("method, a, b, passes", RAGGED_ROWS)
def test_ragged_assertions_agree_with_tf(method, a, b, passes):
    tf = pytest.importorskip("tensorflow")

    class TFCase(tf.test.TestCase):
        def runTest(self):
            pass
    assert _ragged_outcome(tf.compat.v1, TFCase(), method, a, b) is passes


# -- tf.test.create_local_cluster and test_util.assert_meta_graph_protos_equal ----------

def test_create_local_cluster_shares_ps_variables_between_workers():
    """TF's localhost_cluster_performance_test: values set through one worker read back
    through the other; every server listens on 127.0.0.1."""
    workers, ps = ref_test.create_local_cluster(num_workers=2, num_ps=2)
    try:
        assert all(s.target.startswith("grpc://localhost:") for s in workers + ps)
        with ref.Graph().as_default():
            sessions = [ref.Session(w.target) for w in workers]
            made = []
            for task in (0, 1):
                with ref.device(f"/job:ps/task:{task}"):
                    made.append(ref.Variable(float(task)))
            sessions[0].run([v.initializer for v in made])
            assert [sessions[1].run(v) for v in made] == [0.0, 1.0]
            for s in sessions:
                s.close()
    finally:
        for s in workers + ps:
            s.stop()


def _meta_graphs(lib, second_value):
    out = []
    for value in (1.0, second_value):
        with lib.Graph().as_default():
            lib.Variable(value, name="v")
            lib.train.Saver()
            out.append(lib.train.export_meta_graph())
    return out


@pytest.mark.parametrize("second_value,equal", [(1.0, True), (2.0, False)])
def test_assert_meta_graph_protos_equal_as_tf(second_value, equal):
    from ref import test_util
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import test_util as tf_test_util
    for lib, helper, case in ((tf.compat.v1, tf_test_util, tf.test.TestCase()), (ref, test_util, ref_test.TestCase())):
        a, b = _meta_graphs(lib, second_value)
        if equal:
            helper.assert_meta_graph_protos_equal(case, a, b)
        else:
            with pytest.raises(AssertionError):
                helper.assert_meta_graph_protos_equal(case, a, b)


# -- test_util.with_control_flow_v2 / disable_control_flow_v2 / enable_control_flow_v2 ----------
# Which methods get a `...WithControlFlowV2` copy, and in which mode each runs, against TF's
# own decorators on the same class body (TF: `tensorflow.python.framework.test_util`).

def _cfv2_class(util, mode_of, base):
    """A class built as TF's test files build theirs; each test records the mode it ran in."""
    class Inherited(base):
        def testInherited(self):  # not in the decorated class's own __dict__: no copy
            self.seen.append(("testInherited", mode_of()))

    class Case(Inherited):
        seen = []

        def testPlain(self):
            self.seen.append(("testPlain", mode_of()))

        @util.disable_control_flow_v2("not for v2")
        def testDisabled(self):
            self.seen.append(("testDisabled", mode_of()))

        def testRaises(self):
            self.seen.append(("testRaises", mode_of()))
            raise RuntimeError("the mode is restored after a failure too")

        def helper(self):  # not a test name: no copy
            self.seen.append(("helper", mode_of()))

        not_callable_test = 3
    return util.with_control_flow_v2(Case)


def _cfv2_outcomes(util, mode_of, base):
    cls = _cfv2_class(util, mode_of, base)
    names = sorted(n for n in dir(cls) if n.startswith("test") and n != "test_session")  # (a context manager)
    outcomes = []
    for n in names:
        result = unittest.TestResult()
        cls(n).run(result)
        outcomes.append((n, not result.errors and not result.failures, mode_of()))
    return names, sorted(cls.seen), outcomes


CFV2_EXPECTED_NAMES = ["testDisabled", "testInherited", "testPlain", "testPlainWithControlFlowV2", "testRaises",
                       "testRaisesWithControlFlowV2"]


def test_with_control_flow_v2_copies():
    from ref import test_util
    from ref.platform import modes
    names, seen, outcomes = _cfv2_outcomes(test_util, modes.control_flow_v2_enabled, ref_test.TestCase)
    assert names == CFV2_EXPECTED_NAMES
    assert seen == [("testDisabled", False), ("testInherited", False), ("testPlain", False), ("testPlain", True),
                    ("testRaises", False), ("testRaises", True)]
    assert all(mode is False for _, _, mode in outcomes)  # restored after each, failing or not
    assert [n for n, ok, _ in outcomes if not ok] == ["testRaises", "testRaisesWithControlFlowV2"]


def test_with_control_flow_v2_as_tf():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import test_util as tf_test_util
    from tensorflow.python.ops import control_flow_util as tf_cfu
    from ref import test_util
    from ref.platform import modes
    was = tf_cfu.ENABLE_CONTROL_FLOW_V2
    tf_cfu.ENABLE_CONTROL_FLOW_V2 = False
    try:
        tf_names, tf_seen, tf_outcomes = _cfv2_outcomes(tf_test_util, lambda: tf_cfu.ENABLE_CONTROL_FLOW_V2,
                                                        unittest.TestCase)
    finally:
        tf_cfu.ENABLE_CONTROL_FLOW_V2 = was
    ref_names, ref_seen, ref_outcomes = _cfv2_outcomes(test_util, modes.control_flow_v2_enabled, unittest.TestCase)
    assert ref_names == tf_names
    assert ref_seen == tf_seen
    assert ref_outcomes == tf_outcomes
    del tf


def test_with_control_flow_v2_when_on_adds_nothing():
    from ref import test_util
    from ref.platform import modes
    modes.enable_control_flow_v2()  # (the conftest fixture restores the mode)
    cls = _cfv2_class(test_util, modes.control_flow_v2_enabled, ref_test.TestCase)
    assert not [n for n in dir(cls) if n.endswith("WithControlFlowV2")]


# TF's test_util.NHWCToNCHW / NCHWToNHWC: a Tensor transposed, a shape list permuted.
LAYOUT_ROWS = [("NHWCToNCHW", [2, 3, 4]), ("NHWCToNCHW", [2, 3, 4, 5]), ("NCHWToNHWC", [2, 3, 4, 5]),
               ("NHWCToNCHW", [2, 3, 4, 5, 6]), ("NCHWToNHWC", [2, 3, 4, 5, 6])]


@pytest.mark.parametrize("fn,shape", LAYOUT_ROWS)
def test_layout_helpers_as_tf(fn, shape):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import test_util as tf_test_util
    from ref import test_util

    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    assert getattr(test_util, fn)(list(shape)) == getattr(tf_test_util, fn)(list(shape))
    want = getattr(tf_test_util, fn)(tf.constant(x)).numpy()
    with ref.Graph().as_default(), ref.Session() as sess:
        got = sess.run(getattr(test_util, fn)(ref.constant(x)))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("raises", [False, True])
def test_deterministic_ops_as_tf(raises):
    """``test_util.deterministic_ops()``: determinism on inside, off after (an exception too), as TF's."""
    pytest.importorskip("tensorflow")
    from tensorflow.python.framework import config as tf_config
    from tensorflow.python.framework import test_util as tf_test_util
    from ref import test_util
    from ref.platform import modes
    seen = {}
    for name, ctx, enabled in (("tf", tf_test_util.deterministic_ops, tf_config.is_op_determinism_enabled),
                               ("ref", test_util.deterministic_ops, modes.is_op_determinism_enabled)):
        inside = None
        try:
            with ctx():
                inside = enabled()
                if raises:
                    raise KeyError("body")
        except KeyError:
            pass
        seen[name] = (inside, enabled())
    assert seen["ref"] == seen["tf"] == (True, False)


@pytest.mark.parametrize("version", [6, 9, 20])
def test_set_producer_version_as_tf(version):
    """``test_util.set_producer_version``: the graph's GraphDef versions say ``version``, as TF's."""
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.framework import test_util as tf_test_util
    from ref import test_util
    got = []
    for lib, tu in ((tf, tf_test_util), (ref, test_util)):
        g = lib.Graph()
        tu.set_producer_version(g, version)
        got.append((g.graph_def_versions.producer, g.as_graph_def().versions.producer, len(g.get_operations())))
    assert got[0] == got[1]
