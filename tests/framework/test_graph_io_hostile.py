"""Hostile GraphDefs (ref/framework/importer.py): cycles raise ValueError naming
the nodes in the cycle instead of hanging; malformed nodes raise TensorFlow's
error class naming the node; deep chains import; splat constants stay compact.
Cycles and allocations run in a child process with a timeout and a memory limit."""
import numpy as np
import pytest

import ref as tf
from ref.protos import graph_pb2
from ref.types import errors
from ref.framework.tensor_util import constant_value
from tests.faults import REPORT, run_child

FLOAT, INT32 = 1, 3


def _graph_def(nodes):
    """nodes: (name, op, inputs, extra attrs)."""
    gd = graph_pb2.GraphDef()
    for name, op, inputs, *extra in nodes:
        n = gd.node.add(name=name, op=op)
        n.input.extend(inputs)
        if op in ("Identity", "AddV2", "AddN"):
            n.attr["T"].type = FLOAT
        if op == "Const":
            n.attr["dtype"].type = FLOAT
            n.attr["value"].tensor.dtype = FLOAT
            n.attr["value"].tensor.float_val.append(1.0)
        for k, v in (extra[0] if extra else {}).items():
            if isinstance(v, int):
                n.attr[k].i = v
            else:
                n.attr[k].func.name = v
    return gd


CYCLES = [
    ("two_nodes", [("a", "Identity", ["b"]), ("b", "Identity", ["a"])], {"a", "b"}),
    ("self_loop", [("c", "Const", []), ("a", "Identity", ["a"])], {"a"}),
    ("control_edge", [("c", "Const", []), ("a", "Identity", ["c", "^b"]), ("b", "Identity", ["c", "^a"])],
     {"a", "b"}),
    ("three_with_tail", [("c", "Const", []), ("x", "Identity", ["c"]), ("p", "Identity", ["r"]),
                         ("q", "Identity", ["p"]), ("r", "AddV2", ["q", "x"]), ("tail", "Identity", ["r"])],
     {"p", "q", "r"}),
]


@pytest.mark.parametrize("name,nodes,in_cycle", CYCLES, ids=[c[0] for c in CYCLES])
@pytest.mark.parametrize("via", ["import_graph_def", "import_meta_graph"])
def test_cycle_raises_value_error_naming_its_nodes(name, nodes, in_cycle, via):
    blob = _graph_def(nodes).SerializeToString()
    result = run_child(REPORT + """
import ref as tf
from ref.protos import graph_pb2, meta_graph_pb2
gd = graph_pb2.GraphDef.FromString(bytes.fromhex(sys.argv[1]))
def go():
    with tf.Graph().as_default():
        if sys.argv[2] == "import_graph_def":
            tf.import_graph_def(gd, name="")
        else:
            tf.train.import_meta_graph(meta_graph_pb2.MetaGraphDef(graph_def=gd))
print(json.dumps(outcome(go)))
""", blob.hex(), via, timeout=90, memory_mb=1024)
    assert result["error"] == "ValueError", result
    assert "nodes in a cycle" in result["message"]
    for node in in_cycle:
        assert f"'{node}'" in result["message"], result["message"]


def test_cycle_matches_tensorflow_error_class():
    tf1 = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.core.framework import graph_pb2 as tf_graph_pb2
    for _, nodes, _ in CYCLES:
        gd = tf_graph_pb2.GraphDef.FromString(_graph_def(nodes).SerializeToString())
        with tf1.Graph().as_default(), pytest.raises(ValueError, match="nodes in a cycle"):
            tf1.import_graph_def(gd, name="")


# (case, nodes, TF's error class, text the message must hold)
BAD_NODES = [
    ("unknown_op", [("a", "FooBar", [])], errors.NotFoundError, "FooBar"),
    ("empty_op", [("a", "", [])], ValueError, "'a'"),
    ("missing_input", [("a", "Identity", ["zz"])], ValueError, "zz"),
    ("bad_output_index", [("c", "Const", []), ("a", "Identity", ["c:3"])], ValueError, "'a'"),
    ("too_few_inputs", [("c", "Const", []), ("a", "AddV2", ["c"])], ValueError, "'a'"),
    ("too_many_inputs", [("c", "Const", []), ("a", "Identity", ["c", "c"])], ValueError, "'a'"),
    ("mismatched_N", [("c", "Const", []), ("a", "AddN", ["c", "c"], {"N": 3})], ValueError, "'a'"),
    ("duplicate_name", [("c", "Const", []), ("c", "Const", [])], ValueError, "'c'"),
]


