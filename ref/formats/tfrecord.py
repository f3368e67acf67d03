"""TFRecord files: TensorFlow's record framing, written and read.

Each record on disk is (TF's ``core/lib/io/record_writer.cc`` layout)::

    uint64  length                  little-endian
    uint32  masked_crc32c(length)   of the 8 length bytes
    byte    data[length]
    uint32  masked_crc32c(data)

``masked_crc32c`` is CRC32C rotated right by 15 bits plus 0xa282ead8
(:mod:`ref.formats.crc32c`). With ``ZLIB`` or ``GZIP`` compression the whole stream of
framed records is one zlib (RFC 1950) or gzip (RFC 1952) stream, as TF writes
it, and offsets in error messages count uncompressed bytes, as TF's do.

Readers (all verify both CRCs and raise :class:`ref.types.errors.DataLossError`
naming the file and the byte offset of the bad record; none ever yields a
damaged record):

* :func:`tf_record_iterator` -- strict, one pass (``tf.compat.v1.io.
  tf_record_iterator``). A truncated trailing record is an error. (TF itself
  stops silently when fewer than the 12 header bytes remain; ``ref`` reports
  any incomplete tail.)
* :class:`RecordFollower` -- tail-friendly, for files another process is still
  writing. An incomplete trailing record ends the current pass cleanly;
  iterating the same object again resumes from the first record not yet
  returned. :func:`ref.formats.event_reader.summary_iterator` is built on it.

Both read the file in large chunks (:data:`CHUNK_BYTES`) and cut records out
of memory: one system call per chunk, not per record.
"""
from __future__ import annotations

import enum
import os
import struct
import zlib

import google_crc32c

from ref.formats import crc32c as _crc32c
from ref.types import errors

CHUNK_BYTES = 1 << 22
"""Bytes read per system call by the readers."""

_HEADER = struct.Struct("<QI")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_crc = google_crc32c.value  # ref.formats.crc32c.crc32c without its bytes() copy; same checksum
_mask = _crc32c.mask


# -- options ------------------------------------------------------------------

class TFRecordCompressionType(enum.IntEnum):
    """The type of compression for the record (TF's enum values)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_TYPE_STRING = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
                TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """Options used for manipulating TFRecord files (``tf.io.TFRecordOptions``).

    ``compression_type`` is a :class:`TFRecordCompressionType` or one of
    ``""``/``None``, ``"ZLIB"``, ``"GZIP"``. The zlib knobs keep TF's defaults:
    ``window_bits`` 15 (plus 16 for GZIP), ``compression_level`` -1 (zlib's
    default, 6), ``mem_level`` 9 and ``compression_strategy`` 0.
    """

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB",
                            TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        if compression_type is None:
            compression_type = ""
        if isinstance(compression_type, TFRecordCompressionType):
            compression_type = _TYPE_STRING[compression_type]
        if compression_type not in ("", "ZLIB", "GZIP"):
            raise ValueError(f"compression_type must be one of '', 'ZLIB', 'GZIP' "
                             f"or a TFRecordCompressionType, got {compression_type!r}")
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """``""``, ``"ZLIB"`` or ``"GZIP"`` for options given as any accepted form."""
        return _as_options(options).compression_type

    def _wbits(self) -> int:
        bits = self.window_bits or zlib.MAX_WBITS
        return bits + 16 if self.compression_type == "GZIP" else bits

    def _compressor(self):
        if not self.compression_type:
            return None
        level = -1 if self.compression_level is None else self.compression_level
        return zlib.compressobj(level, zlib.DEFLATED, self._wbits(),
                                9 if self.mem_level is None else self.mem_level,
                                self.compression_strategy or 0)

    def _decompressor(self):
        if not self.compression_type:
            return None
        return zlib.decompressobj(self._wbits())


def _as_options(options) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


# -- writing ------------------------------------------------------------------

_KNOWN_HEADERS: dict = {}  # 12 header bytes already verified -> length
_HEADERS: dict = {}   # length -> its 12 framed header bytes (lengths repeat a lot)


def _header(length: int) -> bytes:
    h = _HEADERS.get(length)
    if h is None:
        raw = _U64.pack(length)
        h = raw + _U32.pack(_mask(_crc(raw)))
        if len(_HEADERS) < 4096:
            _HEADERS[length] = h
    return h


def encode_record(data: bytes) -> bytes:
    """One framed record: length, its masked CRC, the data, the data's masked CRC."""
    return b"".join((_header(len(data)), data, _U32.pack(_mask(_crc(data)))))


