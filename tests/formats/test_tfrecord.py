"""TFRecord framing: round trips, compression, TensorFlow interop, corruption."""
import os
import struct
import zlib

import google_crc32c
import pytest

from ref.types import errors
from ref.formats import tfrecord
from ref.formats.tfrecord import (RecordFollower, TFRecordCompressionType, TFRecordOptions,
                                 TFRecordWriter, tf_record_iterator)

RECORD_SETS = {
    "empty-file": [],
    "one-empty-record": [b""],
    "small": [b"a", b"bc", b"hello world" * 3],
    "mixed-sizes": [bytes(range(i % 256)) * (i % 5) for i in range(60)],
    "large": [os.urandom(300_000), b"tail"],
}
COMPRESSIONS = ["", "ZLIB", "GZIP"]


def _masked(data: bytes) -> int:
    """Independent oracle: TF's masked CRC32C written out from its definition (crc32c.h)."""
    crc = google_crc32c.value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _frame(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _masked(length)) + data + struct.pack("<I", _masked(data))


def _write(path, records, compression=""):
    with TFRecordWriter(path, TFRecordOptions(compression)) as w:
        for r in records:
            w.write(r)


@pytest.mark.parametrize("name", list(RECORD_SETS))
def test_uncompressed_bytes_are_the_framing(tmp_path, name):
    records = RECORD_SETS[name]
    path = tmp_path / "r.tfrecord"
    _write(path, records)
    assert path.read_bytes() == b"".join(_frame(r) for r in records)
    assert tfrecord.encode_records(records) == b"".join(_frame(r) for r in records)


@pytest.mark.parametrize("chunk", [5, 64, tfrecord.CHUNK_BYTES])
@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("name", list(RECORD_SETS))
def test_round_trip(tmp_path, monkeypatch, name, compression, chunk):
    monkeypatch.setattr(tfrecord, "CHUNK_BYTES", chunk)
    records = RECORD_SETS[name]
    path = tmp_path / "r.tfrecord"
    _write(path, records, compression)
    assert list(tf_record_iterator(path, TFRecordOptions(compression))) == records
    assert list(tf_record_iterator(str(path), compression)) == records  # options as a string
    if compression:
        wbits = 31 if compression == "GZIP" else 15
        assert zlib.decompress(path.read_bytes(), wbits) == b"".join(_frame(r) for r in records)


@pytest.mark.parametrize("given,expected", [
    (None, ""), ("", ""), ("ZLIB", "ZLIB"), ("GZIP", "GZIP"),
    (TFRecordCompressionType.NONE, ""), (TFRecordCompressionType.ZLIB, "ZLIB"),
    (TFRecordCompressionType.GZIP, "GZIP"), (TFRecordOptions("GZIP"), "GZIP"),
])
def test_compression_type_string(given, expected):
    assert TFRecordOptions.get_compression_type_string(given) == expected


def test_bad_compression_type():
    with pytest.raises(ValueError, match="compression_type"):
        TFRecordOptions("LZ4")


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("name", ["small", "mixed-sizes", "large"])
def test_tensorflow_reads_ref_and_ref_reads_tensorflow(tmp_path, name, compression):
    tf = pytest.importorskip("tensorflow")
    records = RECORD_SETS[name]
    ours, theirs = tmp_path / "ours.tfrecord", tmp_path / "theirs.tfrecord"
    _write(ours, records, compression)
    opts = tf.io.TFRecordOptions(compression)
    assert list(tf.compat.v1.io.tf_record_iterator(str(ours), opts)) == records
    with tf.io.TFRecordWriter(str(theirs), opts) as w:
        for r in records:
            w.write(r)
    assert list(tf_record_iterator(theirs, compression)) == records


def test_flush_makes_records_readable_while_open(tmp_path):
    path = tmp_path / "live.tfrecord"
    for compression in COMPRESSIONS:
        w = TFRecordWriter(path, compression)
        w.write(b"first")
        w.write("second")          # str is written as UTF-8
        w.flush()
        assert list(RecordFollower(path, compression)) == [b"first", b"second"]
        w.close()


# -- corruption ---------------------------------------------------------------

RECORDS = [b"alpha" * 3, b"bravo-bravo", b"charlie" * 5]
OFFSETS = [0, 12 + 15 + 4, 2 * 12 + 15 + 11 + 2 * 4]   # where each record starts
END = OFFSETS[2] + 12 + 35 + 4


def _flip(data: bytes, at: int) -> bytes:
    b = bytearray(data)
    b[at] ^= 0x10
    return bytes(b)


def _lie_about_length(data: bytes, record: int, delta: int) -> bytes:
    """A header with a wrong length but a CRC that matches it."""
    off = OFFSETS[record]
    (length,) = struct.unpack_from("<Q", data, off)
    fake = struct.pack("<Q", length + delta)
    return data[:off] + fake + struct.pack("<I", _masked(fake)) + data[off + 12:]


