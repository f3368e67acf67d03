"""``export_meta_graph`` / ``import_meta_graph`` compared with TF's bytes: one
graph with a device-placed variable, a Saver and collections of every kind
(node_list of tensors and operations, bytes_list, int64_list, float_list),
exported by ref and by tensorflow.compat.v1 (TF1 behaviour) with each option
row; the GraphDef (nodes, devices, ``_output_shapes``), the collection defs and
the SaverDef equal TF's. An imported meta graph (``clear_devices`` on or off)
re-exports to the same collection defs and devices as TF's round trip."""
import contextlib
import os
import sys

import pytest

import ref
from ref.checkpoint import meta_graph as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
from _graphdef import tf1_behaviour, tf_v1  # noqa: E402

# ref-only underscore attrs (see tests/graph_ops/_graphdef.py) and TF 2's marker attr
PRIVATE = ("_fsync", "_ref_shape", "_has_manual_control_dependencies")


def _build(tf):
    with tf.device("/cpu:0"):
        v = tf.Variable([1.0, 2.0], name="v")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.add(x, v, name="y")
    tf.add_to_collection("nodes", y)
    tf.add_to_collection("nodes", y.op)
    for b in (b"abc", "str"):
        tf.add_to_collection("bytes", b)
    for i in (3, 7):
        tf.add_to_collection("ints", i)
    tf.add_to_collection("floats", 1.5)
    tf.train.Saver()


def _lib_context(tf):
    return tf1_behaviour() if tf is not ref else contextlib.nullcontext()


def _canonical(meta_bytes):
    from tensorflow.core.protobuf import meta_graph_pb2
    m = meta_graph_pb2.MetaGraphDef.FromString(meta_bytes)
    for n in m.graph_def.node:
        for a in PRIVATE:
            if a in n.attr:
                del n.attr[a]
    # TF's op defs in stripped_op_list and its version strings are TF's own build's
    m.ClearField("meta_info_def")
    return m


def _export(tf, **kwargs):
    with _lib_context(tf):
        with tf.Graph().as_default():
            _build(tf)
            return _canonical(tf.train.export_meta_graph(**kwargs).SerializeToString())


OPTIONS = [("plain", {}), ("clear_devices", dict(clear_devices=True)),
           ("strip_default_attrs", dict(strip_default_attrs=True)),
           ("no_saver_def", dict(saver_def=None, collection_list=["nodes", "ints"]))]


@pytest.mark.parametrize("name,kwargs", OPTIONS, ids=[o[0] for o in OPTIONS])
def test_export_matches_tf(name, kwargs):
    tf = tf_v1()
    got, want = _export(ref, **kwargs), _export(tf, **kwargs)
    assert [n.name for n in got.graph_def.node] == [n.name for n in want.graph_def.node]
    for a, b in zip(got.graph_def.node, want.graph_def.node):
        assert a == b, (a, b)
    assert dict(got.collection_def) == dict(want.collection_def)
    assert got.saver_def == want.saver_def


@pytest.mark.parametrize("clear_devices", [False, True])
def test_import_round_trip_matches_tf(tmp_path, clear_devices):
    tf = tf_v1()
    path = str(tmp_path / "m.meta")
    with tf1_behaviour(), tf.Graph().as_default():
        _build(tf)
        tf.train.export_meta_graph(path)
    results = []
    for lib in (ref, tf):
        with _lib_context(lib), lib.Graph().as_default() as g:
            lib.train.import_meta_graph(path, clear_devices=clear_devices)
            devices = sorted((op.name, op.device) for op in g.get_operations())
            results.append((devices, _canonical(lib.train.export_meta_graph().SerializeToString())))
    assert results[0][0] == results[1][0]
    assert dict(results[0][1].collection_def) == dict(results[1][1].collection_def)
    assert results[0][1].saver_def == results[1][1].saver_def


@pytest.mark.parametrize("export_scope", ["export", None])
def test_scoped_export_strips_frame_names_as_tf(export_scope):
    """A while loop's Enter ``frame_name`` loses the export scope as its node names do (TF's ``_node_def``)."""
    tf = tf_v1()

    def frames(mod, export_module):
        with mod.Graph().as_default():
            with mod.name_scope("export"):
                v = mod.Variable(0.0)
                mod.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x + mod.cast(i, mod.float32)), [0, v])
            mgd, _ = export_module.export_scoped_meta_graph(export_scope=export_scope)
            return sorted((n.name, n.attr["frame_name"].s) for n in mgd.graph_def.node if n.op == "Enter")
    from tensorflow.python.framework import meta_graph as tf_meta_graph
    with tf1_behaviour():
        want = frames(tf, tf_meta_graph)
    assert frames(ref, _under_test) == want