def encode_records(records) -> bytes:
    """Many framed records at once (the event writer's batch path); the same
    bytes as joining :func:`encode_record` of each."""
    parts = []
    add = parts.append
    headers, header, pack, crc = _HEADERS, _header, _U32.pack, _crc
    for data in records:
        h = headers.get(len(data))
        add(h if h is not None else header(len(data)))
        add(data)
        c = crc(data)  # masked inline: ref.formats.crc32c.mask, rotate right 15 then add the delta
        add(pack(((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF))
    return b"".join(parts)


class TFRecordWriter:
    """A class to write records to a TFRecords file (``tf.io.TFRecordWriter``).

    ``write`` frames the record and appends it (through zlib when the options
    ask for compression); ``flush`` pushes everything written so far to the
    operating system, so a reader sees whole records; ``close`` finishes the
    compressed stream and closes the file. Usable as a context manager.
    """

    def __init__(self, path, options=None, *, mode="wb", buffering=1 << 20):
        self._path = os.fspath(path)
        self._options = _as_options(options)
        try:
            self._file = open(self._path, mode, buffering=buffering)
        except FileNotFoundError as e:
            raise errors.NotFoundError(None, None, f"{self._path}; No such file or directory") from e
        self._compressor = self._options._compressor()

    @property
    def path(self) -> str:
        return self._path

    def write(self, record):
        """Writes ``record`` (bytes, or str encoded as UTF-8) to the file."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        self.write_raw(encode_record(bytes(record)))

    def write_raw(self, framed: bytes):
        """Appends already framed records (see :func:`encode_records`)."""
        if self._file is None:
            raise ValueError(f"write to closed TFRecordWriter ({self._path})")
        if self._compressor is not None:
            framed = self._compressor.compress(framed)
        self._file.write(framed)

    def flush(self):
        """Flushes the file: every record written so far becomes readable."""
        if self._file is None:
            return
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        """Flushes and closes the file (ends the compressed stream)."""
        if self._file is None:
            return
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FINISH))
            self._compressor = None
        self._file.close()
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        f = getattr(self, "_file", None)
        if f is not None and not f.closed:
            self.close()


# -- reading ------------------------------------------------------------------

class RecordFollower:
    """Reads the records of a TFRecord file, possibly one still being written.

    Iterating yields every complete record not yet returned, then stops. With
    ``strict=False`` (the default here) an incomplete trailing record just
    ends the pass, and iterating again later picks up where it stopped, so a
    reader can follow a live event file::

        records = RecordFollower(path)
        while True:
            for r in records: ...
            time.sleep(1)

    With ``strict=True`` an incomplete trailing record raises DataLossError.
    A record whose CRC does not match always raises DataLossError naming the
    file and offset (the records before it are returned first).
    """

    def __init__(self, path, options=None, strict=False, max_record_bytes=None):
        self.path = os.fspath(path)
        self.strict = strict
        self._max_record = max_record_bytes
        self._options = _as_options(options)
        try:
            self._file = open(self.path, "rb", buffering=0)
        except FileNotFoundError as e:
            raise errors.NotFoundError(None, None, f"{self.path}; No such file or directory") from e
        self._decompressor = self._options._decompressor()
        self._fed = False          # the current decompressor has consumed input
        self._buf = b""            # bytes read but not yet cut into records
        self._offset = 0           # stream offset of _buf[0]
        self._raw_offset = 0       # bytes read from the file
        self._ready = []           # records cut out, returned in order (reversed list)
        self._error = None         # DataLossError to raise once _ready is empty
        self._need = 0             # bytes still missing from a record known to be long

    @property
    def offset(self) -> int:
        """Stream offset of the next record not yet cut out of the buffer."""
        return self._offset

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):
        f = getattr(self, "_file", None)
        if f is not None:
            f.close()

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        ready = self._ready
        if ready:
            return ready.pop()
        while self._error is None:
            if self._fill():
                self._cut()
                ready = self._ready
                if ready:
                    return ready.pop()
            else:
                self._end_of_data()
                raise StopIteration
        raise self._error

    def next_batch(self) -> list:
        """Every complete record available now and not yet returned, in file
        order; ``[]`` at the end of the data. Raises like ``__next__``."""
        while not self._ready:
            if self._error is not None:
                raise self._error
            if not self._fill():
                self._end_of_data()
                return []
            self._cut()
        batch = self._ready[::-1]
        self._ready = []
        return batch

    def _fill(self) -> bool:
        """Appends the next chunk of (decompressed) bytes to the buffer; False at EOF."""
        if self._file is None:
            return False
        while True:
            want = CHUNK_BYTES
            if self._need > CHUNK_BYTES and self._decompressor is None:
                # one read for a long record, but never more than the file holds:
                # a header's length is a claim, not an allocation
                left = os.fstat(self._file.fileno()).st_size - self._raw_offset
                want = max(CHUNK_BYTES, min(self._need, left))
            raw = self._file.read(want)
            if not raw:
                return False
            start = self._raw_offset
            self._raw_offset += len(raw)
            data = raw if self._decompressor is None else self._inflate(raw, start)
            if data:
                self._buf = self._buf + data if self._buf else data
                return True

    def _inflate(self, raw: bytes, raw_offset: int) -> bytes:
        out = []
        while raw:
            self._fed = True
            try:
                out.append(self._decompressor.decompress(raw))
            except zlib.error as e:
                raise errors.DataLossError(
                    None, None, f"corrupted compressed stream in {self.path} "
                                f"(compressed bytes from offset {raw_offset}): {e}") from e
            raw = self._decompressor.unused_data
            if self._decompressor.eof:   # another gzip member / zlib stream may follow
                self._decompressor = self._options._decompressor()
                self._fed = False
        return b"".join(out)

    def _cut(self):
        """Cuts every complete record out of the buffer, checking both CRCs."""
        buf, pos, n = self._buf, 0, len(self._buf)
        self._need = 0
        out = []
        add = out.append
        header, u32, crc, mask = _HEADER.unpack_from, _U32.unpack_from, _crc, _mask
        known, starts = _KNOWN_HEADERS, buf.startswith
        last, last_length = _header(0), 0        # a valid header: the one last seen
        while n - pos >= 12:
            if starts(last, pos):                # consecutive records often share a length
                length = last_length
            else:
                last = buf[pos:pos + 12]
                length = known.get(last)
                if length is None:
                    length, length_crc = header(buf, pos)
                    if mask(crc(buf[pos:pos + 8])) != length_crc:
                        if not self.strict and not buf[pos:].strip(b"\0"):
                            break   # zeros to the end: a tail torn by a crash (blocks allocated, not written)
                        self._error = errors.DataLossError(
                            None, None, f"corrupted record at {self._offset + pos} in {self.path}: "
                                        f"length CRC mismatch (is this a TFRecord file?)")
                        break
                    if len(known) < 4096:
                        known[last] = length
                last_length = length
                if self._max_record is not None and length > self._max_record:
                    self._error = errors.DataLossError(
                        None, None, f"corrupted record at {self._offset + pos} in {self.path}: header claims "
                                    f"{length} bytes, more than a record here can hold ({self._max_record})")
                    break
            end = pos + 12 + length
            if end + 4 > n:
                self._need = end + 4 - n
                break
            data = buf[pos + 12:end]
            c = crc(data)
            if ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF != u32(buf, end)[0]:
                self._error = errors.DataLossError(
                    None, None, f"corrupted record at {self._offset + pos} in {self.path}: "
                                f"data CRC mismatch (data at offset {self._offset + pos + 12})")
                break
            add(data)
            pos = end + 4
        self._buf = buf[pos:]
        self._offset += pos
        out.reverse()
        self._ready = out

    def _end_of_data(self):
        """At end of file: in strict mode, anything left over is a truncation."""
        if not self.strict:
            return
        left = len(self._buf)
        if left:
            if left >= 12:
                (length,) = _U64.unpack_from(self._buf, 0)
                detail = f"header says {length} data bytes, {left - 12} present"
            else:
                detail = f"only {left} of the 12 header bytes present"
            raise errors.DataLossError(
                None, None, f"truncated record at {self._offset} in {self.path}: {detail}")
        if self._decompressor is not None and self._fed:
            raise errors.DataLossError(
                None, None, f"truncated compressed stream in {self.path} "
                            f"(ends at compressed byte {self._raw_offset})")

    def records(self) -> list:
        """Every complete record available now (one pass)."""
        return list(self)


def tf_record_iterator(path, options=None):
    """An iterator that reads the records from a TFRecords file.

    ``tf.compat.v1.io.tf_record_iterator(path, options=None)``: yields each
    record as bytes. Raises DataLossError (naming the file and offset) on a CRC
    mismatch or a truncated record, NotFoundError if the file does not exist.
    """
    follower = RecordFollower(path, options, strict=True)
    try:
        yield from follower
    finally:
        follower.close()