# (name, mutation, message fragment, offset named, records read before the error, TF raises too)
CORRUPTIONS = [
    ("length-bit", lambda d: _flip(d, OFFSETS[1] + 2), "length CRC mismatch", OFFSETS[1], 1, True),
    ("length-crc-bit", lambda d: _flip(d, OFFSETS[1] + 9), "length CRC mismatch", OFFSETS[1], 1, True),
    ("data-bit", lambda d: _flip(d, OFFSETS[1] + 14), "data CRC mismatch", OFFSETS[1], 1, True),
    ("data-crc-bit", lambda d: _flip(d, OFFSETS[2] - 1), "data CRC mismatch", OFFSETS[1], 1, True),
    ("first-record-bit", lambda d: _flip(d, 13), "data CRC mismatch", 0, 0, True),
    ("wrong-length-longer", lambda d: _lie_about_length(d, 1, 3), "data CRC mismatch", OFFSETS[1], 1, True),
    ("wrong-length-shorter", lambda d: _lie_about_length(d, 0, -2), "data CRC mismatch", 0, 0, True),
    ("wrong-length-last", lambda d: _lie_about_length(d, 2, 100), "truncated record", OFFSETS[2], 2, True),
    ("truncated-data", lambda d: d[:OFFSETS[2] + 20], "truncated record", OFFSETS[2], 2, True),
    ("truncated-crc", lambda d: d[:END - 1], "truncated record", OFFSETS[2], 2, True),
    # TF stops silently when fewer than 12 header bytes are left; ref reports it.
    ("truncated-header", lambda d: d[:OFFSETS[2] + 5], "truncated record", OFFSETS[2], 2, False),
    ("garbage-file", lambda d: b"this is not a TFRecord file at all", "length CRC mismatch", 0, 0, True),
]


@pytest.mark.parametrize("name,mutate,fragment,offset,n_good,tf_raises", CORRUPTIONS,
                         ids=[c[0] for c in CORRUPTIONS])
def test_corruption_raises_data_loss_naming_file_and_offset(tmp_path, name, mutate, fragment, offset,
                                                            n_good, tf_raises):
    path = tmp_path / "bad.tfrecord"
    _write(path, RECORDS)
    assert len(path.read_bytes()) == END
    path.write_bytes(mutate(path.read_bytes()))
    got = []
    with pytest.raises(errors.DataLossError) as info:
        for r in tf_record_iterator(path):
            got.append(r)
    assert got == RECORDS[:n_good]          # never a wrong value
    message = info.value.message
    assert fragment in message and str(path) in message and f"at {offset} " in message
    assert info.value.error_code == errors.DATA_LOSS
    tf = pytest.importorskip("tensorflow")
    if tf_raises:
        with pytest.raises(tf.errors.DataLossError):
            list(tf.compat.v1.io.tf_record_iterator(str(path)))


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_compressed_file(tmp_path, compression, cut):
    path = tmp_path / "c.tfrecord"
    _write(path, RECORD_SETS["mixed-sizes"], compression)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * cut)])
    got = []
    with pytest.raises(errors.DataLossError, match=str(path).replace("\\", "\\\\")):
        for r in tf_record_iterator(path, compression):
            got.append(r)
    assert got == RECORD_SETS["mixed-sizes"][:len(got)]


def test_corrupt_compressed_stream(tmp_path):
    path = tmp_path / "c.tfrecord"
    _write(path, RECORD_SETS["mixed-sizes"], "ZLIB")
    path.write_bytes(_flip(path.read_bytes(), 0))   # breaks the zlib header
    with pytest.raises(errors.DataLossError, match="corrupted compressed stream"):
        list(tf_record_iterator(path, "ZLIB"))


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError):
        list(tf_record_iterator(tmp_path / "nope.tfrecord"))


# -- following a live file ----------------------------------------------------

@pytest.mark.parametrize("split", [3, 12, 20])   # inside the header, inside the data, inside the CRC
def test_follower_resumes_after_incomplete_tail(tmp_path, split):
    path = tmp_path / "live.tfrecord"
    third = _frame(RECORDS[2])
    path.write_bytes(_frame(RECORDS[0]) + _frame(RECORDS[1]) + third[:split])
    follower = RecordFollower(path)
    assert list(follower) == RECORDS[:2]
    assert list(follower) == []                     # still incomplete: nothing, no error
    with pytest.raises(errors.DataLossError, match="truncated record"):
        list(RecordFollower(path, strict=True))
    with open(path, "ab") as f:
        f.write(third[split:] + _frame(b"fourth"))
    assert list(follower) == [RECORDS[2], b"fourth"]
    assert follower.offset == len(path.read_bytes())
