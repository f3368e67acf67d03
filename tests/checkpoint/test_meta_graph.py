"""Meta graphs (ref/checkpoint/meta_graph.py): export/import round trips with
collections, scopes and devices; write_graph; and TensorFlow importing a meta
graph exported by ref and restoring ref's checkpoint (TF is the oracle)."""

import numpy as np
import pytest

import ref as tf
from ref.checkpoint.meta_graph import export_meta_graph, read_meta_graph_file, write_graph
from ref.checkpoint.saver import import_meta_graph
from ref.checkpoint.saver import Saver
from ref.framework.importer import import_graph_def
from ref.protos import graph_pb2, meta_graph_pb2

X = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32)
Y = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)


def _apply(op_type, **kw):
    from ref.framework.op_def_library import apply_op
    return apply_op(op_type, **kw)


def _build():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
    b = tf.Variable(np.array([0.1, -0.2], np.float32), name="b")
    step = tf.Variable(0, dtype=tf.int64, name="step", trainable=False)
    logits = tf.add(tf.matmul(x, w), b, name="logits")
    xent = _apply("SoftmaxCrossEntropyWithLogits", features=logits, labels=y, name="xent")[0]
    loss = tf.reduce_mean(xent, name="loss")
    return x, y, w, b, step, loss


COLLECTIONS = [
    # (key, items from the model, how to compare after import)
    ("my_nodes", lambda m: [m["loss"], m["loss"].op], lambda got: [getattr(t, "name") for t in got]),
    ("my_strings", lambda m: ["a", "b/c"], lambda got: [g.decode() if isinstance(g, bytes) else g for g in got]),
    ("my_ints", lambda m: [3, -4], list),
    ("my_floats", lambda m: [0.5, 2.25], list),
]


@pytest.mark.parametrize("as_text", [False, True], ids=["binary", "text"])
def test_round_trip_restores_graph_collections_and_saver(tmp_path, as_text):
    path = str(tmp_path / ("m.pbtxt" if as_text else "m.meta"))
    with tf.Graph().as_default():
        x, y, w, b, step, loss = _build()
        m = {"loss": loss}
        for key, items, _ in COLLECTIONS:
            for it in items(m):
                tf.add_to_collection(key, it)
        tf.add_to_collection("train_op", loss.op)
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(w * 2.0))
            want = sess.run(loss, {x: X, y: Y})
            ckpt = saver.save(sess, str(tmp_path / "ckpt"), write_meta_graph=False)
        mgd = saver.export_meta_graph(path, as_text=as_text)
        expected = {key: conv(items(m)) for key, items, conv in COLLECTIONS}
    assert read_meta_graph_file(path) == mgd
    with tf.Graph().as_default() as g:
        restored = import_meta_graph(path)
        assert [v.name for v in tf.trainable_variables()] == ["w:0", "b:0"]
        assert [v.name for v in tf.global_variables()] == ["w:0", "b:0", "step:0"]
        for key, _, conv in COLLECTIONS:
            assert conv(g.get_collection(key)) == expected[key]
        assert g.get_collection("train_op") == [g.get_operation_by_name("loss")]
        with tf.Session() as sess:
            restored.restore(sess, ckpt)
            assert sess.run("loss:0", {"x:0": X, "y:0": Y}) == want


def test_import_scope_and_clear_devices(tmp_path):
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            _build()
        saver = Saver()
        mgd = saver.export_meta_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ckpt = saver.save(sess, str(tmp_path / "c"), write_meta_graph=False)
            want = sess.run(tf.get_default_graph().get_tensor_by_name("w:0"))
    assert any(n.device for n in mgd.graph_def.node)
    with tf.Graph().as_default() as g:
        s = import_meta_graph(mgd, clear_devices=True, import_scope="imp")
        assert all(op.device == "" for op in g.get_operations())
        assert [v.name for v in tf.global_variables()] == ["imp/w:0", "imp/b:0", "imp/step:0"]
        assert s.as_saver_def().restore_op_name == "imp/save/restore_all"
        with tf.Session() as sess:
            s.restore(sess, ckpt)
            np.testing.assert_array_equal(sess.run("imp/w:0"), want)


