"""Reader kernels: the TF1 readers over a queue of file names, and the ops that
use them (ReaderReadV2, ReaderReadUpToV2, ReaderNumRecordsProducedV2,
ReaderNumWorkUnitsCompletedV2, ReaderResetV2, ReaderSerializeStateV2,
ReaderRestoreStateV2).

A reader is a session resource, found as the queues are (``ctx.resources``,
keyed by ``container`` and ``shared_name`` or the op's own name). ``read``
takes the next work unit (a file name) from the queue when the current one is
exhausted; the key of a record is ``b"<file name>:<record number>"`` (TF's
``ReaderBase``), counting from 0, except for TextLineReader, whose key is the
line number counting from 1 (skipped header lines included), and
TFRecordReader, whose key is the byte offset of the record's frame. When the queue is
closed and empty the dequeue's OutOfRangeError propagates, as in TF.
"""
from __future__ import annotations

import threading
import zlib

import numpy as np

from ref.formats import tfrecord
from ref.types import dtypes, errors
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.ops.data_flow import _lookup_or_create, _queue
from ref.types.shapes import TensorShape


def _as_bytes(v) -> bytes:
    return v.encode() if isinstance(v, str) else bytes(v)


class ReaderBase:
    """The state every reader keeps: the current work unit and the counters."""

    op_type = "ReaderBase"
    _single_record = False  # each work unit is exactly one record

    def __init__(self, name, node_name=None):
        self.name = name
        # TF's reader name in messages: "IdentityReader 'node'"
        self.display_name = f"{self.op_type[:-2]} '{node_name or self.op_type}'"
        self._lock = threading.Lock()
        self.reset()

    def reset(self):
        self.work = b""             # the last work unit (file name) started; b"" after a reset
        self.records_produced = 0   # over all work units
        self.work_units_started = 0
        self.work_units_completed = 0
        self._records = None        # iterator over (key, value) of the current unit

    # -- what a subclass provides -------------------------------------------------
    def _open(self, filename: bytes):
        """An iterator of ``(key, value)`` bytes pairs for one work unit."""
        raise NotImplementedError

    # -- the ops ---------------------------------------------------------------------------
    def read_up_to(self, queue, n):
        keys, values = [], []
        with self._lock:
            while len(keys) < n:
                if self._records is None:
                    if keys:  # TF returns what it has rather than waiting for a new file
                        break
                    unit = queue.dequeue()
                    if len(unit) != 1 or np.ndim(unit[0]) != 0:
                        raise invalid_argument("Expected to dequeue a one-element string tensor")
                    self.work = _as_bytes(unit[0].item() if isinstance(unit[0], np.ndarray) else unit[0])
                    self._records = self._open(self.work)
                    self.work_units_started += 1
                try:
                    k, v = next(self._records)
                except StopIteration:
                    self._records = None
                    self.work_units_completed = self.work_units_started
                    continue
                keys.append(k)
                values.append(v)
                self.records_produced += 1
                if self._single_record:  # TF: the one record comes with at_end, finishing the unit
                    self._records = None
                    self.work_units_completed = self.work_units_started
        return keys, values

    def serialize_state(self) -> bytes:
        """TF's ReaderBase: Unimplemented (only IdentityReader and
        WholeFileReader, whose whole state is the base state, override it)."""
        raise errors.UnimplementedError(None, None, "Reader SerializeState")

    def restore_state(self, state):
        raise errors.UnimplementedError(None, None, "Reader RestoreState")

    # -- the base state as a ReaderBaseState proto (for the readers that save it) ------------------
    def _serialize_base_state(self) -> bytes:
        """``ReaderBaseState{work_started=1, work_finished=2,
        num_records_produced=3, current_work=4}`` in proto3 wire format
        (zero fields omitted), written by hand: kernels do not load protobuf."""
        out = bytearray()
        for number, value in ((1, self.work_units_started), (2, self.work_units_completed),
                              (3, self.records_produced)):
            if value:
                out += _varint(number << 3) + _varint(value & 0xFFFFFFFFFFFFFFFF)
        if self.work:
            out += _varint(4 << 3 | 2) + _varint(len(self.work)) + self.work
        return bytes(out)

    def _restore_base_state(self, state: bytes) -> None:
        """Restores the counters and the current work unit; on any error the
        reader is reset (TF's RestoreState), and the error names the reader."""
        try:
            fields = _parse_reader_base_state(state)
            if fields is None:
                raise invalid_argument(f"Could not parse state for {self.display_name}: {_c_escape(state)}")
            started, finished, produced, work = fields
            debug = "".join(f"{k}: {v}\n" for k, v in (("work_started", started), ("work_finished", finished),
                                                        ("num_records_produced", produced)) if v)
            debug += f'current_work: "{_c_escape(work)}"\n' if work else ""
            if started < 0 or finished < 0 or produced < 0:
                raise invalid_argument(f"Unexpected negative value when restoring in {self.display_name}: {debug}")
            if started > finished:  # TF's check: a restored reader has no work unit in progress
                raise invalid_argument(f"Inconsistent work started vs. finished when restoring in "
                                       f"{self.display_name}: {debug}")
        except errors.OpError:
            self.reset()
            raise
        self.work_units_started, self.work_units_completed, self.records_produced = started, finished, produced
        self.work, self._records = work, None

    def close(self):
        """Session teardown: nothing is held open between reads."""


