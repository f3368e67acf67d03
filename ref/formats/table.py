"""The sorted string table TensorFlow keeps checkpoint indexes in.

TF's ``tensorflow/core/lib/io/table*.cc`` is LevelDB's table format. A file is

    data block 0 .. data block N-1     sorted key -> value entries
    metaindex block                    always empty in TF
    index block                        one entry per data block: separator key -> BlockHandle
    footer (48 bytes)                  metaindex handle, index handle, zero padding, magic

Every block is followed by a 5-byte trailer: the compression type (0 none,
1 snappy) and the masked CRC32C of ``block contents + type byte``.

A block holds entries ``varint32 shared | varint32 non_shared | varint32
value_length | key[shared:] | value``: each key stores only what it does not
share with the key before it, except at a *restart point* (every 16th entry,
and every entry of the index block) where ``shared`` is 0. The block ends with
the restart offsets (fixed32 each) and their count (fixed32).

A ``BlockHandle`` is ``varint64 offset | varint64 size`` (size excludes the
trailer). The footer pads both handles to 40 bytes and ends with the fixed64
magic number 0xdb4775248b80fb57.
"""
from __future__ import annotations

import bisect
import struct

from ref.formats import crc32c as _crc
from ref.types import errors

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_TRAILER_SIZE = 5
NO_COMPRESSION = 0
SNAPPY_COMPRESSION = 1
# TF's table::Options defaults (table_options.h).
BLOCK_SIZE = 262144
BLOCK_RESTART_INTERVAL = 16


# -- varints ------------------------------------------------------------------
def put_varint(out: bytearray, value: int) -> None:
    """Appends ``value`` as a little-endian base-128 varint (coding.cc)."""
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def get_varint(buf, pos: int, limit: int, max_bytes: int = 10) -> tuple[int, int]:
    """Decodes a varint at ``buf[pos:]``; returns ``(value, new_pos)``.

    Raises ValueError when the varint runs past ``limit`` or ``max_bytes``."""
    result = shift = 0
    for i in range(max_bytes):
        if pos >= limit:
            break
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
    raise ValueError("truncated or overlong varint")


def _encode_handle(offset: int, size: int) -> bytes:
    out = bytearray()
    put_varint(out, offset)
    put_varint(out, size)
    return bytes(out)


