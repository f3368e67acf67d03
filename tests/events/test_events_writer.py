"""FileWriter / EventFileWriter / summary_iterator, checked against TensorFlow and TensorBoard."""
import glob
import os
import re
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import ref.ops.summary  # noqa: F401  (registers the summary ops)
from ref.events import EventFileWriter, FileWriter, FileWriterCache, SummaryWriter, summary_iterator
from ref.events.writer import summary_event_bytes
from ref.ops.registry import call

event_pb2 = pytest.importorskip("ref.protos.event_pb2")
summary_pb2 = pytest.importorskip("ref.protos.summary_pb2")


def _tf():
    return pytest.importorskip("tensorflow")


def _only_file(logdir):
    files = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    assert len(files) == 1, files
    return files[0]


def _scalar(tag, value):
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])


# -- the file -------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [None, "", ".v2", "-worker0"])
def test_file_name_and_first_event(tmp_path, suffix):
    before = time.time()
    w = FileWriter(tmp_path / "logs", filename_suffix=suffix)
    w.close()
    path = _only_file(tmp_path / "logs")
    name = os.path.basename(path)
    m = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)", name)
    assert m and m.group(2) == socket.gethostname() + (suffix or "")
    assert int(before) <= int(m.group(1)) <= int(time.time()) + 1
    events = list(summary_iterator(path))
    assert len(events) == 1
    first = events[0]
    assert first.file_version == "brain.Event:2" and first.wall_time == int(m.group(1))


def test_first_event_matches_tensorflows(tmp_path):
    tf = _tf()
    with tf.Graph().as_default():
        w = tf.compat.v1.summary.FileWriter(str(tmp_path / "tf"))
        w.add_summary(_scalar("x", 1.0).SerializeToString())   # TF creates its file on the first event
        w.close()
    theirs = next(iter(tf.compat.v1.train.summary_iterator(_only_file(tmp_path / "tf"))))
    FileWriter(tmp_path / "ref").close()
    ours = next(iter(summary_iterator(_only_file(tmp_path / "ref"))))
    assert [f.name for f, _ in ours.ListFields()] == [f.name for f, _ in theirs.ListFields()]
    assert ours.file_version == theirs.file_version
    for first, path in ((ours, _only_file(tmp_path / "ref")), (theirs, _only_file(tmp_path / "tf"))):
        assert first.wall_time == int(os.path.basename(path).split(".")[3])   # the name's second


def test_writers_in_the_same_second_do_not_clobber(tmp_path):
    writers = [FileWriter(tmp_path) for _ in range(3)]
    for i, w in enumerate(writers):
        w.add_summary(_scalar("w", i), i)
        w.close()
    files = sorted(glob.glob(str(tmp_path / "events.out.tfevents.*")))
    assert len(files) == 3
    assert [list(summary_iterator(f))[1].summary.value[0].simple_value for f in files] == [0, 1, 2]


# -- the Event bytes ----------------------------------------------------------------

@pytest.mark.parametrize("step", [None, 0, 1, 127, 128, 2**40, -1, -(2**63)])
@pytest.mark.parametrize("summary", [summary_pb2.Summary(), _scalar("loss", 0.5)])
def test_summary_event_bytes_equal_proto_serialization(step, summary):
    tf = _tf()
    data = summary.SerializeToString()
    wall = 1700000000.123456
    ours = summary_event_bytes(wall, 0 if step is None else step, data)
    expected = event_pb2.Event(wall_time=wall, summary=summary)
    if step is not None:
        expected.step = step
    assert ours == expected.SerializeToString()
    theirs = tf.compat.v1.Event(wall_time=wall, summary=tf.compat.v1.Summary.FromString(data))
    if step is not None:
        theirs.step = step
    assert ours == theirs.SerializeToString()


# -- written by ref, read by TensorFlow and TensorBoard -------------------------------