@pytest.mark.parametrize("case,nodes,kind,text", BAD_NODES, ids=[b[0] for b in BAD_NODES])
def test_bad_node_error_kind(case, nodes, kind, text):
    g = tf.Graph()
    with g.as_default():
        tf.constant(0.0, name="before")
        n_ops = len(g.get_operations())
        with pytest.raises(kind) as info:
            tf.import_graph_def(_graph_def(nodes), name="")
        assert text in str(info.value)
        assert len(g.get_operations()) == n_ops  # validated before anything was added
    assert not isinstance(info.value, (LookupError, IndexError))


@pytest.mark.parametrize("case,nodes,kind,text", BAD_NODES, ids=[b[0] for b in BAD_NODES])
def test_bad_node_error_kind_matches_tensorflow(case, nodes, kind, text):
    tf_ = pytest.importorskip("tensorflow")
    from tensorflow.core.framework import graph_pb2 as tf_graph_pb2
    gd = tf_graph_pb2.GraphDef.FromString(_graph_def(nodes).SerializeToString())
    tf_kind = tf_.errors.NotFoundError if kind is errors.NotFoundError else kind
    with tf_.compat.v1.Graph().as_default(), pytest.raises(tf_kind):
        tf_.compat.v1.import_graph_def(gd, name="")


def test_missing_function_is_value_error_naming_it():
    gd = _graph_def([("c", "Const", []), ("w", "While", ["c"], {"cond": "no_such_cond", "body": "no_such_body"})])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="no_such_"):
        tf.import_graph_def(gd, name="")


def test_identity_chain_of_20000_imports_and_folds():
    result = run_child("""
import json
import ref as tf
from ref.protos import graph_pb2
from ref.framework.tensor_util import constant_value
gd = graph_pb2.GraphDef()
n = gd.node.add(name="c", op="Const")
n.attr["dtype"].type = 1
n.attr["value"].tensor.dtype = 1
n.attr["value"].tensor.float_val.append(3.5)
prev = "c"
for i in range(20000):
    m = gd.node.add(name=f"i{i}", op="Identity", input=[prev])
    m.attr["T"].type = 1
    prev = m.name
with tf.Graph().as_default():
    out, = tf.import_graph_def(gd, name="", return_elements=[prev + ":0"])
    print(json.dumps(float(constant_value(out))))
""", timeout=400, memory_mb=1536)
    assert result == 3.5


def test_constant_value_of_a_long_chain_built_op_by_op():
    with tf.Graph().as_default():
        t = tf.constant([1.0, 2.0])
        for _ in range(3000):
            t = tf.identity(t)
        np.testing.assert_array_equal(constant_value(t), [1.0, 2.0])


@pytest.mark.parametrize("log2_size", [28, 30])
def test_splat_const_is_compact_until_a_kernel_needs_it(log2_size):
    """One float_val over shape [2^n]: importing, exporting and slicing cost
    next to nothing (TF keeps it lazily too); the limit is far below 2^n floats."""
    result = run_child("""
import json, sys
import ref as tf
from ref.protos import graph_pb2
gd = graph_pb2.GraphDef()
n = gd.node.add(name="c", op="Const")
n.attr["dtype"].type = 1
t = n.attr["value"].tensor
t.dtype = 1
t.float_val.append(2.5)
t.tensor_shape.dim.add(size=2 ** int(sys.argv[1]))
with tf.Graph().as_default() as g:
    c, = tf.import_graph_def(gd, name="", return_elements=["c:0"])
    s = tf.slice(c, [7], [3])
    size = g.as_graph_def().ByteSize()
    with tf.Session() as sess:
        print(json.dumps({"slice": sess.run(s).tolist(), "graph_def_bytes": size,
                          "shape": c.shape.as_list()}))
""", log2_size, timeout=120, memory_mb=700)
    assert result["slice"] == [2.5, 2.5, 2.5]
    assert result["shape"] == [2 ** log2_size]
    assert result["graph_def_bytes"] < 10_000


@pytest.mark.parametrize("request_, message", [
    ("c:4", r"Invalid return output 4 of node 'c', which has 1 output\(s\)"),  # TF's wordings
    ("c:x", "Cannot convert 'c:x' to a tensor name"),
    ("nope:0", "Requested return tensor 'nope:0' not found in graph def"),
    ("nope", "Requested return node 'nope' not found in graph def")])
def test_bad_return_element_is_value_error_and_imports_nothing(request_, message):
    gd = _graph_def([("c", "Const", [])])
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match=message):
            tf.import_graph_def(gd, return_elements=[request_])
        assert g.get_operations() == []
