"""``cond``/``while_loop`` in TensorFlow's functional encoding
(ref/framework/graph_export.py, importer.py): ref's GraphDefs and MetaGraphDefs import into
TensorFlow and compute what ref computes; TF's ``cond_v2``/``while_v2``
graphs (If/StatelessIf/While/StatelessWhile over FunctionDefs) import into ref
and compute what TF computes. TensorFlow is the oracle."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ref
from ref.framework import graph_export
from ref.ops import registry

tf = pytest.importorskip("tensorflow").compat.v1


@pytest.fixture
def v2_loops():
    """``tf.enable_control_flow_v2()`` for one test (a differentiable while_loop
    builds the functional ``While``), the previous mode restored after."""
    was = ref.control_flow_v2_enabled()
    ref.enable_control_flow_v2()
    yield
    if not was:
        ref.disable_control_flow_v2()


def _cond_captures():
    x = ref.placeholder(ref.float32, [3], name="x")
    a, b = ref.constant([1.0, 2.0, 3.0]), ref.constant(4.0)
    y = ref.cond(ref.reduce_sum(x) > 0, lambda: x * a + b, lambda: x - b)
    return {"x": x}, [y]


def _nested_cond():
    x = ref.placeholder(ref.float32, [], name="x")
    y = ref.cond(x > 0, lambda: ref.cond(x > 2.0, lambda: x * 10.0, lambda: x + 100.0), lambda: -x)
    return {"x": x}, [y]


def _cond_in_while():
    x = ref.placeholder(ref.float32, [], name="x")
    _, y = ref.while_loop(lambda i, y: i < 5,
                          lambda i, y: (i + 1, ref.cond(y > 10.0, lambda: y - x, lambda: y * 2.0 + x)),
                          [ref.constant(0), x])
    return {"x": x}, [y]


def _while_captures():
    x = ref.placeholder(ref.float32, [2], name="x")
    n = ref.constant(6)
    w = ref.constant([0.5, 1.5])
    i, y = ref.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, ref.sin(y) * w + x), [ref.constant(0), x])
    return {"x": x}, [i, y]


def _maximum_iterations():
    x = ref.placeholder(ref.float32, [], name="x")
    i, y = ref.while_loop(lambda i, y: y < 1000.0, lambda i, y: (i + 1, y * 2.0), (ref.constant(0), x),
                          maximum_iterations=4)
    return {"x": x}, [i, y]


def _while_no_back_prop():
    x = ref.placeholder(ref.float32, [None], name="x")
    i, y = ref.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, ref.concat([y, y], 0)), [ref.constant(0), x],
                          shape_invariants=[ref.TensorShape([]), ref.TensorShape([None])], back_prop=False)
    return {"x": x}, [i, y]


def _cond_reads_variable():
    x = ref.placeholder(ref.float32, [], name="x")
    v = ref.Variable(3.0, name="v")
    y = ref.cond(x > 0, lambda: v * x, lambda: v + x)
    return {"x": x}, [y]


def _while_gradient():
    x = ref.placeholder(ref.float32, [3], name="x")
    _, y = ref.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, ref.sin(y) * 0.5 + x), [ref.constant(0), x])
    (g,) = ref.gradients(ref.reduce_sum(y * y), [x])
    return {"x": x}, [y, g]


def _cond_gradient():
    x = ref.placeholder(ref.float32, [], name="x")
    y = ref.cond(x > 1.0, lambda: x * x * x, lambda: ref.sin(x))
    (g,) = ref.gradients(y, [x])
    return {"x": x}, [y, g]


def _list_outputs_in_while():
    """Ops with list outputs in a loop body: FunctionDef inputs name TF's output args."""
    x = ref.placeholder(ref.float32, [4], name="x")

    def body(i, y):
        sp = ref.SparseTensor([[0, 0], [1, 2], [2, 1]], y[:3], [3, 4])
        parts = ref.sparse.split(sp_input=sp, num_split=2, axis=1)
        s = ref.dynamic_stitch([ref.constant([0, 2]), ref.constant([1, 3])], [y[:2], y[2:]])
        return i + 1, s * 0.5 + ref.reduce_sum(parts[1].values) + ref.cast(parts[0].dense_shape[1], ref.float32)

    _, y = ref.while_loop(lambda i, y: i < 3, body, [ref.constant(0), x])
    return {"x": x}, [y]


