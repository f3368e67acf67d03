"""``tf.train.do_quantize_training_on_graphdef``: the rewritten GraphDef equals
TensorFlow's node for node, and it runs in ref as in TensorFlow (Switch/Merge
EMA variables, QuantizeAndDequantizeV2, Saver integration)."""
import os

import numpy as np
import pytest

import ref as rtf
from ref.formats.tensor_util import make_ndarray
from ref.training import quantize_training as _under_test  # noqa: F401  (the module these tests cover)


def _mlp():
    a = rtf.constant(6.0, shape=[1, 1], name="a")
    b = rtf.Variable(rtf.constant(7.0, shape=[1, 1]), name="b")
    rtf.matmul(a, b, name="matmul")
    x = rtf.placeholder(rtf.float32, [None, 3], name="x")
    w = rtf.Variable(np.array([[0.3, -1.2], [2.0, 0.7], [-0.4, 0.1]], np.float32), name="w")
    rtf.matmul(rtf.nn.relu(rtf.matmul(x, w)), rtf.sigmoid(rtf.ones([2, 2])), name="h")


def _cnn():
    x = rtf.placeholder(rtf.float32, [None, 4, 4, 1], name="x")
    k = rtf.Variable(np.linspace(-1, 1, 4, dtype=np.float32).reshape(2, 2, 1, 1), name="k")
    y = rtf.nn.relu(rtf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
    z = rtf.nn.conv2d(rtf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), rtf.ones([1, 1, 1, 2]),
                      [1, 1, 1, 1], "SAME")
    r = rtf.matmul(rtf.reshape(rtf.tanh(z), [-1, 2]), rtf.identity(rtf.nn.relu6(rtf.ones([2, 3]))), name="r")
    with rtf.control_dependencies([r]):
        rtf.matmul(r, rtf.ones([3, 1]), name="gradients_like")  # a name starting "gradients" is left alone


def _with_saver():
    _mlp()
    rtf.train.Saver()


def _two_inputs_same_source():
    x = rtf.placeholder(rtf.float32, [2, 2], name="x")
    rtf.matmul(x, x, name="square")


GRAPHS = {"mlp": _mlp, "cnn": _cnn, "with_saver": _with_saver, "same_source_twice": _two_inputs_same_source}


def _graph_def(build):
    with rtf.Graph().as_default() as g:
        build()
        rtf.global_variables_initializer()
        return g.as_graph_def()


def _to_tf(graph_def):
    from tensorflow.core.framework import graph_pb2

    out = graph_pb2.GraphDef()
    out.ParseFromString(graph_def.SerializeToString())
    return out


def _nodes(graph_def, source_names):
    """(name, op, inputs, device, attrs) per node; attrs of the input's own nodes
    are left out (TF adds their defaults on import) but for the rewritten SaveV2
    and the save op's name lists."""
    rows = []
    for n in graph_def.node:
        attrs = {}
        if n.name not in source_names or n.op == "SaveV2":
            for k, a in n.attr.items():
                attrs[k] = (("tensor", a.tensor.dtype, make_ndarray(a.tensor).tolist()) if a.HasField("tensor")
                            else a.SerializeToString())
        elif n.op == "Const":
            attrs["value"] = make_ndarray(n.attr["value"].tensor).tolist()
        rows.append((n.name, n.op, list(n.input), n.device, attrs))
    return rows


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("num_bits", [8, 3])
def test_rewrite_matches_tensorflow(graph, num_bits):
    tf = pytest.importorskip("tensorflow").compat.v1
    gd = _graph_def(GRAPHS[graph])
    names = {n.name for n in gd.node}
    want = tf.train.do_quantize_training_on_graphdef(_to_tf(gd), num_bits)
    got = rtf.train.do_quantize_training_on_graphdef(gd, num_bits)
    assert _nodes(got, names) == _nodes(want, names)
    assert len(got.node) > len(gd.node)


def _run_steps(lib, graph_def, fetches, variables, feeds):
    with lib.Graph().as_default() as g, lib.Session() as s:
        lib.import_graph_def(graph_def, name="")
        s.run(g.get_operation_by_name("init"))
        out = []
        for feed in feeds:
            out.append(s.run(fetches, feed))
            out.append(s.run(variables))  # the EMA variables after each step
        return out


RUNS = {
    "mlp": (["matmul:0", "h:0", "Relu/QuantizeAndDequantizeV2:0"],
            ["x/Min/Variable:0", "x/Max/Variable:0", "a/Min/Variable:0", "w/read/Max/Variable:0",
             "Relu/Max/Variable:0"],
            [{"x:0": [[1.0, 2.0, 3.0]]}, {"x:0": [[-1.0, 0.5, 4.0], [2.0, 2.0, -3.0]]},
             {"x:0": [[10.0, -5.0, 1.0]]}]),
    "cnn": (["r:0", "gradients_like:0"], ["x/Min/Variable:0", "x/Max/Variable:0", "MaxPool/Min/Variable:0"],
            [{"x:0": np.linspace(-3, 3, 32, dtype=np.float32).reshape(2, 4, 4, 1)},
             {"x:0": np.linspace(4, -1, 16, dtype=np.float32).reshape(1, 4, 4, 1)}]),
}