def test_export_scope_strips_the_scope():
    with tf.Graph().as_default():
        with tf.name_scope("outer"):
            a = tf.constant(1.0, name="a")
            tf.add(a, 2.0, name="b")
        tf.constant(0.0, name="other")
        mgd = export_meta_graph(export_scope="outer")
    assert [(n.name, list(n.input)) for n in mgd.graph_def.node] == [("a", []), ("b/y", []), ("b", ["a", "b/y"])]


def test_strip_default_attrs_and_extraneous_savers():
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        s1 = Saver()
        Saver()
        full = s1.export_meta_graph()
        stripped = s1.export_meta_graph(strip_default_attrs=True, clear_extraneous_savers=True)
    assert stripped.meta_info_def.stripped_default_attrs
    names = {n.name for n in stripped.graph_def.node}
    assert "save/SaveV2" in names and not any(n.startswith("save_1/") for n in names)
    assert any(n.startswith("save_1/") for n in (x.name for x in full.graph_def.node))
    full_assign = next(n for n in full.graph_def.node if n.op == "Assign")
    stripped_assign = next(n for n in stripped.graph_def.node if n.op == "Assign")
    assert "use_locking" in full_assign.attr and "use_locking" not in stripped_assign.attr


@pytest.mark.parametrize("as_text", [True, False], ids=["text", "binary"])
def test_write_graph(tmp_path, as_text):
    with tf.Graph().as_default() as g:
        tf.add(tf.constant(1.0, name="a"), 2.0, name="b")
    path = write_graph(g, str(tmp_path / "sub"), "g.pb", as_text=as_text)
    assert path == str(tmp_path / "sub" / "g.pb")
    gd = graph_pb2.GraphDef()
    data = open(path, "rb").read()
    if as_text:
        from google.protobuf import text_format
        text_format.Merge(data.decode(), gd)
    else:
        gd.ParseFromString(data)
    assert gd == g.as_graph_def()
    with tf.Graph().as_default() as g2:
        import_graph_def(gd, name="")
        with tf.Session() as sess:
            assert sess.run("b:0") == 3.0


def test_import_meta_graph_without_saver_def():
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        mgd = export_meta_graph()
        mgd_plain = meta_graph_pb2.MetaGraphDef()
        mgd_plain.CopyFrom(mgd)
    assert not mgd.HasField("saver_def")
    with tf.Graph().as_default():
        assert isinstance(import_meta_graph(mgd), Saver)
    with tf.Graph().as_default():
        tf.constant(1.0)
        empty = export_meta_graph()
    with tf.Graph().as_default():
        assert import_meta_graph(empty) is None


# -- TensorFlow imports ref's meta graph ---------------------------------------------------------

def test_tensorflow_imports_ref_meta_graph_and_restores_ref_checkpoint(tmp_path):
    tf_ = pytest.importorskip("tensorflow")
    v1 = tf_.compat.v1
    with tf.Graph().as_default():
        x, y, w, b, step, loss = _build()
        tf.add_to_collection("train_op", loss.op)
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([w.assign(w * 3.0), step.assign(5)])
            want_loss, want_w = sess.run([loss, w], {x: X, y: Y})
            ckpt = saver.save(sess, str(tmp_path / "model"), global_step=1)
    with tf_.Graph().as_default():
        tf_saver = v1.train.import_meta_graph(ckpt + ".meta")
        assert [v.name for v in v1.trainable_variables()] == ["w:0", "b:0"]
        assert [v.name for v in v1.global_variables()] == ["w:0", "b:0", "step:0"]
        with v1.Session() as sess:
            tf_saver.restore(sess, ckpt)
            got_loss, got_w, got_step = sess.run(["loss:0", "w:0", "step:0"], {"x:0": X, "y:0": Y})
            train_op = v1.get_collection("train_op")[0]
            assert train_op.name == "loss"
    np.testing.assert_array_equal(got_w, want_w)
    assert got_step == 5
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-6)


