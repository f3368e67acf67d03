"""TF 1.x ``while_loop`` (ref.graph_ops.while_v1) built node for node as
TensorFlow builds it in compat.v1 graphs (Enter, Merge, LoopCond, Switch,
Identity, NextIteration, Exit; WhileContext), its values, and the
``while_context`` collection of a MetaGraphDef. Oracle: TensorFlow itself."""
import numpy as np
import pytest

import ref as rtf
from ref.graph_ops.while_v1 import while_loop_v1
from ref.protos import control_flow_pb2
from tests.graph_ops.test_control_flow_v1 import _graph_def, _nodes, _tf1_control_flow  # noqa: F401


def _tf():
    tf = pytest.importorskip("tensorflow")
    return tf.compat.v1


def _wl(lib):
    return lib.while_loop if lib is not rtf else while_loop_v1


def _counter(lib):
    x = lib.placeholder(lib.float32, [2], name="x")
    n = lib.placeholder(lib.int32, [], name="n")
    return _wl(lib)(lambda i, y: i < n, lambda i, y: (i + 1, y * 2.0 + x), [0, x])[1]


def _single(lib):
    n = lib.placeholder(lib.int32, [], name="n")
    return _wl(lib)(lambda i: i < n, lambda i: i + 2, [lib.constant(0)], parallel_iterations=3)


def _max_iterations(lib):
    x = lib.placeholder(lib.float32, [], name="x")
    return _wl(lib)(lambda y: y < 100.0, lambda y: y * 3.0, [x], maximum_iterations=4)


def _max_iterations_many(lib):
    x = lib.placeholder(lib.float32, [], name="x")
    return _wl(lib)(lambda i, y: y < 100.0, lambda i, y: [i + 1, y * 3.0], [0, x], maximum_iterations=3)[1]


def _nested(lib):
    n = lib.placeholder(lib.int32, [], name="n")

    def body(i, s):
        j, t = _wl(lib)(lambda j, t: j < i, lambda j, t: (j + 1, t + j), [0, s])
        return i + 1, t
    return _wl(lib)(lambda i, s: i < n, body, [0, 0])[1]


def _cond_in_loop(lib):
    n = lib.placeholder(lib.int32, [], name="n")

    def body(i, s):
        return i + 1, lib.cond(lib.equal(i % 2, 0), lambda: s + i, lambda: s - 1)
    return _wl(lib)(lambda i, s: i < n, body, [0, 0])[1]


def _loop_in_cond(lib):
    n = lib.placeholder(lib.int32, [], name="n")
    p = lib.placeholder(lib.bool, [], name="p")
    return lib.cond(p, lambda: _wl(lib)(lambda i: i < n, lambda i: i + 1, [0]), lambda: lib.constant(-1))


def _shape_invariant(lib):
    n = lib.placeholder(lib.int32, [], name="n")
    out = _wl(lib)(lambda i, v: i < n, lambda i, v: (i + 1, lib.concat([v, [i]], 0)),
                   [0, lib.constant([7])], shape_invariants=[rtf.TensorShape([]) if lib is rtf else
                                                             lib.TensorShape([]),
                                                             lib.TensorShape([None])])
    return out[1]


def _no_back_prop(lib):
    n = lib.placeholder(lib.int32, [], name="n")
    return _wl(lib)(lambda i: i < n, lambda i: i * 2 + 1, [1], back_prop=False)


LOOPS = [_counter, _single, _max_iterations, _max_iterations_many, _nested, _cond_in_loop, _loop_in_cond,
         _shape_invariant, _no_back_prop]
IDS = [b.__name__.strip("_") for b in LOOPS]


@pytest.mark.parametrize("build", LOOPS, ids=IDS)
def test_graph_def_matches_tensorflow(build):
    want, _ = _graph_def(_tf(), build)
    got, _ = _graph_def(rtf, build)
    assert _nodes(got) == _nodes(want)
    for a, b in zip(got.node, want.node):
        if b.op in ("Enter", "Exit", "NextIteration", "LoopCond", "Merge", "Switch"):
            assert dict(a.attr) == dict(b.attr), a.name


