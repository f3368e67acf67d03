"""Files that lie (ref/formats/): record headers and index entries claiming
more than the file holds raise DataLossError naming the file and offset, and
allocate nothing on the claim's behalf; bit flips and truncations of every file
``ref`` reads give the right values or TF's error kinds, never wrong values and
never MemoryError. Each case runs in a child process under RLIMIT_AS."""
import os
import struct

import numpy as np
import pytest

from ref.formats import crc32c, table, tfrecord
from ref.formats.bundle import BundleReader, BundleWriter, HEADER_KEY
from ref import protos
from tests.faults import REPORT, run_child

LIMIT_MB = 700  # far below every claimed size; above ref's own footprint


def _header(length):
    raw = struct.pack("<Q", length)
    return raw + struct.pack("<I", crc32c.mask(crc32c.crc32c(raw)))


@pytest.mark.parametrize("log2_length", [40, 48, 56, 63])
@pytest.mark.parametrize("reader", ["tf_record_iterator", "summary_iterator"])
def test_record_header_claiming_huge_length_is_data_loss(tmp_path, log2_length, reader):
    path = tmp_path / "records"
    event = protos.event_pb2.Event(step=3, file_version="brain.Event:2").SerializeToString()
    path.write_bytes(tfrecord.encode_record(event) + _header(2 ** log2_length) + b"x" * 64)
    result = run_child(REPORT + """
from ref.formats import tfrecord
from ref.formats.event_reader import summary_iterator
got = []
def go():
    it = tfrecord.tf_record_iterator(sys.argv[1]) if sys.argv[2] == "tf_record_iterator" \\
        else summary_iterator(sys.argv[1])
    for r in it:
        got.append(1)
print(json.dumps({**outcome(go), "before": len(got)}))
""", path, reader, timeout=60, memory_mb=LIMIT_MB)
    assert result.get("error") == "DataLossError", result
    offset = len(tfrecord.encode_record(event))
    assert str(path) in result["message"] and f"at {offset} " in result["message"]  # the file and the offset
    assert result["before"] == 1  # the record before the bad header is reported


def _bundle(prefix):
    with BundleWriter(prefix) as w:
        w.add("a", np.arange(6, dtype=np.float32).reshape(2, 3))
        w.add("s", np.array([b"xy", b"z"], dtype=object))


def _rewrite_entry(prefix, key, **changes):
    """Rewrites one index entry with ``changes`` (shape as a list of dims)."""
    index = prefix + ".index"
    t = table.Table(open(index, "rb").read(), index)
    items = list(t)
    with open(index, "wb") as f:
        b = table.TableBuilder(f)
        for k, v in items:
            if k == key:
                e = protos.tensor_bundle_pb2.BundleEntryProto.FromString(v)
                for name, value in changes.items():
                    if name == "shape":
                        e.shape.ClearField("dim")
                        for d in value:
                            e.shape.dim.add(size=d)
                    else:
                        setattr(e, name, value)
                v = e.SerializeToString()
            b.add(k, v)
        b.finish()


ENTRIES = [
    ("huge_shape", b"a", {"shape": [2 ** 40, 2 ** 20]}),
    ("huge_shape_and_size", b"a", {"shape": [2 ** 36], "size": 2 ** 38}),
    ("size_past_end", b"a", {"size": 2 ** 40}),
    ("offset_past_end", b"a", {"offset": 2 ** 50}),
    ("negative_offset", b"a", {"offset": -8}),
    ("negative_dim", b"a", {"shape": [-1, 3]}),
    ("bad_dtype", b"a", {"dtype": 999}),
    ("bad_shard", b"a", {"shard_id": 7}),
    ("string_huge_count", b"s", {"shape": [2 ** 40]}),
    ("string_huge_size", b"s", {"size": 2 ** 45}),
]


