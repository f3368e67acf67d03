"""tf.summary (ref/graph_ops/summary_ops.py, ref/events/writer.py): op names and
tags, '' names, tensor_summary metadata, merge/merge_all, FileWriter's graph and
meta-graph events, FileWriter('') and plugin assets. Oracle: tensorflow.compat.v1
run side by side in graph mode."""
import glob
import os

import pytest

import ref
from ref.events import plugin_asset
from ref.protos import meta_graph_pb2, summary_pb2

tf = pytest.importorskip("tensorflow").compat.v1


def _summary(value):
    raw = value.item() if hasattr(value, "item") else value
    return summary_pb2.Summary.FromString(raw)


def _build(lib, what):
    """(op name, tags) of summary ``what`` built with ``lib`` (ref or tf.compat.v1)."""
    with lib.Graph().as_default(), lib.Session() as s:
        with lib.name_scope("outer"):
            if what == "scalar_family":
                lib.summary.scalar("inner", lib.constant(7), family="family")
                t = lib.summary.scalar("inner", lib.constant(7), family="family")
            elif what == "image_family":
                t = lib.summary.image("inner", lib.ones((5, 2, 3, 1)), max_outputs=3, family="family")
            elif what == "histogram_family":
                t = lib.summary.histogram("inner", lib.ones((5, 4)), family="family")
            elif what == "audio_family":
                t = lib.summary.audio("inner", lib.ones((5, 3, 4)), 0.2, max_outputs=3, family="family")
            elif what == "illegal_chars":
                t = lib.summary.scalar("name with many $#illegal^: characters!", lib.constant(3))
            elif what == "text":
                t = lib.summary.text("words", lib.constant(["one", "two"]))
        if what == "empty_name":
            t = lib.summary.audio("", [[1.0]], 22000.0)
        elif what == "leading_slash":
            t = lib.summary.scalar("/name/with/leading/slash", lib.constant(3))
        return t.op.name, sorted(v.tag for v in _summary(s.run(t)).value)


@pytest.mark.parametrize("what", ["scalar_family", "image_family", "histogram_family", "audio_family",
                                  "illegal_chars", "text", "empty_name", "leading_slash"])
def test_names_and_tags_as_tensorflow(what):
    assert _build(ref, what) == _build(tf, what)


@pytest.mark.parametrize("make", [
    lambda lib: lib.summary.audio("", [[1.0]], 22000.0, family=""),  # '/' is not a valid root scope
    lambda lib: lib.summary.merge([]),  # MergeSummary takes at least one input
    lambda lib: lib.summary.text("n", lib.constant(1)),  # text needs strings
])
def test_value_errors_as_tensorflow(make):
    with tf.Graph().as_default(), pytest.raises(ValueError) as theirs:
        make(tf)
    with ref.Graph().as_default(), pytest.raises(ValueError) as ours:
        make(ref)
    assert str(ours.value).split(".")[0] == str(theirs.value).split(".")[0]


@pytest.mark.parametrize("kwargs", [{}, {"summary_description": "desc"}, {"display_name": "shown"},
                                    {"summary_description": "d", "display_name": "n"}])
def test_tensor_summary_bytes_as_tensorflow(kwargs):
    def run(lib):
        with lib.Graph().as_default(), lib.Session() as s:
            out = s.run(lib.summary.tensor_summary("ts", lib.constant([1.0, 2.0]), **kwargs))
            return out.item() if hasattr(out, "item") else out
    assert run(ref) == run(tf)


@pytest.mark.parametrize("key,add,expect_none", [
    ("summaries", False, True),
    ("foo", False, True),
    ("foo", True, False),
])
def test_merge_all(key, add, expect_none):
    with ref.Graph().as_default(), ref.Session() as s:
        if add:
            ref.summary.scalar("x", 1.0, collections=[key])
        merged = ref.summary.merge_all(key=key)
        assert (merged is None) == expect_none
        if merged is not None:
            assert [v.tag for v in _summary(s.run(merged)).value] == ["x"]


def test_merge_collections_and_name():
    with ref.Graph().as_default():
        x = ref.summary.scalar("x", 1.0)
        m = ref.summary.merge([x], collections=["bar"], name="mm")
        assert ref.get_collection("bar") == [m] and m.op.name == "mm/mm"
        assert ref.summary.merge([x]).op.name == "Merge/MergeSummary"