def _summaries():
    rng = np.random.default_rng(3)
    image = rng.normal(size=(2, 4, 5, 3)).astype(np.float32)
    audio = rng.uniform(-1, 1, size=(2, 30)).astype(np.float32)
    hist = rng.normal(size=300).astype(np.float32)
    return [
        ("scalar", lambda step: call("ScalarSummary", tags=np.array("loss", dtype=object),
                                     values=np.float32(1.0 / (step + 1)))),
        ("histogram", lambda step: call("HistogramSummary", tag="weights", values=hist * (step + 1))),
        ("image", lambda step: call("ImageSummary", tag="im", tensor=image + step)),
        ("audio", lambda step: call("AudioSummaryV2", tag="snd", tensor=audio, sample_rate=np.float32(8000))),
    ]


@pytest.mark.parametrize("as_bytes", [True, False])
def test_ref_file_read_by_tensorflow_and_tensorboard(tmp_path, as_bytes):
    tf = _tf()
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    written = {}
    with FileWriter(tmp_path) as w:
        for step in range(5):
            for name, make in _summaries():
                s = make(step)[()]
                written[(name, step)] = s
                w.add_summary(s if as_bytes else summary_pb2.Summary.FromString(s), global_step=step)
    path = _only_file(tmp_path)
    events = list(tf.compat.v1.train.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    got = [(e.step, e.summary.SerializeToString()) for e in events[1:]]
    assert got == [(step, written[(name, step)]) for step in range(5) for name, _ in _summaries()]

    acc = ea_mod.EventAccumulator(str(tmp_path), size_guidance={"scalars": 0, "histograms": 0,
                                                               "images": 0, "audio": 0})
    acc.Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"] and tags["histograms"] == ["weights"]
    assert sorted(tags["images"]) == ["im/image/0", "im/image/1"]
    assert sorted(tags["audio"]) == ["snd/audio/0", "snd/audio/1"]
    assert [(s.step, s.value) for s in acc.Scalars("loss")] == \
        [(step, float(np.float32(1.0 / (step + 1)))) for step in range(5)]
    for h in acc.Histograms("weights"):
        ours = summary_pb2.Summary.FromString(written[("histogram", h.step)]).value[0].histo
        assert list(h.histogram_value.bucket_limit) == list(ours.bucket_limit)
        assert list(h.histogram_value.bucket) == list(ours.bucket)
        assert (h.histogram_value.num, h.histogram_value.sum) == (ours.num, ours.sum)
    assert [i.step for i in acc.Images("im/image/1")] == list(range(5))
    assert acc.Images("im/image/0")[0].width == 5 and acc.Images("im/image/0")[0].height == 4
    a = acc.Audio("snd/audio/0")[0]
    assert (a.sample_rate, a.length_frames, a.content_type) == (8000, 30, "audio/wav")


def test_tensorflow_file_read_by_ref(tmp_path):
    tf = _tf()
    with tf.Graph().as_default():
        values = tf.compat.v1.placeholder(tf.float32, [None])
        merged = tf.compat.v1.summary.merge([tf.compat.v1.summary.scalar("loss", tf.reduce_mean(values)),
                                             tf.compat.v1.summary.histogram("v", values)])
        with tf.compat.v1.Session() as sess:
            w = tf.compat.v1.summary.FileWriter(str(tmp_path), sess.graph)
            for step in range(20):
                w.add_summary(sess.run(merged, {values: np.arange(step + 1, dtype=np.float32)}), step)
            w.add_session_log(tf.compat.v1.SessionLog(status=tf.compat.v1.SessionLog.STOP), 20)
            w.close()
    path = _only_file(tmp_path)
    theirs = [e.SerializeToString() for e in tf.compat.v1.train.summary_iterator(path)]
    ours = [e.SerializeToString() for e in summary_iterator(path)]
    assert ours == theirs and len(ours) == 1 + 2 + 20 + 1   # version, graph, meta graph, 20 steps, log
    events = list(summary_iterator(path))
    assert events[1].WhichOneof("what") == "graph_def" and events[2].WhichOneof("what") == "meta_graph_def"
    assert [e.step for e in events[3:]] == list(range(21))


# -- the add_* endpoints ----------------------------------------------------------------

def _events(logdir):
    return list(summary_iterator(_only_file(logdir)))


def test_metadata_is_kept_only_the_first_time_a_tag_is_seen(tmp_path):
    tf = _tf()
    from ref.ops.summary import text_summary

    s = text_summary("notes", np.array("hello", dtype=object))[()]
    with FileWriter(tmp_path / "ref") as w:
        w.add_summary(s, 1)
        w.add_summary(s, 2)
        w.add_summary(summary_pb2.Summary.FromString(s), 3)
    with tf.Graph().as_default():
        w = tf.compat.v1.summary.FileWriter(str(tmp_path / "tf"))
        for step in (1, 2, 3):
            w.add_summary(s, step)
        w.close()
    theirs = [e for e in tf.compat.v1.train.summary_iterator(_only_file(tmp_path / "tf"))][1:]
    ours = _events(tmp_path / "ref")[1:]
    assert [e.summary.SerializeToString() for e in ours] == [e.summary.SerializeToString() for e in theirs]
    assert ours[0].summary.value[0].HasField("metadata") and not ours[1].summary.value[0].HasField("metadata")


def test_add_summary_does_not_modify_the_callers_proto(tmp_path):
    from ref.ops.summary import text_summary

    s = summary_pb2.Summary.FromString(text_summary("t", np.array("x", dtype=object))[()])
    before = s.SerializeToString()
    with FileWriter(tmp_path) as w:
        w.add_summary(s)
        w.add_summary(s)
    assert s.SerializeToString() == before


class _DuckGraph:
    """Any object with as_graph_def() is a graph to the FileWriter."""

    def __init__(self, graph_def):
        self.graph_def = graph_def

    def as_graph_def(self, add_shapes=False):
        return self.graph_def


def _graph_def():
    graph_pb2 = pytest.importorskip("ref.protos.graph_pb2")
    gd = graph_pb2.GraphDef()
    gd.node.add(name="x", op="Placeholder")
    gd.node.add(name="y", op="Identity", input=["x"])
    return gd


@pytest.mark.parametrize("how", ["graph", "graph_def", "positional"])
def test_graph_in_constructor_writes_graph_and_meta_graph(tmp_path, how):
    gd = _graph_def()
    if how == "graph":
        w = FileWriter(tmp_path, graph=_DuckGraph(gd))
    elif how == "graph_def":
        with pytest.warns(UserWarning, match="deprecated"):
            w = FileWriter(tmp_path, graph_def=gd)
    else:
        with pytest.warns(UserWarning, match="deprecated"):
            w = FileWriter(tmp_path, gd)
    w.close()
    events = _events(tmp_path)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def"]
    assert events[1].graph_def == gd.SerializeToString()
    meta_graph_pb2 = pytest.importorskip("ref.protos.meta_graph_pb2")
    meta = meta_graph_pb2.MetaGraphDef.FromString(events[2].meta_graph_def)
    assert meta.graph_def.SerializeToString() == gd.SerializeToString()


def test_ref_graph_object(tmp_path):
    graph = pytest.importorskip("ref.framework.graph")
    g = graph.Graph()
    with FileWriter(tmp_path, graph=g) as w:
        w.add_graph(g, global_step=7)
    events = _events(tmp_path)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def", "graph_def"]
    assert events[3].step == 7 and events[3].graph_def == g.as_graph_def(add_shapes=True).SerializeToString()


def test_add_graph_rejects_both_arguments(tmp_path):
    with FileWriter(tmp_path) as w, pytest.raises(ValueError, match="only graph, or graph_def"):
        w.add_graph(_DuckGraph(_graph_def()), graph_def=_graph_def())


def test_add_meta_graph_type_check(tmp_path):
    with FileWriter(tmp_path) as w, pytest.raises(TypeError, match="MetaGraphDef"):
        w.add_meta_graph(_graph_def())


def test_session_log_run_metadata_and_events(tmp_path):
    config_pb2 = pytest.importorskip("ref.protos.config_pb2")
    run_metadata = config_pb2.RunMetadata()
    run_metadata.step_stats.dev_stats.add(device="/cpu:0")
    with SummaryWriter(tmp_path) as w:
        w.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), 3)
        w.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.CHECKPOINT,
                                               checkpoint_path="/tmp/model.ckpt-5"), 5)
        w.add_run_metadata(run_metadata, "step5", 5)
        with pytest.raises(ValueError, match="already used"):
            w.add_run_metadata(run_metadata, "step5", 6)
        w.add_event(event_pb2.Event(wall_time=12.5, step=9, file_version="custom"))
    events = _events(tmp_path)[1:]
    assert [(e.WhichOneof("what"), e.step) for e in events] == [
        ("session_log", 3), ("session_log", 5), ("tagged_run_metadata", 5), ("file_version", 9)]
    assert events[1].session_log.checkpoint_path == "/tmp/model.ckpt-5"
    assert events[2].tagged_run_metadata.tag == "step5"
    assert events[2].tagged_run_metadata.run_metadata == run_metadata.SerializeToString()
    assert events[3].wall_time == 12.5    # add_event writes the event as given


