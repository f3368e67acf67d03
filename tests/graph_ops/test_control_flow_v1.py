"""TF 1.x ``cond``/``case`` built node for node as TensorFlow builds them
(compat.v1 graphs: Switch, pivots, Merge, CondContext), their gradients, their
values, and the ``cond_context`` collection of a MetaGraphDef. Oracle:
TensorFlow itself."""
import numpy as np
import pytest

import ref as rtf
from ref.graph_ops import control_flow_v1 as _under_test  # noqa: F401  (the builders these tests cover)
from ref.protos import control_flow_pb2, graph_pb2


@pytest.fixture(autouse=True)
def _tf1_control_flow(monkeypatch):
    """TF's graphs here are TF 1.x control flow, as compat.v1 with v2 behaviour
    disabled builds them: the control-flow-v2 switch off for this test only."""
    try:
        from tensorflow.python.ops import control_flow_util
    except ImportError:
        return
    monkeypatch.setattr(control_flow_util, "ENABLE_CONTROL_FLOW_V2", False)


def _tf():
    tf = pytest.importorskip("tensorflow")
    return tf.compat.v1


def _nodes(graph_def):
    """(name, op, data inputs, control inputs in the GraphDef's order: sorted by name) per node, in order."""
    out = []
    for n in graph_def.node:
        data = [i for i in n.input if not i.startswith("^")]
        ctrl = [i for i in n.input if i.startswith("^")]
        out.append((n.name, n.op, data, ctrl))
    return out


def _graph_def(lib, build):
    g = lib.Graph()
    with g.as_default():
        build(lib)
    gd = g.as_graph_def()
    return graph_pb2.GraphDef.FromString(gd.SerializeToString()), g


def _sample(lib):
    x = lib.placeholder(lib.float32, [2], name="x")
    p = lib.placeholder(lib.bool, [], name="p")
    return x, p


def _simple(lib):
    x, p = _sample(lib)
    lib.cond(p, lambda: x * 2.0, lambda: lib.constant([1., 2.]) + x)


def _outer_value(lib):  # a branch returning an outer tensor as it is gets its own Switch
    x, p = _sample(lib)
    lib.cond(p, lambda: x, lambda: lib.negative(x))


def _tuple_result(lib):
    x, p = _sample(lib)
    lib.cond(p, lambda: (x, lib.constant(1)), lambda: (lib.negative(x), lib.constant(2)), name="pair")


def _strict_singleton(lib):
    x, p = _sample(lib)
    lib.cond(p, lambda: [x * 3.0], lambda: [x], strict=True)


def _nested(lib):
    x, p = _sample(lib)
    q = lib.placeholder(lib.bool, [], name="q")
    lib.cond(p, lambda: lib.cond(q, lambda: x * 2.0, lambda: x - 1.0), lambda: lib.negative(x))


def _op_result(lib):  # an Operation as a branch result: the pivot stands in for it
    x, p = _sample(lib)
    lib.cond(p, lambda: lib.no_op(), lambda: lib.group(lib.identity(x)))


def _variable_in_branch(lib):
    x, p = _sample(lib)
    v = lib.Variable(np.float32(1.0), name="v", use_resource=False)
    lib.cond(p, lambda: lib.assign_add(v, 1.0), lambda: v * 1.0)


def _two_conds(lib):
    x, p = _sample(lib)
    a = lib.cond(p, lambda: x * 2.0, lambda: x)
    lib.cond(lib.logical_not(p), lambda: a + 1.0, lambda: a)


def _case_exclusive(lib):
    x = lib.placeholder(lib.int32, [], name="x")
    lib.case([(lib.less(x, 0), lambda: lib.constant(-1)), (lib.equal(x, 0), lambda: lib.constant(0))],
             default=lambda: lib.constant(1), exclusive=True)


def _case_no_default(lib):
    x = lib.placeholder(lib.int32, [], name="x")
    lib.case([(lib.less(x, 0), lambda: lib.constant(-1)), (lib.greater_equal(x, 0), lambda: lib.constant(1))])