# -- writing -------------------------------------------------------------------
class BlockBuilder:
    """Builds one block with shared-prefix key compression (block_builder.cc)."""

    def __init__(self, restart_interval: int = BLOCK_RESTART_INTERVAL):
        self._interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self._buf = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""

    @property
    def empty(self) -> bool:
        return not self._buf

    def current_size_estimate(self) -> int:
        return len(self._buf) + 4 * len(self._restarts) + 4

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self._counter < self._interval:
            limit = min(len(self._last_key), len(key))
            while shared < limit and self._last_key[shared] == key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buf))
            self._counter = 0
        put_varint(self._buf, shared)
        put_varint(self._buf, len(key) - shared)
        put_varint(self._buf, len(value))
        self._buf += key[shared:]
        self._buf += value
        self._last_key = key
        self._counter += 1

    def finish(self) -> bytes:
        tail = struct.pack(f"<{len(self._restarts) + 1}I", *self._restarts, len(self._restarts))
        return bytes(self._buf) + tail


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key in ``[start, limit)`` (table_builder.cc FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes([b + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= ``key`` (table_builder.cc FindShortSuccessor)."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


class TableBuilder:
    """Writes a table to the binary file object ``file``; keys must be added in
    strictly increasing bytewise order. ``finish()`` writes the index and footer.

    The output is byte-for-byte what TF's ``table::TableBuilder`` writes with
    ``kNoCompression``."""

    def __init__(self, file, block_size: int = BLOCK_SIZE,
                 block_restart_interval: int = BLOCK_RESTART_INTERVAL):
        self._file = file
        self._block_size = block_size
        self._offset = 0
        self._data = BlockBuilder(block_restart_interval)
        self._index = BlockBuilder(1)
        self._last_key = b""
        self._num_entries = 0
        self._pending_handle = None  # handle of the last flushed block awaiting its index key
        self._closed = False

    @property
    def num_entries(self) -> int:
        return self._num_entries

    @property
    def file_size(self) -> int:
        return self._offset

    def add(self, key, value) -> None:
        key, value = bytes(key), bytes(value)
        if self._closed:
            raise ValueError("TableBuilder.add after finish()")
        if self._num_entries:
            if key <= self._last_key:
                raise ValueError(f"keys must be added in increasing order: {key!r} after {self._last_key!r}")
            if len(key) + len(value) >= 2 * self._block_size:  # kOverlyLargeBlockRatio
                self._flush()
        if self._pending_handle is not None:
            sep = _shortest_separator(self._last_key, key)
            self._index.add(sep, self._pending_handle)
            self._pending_handle = None
        self._last_key = key
        self._num_entries += 1
        self._data.add(key, value)
        if self._data.current_size_estimate() >= self._block_size:
            self._flush()

    def _flush(self) -> None:
        if self._data.empty:
            return
        self._pending_handle = self._write_block(self._data)

    def _write_block(self, block: BlockBuilder) -> bytes:
        contents = block.finish()
        block.reset()
        handle = _encode_handle(self._offset, len(contents))
        type_byte = bytes([NO_COMPRESSION])
        crc = _crc.mask(_crc.crc32c(type_byte, _crc.crc32c(contents)))
        self._file.write(contents)
        self._file.write(type_byte + struct.pack("<I", crc))
        self._offset += len(contents) + BLOCK_TRAILER_SIZE
        return handle

    def finish(self) -> None:
        self._flush()
        self._closed = True
        metaindex_handle = self._write_block(BlockBuilder())
        if self._pending_handle is not None:
            self._index.add(_short_successor(self._last_key), self._pending_handle)
            self._pending_handle = None
        index_handle = self._write_block(self._index)
        footer = (metaindex_handle + index_handle).ljust(FOOTER_SIZE - 8, b"\0")
        footer += struct.pack("<II", MAGIC & 0xFFFFFFFF, MAGIC >> 32)
        self._file.write(footer)
        self._offset += len(footer)


# -- snappy --------------------------------------------------------------------
def snappy_decompress(data) -> bytes:
    """Decodes a raw Snappy block (format_description.txt of google/snappy):
    a varint uncompressed length, then elements tagged by their low two bits,
    00 literal, 01 copy with 1-byte offset, 10 copy with 2-byte offset,
    11 copy with 4-byte offset. Raises ValueError on malformed input."""
    data = memoryview(data)
    n = len(data)
    length, pos = get_varint(data, 0, n, 5)
    out = bytearray()
    while pos < n:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            size = tag >> 2
            if size >= 60:
                extra = size - 59
                if pos + extra > n:
                    raise ValueError("snappy: truncated literal length")
                size = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            size += 1
            if pos + size > n:
                raise ValueError("snappy: literal runs past the input")
            if len(out) + size > length:
                raise ValueError(f"snappy: output exceeds the declared {length} bytes")
            out += data[pos:pos + size]
            pos += size
            continue
        if kind == 1:
            if pos + 1 > n:
                raise ValueError("snappy: truncated copy")
            size = ((tag >> 2) & 7) + 4
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            if pos + width > n:
                raise ValueError("snappy: truncated copy")
            size = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        if offset == 0 or offset > len(out):
            raise ValueError("snappy: copy offset out of range")
        if len(out) + size > length:  # the output never outgrows the length the block declares
            raise ValueError(f"snappy: output exceeds the declared {length} bytes")
        start = len(out) - offset
        if offset >= size:
            out += out[start:start + size]
        else:  # overlapping copy repeats the last `offset` bytes
            for i in range(size):
                out.append(out[start + i])
    if len(out) != length:
        raise ValueError(f"snappy: expected {length} bytes, got {len(out)}")
    return bytes(out)


# -- reading -------------------------------------------------------------------
class _Block:
    """A parsed block: sorted keys and their values."""

    __slots__ = ("keys", "values")

    def __init__(self, contents, where: str):
        size = len(contents)
        if size < 4:
            raise errors.DataLossError(None, None, f"bad block contents in {where}")
        num_restarts = struct.unpack_from("<I", contents, size - 4)[0]
        limit = size - 4 * (num_restarts + 1)
        if num_restarts == 0 or limit < 0:
            raise errors.DataLossError(None, None, f"bad block contents in {where}")
        self.keys, self.values = [], []
        pos, key = 0, b""
        try:
            while pos < limit:
                shared, pos = get_varint(contents, pos, limit, 5)
                non_shared, pos = get_varint(contents, pos, limit, 5)
                value_len, pos = get_varint(contents, pos, limit, 5)
                if shared > len(key) or pos + non_shared + value_len > limit:
                    raise ValueError("entry runs past the block")
                key = key[:shared] + bytes(contents[pos:pos + non_shared])
                pos += non_shared
                self.keys.append(key)
                self.values.append(bytes(contents[pos:pos + value_len]))
                pos += value_len
        except ValueError as e:
            raise errors.DataLossError(None, None, f"bad entry in block of {where}: {e}") from None


class Table:
    """Reads a table written by :class:`TableBuilder` or by TensorFlow.

    ``Table(data, filename)`` takes the whole file's bytes; ``Table.open(path)``
    reads them. Every block's checksum is verified when it is read; a corrupt
    or truncated file raises ``DataLossError`` naming ``filename``.
    Iteration yields ``(key, value)`` pairs in key order."""

    def __init__(self, data, filename: str = "<table>"):
        self._data = memoryview(data)
        self.filename = filename
        n = len(self._data)
        if n < FOOTER_SIZE:
            self._corrupt(f"file is too short ({n} bytes) to be an sstable")
        footer = self._data[n - FOOTER_SIZE:]
        lo, hi = struct.unpack_from("<II", footer, FOOTER_SIZE - 8)
        if (hi << 32) | lo != MAGIC:
            self._corrupt("not an sstable (bad magic number)")
        try:
            _meta_off, pos = get_varint(footer, 0, 40)
            _meta_size, pos = get_varint(footer, pos, 40)
            index_off, pos = get_varint(footer, pos, 40)
            index_size, pos = get_varint(footer, pos, 40)
        except ValueError:
            self._corrupt("bad block handle in footer")
        index = self._read_block(index_off, index_size)
        self._index_keys = index.keys
        self._handles = []
        for value in index.values:
            try:
                off, p = get_varint(value, 0, len(value))
                size, _ = get_varint(value, p, len(value))
            except ValueError:
                self._corrupt("bad block handle in index")
            self._handles.append((off, size))
        self._cache: dict[int, _Block] = {}

    @classmethod
    def open(cls, path: str) -> "Table":
        with open(path, "rb") as f:
            return cls(f.read(), path)

    def _corrupt(self, detail: str):
        raise errors.DataLossError(None, None, f"Unable to read table {self.filename}: {detail}")

    def _read_block(self, offset: int, size: int) -> _Block:
        end = offset + size + BLOCK_TRAILER_SIZE
        if end > len(self._data) - FOOTER_SIZE:
            self._corrupt(f"truncated block read at offset {offset}")
        raw = self._data[offset:offset + size + 1]
        expected = _crc.unmask(struct.unpack_from("<I", self._data, offset + size + 1)[0])
        if _crc.crc32c(raw) != expected:
            self._corrupt(f"block checksum mismatch at offset {offset}")
        kind = raw[size]
        contents = raw[:size]
        if kind == SNAPPY_COMPRESSION:
            try:
                contents = memoryview(snappy_decompress(contents))
            except ValueError as e:
                self._corrupt(f"corrupted compressed block contents ({e})")
        elif kind != NO_COMPRESSION:
            self._corrupt(f"bad block type {kind}")
        return _Block(contents, self.filename)

    def _block(self, i: int) -> _Block:
        block = self._cache.get(i)
        if block is None:
            block = self._cache[i] = self._read_block(*self._handles[i])
        return block

    def __iter__(self):
        for i in range(len(self._handles)):
            block = self._block(i)
            yield from zip(block.keys, block.values)

    def items(self):
        return list(self)

    def seek(self, target):
        """Yields ``(key, value)`` for every key >= ``target``, in order."""
        target = bytes(target)
        first = bisect.bisect_left(self._index_keys, target)
        for i in range(first, len(self._handles)):
            block = self._block(i)
            start = bisect.bisect_left(block.keys, target) if i == first else 0
            yield from zip(block.keys[start:], block.values[start:])

    def get(self, key, default=None):
        """The value stored under ``key``, or ``default``."""
        key = bytes(key)
        for k, v in self.seek(key):
            return v if k == key else default
        return default

    def __contains__(self, key) -> bool:
        return self.get(key) is not None