def test_tensorflow_protos_are_accepted(tmp_path):
    tf = _tf()
    with FileWriter(tmp_path) as w:
        w.add_summary(tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="a", simple_value=2)]), 1)
        w.add_session_log(tf.compat.v1.SessionLog(status=tf.compat.v1.SessionLog.STOP), 2)
        w.add_event(tf.compat.v1.Event(step=3, wall_time=1.0))
    events = _events(tmp_path)[1:]
    assert events[0].summary.value[0].simple_value == 2 and events[0].step == 1
    assert events[1].session_log.status == event_pb2.SessionLog.STOP
    assert events[2].step == 3


# -- asynchrony, flushing, closing -----------------------------------------------------

def test_flush_puts_everything_on_disk(tmp_path):
    w = FileWriter(tmp_path, max_queue=1000, flush_secs=3600)
    for i in range(50):
        w.add_summary(_scalar("x", i), i)
    w.flush()
    assert [e.step for e in _events(tmp_path)[1:]] == list(range(50))
    w.close()


def test_background_thread_flushes_every_flush_secs(tmp_path):
    w = FileWriter(tmp_path, max_queue=1000, flush_secs=0.2)
    path = _only_file(tmp_path)
    w.add_summary(_scalar("x", 0), 0)            # the first event after a quiet spell: at once
    deadline = time.time() + 5
    while len(list(summary_iterator(path))) < 2 and time.time() < deadline:
        time.sleep(0.01)
    assert len(list(summary_iterator(path))) == 2
    for i in range(1, 10):
        w.add_summary(_scalar("x", i), i)
    deadline = time.time() + 5
    while len(list(summary_iterator(path))) < 11 and time.time() < deadline:
        time.sleep(0.02)
    assert [e.step for e in summary_iterator(path)][1:] == list(range(10))
    w.close()


