"""The immutable graph: naming, scopes, control dependencies, devices,
collections, finalize -- compared with tensorflow.compat.v1 where it defines
the expected behaviour."""
import numpy as np
import pytest

import ref.ops.core  # noqa: F401
import ref.ops.registry
from ref.types import dtypes
from ref.framework import graph as G
from ref.framework.op_def_library import constant
from ref.graph_ops.control_flow_ops import group, identity, no_op, placeholder


def _names_ref(program):
    g = G.Graph()
    with g.as_default():
        program(_RefAPI)
    return [op.name for op in g.get_operations()]


class _RefAPI:
    constant = staticmethod(constant)
    identity = staticmethod(identity)
    name_scope = staticmethod(G.name_scope)
    no_op = staticmethod(no_op)


# Each program uses only constant / identity / name_scope / no_op, so it runs
# unchanged under TF and under ref.
PROGRAMS = {
    "unique": lambda tf: [tf.constant(1.0, name="x"), tf.constant(1.0, name="x"), tf.constant(1.0, name="x")],
    "suffix_clash": lambda tf: [tf.constant(1.0, name="x_1"), tf.constant(1.0, name="x"),
                                tf.constant(1.0, name="x"), tf.constant(1.0, name="x")],
    "case_insensitive": lambda tf: [tf.constant(1.0, name="A"), tf.constant(1.0, name="a")],
    "scopes": lambda tf: _scopes(tf),
    "reuse_scope_with_slash": lambda tf: _reuse(tf),
    "nested_default_names": lambda tf: [tf.identity(tf.constant(2.0)), tf.identity(tf.constant(3.0))],
}


def _scopes(tf):
    with tf.name_scope("outer"):
        tf.constant(1.0, name="c")
        with tf.name_scope("inner"):
            tf.constant(1.0, name="c")
        with tf.name_scope("inner"):
            tf.constant(1.0, name="c")
    with tf.name_scope("outer"):
        tf.no_op(name="n")


def _reuse(tf):
    with tf.name_scope("s") as scope:
        tf.constant(1.0, name="a")
    with tf.name_scope(scope):
        tf.constant(1.0, name="a")
    with tf.name_scope(None):
        tf.constant(1.0, name="root")


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_names_match_tensorflow(program):
    tf = pytest.importorskip("tensorflow").compat.v1
    g = tf.Graph()
    with g.as_default():
        PROGRAMS[program](tf)
    expected = [op.name for op in g.get_operations()]
    assert _names_ref(PROGRAMS[program]) == expected


def test_operation_is_frozen_and_tensor_queries():
    g = G.Graph()
    with g.as_default():
        c = constant(np.zeros((2, 3), np.float32), name="c")
        i = identity(c, name="i")
    op = i.op
    with pytest.raises(AttributeError):
        op._name = "other"
    assert i.name == "i:0" and i.dtype == dtypes.float32 and i.shape.as_list() == [2, 3]
    assert op.inputs == [c] and c.consumers() == [op] and i.graph is g
    assert g.get_operation_by_name("i") is op and g.get_tensor_by_name("c:0") is c
    with pytest.raises(KeyError):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("c")


def test_set_shape_merges_and_rejects():
    with G.Graph().as_default():
        x = placeholder(dtypes.float32, [None, 3])
        x.set_shape([4, None])
        assert x.shape.as_list() == [4, 3]
        with pytest.raises(ValueError):
            x.set_shape([5, 3])


def test_control_dependencies_and_group():
    with G.Graph().as_default() as g:
        a = constant(1.0, name="a")
        b = no_op(name="b")
        with G.control_dependencies([a, b]):
            c = constant(2.0, name="c")
            with G.control_dependencies(None):
                d = constant(3.0, name="d")
        grp = group(a, c, name="grp")
    assert c.op.control_inputs == [a.op, b]
    assert d.op.control_inputs == []
    assert set(grp.control_inputs) == {a.op, c.op} and grp.name == "grp"


def test_device_strings_and_functions():
    with G.Graph().as_default():
        with G.device("/job:ps"):
            with G.device("/task:1/device:CPU:0"):
                a = constant(1.0, name="a")
        with G.device(lambda op: "/device:GPU:0" if op.type == "Const" else ""):
            b = constant(1.0, name="b")
            c = no_op(name="c")
        with G.device("/job:w"):
            with G.device(None):
                d = constant(1.0, name="d")
        with G.colocate_with(a):
            e = identity(a, name="e")
    assert a.device == "/job:ps/task:1/device:CPU:0"
    assert b.device == "/device:GPU:0" and c.device == ""
    assert d.device == ""
    assert e.device == a.device and e.op.colocation_groups() == [b"loc:@a"]