def _shared_capture():
    x = ref.placeholder(ref.float32, [], name="x")
    n = ref.constant(5.0)
    _, y = ref.while_loop(lambda i, y: y < n * 10.0, lambda i, y: (i + 1, y * 2.0 + n), [ref.constant(0), x])
    z = ref.cond(x > 0, lambda: x * n, lambda: x - n)
    return {"x": x}, [y, z]


def _control_dependency_on_loop_var():
    x = ref.placeholder(ref.float32, [], name="x")

    def body(i, y):
        with ref.control_dependencies([i, y]):
            return i + 1, ref.identity(y) * 2.0 + x

    _, y = ref.while_loop(lambda i, y: i < 3, body, [ref.constant(0), x])
    return {"x": x}, [y]


CASES = [  # (name, builder, feeds)
    ("control_dependency_on_loop_var", _control_dependency_on_loop_var, [{"x": 1.5}]),
    ("shared_capture", _shared_capture, [{"x": 1.0}, {"x": -3.0}]),
    ("list_outputs_in_while", _list_outputs_in_while, [{"x": [1.0, 2.0, 3.0, 4.0]}]),
    ("cond_captures", _cond_captures, [{"x": [1.0, 2.0, 3.0]}, {"x": [-1.0, -2.0, 0.5]}]),
    ("nested_cond", _nested_cond, [{"x": 3.0}, {"x": 1.0}, {"x": -2.0}]),
    ("cond_in_while", _cond_in_while, [{"x": 1.0}, {"x": 7.0}]),
    ("while_captures", _while_captures, [{"x": [0.1, -0.2]}]),
    ("maximum_iterations", _maximum_iterations, [{"x": 1.0}, {"x": 300.0}, {"x": 5000.0}]),
    ("while_no_back_prop", _while_no_back_prop, [{"x": [1.0, 2.0]}]),
    ("cond_reads_variable", _cond_reads_variable, [{"x": 2.0}, {"x": -2.0}]),
    ("while_gradient", _while_gradient, [{"x": [0.3, -0.7, 1.1]}]),
    ("cond_gradient", _cond_gradient, [{"x": 2.0}, {"x": 0.5}]),
]


def _build(builder):
    g = ref.Graph()
    with g.as_default():
        phs, outs = builder()
        init = ref.global_variables_initializer()
    return g, phs, outs, init


def _run_ref(g, phs, outs, init, feeds):
    with g.as_default(), ref.Session() as s:
        s.run(init)
        return [s.run(outs, {phs[k]: v for k, v in f.items()}) for f in feeds]


def _run_tf(graph_def_bytes, phs, outs, init, feeds):
    gd = tf.GraphDef.FromString(graph_def_bytes)
    with tf.Graph().as_default(), tf.Session() as s:
        tf.import_graph_def(gd, name="")
        s.run(init.name)
        return [s.run([t.name for t in outs], {phs[k].name: v for k, v in f.items()}) for f in feeds]


@pytest.mark.parametrize("name,builder,feeds", CASES, ids=[c[0] for c in CASES])
def test_ref_graph_runs_in_tensorflow(name, builder, feeds):
    g, phs, outs, init = _build(builder)
    gd = g.as_graph_def()
    for n in gd.node:
        if n.op in ("If", "While"):
            assert not {"n_then_inputs", "n_loop_vars", "n_cond_captures", "accumulate", "output_specs"} & set(n.attr)
    expected = _run_ref(g, phs, outs, init, feeds)
    got = _run_tf(gd.SerializeToString(), phs, outs, init, feeds)
    for e, r in zip(expected, got):
        for a, b in zip(e, r):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,builder,feeds", CASES, ids=[c[0] for c in CASES])