FEEDS = {"n:0": 5, "x:0": 1.5, "p:0": True}


def _run(lib, build):
    g = lib.Graph()
    with g.as_default():
        out = build(lib)
        feeds = {}
        for name, value in FEEDS.items():
            try:
                t = g.get_tensor_by_name(name)
            except (KeyError, ValueError):
                continue
            feeds[t] = np.full(t.shape.as_list() if t.shape.ndims else [], value,
                               t.dtype.as_numpy_dtype if hasattr(t.dtype, "as_numpy_dtype") else None)
        with lib.Session() as s:
            return s.run(out, feeds)


@pytest.mark.parametrize("evaluate", [False, True], ids=["execute", "evaluate"])
@pytest.mark.parametrize("build", LOOPS, ids=IDS)
def test_values_match_tensorflow(build, evaluate, monkeypatch):
    from ref.session import session as session_mod
    monkeypatch.setattr(session_mod, "_REFERENCE_EVALUATOR", evaluate)
    want = _run(_tf(), build)
    got = _run(rtf, build)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_loop_in_untaken_branch_is_dead():
    FEEDS["p:0"] = False
    try:
        assert _run(rtf, _loop_in_cond) == _run(_tf(), _loop_in_cond) == -1
    finally:
        FEEDS["p:0"] = True


def _contexts(lib, build):
    g = lib.Graph()
    with g.as_default():
        build(lib)
        mg = lib.train.export_meta_graph()
    return [control_flow_pb2.WhileContextDef.FromString(b)
            for b in mg.collection_def["while_context"].bytes_list.value]


@pytest.mark.parametrize("build", [_counter, _max_iterations, _nested, _cond_in_loop, _no_back_prop],
                         ids=["counter", "max_iterations", "nested", "cond_in_loop", "no_back_prop"])
def test_meta_graph_while_context_matches_tensorflow(build):
    assert _contexts(rtf, build) == _contexts(_tf(), build)


def test_while_context_imported_back():
    g = rtf.Graph()
    with g.as_default():
        _nested(rtf)
        mg = rtf.train.export_meta_graph()
    with rtf.Graph().as_default() as g2:
        rtf.train.import_meta_graph(mg)
        (ctx,) = g2.get_collection("while_context")
        assert ctx.to_proto() == control_flow_pb2.WhileContextDef.FromString(
            mg.collection_def["while_context"].bytes_list.value[0])
        assert ctx.pivot.name == "while/LoopCond:0" and [e.name for e in ctx.loop_exits] == \
            ["while/Exit:0", "while/Exit_1:0"]
        inner = g2.get_operation_by_name("while/while/add")._get_control_flow_context()
        assert inner.outer_context is ctx and inner.name == "while/while/while_context"


def test_tf_while_loop_without_back_prop_builds_tf1_loop_and_passes_no_gradient():
    """``tf.while_loop(back_prop=False)`` is TF 1.x's loop, as TF builds it; the
    gradient through it is None in both."""
    def build(lib):
        x = lib.placeholder(lib.float32, [], name="x")
        y = lib.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x], back_prop=False)
        return x, y, lib.gradients(y + x, x)[0], lib.gradients(y, x)[0]
    def forward(lib):
        x = lib.placeholder(lib.float32, [], name="x")
        lib.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x], back_prop=False)
    want, _ = _graph_def(_tf(), forward)
    got, _ = _graph_def(rtf, forward)
    assert _nodes(got) == _nodes(want)
    for lib in (_tf(), rtf):
        with lib.Graph().as_default():
            x, y, g_sum, g_loop = build(lib)
            assert g_loop is None
            with lib.Session() as s:
                assert s.run([y, g_sum], {x: 1.5}) == [12.0, 1.0]