@pytest.mark.parametrize("case,key,changes", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_crafted_index_entry_is_data_loss_naming_the_file(tmp_path, case, key, changes):
    prefix = str(tmp_path / "model")
    _bundle(prefix)
    _rewrite_entry(prefix, key, **changes)
    result = run_child(REPORT + """
from ref.formats.bundle import BundleReader
def go():
    with BundleReader(sys.argv[1]) as r:
        return repr(r.lookup(sys.argv[2]))
print(json.dumps(outcome(go)))
""", prefix, key.decode(), timeout=60, memory_mb=LIMIT_MB)
    assert result.get("error") == "DataLossError", result
    assert "model." in result["message"]  # names the index or data file


# -- bit flips and truncations of every file kind, table-driven -------------------

def _files(tmp_path):
    """Writes one of each file kind ``ref`` reads; returns {kind: (path, reader code)}."""
    import ref as tf
    from ref.checkpoint.saver import Saver
    d = str(tmp_path)
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.arange(64, dtype=np.float32), name="v")
        w = tf.Variable(np.array([b"abc", b"de"], dtype=object), name="w")
        saver = Saver()
        with tf.Session() as sess:
            sess.run([v.initializer, w.initializer])
            prefix = saver.save(sess, os.path.join(d, "model"))
    rec = os.path.join(d, "data.tfrecord")
    with tfrecord.TFRecordWriter(rec) as wr:
        for i in range(20):
            wr.write(bytes([i]) * (i * 7 + 1))
    with tf.summary.FileWriter(os.path.join(d, "logs")) as fw:
        for i in range(10):
            fw.add_summary(protos.summary_pb2.Summary(value=[protos.summary_pb2.Summary.Value(tag="x", simple_value=float(i))]), i)
    event = os.path.join(d, "logs", os.listdir(os.path.join(d, "logs"))[0])
    read_bundle = ("from ref.formats.bundle import BundleReader\n"
                   "with BundleReader(PREFIX) as r:\n"
                   "    return [r.lookup('v').tolist(), [x.decode() for x in r.lookup('w')]]")
    return {
        "bundle_data": (prefix + ".data-00000-of-00001", read_bundle),
        "bundle_index": (prefix + ".index", read_bundle),
        "tfrecord": (rec, "return [len(x) for x in tfrecord.tf_record_iterator(PATH)]"),
        "event_file": (event, "return [e.step for e in summary_iterator(PATH)]"),
        "meta_graph": (prefix + ".meta", "return sorted(n.name for n in read_meta_graph_file(PATH).graph_def.node)"),
        "state_file": (os.path.join(d, "checkpoint"), "return latest_checkpoint(os.path.dirname(PATH))"),
    }, prefix


CHILD = REPORT + """
import os
from ref.formats import tfrecord
from ref.formats.event_reader import summary_iterator
from ref.checkpoint.meta_graph import read_meta_graph_file
from ref.checkpoint import latest_checkpoint
PATH, PREFIX = sys.argv[1], sys.argv[2]
cases = json.loads(sys.argv[3])
exec("def read():\\n" + "\\n".join("    " + ln for ln in sys.argv[4].splitlines()))
original = open(PATH, "rb").read()
results = []
for kind, arg in cases:
    data = bytearray(original)
    if kind == "flip":
        data[arg // 8] ^= 1 << (arg % 8)
    else:
        data = data[:arg]
    with open(PATH, "wb") as f:
        f.write(data)
    results.append(outcome(read))
with open(PATH, "wb") as f:
    f.write(original)
print(json.dumps(results))
"""

# errors a damaged file may raise: TF's kinds, and IOError for an unparseable meta graph
ALLOWED = {"DataLossError", "NotFoundError", "OutOfRangeError", "InvalidArgumentError", "OSError", "ValueError"}


@pytest.mark.parametrize("kind", ["bundle_data", "bundle_index", "tfrecord", "event_file", "meta_graph",
                                  "state_file"])