def _grad_neg(lib):
    x, p = _sample(lib)
    r = lib.cond(p, lambda: lib.negative(x), lambda: lib.identity(x))
    lib.gradients(r, x)


def _grad_outer(lib):
    x, p = _sample(lib)
    r = lib.cond(p, lambda: x, lambda: lib.negative(x))
    lib.gradients(r, x)


def _dominated_control_inputs(lib):  # an op whose input was made in the same block gets no control input
    x, p = _sample(lib)
    a = lib.identity(x, name="a")
    with lib.control_dependencies([a]):
        b = lib.add(x, 1.0, name="b")
        lib.multiply(b, 2.0, name="c")
        lib.negative(x, name="d")


GRAPHS = [_dominated_control_inputs, _simple, _outer_value, _tuple_result, _strict_singleton, _nested, _op_result, _variable_in_branch,
          _two_conds, _case_exclusive, _case_no_default, _grad_neg, _grad_outer]


@pytest.mark.parametrize("build", GRAPHS, ids=[b.__name__.strip("_") for b in GRAPHS])
def test_graph_def_matches_tensorflow(build):
    tf = _tf()
    want, _ = _graph_def(tf, build)
    got, _ = _graph_def(rtf, build)
    assert _nodes(got) == _nodes(want)
    for a, b in zip(got.node, want.node):  # the control-flow ops' types and colocation as TF's
        if b.op not in ("Switch", "RefSwitch", "Merge", "RefMerge", "Identity", "Enter", "Exit", "NextIteration",
                        "LoopCond"):
            continue
        for key in ("T", "N", "_class", "frame_name", "is_constant", "parallel_iterations"):
            assert (key in a.attr) == (key in b.attr), (a.name, key)
            if key in a.attr:
                assert a.attr[key] == b.attr[key], (a.name, key)


def _values(lib, build_fetch, feeds_by_name):
    g = lib.Graph()
    with g.as_default():
        fetch = build_fetch(lib)
        with lib.Session() as s:
            s.run(lib.global_variables_initializer())
            feeds = {g.get_tensor_by_name(k): v for k, v in feeds_by_name.items()}
            return s.run(fetch, feeds)


def _fetch_simple(lib):
    x, p = _sample(lib)
    r = lib.cond(p, lambda: x * 2.0, lambda: lib.constant([1., 2.]) + x)
    c = lib.cond(p, lambda: lib.constant(1.), lambda: lib.constant(2.))  # constants: pivots decide
    return [r, c, lib.gradients(r, x)[0], lib.gradients(lib.cond(p, lambda: x, lambda: -x), x)[0]]


def _fetch_nested(lib):
    x, p = _sample(lib)
    q = lib.placeholder(lib.bool, [], name="q")
    r = lib.cond(p, lambda: lib.cond(q, lambda: x * x, lambda: x - 1.0), lambda: lib.negative(x))
    return [r, lib.gradients(r, x)[0]]


def _fetch_variable(lib):
    x, p = _sample(lib)
    v = lib.Variable(np.float32(1.0), name="v", use_resource=False)
    r = lib.cond(p, lambda: lib.assign_add(v, 1.0), lambda: v * 1.0)
    with lib.control_dependencies([r]):
        after = lib.identity(v.read_value() if hasattr(v, "read_value") else v)
    return [r, after]


def _fetch_loop_in_branch(lib):  # ref: a functional While (back_prop) inside a TF 1.x cond branch
    x = lib.placeholder(lib.float32, [], name="x")
    p = lib.placeholder(lib.bool, [], name="p")
    r = lib.cond(p, lambda: lib.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])[1],
                 lambda: x * 10.0)
    return [r, lib.gradients(r, x)[0]]


