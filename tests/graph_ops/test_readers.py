"""TF1 readers over a queue of file names: keys, values, counters, end of queue.

Expectations: the record layout written by the test itself (a NumPy/bytes
oracle) and, where installed, tensorflow.compat.v1 reading the same files."""
import gzip
import os
import re
import zlib

import numpy as np
import pytest

import ref
from ref.formats.tfrecord import TFRecordWriter
from ref.graph_ops import io_ops as _under_test  # noqa: F401  (the module these tests cover)


def _files(tmp_path):
    d = tmp_path
    text = d / "a.txt"
    text.write_bytes(b"header\nline 1\nline 2\r\nlast")
    fixed = d / "b.bin"
    fixed.write_bytes(bytes(range(2 + 5 * 3 + 1 + 1)))  # header 2, 5 records of 3, 1 partial byte, footer 1
    rec = str(d / "c.tfrecord")
    with TFRecordWriter(rec) as w:
        for i in range(3):
            w.write(b"record %d" % i)
    recz = str(d / "d.tfrecord")
    with TFRecordWriter(recz, options="GZIP") as w:
        for i in range(2):
            w.write(b"z%d" % i)
    return {"text": str(text), "fixed": str(fixed), "rec": rec, "recz": recz}


# (name, reader factory (tf module, files) -> reader, file key, count of records produced per file)
READERS = [
    ("text", lambda tf, f: tf.TextLineReader(skip_header_lines=1), "text"),
    ("text0", lambda tf, f: tf.TextLineReader(), "text"),
    ("fixed", lambda tf, f: tf.FixedLengthRecordReader(3, header_bytes=2, footer_bytes=1), "fixed"),
    ("fixed_hop", lambda tf, f: tf.FixedLengthRecordReader(4, header_bytes=1, hop_bytes=2), "fixed"),
    ("tfrecord", lambda tf, f: tf.TFRecordReader(), "rec"),
    ("tfrecord_gzip", lambda tf, f: tf.TFRecordReader(options=tf.io.TFRecordOptions("GZIP")), "recz"),
    ("whole", lambda tf, f: tf.WholeFileReader(), "text"),
    ("identity", lambda tf, f: tf.IdentityReader(), "text"),
]

EXPECTED = {
    "text": lambda p: [(f"{p}:{i}".encode(), v) for i, v in [(2, b"line 1"), (3, b"line 2"), (4, b"last")]],
    "text0": lambda p: [(f"{p}:{i}".encode(), v)
                        for i, v in [(1, b"header"), (2, b"line 1"), (3, b"line 2"), (4, b"last")]],
    "fixed": lambda p: [(f"{p}:{i}".encode(), bytes(range(2 + 3 * i, 5 + 3 * i))) for i in range(5)],
    "fixed_hop": lambda p: [(f"{p}:{i}".encode(), bytes(range(1 + 2 * i, 5 + 2 * i))) for i in range(8)],
    # TFRecordReader's key is the byte offset of the frame: 16 framing bytes + the data
    "tfrecord": lambda p: [(f"{p}:{24 * i}".encode(), b"record %d" % i) for i in range(3)],
    "tfrecord_gzip": lambda p: [(f"{p}:{18 * i}".encode(), b"z%d" % i) for i in range(2)],
    "whole": lambda p: [(p.encode(), open(p, "rb").read())],
    "identity": lambda p: [(p.encode(), p.encode())],
}


def _read_all(tf, make, path, use_up_to=False):
    with tf.Graph().as_default(), tf.Session() as s:
        q = tf.FIFOQueue(10, [tf.string], shapes=[[]])
        reader = make(tf, None)
        if use_up_to:
            k, v = reader.read_up_to(q, 2)
        else:
            k, v = reader.read(q)
        s.run(q.enqueue_many([[path, path]]))
        s.run(q.close())
        out = []
        while True:
            try:
                kk, vv = s.run([k, v])
            except tf.errors.OutOfRangeError:
                break
            if use_up_to:
                out.extend(zip(kk.tolist(), vv.tolist()))
            else:
                out.append((kk, vv))
        counts = s.run([reader.num_records_produced(), reader.num_work_units_completed()])
        return out, [int(c) for c in counts]