def test_bit_flips_and_truncations_give_right_values_or_errors(tmp_path, kind):
    files, prefix = _files(tmp_path)
    path, code = files[kind]
    size = os.path.getsize(path)
    rng = np.random.RandomState(size)
    flips = sorted(set(rng.randint(0, size * 8, size=min(size * 8, 60)).tolist()))
    cuts = sorted(set([0, 1, size // 2, size - 1] + rng.randint(0, size, size=20).tolist()))
    cases = [("flip", b) for b in flips] + [("cut", c) for c in cuts]
    intact = run_child(CHILD, path, prefix, "[]", code, timeout=60, memory_mb=LIMIT_MB)
    good = run_child(CHILD, path, prefix, '[["cut", %d]]' % size, code, timeout=60, memory_mb=LIMIT_MB)[0]
    assert "value" in good, good
    import json
    results = run_child(CHILD, path, prefix, json.dumps(cases), code, timeout=300, memory_mb=LIMIT_MB)
    assert intact == []
    for case, res in zip(cases, results):
        if "error" in res:
            assert res["error"] in ALLOWED, (case, res)
            continue
        value = res["value"]
        if kind in ("bundle_data", "bundle_index"):
            assert value == good["value"], (case, value)  # checksummed: never a wrong value
        elif kind == "tfrecord":
            assert value == good["value"][:len(value)], (case, value)
        elif kind == "event_file" and case[0] == "cut":
            assert value == good["value"][:len(value)], (case, value)  # a torn tail: everything before it


def test_event_file_torn_at_every_byte_of_its_last_record(tmp_path):
    """A writer killed mid-record leaves a prefix of it: the reader reports every
    event before the torn record, then stops cleanly."""
    import ref as tf
    from ref.formats.event_reader import summary_iterator
    with tf.summary.FileWriter(str(tmp_path)) as fw:
        for i in range(5):
            fw.add_summary(protos.summary_pb2.Summary(value=[protos.summary_pb2.Summary.Value(tag="loss", simple_value=float(i))]), i)
    path = str(tmp_path / os.listdir(tmp_path)[0])
    data = open(path, "rb").read()
    steps = [e.step for e in summary_iterator(path)]
    assert steps == [0, 0, 1, 2, 3, 4]
    last = len(tfrecord.encode_record(list(tfrecord.tf_record_iterator(path))[-1]))
    for cut in list(range(len(data) - last, len(data))):
        with open(path, "wb") as f:
            f.write(data[:cut])
        assert [e.step for e in summary_iterator(path)] == steps[:-1], cut
    with open(path, "wb") as f:   # blocks allocated but never written (a power cut): zeros
        f.write(data[:len(data) - last] + b"\0" * 4096)
    assert [e.step for e in summary_iterator(path)] == steps[:-1]


EXIT_CHILD = """
import os, sys
which, d = sys.argv[1], sys.argv[2]
if which == "tf":
    import tensorflow.compat.v1 as tf
    from tensorflow.core.framework import summary_pb2
    _ctx = tf.Graph().as_default()
    _ctx.__enter__()
else:
    import ref as tf
    from ref.protos import summary_pb2
w = tf.summary.FileWriter(d)
for i in range(50):
    w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="t" * int(sys.argv[3]),
                                                                        simple_value=float(i))]), i)
os._exit(0)
"""


def _count_after_hard_exit(which, d, tag_len):
    import subprocess
    import sys
    from tests.faults import ROOT
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    subprocess.run([sys.executable, "-c", EXIT_CHILD, which, d, str(tag_len)], cwd=ROOT, env=env,
                   timeout=300, check=True, capture_output=True)
    from ref.formats.event_reader import summary_iterator
    (name,) = os.listdir(d)
    return len(list(summary_iterator(os.path.join(d, name))))


@pytest.mark.parametrize("tag_len", [8, 300])
def test_events_on_hard_exit_at_least_as_many_as_tensorflow(tmp_path, tag_len):
    pytest.importorskip("tensorflow")
    ref_n = _count_after_hard_exit("ref", str(tmp_path / "ref"), tag_len)
    tf_n = _count_after_hard_exit("tf", str(tmp_path / "tf"), tag_len)
    assert ref_n >= tf_n, (ref_n, tf_n)
    assert ref_n >= 1 + 50 - 9  # never more than max_queue - 1 events wait in user space