@pytest.mark.parametrize("max_queue", [1, 3, 10])
def test_back_pressure_loses_nothing(tmp_path, max_queue):
    with FileWriter(tmp_path, max_queue=max_queue, flush_secs=3600) as w:
        for i in range(200):
            w.add_summary(_scalar("x", i), i)
    assert [e.step for e in _events(tmp_path)[1:]] == list(range(200))


@pytest.mark.parametrize("threads,per_thread,max_queue", [(8, 500, 10), (4, 300, 1)])
def test_many_writer_threads_lose_no_event(tmp_path, threads, per_thread, max_queue):
    w = FileWriter(tmp_path, max_queue=max_queue, flush_secs=0.01)
    barrier = threading.Barrier(threads)

    def work(t):
        barrier.wait()
        for i in range(per_thread):
            w.add_summary(_scalar(f"thread{t}", i), i)
            if i % 97 == 0:
                w.flush()

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    w.close()
    by_tag = {}
    for e in _events(tmp_path)[1:]:
        by_tag.setdefault(e.summary.value[0].tag, []).append(e.step)
    assert by_tag == {f"thread{t}": list(range(per_thread)) for t in range(threads)}


def test_events_are_written_at_interpreter_exit(tmp_path):
    code = (
        "import sys; sys.path.insert(0, {root!r})\n"
        "from ref.events import FileWriter\n"
        "from ref.protos import summary_pb2\n"
        "w = FileWriter({logdir!r}, max_queue=1000, flush_secs=3600)\n"
        "for i in range(300):\n"
        "    w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag='x', simple_value=i)]), i)\n"
    ).format(root=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
             logdir=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert [e.step for e in _events(tmp_path)[1:]] == list(range(300))


def test_closed_writer_warns_and_reopen_starts_a_new_file(tmp_path):
    w = FileWriter(tmp_path)
    w.add_summary(_scalar("x", 1), 1)
    w.close()
    with pytest.warns(UserWarning, match="closed FileWriter"):
        w.add_summary(_scalar("x", 2), 2)
    w.reopen()
    w.add_summary(_scalar("x", 3), 3)
    w.close()
    w.close()  # closing twice is harmless
    files = sorted(glob.glob(str(tmp_path / "events.out.tfevents.*")))
    assert len(files) == 2
    assert [[e.step for e in summary_iterator(f)][1:] for f in files] == [[1], [3]]
    assert w.get_logdir() == str(tmp_path)


def test_event_file_writer_directly(tmp_path):
    w = EventFileWriter(tmp_path / "new" / "dir")     # creates the directory
    w.add_event(event_pb2.Event(step=4, wall_time=2.0))
    w.close()
    assert [e.step for e in summary_iterator(w.path)] == [0, 4]


def test_writers_sharing_a_session_share_a_file(tmp_path):
    session = object()
    a = FileWriter(tmp_path, session=session)
    b = FileWriter(tmp_path, session=session)
    a.add_summary(_scalar("a", 1), 1)
    b.add_summary(_scalar("b", 2), 2)
    a.flush()
    assert [e.step for e in _events(tmp_path)[1:]] == [1, 2]
    b.close()


def test_file_writer_cache(tmp_path):
    a = FileWriterCache.get(str(tmp_path / "a"))
    assert FileWriterCache.get(str(tmp_path / "a")) is a
    b = FileWriterCache.get(str(tmp_path / "b"))
    assert b is not a and b.get_logdir() == str(tmp_path / "b")
    a.add_summary(_scalar("x", 1), 1)
    FileWriterCache.clear()
    assert FileWriterCache.get(str(tmp_path / "a")) is not a
    FileWriterCache.clear()
    steps = [[e.step for e in summary_iterator(f)] for f in sorted(glob.glob(str(tmp_path / "a" / "*")))]
    assert [1] in [s[-1:] for s in steps]


# -- summary_iterator on a live file ----------------------------------------------------

def test_summary_iterator_follows_a_live_file(tmp_path):
    w = FileWriter(tmp_path, max_queue=1000, flush_secs=3600)
    events = summary_iterator(_only_file(tmp_path))
    assert [e.file_version for e in events] == ["brain.Event:2"]
    w.add_summary(_scalar("loss", 1.5), 1)
    w.flush()
    assert [v.simple_value for e in events for v in e.summary.value] == [1.5]
    # a record cut in half (as a writer caught mid-write leaves it) is not read yet
    record = open(_only_file(tmp_path), "rb").read()[-40:]
    w.add_summary(_scalar("loss", 2.5), 2)
    w.close()
    full = open(_only_file(tmp_path), "rb").read()
    with open(_only_file(tmp_path), "wb") as f:
        f.write(full[:-10])
    assert list(events) == []
    with open(_only_file(tmp_path), "ab") as f:
        f.write(full[-10:])
    assert [(e.step, e.summary.value[0].simple_value) for e in events] == [(2, 2.5)]
    assert record