@pytest.mark.parametrize("name,make,fkey", READERS, ids=[r[0] for r in READERS])
@pytest.mark.parametrize("use_up_to", [False, True])
def test_reader_records(tmp_path, name, make, fkey, use_up_to):
    files = _files(tmp_path)
    path = files[fkey]
    out, counts = _read_all(ref, make, path, use_up_to)
    want = EXPECTED[name](path) * 2
    assert out == want
    assert counts == [len(want), 2]


@pytest.mark.parametrize("name,make,fkey", READERS, ids=[r[0] for r in READERS])
def test_reader_matches_tensorflow(tmp_path, name, make, fkey):
    tf = pytest.importorskip("tensorflow").compat.v1
    files = _files(tmp_path)
    for use_up_to in (False, True):
        assert _read_all(ref, make, files[fkey], use_up_to) == _read_all(tf, make, files[fkey], use_up_to)


def test_fixed_length_compressed(tmp_path):
    data = bytes(range(12))
    for enc, blob in (("ZLIB", zlib.compress(data)), ("GZIP", gzip.compress(data))):
        p = tmp_path / f"f.{enc}"
        p.write_bytes(blob)
        out, _ = _read_all(ref, lambda tf, f: tf.FixedLengthRecordReader(4, encoding=enc), str(p))
        assert [v for _, v in out] == [data[0:4], data[4:8], data[8:12]] * 2


def test_reset_and_missing_file(tmp_path):
    files = _files(tmp_path)
    with ref.Graph().as_default(), ref.Session() as s:
        q = ref.FIFOQueue(10, [ref.string])
        r = ref.TextLineReader()
        k, v = r.read(q)
        s.run(q.enqueue_many([[files["text"], files["text"], str(tmp_path / "missing")]]))
        assert s.run(k) == f"{files['text']}:1".encode()
        s.run(r.reset())
        assert s.run([r.num_records_produced(), r.num_work_units_completed()]) == [0, 0]
        assert s.run(k) == f"{files['text']}:1".encode()  # the next file, from its first line
        s.run(r.reset())
        with pytest.raises(ref.errors.NotFoundError):
            s.run(k)
        with pytest.raises(ref.errors.UnimplementedError):
            s.run(r.serialize_state())


def test_op_names_and_shapes():
    with ref.Graph().as_default():
        q = ref.FIFOQueue(10, [ref.string])
        r = ref.FixedLengthRecordReader(4)
        k, v = r.read(q)
        ks, vs = r.read_up_to(q, 3)
        assert r.reader_ref.op.type == "FixedLengthRecordReaderV2"
        assert (k.op.type, ks.op.type) == ("ReaderReadV2", "ReaderReadUpToV2")
        assert k.shape.as_list() == [] and vs.shape.as_list() == [None]
        assert k.dtype == ref.string


# Reader state (ReaderSerializeStateV2 / ReaderRestoreStateV2): TF's IdentityReader
# and WholeFileReader save a ReaderBaseState proto; its other readers are Unimplemented.
STATE_READERS = [
    ("identity", lambda tf: tf.IdentityReader("test_reader")),
    ("whole_file", lambda tf: tf.WholeFileReader("test_reader")),
    ("text_line", lambda tf: tf.TextLineReader(name="test_reader")),
    ("fixed_length", lambda tf: tf.FixedLengthRecordReader(3, name="test_reader")),
    ("tfrecord", lambda tf: tf.TFRecordReader(name="test_reader")),
]