def test_ref_graph_round_trips_through_its_own_import(name, builder, feeds):
    g, phs, outs, init = _build(builder)
    expected = _run_ref(g, phs, outs, init, feeds)
    gd = g.as_graph_def()
    g2 = ref.Graph()
    with g2.as_default():
        ref.import_graph_def(gd, name="")
        outs2 = [g2.get_tensor_by_name(t.name) for t in outs]
        phs2 = {k: g2.get_tensor_by_name(v.name) for k, v in phs.items()}
        init2 = g2.get_operation_by_name(init.name)
    got = _run_ref(g2, phs2, outs2, init2, feeds)
    for e, r in zip(expected, got):
        for a, b in zip(e, r):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


def test_meta_graph_imports_into_tensorflow(tmp_path):
    path = str(tmp_path / "m.meta")
    g, phs, outs, init = _build(_while_captures)
    with g.as_default():
        ref.add_to_collection("outs", outs[1])
        ref.train.export_meta_graph(path)
    (expected,) = _run_ref(g, phs, outs, init, [{"x": [0.1, -0.2]}])
    with tf.Graph().as_default() as tg, tf.Session() as s:
        tf.train.import_meta_graph(path)
        (y,) = tg.get_collection("outs")
        got = s.run(y, {"x:0": [0.1, -0.2]})
    np.testing.assert_allclose(got, expected[1], rtol=1e-6)


# -- TF's functional graphs into ref -------------------------------------------

def _tf_cond(tf2, x):
    from tensorflow.python.ops import cond_v2
    c = tf.constant([2.0, 3.0])
    return [cond_v2.cond_v2(tf.reduce_sum(x) > 0, lambda: x * c, lambda: x - 1.0)]


def _tf_nested_cond(tf2, x):
    from tensorflow.python.ops import cond_v2
    return [cond_v2.cond_v2(x[0] > 0, lambda: cond_v2.cond_v2(x[1] > 0, lambda: x * 3.0, lambda: x + 3.0),
                            lambda: -x)]


def _tf_while(tf2, x):
    from tensorflow.python.ops import while_v2
    w = tf.constant([0.5, 2.0])
    return list(while_v2.while_loop(lambda i, y: i < 5, lambda i, y: (i + 1, tf.sin(y) * w + x),
                                    [tf.constant(0), x]))


def _tf_while_max_iter(tf2, x):
    from tensorflow.python.ops import while_v2
    return list(while_v2.while_loop(lambda i, y: tf.reduce_sum(y) < 1e6, lambda i, y: (i + 1, y * 2.0),
                                    [tf.constant(0), x], maximum_iterations=3))


def _tf_while_gradient(tf2, x):
    from tensorflow.python.ops import while_v2
    _, y = while_v2.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * 0.5 + x),
                               [tf.constant(0), x])
    return [y, tf.gradients(tf.reduce_sum(y * y), [x])[0]]


def _tf_cond_gradient(tf2, x):
    from tensorflow.python.ops import cond_v2
    y = cond_v2.cond_v2(x[0] > 0, lambda: x * x, lambda: tf.sin(x))
    return [y, tf.gradients(tf.reduce_sum(y), [x])[0]]


TF_CASES = [
    ("cond", _tf_cond, [[1.0, 2.0], [-1.0, -2.0]]),
    ("nested_cond", _tf_nested_cond, [[1.0, 2.0], [1.0, -2.0], [-1.0, 2.0]]),
    ("while", _tf_while, [[0.1, 0.2]]),
    ("while_max_iter", _tf_while_max_iter, [[1.0, 2.0]]),
    ("while_gradient", _tf_while_gradient, [[0.3, -0.4]]),
    ("cond_gradient", _tf_cond_gradient, [[0.3, -0.4], [-0.3, 0.4]]),
]