VALUE_CASES = [(_fetch_loop_in_branch, {"x:0": 2.0, "p:0": True}), (_fetch_loop_in_branch, {"x:0": 2.0, "p:0": False}),
               (_fetch_simple, {"x:0": [3., -4.], "p:0": True}), (_fetch_simple, {"x:0": [3., -4.], "p:0": False}),
               (_fetch_nested, {"x:0": [3., -4.], "p:0": True, "q:0": True}),
               (_fetch_nested, {"x:0": [3., -4.], "p:0": True, "q:0": False}),
               (_fetch_nested, {"x:0": [3., -4.], "p:0": False, "q:0": True}),
               (_fetch_variable, {"x:0": [0., 0.], "p:0": True}), (_fetch_variable, {"x:0": [0., 0.], "p:0": False})]


@pytest.mark.parametrize("evaluate", [False, True], ids=["execute", "evaluate"])
@pytest.mark.parametrize("build,feeds", VALUE_CASES)
def test_values_match_tensorflow(build, feeds, evaluate, monkeypatch):
    from ref.session import session as session_mod
    monkeypatch.setattr(session_mod, "_REFERENCE_EVALUATOR", evaluate)
    want = _values(_tf(), build, feeds)
    got = _values(rtf, build, feeds)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


CASE_RUNS = [  # (builder, x, expected value or the error TF raises)
    (_case_exclusive, -3, -1), (_case_exclusive, 0, 0), (_case_exclusive, 5, 1),
    (_case_no_default, -3, -1), (_case_no_default, 4, 1),
]


@pytest.mark.parametrize("build,x,want", CASE_RUNS)
def test_case_values(build, x, want):
    with rtf.Graph().as_default() as g:
        build(rtf)
        out = g.get_operations()[-1].outputs[0]
        with rtf.Session() as s:
            assert s.run(out, {"x:0": x}) == want


def test_case_raises_as_tensorflow_when_several_or_no_predicates_hold():
    tf = _tf()
    for lib in (tf, rtf):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.int32, [], name="x")
            both = lib.case([(lib.less(x, 5), lambda: lib.constant(1)), (lib.less(x, 9), lambda: lib.constant(2))],
                            default=lambda: lib.constant(0), exclusive=True)
            none = lib.case([(lib.less(x, 0), lambda: lib.constant(-1)), (lib.greater(x, 10), lambda: lib.constant(1))])
            with lib.Session() as s:
                assert s.run(both, {x: 7}) == 2
                with pytest.raises(lib.errors.InvalidArgumentError, match="exclusive=True"):
                    s.run(both, {x: 1})
                with pytest.raises(lib.errors.InvalidArgumentError, match="None of conditions evaluated as True"):
                    s.run(none, {x: 5})


def test_branch_tensors_are_not_fetchable():
    with rtf.Graph().as_default():
        x, p = _sample(rtf)
        inner = []
        rtf.cond(p, lambda: inner.append(x * 2.0) or inner[0], lambda: x)
        with rtf.Session() as s, pytest.raises(ValueError):
            s.run(inner[0], {x: [1., 2.], p: True})


def _contexts(lib, build):
    g = lib.Graph()
    with g.as_default():
        build(lib)
        mg = lib.train.export_meta_graph()
    return [control_flow_pb2.CondContextDef.FromString(b) for b in mg.collection_def["cond_context"].bytes_list.value]


@pytest.mark.parametrize("build", [_simple, _nested, _two_conds, _variable_in_branch],
                         ids=["simple", "nested", "two_conds", "variable"])
def test_meta_graph_cond_context_matches_tensorflow(build):
    want = _contexts(_tf(), build)
    got = _contexts(rtf, build)
    assert got == want


def test_cond_context_imported_back():
    g = rtf.Graph()
    with g.as_default():
        _nested(rtf)
        mg = rtf.train.export_meta_graph()
    with rtf.Graph().as_default() as g2:
        rtf.train.import_meta_graph(mg)
        ctxs = g2.get_collection("cond_context")
        assert [c.to_proto() for c in ctxs] == [control_flow_pb2.CondContextDef.FromString(b) for b in
                                               mg.collection_def["cond_context"].bytes_list.value]
        assert ctxs[0].pivot.name == "cond/switch_t:0" and ctxs[1].branch == 0
        op = g2.get_operation_by_name("cond/cond/mul")
        assert op._get_control_flow_context().name == "cond/cond/cond_text"