class _BaseStateReader(ReaderBase):
    """A reader whose whole state is the base state (TF: IdentityReader and
    WholeFileReader save it as a ReaderBaseState proto); each work unit is
    one record."""

    _single_record = True

    def serialize_state(self) -> bytes:
        return self._serialize_base_state()

    def restore_state(self, state):
        state = state.item() if isinstance(state, np.ndarray) else state
        with self._lock:
            self._restore_base_state(_as_bytes(state))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _read_varint(data: bytes, i: int):
    """(value, next index), or None for a truncated or over-long varint."""
    value = shift = 0
    while i < len(data) and shift < 70:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return (value & 0xFFFFFFFFFFFFFFFF if shift == 63 else value), i
        shift += 7
    return None


def _parse_reader_base_state(data: bytes):
    """``(work_started, work_finished, num_records_produced, current_work)``
    from ReaderBaseState wire bytes (unknown fields skipped, last value
    wins), or None when the bytes do not parse."""
    fields = [0, 0, 0, b""]
    i = 0
    while i < len(data):
        tag = _read_varint(data, i)
        if tag is None:
            return None
        tag, i = tag
        number, wire = tag >> 3, tag & 7
        if number == 0:
            return None
        if wire == 0:
            v = _read_varint(data, i)
            if v is None:
                return None
            v, i = v
            if 1 <= number <= 3:
                v &= 0xFFFFFFFFFFFFFFFF
                fields[number - 1] = v - (1 << 64) if v >= 1 << 63 else v
        elif wire == 2:
            n = _read_varint(data, i)
            if n is None or n[1] + n[0] > len(data):
                return None
            n, i = n
            if number == 4:
                fields[3] = bytes(data[i:i + n])
            i += n
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
            if i > len(data):
                return None
        else:  # groups and invalid wire types
            return None
    return tuple(fields)


def _c_escape(data: bytes) -> str:
    """absl::CEscape: \\n \\r \\t \\" \\' \\\\ and octal for other non-printable bytes."""
    special = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}
    return "".join(special.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in data)


def _key(filename: bytes, number: int) -> bytes:
    return filename + b":" + str(number).encode()