def _first_line(e):
    """The error's own message, without the node annotations either library adds."""
    m = re.search(r"(Could not parse state|Inconsistent work|Unexpected negative|Reader SerializeState|"
                  r"Reader RestoreState)[^\n]*(\n\w+: [^\n]*)*", e.message)
    # TF's protobuf opens a DebugString with a (random) "goo.gle/..." marker line
    return re.sub(r": *(goo\.gle/\w+)? *\n", ": ", m.group(0))


def _state_session(tf, make, files):
    """Serializes, reads, restores; returns what each step showed (or the error)."""
    out = []
    with tf.Graph().as_default(), tf.Session() as s:
        q = tf.FIFOQueue(99, [tf.string], shapes=[[]])
        r = make(tf)
        k, v = r.read(q)
        counts = [r.num_records_produced(), r.num_work_units_completed()]
        s.run(q.enqueue_many([files]))
        for op in (r.serialize_state(), r.restore_state(b"")):
            try:
                out.append(s.run(op))
            except tf.errors.OpError as e:
                return out + [(type(e).__name__, _first_line(e))]
        out.append(s.run([k, v]))
        state = s.run(r.serialize_state())
        out += [state, s.run(counts), s.run([k, v]), s.run(counts)]
        s.run(r.restore_state(state))
        out += [s.run(counts), s.run(r.serialize_state())]
        s.run(q.enqueue(files[0]))
        out.append(s.run([k, v]))
        for bad in (state[1:], state[:-1], state + b"ExtraJunk", b"PREFIX" + state, b"BOGUS" + state[5:],
                    b"\x08\x02\x10\x01", b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                    b"\x08\x02\x10\x02\x22\x03a\nb"):
            try:
                s.run(r.restore_state(bad))
                out.append(("restored", s.run(counts), s.run(r.serialize_state())))
            except tf.errors.InvalidArgumentError as e:
                out.append((_first_line(e), s.run(counts), s.run(r.serialize_state())))  # reset on error
    return out


@pytest.mark.parametrize("name,make", STATE_READERS, ids=[r[0] for r in STATE_READERS])
def test_reader_state_matches_tensorflow(tmp_path, name, make):
    tf = pytest.importorskip("tensorflow").compat.v1
    files = _files(tmp_path)
    paths = [files["text"], files["fixed"], files["rec"]]
    got, want = _state_session(ref, make, paths), _state_session(tf, make, paths)
    assert got == want
    if name in ("identity", "whole_file"):
        assert len(got) > 10
    else:
        assert got == [("UnimplementedError", "Reader SerializeState")]


def test_identity_reader_serialize_restore_rereads():
    """TF's reader_ops_test testSerializeRestore: restoring rewinds the counters."""
    with ref.Graph().as_default(), ref.Session() as s:
        reader = ref.IdentityReader("test_reader")
        produced = reader.num_records_produced()
        q = ref.FIFOQueue(99, [ref.string], shapes=())
        s.run(q.enqueue_many([["X", "Y", "Z"]]))
        key, value = reader.read(q)
        assert s.run([key, value]) == [b"X", b"X"]
        state = s.run(reader.serialize_state())
        assert isinstance(state, bytes)
        assert [s.run(key) for _ in range(2)] == [b"Y", b"Z"]
        assert s.run(produced) == 3
        s.run(q.enqueue_many([["Y", "Z"]]))
        s.run(q.close())
        s.run(reader.restore_state(state))
        assert s.run(produced) == 1
        assert [s.run(key) for _ in range(2)] == [b"Y", b"Z"]
        with pytest.raises(ref.errors.OutOfRangeError):
            s.run(key)
        for bad in ([], [state, state]):
            with pytest.raises(ValueError, match="Shape must be rank 0"):
                reader.restore_state(bad)
        with pytest.raises(ref.errors.InvalidArgumentError, match="Could not parse state for IdentityReader "
                                                                  "'test_reader'"):
            s.run(reader.restore_state(state[1:]))