@pytest.mark.parametrize("graph", sorted(RUNS))
@pytest.mark.parametrize("num_bits", [8, 3])
def test_rewritten_graph_runs_as_in_tensorflow(graph, num_bits):
    tf = pytest.importorskip("tensorflow").compat.v1
    gd = _graph_def(GRAPHS[graph])
    fetches, variables, feeds = RUNS[graph]
    feeds = [{k: np.asarray(v, np.float32) for k, v in f.items()} for f in feeds]
    want = _run_steps(tf, tf.train.do_quantize_training_on_graphdef(_to_tf(gd), num_bits), fetches, variables, feeds)
    got = _run_steps(rtf, rtf.train.do_quantize_training_on_graphdef(gd, num_bits), fetches, variables, feeds)
    for w, g in zip(want, got):
        for wv, gv in zip(w, g):
            np.testing.assert_array_equal(gv, wv)


def test_ema_formula():
    """First run: v = min(input); then v <- v - (v - min(input)) * (1 - 0.999)."""
    gd = rtf.train.do_quantize_training_on_graphdef(_graph_def(_mlp), 8)
    with rtf.Graph().as_default() as g, rtf.Session() as s:
        rtf.import_graph_def(gd, name="")
        s.run(g.get_operation_by_name("init"))
        v = None
        for x in ([[1.0, 2.0, 3.0]], [[-4.0, 0.0, 1.0]], [[0.5, 0.5, 0.5]]):
            s.run("h:0", {"x:0": np.float32(x)})
            m = np.float32(np.min(x))
            v = m if v is None else np.float32(v - (v - m) * np.float32(1 - np.float32(0.999)))
            np.testing.assert_allclose(s.run("x/Min/Variable:0"), v, rtol=1e-6)


def test_saved_and_restored_with_the_saver(tmp_path):
    """TF's quantize_training_test.testQuantizedSaveRestore."""
    save_path = os.path.join(str(tmp_path), "quantized_save_restore")
    with rtf.Graph().as_default() as g, rtf.Session(graph=g) as sess:
        a = rtf.constant(6.0, shape=[1, 1], name="a")
        b = rtf.Variable(rtf.constant(7.0, shape=[1, 1]), name="b")
        c = rtf.matmul(a, b, name="matmul")
        init_op = rtf.global_variables_initializer()
        saver = rtf.train.Saver({"b": b})
        result = rtf.train.do_quantize_training_on_graphdef(sess.graph_def, 8)
    with rtf.Graph().as_default() as g, rtf.Session(graph=g) as sess:
        rtf.import_graph_def(result, name="")
        sess.run(g.get_operation_by_name(init_op.name))
        assert sess.run(g.get_tensor_by_name(c.name)) == 42.0
        saver.save(sess, save_path)
    with rtf.Graph().as_default() as g, rtf.Session(graph=g) as sess:
        rtf.import_graph_def(result, name="")
        saver.restore(sess, save_path)
        for name, want in (("b:0", 7.0), ("a/Min/Variable:0", 6.0), ("a/Max/Variable:0", 6.0),
                           ("b/read/Min/Variable:0", 7.0), ("b/read/Max/Variable:0", 7.0)):
            assert sess.run(g.get_tensor_by_name(name)) == want


def _unknown_inputs():
    x = rtf.placeholder(rtf.float32, [1, 1], name="x")
    rtf.matmul(x, x, name="m1")
    rtf.matmul(rtf.sin(x), x, name="m2")


def _two_savers():
    _mlp()
    rtf.train.Saver()
    rtf.train.Saver()


ERRORS = {  # (graph, num_bits, TF's Python error, message)
    "num_bits_0": (_mlp, 0, IndexError, "num_bits should be in range"),
    "num_bits_64": (_mlp, 64, IndexError, "num_bits should be in range"),
    "three_unknown_inputs": (_unknown_inputs, 8, NotImplementedError, "Found an unknown op: Sin with type: Sin"),
    "two_savers": (_two_savers, 8, ValueError, "multiple SaveV2"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_tensorflow(case):
    tf = pytest.importorskip("tensorflow").compat.v1
    build, bits, err, match = ERRORS[case]
    gd = _graph_def(build)
    with pytest.raises(err, match=match):
        tf.train.do_quantize_training_on_graphdef(_to_tf(gd), bits)
    with pytest.raises(err, match=match):
        rtf.train.do_quantize_training_on_graphdef(gd, bits)


def test_accepts_a_tensorflow_graph_def():
    tf = pytest.importorskip("tensorflow").compat.v1
    gd = _to_tf(_graph_def(_mlp))
    names = {n.name for n in gd.node}
    assert _nodes(rtf.train.do_quantize_training_on_graphdef(gd, 8), names) == \
        _nodes(tf.train.do_quantize_training_on_graphdef(gd, 8), names)


def test_tensorflows_rewritten_graph_runs_in_ref():
    tf = pytest.importorskip("tensorflow").compat.v1
    from ref.protos import graph_pb2

    gd = _graph_def(_with_saver)
    theirs = tf.train.do_quantize_training_on_graphdef(_to_tf(gd), 8)
    as_ref = graph_pb2.GraphDef()
    as_ref.ParseFromString(theirs.SerializeToString())
    fetches, variables, feeds = RUNS["mlp"]
    feeds = [{k: np.asarray(v, np.float32) for k, v in f.items()} for f in feeds]
    want = _run_steps(tf, theirs, fetches, variables, feeds)
    got = _run_steps(rtf, as_ref, fetches, variables, feeds)
    for w, g in zip(want, got):
        for wv, gv in zip(w, g):
            np.testing.assert_array_equal(gv, wv)