def test_collections():
    with G.Graph().as_default() as g:
        a = constant(1.0, name="scope1/a")
        b = constant(1.0, name="scope2/b")
        G.add_to_collection("things", a)
        G.add_to_collections(["things", "more"], b)
        assert G.get_collection("things") == [a, b]
        assert G.get_collection("things", scope="scope2") == [b]
        ref_list = G.get_collection_ref("more")
        ref_list.append(a)
        assert G.get_collection("more") == [b, a]
        copy = G.get_collection("more")
        copy.append(1)
        assert G.get_collection("more") == [b, a]
        assert sorted(g.get_all_collection_keys()) == ["more", "things"]
    assert G.GraphKeys.GLOBAL_VARIABLES == "variables"
    assert G.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"


def test_graphkeys_match_tensorflow():
    tf = pytest.importorskip("tensorflow").compat.v1
    for key in ["GLOBAL_VARIABLES", "LOCAL_VARIABLES", "MODEL_VARIABLES", "TRAINABLE_VARIABLES", "SUMMARIES",
                "QUEUE_RUNNERS", "MOVING_AVERAGE_VARIABLES", "REGULARIZATION_LOSSES", "SAVERS", "UPDATE_OPS",
                "LOSSES", "GLOBAL_STEP", "TRAIN_OP", "INIT_OP", "LOCAL_INIT_OP", "READY_OP", "SUMMARY_OP",
                "ASSET_FILEPATHS", "TABLE_INITIALIZERS", "METRIC_VARIABLES", "RESOURCES", "LOCAL_RESOURCES",
                "CONCATENATED_VARIABLES", "WEIGHTS", "BIASES", "ACTIVATIONS", "EVAL_STEP",
                "READY_FOR_LOCAL_INIT_OP", "SAVEABLE_OBJECTS", "COND_CONTEXT", "WHILE_CONTEXT"]:
        assert getattr(G.GraphKeys, key) == getattr(tf.GraphKeys, key), key


def test_finalize():
    g = G.Graph()
    with g.as_default():
        constant(1.0)
        g.finalize()
        with pytest.raises(RuntimeError, match="finalized"):
            constant(2.0)


def test_default_graph_stack():
    G.reset_default_graph()
    g0 = G.get_default_graph()
    g1 = G.Graph()
    with g1.as_default():
        assert G.get_default_graph() is g1
        with pytest.raises(AssertionError):
            G.reset_default_graph()
    assert G.get_default_graph() is g0
    G.reset_default_graph()
    assert G.get_default_graph() is not g0


def test_tensors_from_other_graph_rejected():
    g1, g2 = G.Graph(), G.Graph()
    with g1.as_default():
        a = constant(1.0)
    with g2.as_default():
        with pytest.raises(ValueError):
            g2.create_op("Identity", [a], {}, "x", [(dtypes.float32, [])], ref.ops.registry.get("Identity"))


def test_constant_conversion_rules():
    with G.Graph().as_default():
        assert constant(1.0).dtype == dtypes.float32
        assert constant(1).dtype == dtypes.int32
        assert constant(2**40).dtype == dtypes.int64
        assert constant(np.float64(1)).dtype == dtypes.float64
        assert constant("s").dtype == dtypes.string
        assert constant([True]).dtype == dtypes.bool
        assert constant(1, dtype=dtypes.float64).dtype == dtypes.float64
        assert constant(0.0, shape=[2, 2]).shape.as_list() == [2, 2]
        with pytest.raises(TypeError):
            constant(1.5, dtype=dtypes.int32)
        # TF1's constant pads with the last value (tests/framework/test_constant_shapes.py)
        assert constant([1, 2, 3], shape=[2, 2]).op.get_attr("value").tolist() == [[1, 2], [3, 3]]
        with pytest.raises(TypeError):
            constant([1.0, 2.0], shape=[3], verify_shape=True)


def test_tensor_is_not_a_bool():
    with G.Graph().as_default():
        with pytest.raises(TypeError):
            bool(constant(True))


def test_while_loops_built_in_parallel_threads():
    """Each thread builds in its own TF 1.x control-flow context (as its name and
    device stacks): loops built at once in one graph are each well formed and
    compute sum(range(n)) (TF's session_test builds graphs from threads so too)."""
    import threading
    import ref as tf
    g = tf.Graph()
    results, errors_seen = {}, []

    def build(n):
        try:
            with g.as_default():
                for _ in range(5):
                    out = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0])
                results[n] = out[1]
        except Exception as e:  # noqa: BLE001 -- reported below
            errors_seen.append(e)
    threads = [threading.Thread(target=build, args=(n,)) for n in (3, 4, 5, 6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors_seen, errors_seen
    with tf.Session(graph=g) as sess:
        assert {n: int(sess.run(v)) for n, v in results.items()} == {n: sum(range(n)) for n in (3, 4, 5, 6)}