def _read_file(filename: bytes) -> bytes:
    try:
        with open(filename, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{filename.decode(errors='replace')}; No such file or directory")


class WholeFileReader(_BaseStateReader):
    """Each file is one record: key the file name, value its contents."""

    op_type = "WholeFileReaderV2"

    def _open(self, filename):
        yield filename, _read_file(filename)


class IdentityReader(_BaseStateReader):
    """Each work unit is one record: key and value are the work unit itself."""

    op_type = "IdentityReaderV2"

    def _open(self, filename):
        yield filename, filename


class TextLineReader(ReaderBase):
    """One record per line (without its ``\\n``; a ``\\r`` before it is dropped
    too), after skipping ``skip_header_lines``; key ``file:line`` from 1."""

    op_type = "TextLineReaderV2"

    def __init__(self, name, skip_header_lines=0, node_name=None):
        self.skip_header_lines = skip_header_lines
        super().__init__(name, node_name)

    def _open(self, filename):
        data = _read_file(filename)
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for i, line in enumerate(lines):
            if i < self.skip_header_lines:
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            yield _key(filename, i + 1), line


class FixedLengthRecordReader(ReaderBase):
    """Records of ``record_bytes`` bytes between a ``header_bytes`` header and a
    ``footer_bytes`` footer, each starting ``hop_bytes`` after the previous one
    (``hop_bytes`` 0: ``record_bytes``); a trailing partial record is dropped.
    ``encoding`` "" or "ZLIB"/"GZIP" (the whole file compressed)."""

    op_type = "FixedLengthRecordReaderV2"

    def __init__(self, name, record_bytes, header_bytes=0, footer_bytes=0, hop_bytes=0, encoding="", node_name=None):
        if record_bytes <= 0:
            raise invalid_argument(f"record_bytes must be > 0 but is {record_bytes}")
        if header_bytes < 0 or footer_bytes < 0 or hop_bytes < 0:
            raise invalid_argument("header_bytes, footer_bytes and hop_bytes must be >= 0")
        self.record_bytes, self.header_bytes, self.footer_bytes = record_bytes, header_bytes, footer_bytes
        self.hop_bytes, self.encoding = hop_bytes, encoding
        super().__init__(name, node_name)

    def _open(self, filename):
        data = _read_file(filename)
        if self.encoding:
            data = zlib.decompress(data, 15 + (16 if self.encoding == "GZIP" else 0))
        end = len(data) - self.footer_bytes
        hop = self.hop_bytes or self.record_bytes
        pos, number = self.header_bytes, 0
        while pos + self.record_bytes <= end:
            yield _key(filename, number), data[pos:pos + self.record_bytes]
            pos += hop
            number += 1


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (``compression_type`` "", "ZLIB" or "GZIP");
    as in TF, a record's key is ``file:offset``, the byte offset of its frame
    in the (uncompressed) file."""

    op_type = "TFRecordReaderV2"

    def __init__(self, name, compression_type="", node_name=None):
        self.compression_type = compression_type
        super().__init__(name, node_name)

    def _open(self, filename):
        path = filename.decode()
        offset = 0
        for record in tfrecord.tf_record_iterator(path, self.compression_type or None):
            yield _key(filename, offset), record
            offset += len(record) + 16


# ---------------------------------------------------------------------------
# Reader ops
# ---------------------------------------------------------------------------

_HANDLE = fixed_rule((dtypes.resource, TensorShape([])))
_SCALAR_STR = (dtypes.string, TensorShape([]))
_SCALAR_I64 = (dtypes.int64, TensorShape([]))


def _make(ctx, op_type, container, shared_name, cls, **kwargs):
    node = getattr(ctx, "op_name", None)
    return _lookup_or_create(ctx, op_type, container, shared_name, lambda name: cls(name, node_name=node, **kwargs))


@register_op("WholeFileReaderV2", outputs=("reader_handle",), attrs={"container": "", "shared_name": ""},
             shape=_HANDLE, stateful=True, ctx=True)
def whole_file_reader_v2(container="", shared_name="", ctx=None):
    """A reader whose records are whole files (key: file name)."""
    return _make(ctx, "WholeFileReaderV2", container, shared_name, WholeFileReader)


@register_op("IdentityReaderV2", outputs=("reader_handle",), attrs={"container": "", "shared_name": ""},
             shape=_HANDLE, stateful=True, ctx=True)
def identity_reader_v2(container="", shared_name="", ctx=None):
    """A reader whose records are the work units themselves (key = value)."""
    return _make(ctx, "IdentityReaderV2", container, shared_name, IdentityReader)


@register_op("TextLineReaderV2", outputs=("reader_handle",),
             attrs={"skip_header_lines": 0, "container": "", "shared_name": ""},
             shape=_HANDLE, stateful=True, ctx=True)
def text_line_reader_v2(skip_header_lines=0, container="", shared_name="", ctx=None):
    """A reader of the lines of files (key ``file:line``, lines counted from 1)."""
    return _make(ctx, "TextLineReaderV2", container, shared_name, TextLineReader,
                 skip_header_lines=skip_header_lines)


@register_op("FixedLengthRecordReaderV2", outputs=("reader_handle",),
             attrs={"header_bytes": 0, "record_bytes": REQUIRED, "footer_bytes": 0, "hop_bytes": 0,
                    "container": "", "shared_name": "", "encoding": ""},
             shape=_HANDLE, stateful=True, ctx=True)
def fixed_length_record_reader_v2(record_bytes, header_bytes=0, footer_bytes=0, hop_bytes=0, container="",
                                  shared_name="", encoding="", ctx=None):
    """A reader of fixed-length records (key ``file:record``, from 0)."""
    return _make(ctx, "FixedLengthRecordReaderV2", container, shared_name, FixedLengthRecordReader,
                 record_bytes=record_bytes, header_bytes=header_bytes, footer_bytes=footer_bytes,
                 hop_bytes=hop_bytes, encoding=encoding)


@register_op("TFRecordReaderV2", outputs=("reader_handle",),
             attrs={"container": "", "shared_name": "", "compression_type": ""},
             shape=_HANDLE, stateful=True, ctx=True)
def tf_record_reader_v2(container="", shared_name="", compression_type="", ctx=None):
    """A reader of the records of TFRecord files (key ``file:record``, from 0)."""
    return _make(ctx, "TFRecordReaderV2", container, shared_name, TFRecordReader,
                 compression_type=compression_type)


def _reader(handle) -> ReaderBase:
    r = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(r, ReaderBase):
        raise invalid_argument(f"Expected a reader handle, got {type(r).__name__}")
    return r


def _strings(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


@register_op("ReaderReadV2", inputs=("reader_handle", "queue_handle"), outputs=("key", "value"),
             shape=fixed_rule(_SCALAR_STR, _SCALAR_STR), stateful=True)
def reader_read_v2(reader_handle, queue_handle):
    """The next record: (key, value); dequeues a new file when the current one
    is done (OutOfRangeError once the queue is closed and empty)."""
    keys, values = _reader(reader_handle).read_up_to(_queue(queue_handle), 1)
    return np.array(keys[0], dtype=object), np.array(values[0], dtype=object)


@register_op("ReaderReadUpToV2", inputs=("reader_handle", "queue_handle", "num_records"),
             outputs=("keys", "values"), input_types={"num_records": dtypes.int64},
             shape=fixed_rule((dtypes.string, TensorShape([None])), (dtypes.string, TensorShape([None]))),
             stateful=True)
def reader_read_up_to_v2(reader_handle, queue_handle, num_records):
    """Up to ``num_records`` records, never more than the current file holds."""
    n = int(num_records)
    if n <= 0:
        raise invalid_argument(f"num_records ({n}) must be > 0")
    keys, values = _reader(reader_handle).read_up_to(_queue(queue_handle), n)
    return _strings(keys), _strings(values)


@register_op("ReaderNumRecordsProducedV2", inputs=("reader_handle",), outputs=("records_produced",),
             shape=fixed_rule(_SCALAR_I64), stateful=True)
def reader_num_records_produced_v2(reader_handle):
    """The number of records this reader has produced."""
    return np.int64(_reader(reader_handle).records_produced)


@register_op("ReaderNumWorkUnitsCompletedV2", inputs=("reader_handle",), outputs=("units_completed",),
             shape=fixed_rule(_SCALAR_I64), stateful=True)
def reader_num_work_units_completed_v2(reader_handle):
    """The number of work units (files) this reader has finished."""
    return np.int64(_reader(reader_handle).work_units_completed)


@register_op("ReaderResetV2", inputs=("reader_handle",), outputs=(), shape=fixed_rule(), stateful=True)
def reader_reset_v2(reader_handle):
    """Back to the initial state: no current file, counters at 0."""
    r = _reader(reader_handle)
    with r._lock:
        r.reset()
    return ()


@register_op("ReaderSerializeStateV2", inputs=("reader_handle",), outputs=("state",),
             shape=fixed_rule(_SCALAR_STR), stateful=True)
def reader_serialize_state_v2(reader_handle):
    """The reader's state as a string: a serialized ReaderBaseState for
    IdentityReader and WholeFileReader; UnimplementedError for the others,
    as in TF."""
    return np.array(_reader(reader_handle).serialize_state(), dtype=object)


def _restore_state_shape(ins, attrs):
    state = ins["state"].shape
    if state.ndims is not None and state.ndims != 0:
        dims = ",".join("?" if d is None else str(d) for d in state.as_list())
        raise ValueError(f"Shape must be rank 0 but is rank {state.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'ReaderRestoreStateV2') with input shapes: [], [{dims}].")
    return []


@register_op("ReaderRestoreStateV2", inputs=("reader_handle", "state"), outputs=(), shape=_restore_state_shape,
             stateful=True)
def reader_restore_state_v2(reader_handle, state):
    """Restores a state written by ReaderSerializeStateV2 (InvalidArgumentError,
    and the reader reset, when it does not parse or is inconsistent)."""
    _reader(reader_handle).restore_state(state)
    return ()