@pytest.mark.parametrize("name,builder,feeds", TF_CASES, ids=[c[0] for c in TF_CASES])
def test_tensorflow_functional_graph_runs_in_ref(name, builder, feeds):
    with tf.Graph().as_default() as tg, tf.Session() as s:
        x = tf.placeholder(tf.float32, [2], name="x")
        outs = builder(None, x)
        expected = [s.run(outs, {x: f}) for f in feeds]
        gd = tg.as_graph_def()
    assert {"If", "StatelessIf", "While", "StatelessWhile"} & {n.op for n in gd.node}
    g = ref.Graph()
    with g.as_default():
        ref.import_graph_def(ref.GraphDef.FromString(gd.SerializeToString()), name="")
        with ref.Session() as rs:
            got = [rs.run([t.name for t in outs], {"x:0": f}) for f in feeds]
    for e, r in zip(expected, got):
        for a, b in zip(e, r):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("builder", [_while_captures, _maximum_iterations, _while_gradient])
def test_export_import_export_keeps_the_loop_size(builder, v2_loops):
    """Re-exporting an imported While adds no loop variables (its TensorList
    accumulators are loop variables already; a new one only for a history read)."""
    g, phs, outs, init = _build(builder)
    gd = g.as_graph_def()
    g2 = ref.Graph()
    with g2.as_default():
        ref.import_graph_def(gd, name="")
    gd2 = g2.as_graph_def()
    sizes = [{n.name: len(n.attr["T"].list.type) for n in d.node if n.op == "While"} for d in (gd, gd2)]
    assert sizes[0] == sizes[1] and sizes[0]


def _train_model():
    x = ref.placeholder(ref.float32, [2], name="x")
    v = ref.get_variable("v", initializer=ref.constant([0.5, -0.3]), use_resource=True)
    w = ref.Variable([1.0, 2.0], name="w")
    _, y = ref.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, ref.tanh(y * v) + w), [ref.constant(0), x])
    z = ref.cond(ref.reduce_sum(y) > 0, lambda: y * v, lambda: y + w)
    loss = ref.reduce_sum(z * z)
    train = ref.train.GradientDescentOptimizer(0.05).minimize(loss)
    return x, w, loss, train, ref.global_variables_initializer()


def test_training_through_while_and_cond_runs_in_tensorflow():
    """Gradients through while_loop (TensorList histories) and cond (If over the
    branch gradients), applied to a resource and a ref variable: TF trains the same."""
    feed = [0.2, 0.4]
    g = ref.Graph()
    with g.as_default():
        x, w, loss, train, init = _train_model()
        with ref.Session() as s:
            s.run(init)
            for _ in range(3):
                s.run(train, {x: feed})
            expected = s.run([w, loss], {x: feed})
    with tf.Graph().as_default(), tf.Session() as s:
        tf.import_graph_def(tf.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
        s.run(init.name)
        for _ in range(3):
            s.run(train.name, {"x:0": feed})
        got = s.run([w.name, loss.name], {"x:0": feed})
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_tensorflow_cond_reading_a_resource_variable_runs_in_ref():
    from tensorflow.python.ops import cond_v2, while_v2
    with tf.Graph().as_default() as tg, tf.Session() as s:
        x = tf.placeholder(tf.float32, [2], name="x")
        v = tf.get_variable("v", initializer=tf.constant([0.5, -0.3]), use_resource=True)
        y = cond_v2.cond_v2(x[0] > 0, lambda: x * v, lambda: x + v.read_value())
        _, z = while_v2.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * v), [tf.constant(0), y])
        init = tf.global_variables_initializer()
        s.run(init)
        feeds = [[1.0, 2.0], [-1.0, 2.0]]
        expected = [s.run(z, {x: f}) for f in feeds]
        gd = tg.as_graph_def()
    g = ref.Graph()
    with g.as_default():
        ref.import_graph_def(ref.GraphDef.FromString(gd.SerializeToString()), name="")
        with ref.Session() as rs:
            rs.run(init.name)
            got = [rs.run(z.name, {"x:0": f}) for f in feeds]
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_output_arg_names_are_tensorflows():
    """FunctionDef inputs name an op's output args: ref's declarations (or, for
    ops declared with one list output, graph_export's table) use TF's names."""
    from tensorflow.python.framework import op_def_registry
    checked = 0
    for name, od in sorted(registry.registered().items()):
        tf_def = op_def_registry.get(name)
        if tf_def is None:
            continue
        tf_names = [a.name for a in tf_def.output_arg]
        if name in graph_export._TF_OUTPUT_GROUPS:
            attrs = {a.name: (a.default_value.i if a.default_value.WhichOneof("value") == "i" else [])
                     for a in tf_def.attr}
            attrs.update({"num_split": 1, "num_sparse": 0})
            ours = [n for n, _ in graph_export._TF_OUTPUT_GROUPS[name](attrs)]
        else:
            ours = [o.lstrip("*") for o in od.outputs]
        assert ours == tf_names, name
        checked += 1
    assert checked > 300