def test_ref_imports_tensorflow_meta_graph(tmp_path):
    tf_ = pytest.importorskip("tensorflow")
    v1 = tf_.compat.v1
    with tf_.Graph().as_default():
        v = v1.Variable(np.array([1.5, 2.5], np.float32), name="v", use_resource=False)
        v1.add(v, 1.0, name="out")
        s = v1.train.Saver()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            ckpt = s.save(sess, str(tmp_path / "tfm"))
    with tf.Graph().as_default():
        saver = import_meta_graph(ckpt + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, ckpt)
            np.testing.assert_array_equal(sess.run("out:0"), np.array([2.5, 3.5], np.float32))


def test_queue_runners_round_trip_as_queue_runner_defs():
    qr_mod = pytest.importorskip("ref.training.queue_runner")
    from ref.graph_ops.data_flow_ops import FIFOQueue
    from ref.protos import queue_runner_pb2
    with tf.Graph().as_default():
        q = FIFOQueue(4, [tf.float32], name="q")
        enq = q.enqueue([tf.constant(1.0)])
        qr_mod.add_queue_runner(qr_mod.QueueRunner(q, [enq]))
        mgd = export_meta_graph()
    values = mgd.collection_def["queue_runners"].bytes_list.value
    assert len(values) == 1
    proto = queue_runner_pb2.QueueRunnerDef.FromString(values[0])
    assert proto.queue_name == "q" and list(proto.enqueue_op_name) == [enq.name]
    with tf.Graph().as_default() as g:
        import_meta_graph(mgd, import_scope="i")
        (runner,) = g.get_collection("queue_runners")
        assert isinstance(runner, qr_mod.QueueRunner)
        assert runner.to_proto().queue_name == "i/q"


@pytest.fixture
def v2_loops():
    """``tf.enable_control_flow_v2()`` for one test (a differentiable while_loop
    builds the functional ``While``), the previous mode restored after."""
    was = tf.control_flow_v2_enabled()
    tf.enable_control_flow_v2()
    yield
    if not was:
        tf.disable_control_flow_v2()


def _control_flow_model():
    x = tf.placeholder(tf.float64, [3], name="x")
    _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.sin(y) * 0.5 + x), [tf.constant(0), x])
    z = tf.cond(tf.reduce_sum(y) > 0, lambda: y * y, lambda: -y)
    return x, tf.identity(z, name="z")


def test_while_and_cond_survive_graph_def_round_trip(v2_loops):
    """Imported While/If ops keep their output specs: same values and gradients as the original graph."""
    feed = np.array([0.3, -0.7, 1.1])
    with tf.Graph().as_default() as g:
        x, z = _control_flow_model()
        (gx,) = tf.gradients(tf.reduce_sum(z), [x])
        with tf.Session() as s:
            expected = s.run([z, gx], {x: feed})
        graph_def = g.as_graph_def()
    with tf.Graph().as_default() as g2:
        import_graph_def(graph_def, name="")
        x, z = g2.get_tensor_by_name("x:0"), g2.get_tensor_by_name("z:0")
        # TF's While (while_v2's layout): loop counter, bound, 2 loop variables, the captured x,
        # 2 TensorList accumulators; then ref's histories of those 7 (the imported loop keeps
        # them for the gradient). "while" forwards the 2 loop variables (an IdentityN).
        loop = g2.get_operation_by_name("while/While")
        assert len(loop.outputs) == 14 and loop.get_attr("accumulate")
        assert g2.get_operation_by_name("while").type == "IdentityN"
        (gx,) = tf.gradients(tf.reduce_sum(z), [x])
        with tf.Session() as s:
            got = s.run([z, gx], {x: feed})
    for a, e in zip(got, expected):
        np.testing.assert_allclose(a, e, rtol=1e-14)