def _events(logdir, lib):
    return list(lib.train.summary_iterator(glob.glob(os.path.join(logdir, "event*"))[0]))


def _meta_info(event):
    mgd = meta_graph_pb2.MetaGraphDef.FromString(event.meta_graph_def)
    return (mgd.meta_info_def.tensorflow_version, [o.name for o in mgd.meta_info_def.stripped_op_list.op],
            sorted(mgd.collection_def), mgd.graph_def.node[0].name)


@pytest.mark.parametrize("positional", [True, False])
def test_file_writer_graph_events_as_tensorflow(tmp_path, positional):
    def write(lib, logdir):
        with lib.Graph().as_default() as g:
            lib.constant([12], name="douze")
            lib.add_to_collection("foo", 3)
            writer = lib.summary.FileWriter(logdir, g) if positional else lib.summary.FileWriter(logdir, graph=g)
            writer.close()
        return _events(logdir, lib)
    ours, theirs = write(ref, str(tmp_path / "ref")), write(tf, str(tmp_path / "tf"))
    assert [e.WhichOneof("what") for e in ours] == [e.WhichOneof("what") for e in theirs]
    assert _meta_info(ours[2]) == _meta_info(theirs[2])
    assert meta_graph_pb2.MetaGraphDef.FromString(ours[2].meta_graph_def).meta_info_def.tensorflow_git_version


def test_file_writer_rejects_a_string_graph(tmp_path):
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(TypeError, match="must be an instance of `Graph`"):
            lib.summary.FileWriter(str(tmp_path / lib.__name__), "string instead of graph object")


def test_file_writer_empty_logdir_is_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = ref.summary.FileWriter("")
    writer.add_summary(ref.Summary(value=[ref.Summary.Value(tag="a", simple_value=1.0)]), 1)
    writer.close()
    assert writer.get_logdir() == ""
    names = os.listdir(tmp_path)
    assert len(names) == 1 and names[0].startswith("events.out.tfevents.")


def test_plugin_assets_written_with_the_graph(tmp_path):
    class Example(plugin_asset.PluginAsset):
        plugin_name = "example"

        def assets(self):
            return {"foo.txt": "foo!", "bar.txt": "bar!"}

    with ref.Graph().as_default() as g:
        assert plugin_asset.get_plugin_asset(Example) is plugin_asset.get_plugin_asset(Example)
        writer = ref.summary.FileWriter(str(tmp_path))
        writer.add_graph(g)
        writer.close()
    for name, content in (("foo.txt", "foo!"), ("bar.txt", "bar!")):
        with open(tmp_path / "plugins" / "example" / name) as f:
            assert f.read() == content


def test_top_level_protos_are_tensorflows_messages():
    for name in ("Summary", "Event", "SessionLog", "GraphDef", "MetaGraphDef", "NodeDef", "SummaryMetadata",
                 "HistogramProto", "LogMessage", "AttrValue", "NameAttrList", "TensorInfo"):
        assert getattr(ref, name).DESCRIPTOR.full_name.split(".")[-1] == \
            getattr(tf, name).DESCRIPTOR.full_name.split(".")[-1]


def test_metadata_is_stripped_as_tensorflow_strips_it(tmp_path):
    """The first value of a tag marks it, with or without metadata: later metadata is stripped (TF's add_summary)."""
    def write(lib, summary_pb2_module, logdir):
        with lib.Graph().as_default():
            writer = lib.summary.FileWriter(logdir)
            for with_metadata in (False, True, True):
                value = summary_pb2_module.Summary.Value(tag="foo", simple_value=1.0)
                if with_metadata:
                    value.metadata.plugin_data.plugin_name = "bar"
                writer.add_summary(summary_pb2_module.Summary(value=[value]), 1)
            writer.close()
        return [e.summary.value[0].HasField("metadata") for e in _events(logdir, lib) if e.HasField("summary")]
    tf_summary_pb2 = pytest.importorskip("tensorflow.core.framework.summary_pb2")
    assert write(ref, summary_pb2, str(tmp_path / "ref")) == write(tf, tf_summary_pb2, str(tmp_path / "tf")) == \
        [False, False, False]