def test_ref_earlier_encoding_still_imports():
    """A GraphDef ref wrote before the functional form (placeholder nodes for
    function arguments; While/If with n_loop_vars/n_then_inputs): a cond, a
    while_loop with maximum_iterations holding a cond, and their gradient.
    TF builds the same model as the oracle."""
    path = os.path.join(os.path.dirname(__file__), "data", "legacy_functional.pb")
    with open(path, "rb") as f:
        gd = ref.GraphDef.FromString(f.read())
    assert any(n.op == "While" and "n_loop_vars" in n.attr for n in gd.node)
    feeds = [[1.0, 2.0], [-1.0, 0.5]]
    g = ref.Graph()
    with g.as_default():
        ref.import_graph_def(gd, name="")
        with ref.Session() as s:
            got = [s.run(["z:0", "gz:0"], {"x:0": f}) for f in feeds]
    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.placeholder(tf.float32, [2])
        c = tf.constant([0.5, 2.0])
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * c, lambda: x - c)
        _, z = tf.while_loop(lambda i, z: i < 3,
                             lambda i, z: (i + 1, tf.cond(z[0] > 1.0, lambda: z * 0.5, lambda: z + c)),
                             [tf.constant(0), y], maximum_iterations=5)
        (gz,) = tf.gradients(tf.reduce_sum(z * z), [x])
        expected = [s.run([z, gz], {x: f}) for f in feeds]
    for e, r in zip(expected, got):
        for a, b in zip(e, r):
            np.testing.assert_allclose(b, a, rtol=1e-6)


def test_tensorflow_differentiates_ref_cond():
    """tf.gradients through an imported ref If (its inputs each once, as cond_v2's)."""
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [], name="x")
        c = ref.constant(3.0)
        ref.identity(ref.cond(x > 0, lambda: x * x * c, lambda: ref.sin(x) + c), name="y")
    with tf.Graph().as_default() as tg, tf.Session() as s:
        tf.import_graph_def(tf.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
        tx, ty = tg.get_tensor_by_name("x:0"), tg.get_tensor_by_name("y:0")
        (gx,) = tf.gradients(ty, [tx])
        got = [s.run(gx, {tx: v}) for v in (2.0, -1.0)]
    np.testing.assert_allclose(got, [2 * 2.0 * 3.0, np.cos(-1.0)], rtol=1e-6)


_TF_V2_SCRIPT = r"""
import sys
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.enable_control_flow_v2()
x = tf1.placeholder(tf.float32, [2], name="x")
v = tf1.get_variable("v", initializer=tf.constant([0.5, 1.5]), use_resource=True)
y = tf1.cond(tf.reduce_sum(x) > 0, lambda: x * v, lambda: x - v)
_, z = tf1.while_loop(lambda i, z: i < 4, lambda i, z: (i + 1, tf.tanh(z) * v + x), [tf.constant(0), y],
                      maximum_iterations=3)
(g,) = tf1.gradients(tf.reduce_sum(z * z), [x])
tf1.add_to_collection("outs", z)
tf1.add_to_collection("outs", g)
ops = {n.op for n in tf1.get_default_graph().as_graph_def().node}
assert ops & {"If", "StatelessIf"} and ops & {"While", "StatelessWhile"}, ops
with tf1.Session() as s:
    s.run(tf1.global_variables_initializer())
    np.save(sys.argv[2], np.stack([np.stack(s.run([z, g], {x: f})) for f in ([1.0, 2.0], [-1.0, 0.5])]))
    tf1.train.Saver().save(s, sys.argv[1])
"""


def test_tensorflow_control_flow_v2_meta_graph_runs_in_ref(tmp_path):
    """TF's tf.cond/tf.while_loop under enable_control_flow_v2 (a child process:
    the switch is global), with gradients and a resource variable, saved with a
    Saver: ref's import_meta_graph and restore compute TF's values."""
    prefix, expected_path = str(tmp_path / "model"), str(tmp_path / "expected.npy")
    subprocess.run([sys.executable, "-c", _TF_V2_SCRIPT, prefix, expected_path], check=True, timeout=300,
                   capture_output=True)
    expected = np.load(expected_path)
    with ref.Graph().as_default() as g, ref.Session() as s:
        saver = ref.train.import_meta_graph(prefix + ".meta")
        saver.restore(s, prefix)
        z, gz = g.get_collection("outs")
        got = np.stack([np.stack(s.run([z, gz], {"x:0": f})) for f in ([1.0, 2.0], [-1.0, 0.5])])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,builder,feeds", TF_CASES, ids=[c[0] for c in TF_CASES])
def test_tensorflow_graph_through_ref_back_to_tensorflow(name, builder, feeds):
    """TF -> ref import -> ref export -> TF: the same outputs (ref's If with its
    input list doubled goes back with each input once)."""
    with tf.Graph().as_default() as tg, tf.Session() as s:
        x = tf.placeholder(tf.float32, [2], name="x")
        outs = builder(None, x)
        expected = [s.run(outs, {x: f}) for f in feeds]
        gd = tg.as_graph_def()
    g = ref.Graph()
    with g.as_default():
        ref.import_graph_def(ref.GraphDef.FromString(gd.SerializeToString()), name="")
    again = g.as_graph_def()
    for n in again.node:
        if n.op == "If":
            assert len(n.input) == 1 + len(set(n.input[1:]))
    with tf.Graph().as_default(), tf.Session() as s:
        tf.import_graph_def(tf.GraphDef.FromString(again.SerializeToString()), name="")
        got = [s.run([t.name for t in outs], {"x:0": f}) for f in feeds]
    for e, r in zip(expected, got):
        for a, b in zip(e, r):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


# back_prop=False builds TF 1.x's dataflow loop (no While, no gradient, as in TF 1.x): tests/graph_ops/test_while_v1.py
@pytest.mark.parametrize("back_prop,maximum_iterations", [(True, None), (True, 4)])
def test_tensorflow_differentiates_ref_while(back_prop, maximum_iterations, v2_loops):
    """tf.gradients through an imported ref While: while_v2's layout (loop
    counter and bound first, captures as loop variables) lets TF's While
    gradient rewrite and differentiate it; ``while:k`` still names ref's
    output k (an IdentityN). (Each case names its loop apart: TF keeps the
    functions its gradient rewrites in one table per process.)"""
    name = f"loop_{int(back_prop)}_{maximum_iterations}"
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [2], name="x")
        c = ref.constant([0.5, -1.0])
        _, w = ref.while_loop(lambda i, w: i < 3, lambda i, w: (i + 1, ref.sin(w) * x + c), [ref.constant(0), x],
                              back_prop=back_prop, maximum_iterations=maximum_iterations, name=name)
        ref.identity(w, name="w")
        (gx,) = ref.gradients(ref.reduce_sum(w * w), [x])
        with ref.Session() as s:
            expected = s.run([w, gx], {x: [0.3, 0.8]})
    assert w.name == name + ":1"
    with tf.Graph().as_default() as tg:
        tf.import_graph_def(tf.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
        tx, tw = tg.get_tensor_by_name("x:0"), tg.get_tensor_by_name(name + ":1")
        (tgx,) = tf.gradients(tf.reduce_sum(tw * tw), [tx])
        with tf.Session() as s:
            got = s.run([tw, tgx], {tx: [0.3, 0.8]})
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5)
