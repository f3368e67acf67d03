"""TensorFlow's V2 checkpoint format: the tensor bundle.

A checkpoint with prefix ``P`` is (tensor_bundle.cc, tensor_bundle.proto)

* ``P.index``: a table (ref/formats/table.py) mapping ``""`` to a
  ``BundleHeaderProto`` (num_shards, endianness, version) and each tensor name
  to a ``BundleEntryProto`` (dtype, shape, shard_id, offset, size, crc32c of its
  bytes, masked; ``slices`` when the tensor was saved as partitions), in key order;
* ``P.data-SSSSS-of-NNNNN``: the shards, holding tensors back to back.

A numeric tensor is its raw little-endian bytes. A string tensor is
``varint64 len_0 .. len_{n-1} | uint32 masked crc | bytes_0 .. bytes_{n-1}``,
where the crc covers each length as a little-endian uint32 (uint64 when it
does not fit), and the entry's crc covers those lengths, the 4 crc bytes and
the strings. A variant tensor is, per element, ``varint64 len | serialized
VariantTensorDataProto | uint32 masked crc`` with one running crc over each
length (as a uint64), the bytes and the element crcs. A slice of a partitioned variable is its own entry, keyed by
``slices.encode_tensor_name_slice(name, slice)``; the full name's entry lists
the slices and has no data.

Writes are crash-safe: each file is written under a temporary name and renamed
into place, the data shard first and the index last, so a ``P.index`` never
points at data that is not there. Reads verify every checksum and raise
``DataLossError`` naming the file; nothing is ever unpickled.
"""
from __future__ import annotations

import math
import os
import struct
import threading
import uuid

import google_crc32c
import numpy as np

from ref.types import dtypes, errors
from ref.formats import buffers, checkpoint_state as _state, crc32c as _crc, table
from ref.formats.slices import TensorSlice, assemble, checked_slice, encode_tensor_name_slice
from ref import protos

HEADER_KEY = b""
TENSOR_BUNDLE_VERSION = 1  # kTensorBundleVersion
TENSOR_BUNDLE_MIN_PRODUCER = 0
LITTLE, BIG = 0, 1  # BundleHeaderProto.Endianness
_CRC_CHUNK = 1 << 20

# Quantized types are stored as their integer representation.
_QUANTIZED_NP = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16,
                 "quint16": np.uint16, "qint32": np.int32}


def _pb():
    return protos.tensor_bundle_pb2


def data_filename(prefix: str, shard_id: int, num_shards: int) -> str:
    """``prefix.data-00000-of-00001`` (DataFilename)."""
    return "%s.data-%05d-of-%05d" % (prefix, shard_id, num_shards)


def meta_filename(prefix: str) -> str:
    """``prefix.index`` (MetaFilename)."""
    return prefix + ".index"


def _np_dtype(dtype: dtypes.DType) -> np.dtype | None:
    if dtype.name in _QUANTIZED_NP:
        return np.dtype(_QUANTIZED_NP[dtype.name])
    return dtype.np


def _accepts_arrays() -> bool:
    """Whether google_crc32c reads a NumPy array's memory directly (its C
    extension takes any buffer without a release hook, which NumPy arrays are);
    where it does not, each chunk is copied to ``bytes`` first."""
    probe = np.frombuffer(b"123456789", np.uint8)
    try:
        return google_crc32c.extend(0, probe) == 0xE3069283  # the CRC32C check value of "123456789"
    except TypeError:
        return False


_ZERO_COPY_CRC = _accepts_arrays()


def _extend_crc(crc: int, chunk: np.ndarray) -> int:
    """CRC32C of ``chunk`` (a contiguous uint8 array) extending ``crc``, read in place."""
    return google_crc32c.extend(crc, chunk if _ZERO_COPY_CRC else chunk.tobytes())


def _write_with_crc(f, flat: np.ndarray) -> int:
    """Writes ``flat`` (the tensor's bytes as a uint8 array) straight from the
    array's memory and returns its CRC32C, computed chunk by chunk on the same
    memory just before it is written, while the chunk is in cache."""
    crc = 0
    for i in range(0, flat.size, _CRC_CHUNK):
        chunk = flat[i:i + _CRC_CHUNK]
        crc = _extend_crc(crc, chunk)
        f.write(chunk)
    return crc


_SEEK_LOCK = threading.Lock()
_PREADV = getattr(os, "preadv", None)
_PREAD = getattr(os, "pread", None)


def _pread(f, size: int, offset: int) -> bytes:
    """Up to ``size`` bytes from byte ``offset`` of ``f``, positionally (see :func:`_pread_into`)."""
    if _PREAD is not None:
        return _PREAD(f.fileno(), size, offset)
    with _SEEK_LOCK:
        f.seek(offset)
        return f.read(size)


def _pread_into(f, view, offset: int) -> int:
    """Reads into ``view`` from byte ``offset`` of ``f`` without moving a shared
    file position (several threads read one file at once: RestoreV2); bytes read."""
    if _PREADV is not None:
        return _PREADV(f.fileno(), [view], offset)
    with _SEEK_LOCK:  # no positional reads here: one seek-and-read at a time
        f.seek(offset)
        return f.readinto(view)


def _readinto_with_crc(f, flat: np.ndarray, offset: int) -> tuple[int, int]:
    """Fills ``flat`` (the new array's bytes as a uint8 array) from byte
    ``offset`` of ``f``: no intermediate buffer, each chunk checksummed in place
    right after it is read; returns ``(bytes read, crc)``."""
    crc = 0
    got = 0
    for i in range(0, flat.size, _CRC_CHUNK):
        view = flat[i:i + _CRC_CHUNK]
        n = _pread_into(f, view, offset + i)
        if n:
            crc = _extend_crc(crc, view[:n])
            got += n
        if n != view.size:
            break
    return got, crc


def _as_bytes(x) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytearray, memoryview, np.bytes_)):
        return bytes(x)
    raise TypeError(f"string tensor element must be bytes or str, got {type(x).__name__}")


def _to_tensor(value, dtype=None) -> tuple[dtypes.DType, np.ndarray]:
    """Normalises ``value`` to (DType, C-contiguous little-endian array)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.variant:
        return dtypes.variant, _variant_array(value)
    arr = np.asarray(value) if not isinstance(value, np.ndarray) else value
    if dtype == dtypes.string or (dtype is None and arr.dtype.kind in "OSU"):
        flat = [_as_bytes(x) for x in arr.reshape(-1).tolist()]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return dtypes.string, out.reshape(arr.shape)
    if dtype is None:
        dtype = dtypes.as_dtype(arr.dtype)
    npd = _np_dtype(dtype)
    if npd is None:
        raise errors.UnimplementedError(None, None, f"Saving tensors of type {dtype.name} is not supported")
    arr = np.asarray(arr, dtype=npd.newbyteorder("<") if npd.itemsize > 1 else npd, order="C")
    return dtype, arr


def _variant_array(value) -> np.ndarray:
    """An object array of ``VariantTensorDataProto`` messages: each element is
    one already, or a value with ``to_variant_proto()`` (ref's variant values)."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    out = np.empty(arr.size, dtype=object)
    for i, v in enumerate(arr.reshape(-1).tolist()):
        if hasattr(v, "to_variant_proto"):
            v = v.to_variant_proto()
        if not isinstance(v, protos.tensor_pb2.VariantTensorDataProto):
            raise errors.UnimplementedError(None, None, f"Saving a variant tensor holding a {type(v).__name__} "
                                                        f"is not supported (it cannot be encoded)")
        out[i] = v
    return out.reshape(arr.shape)


def _variant_payload(arr: np.ndarray, big_endian: bool = False) -> tuple[list, int, int]:
    """Pieces of a variant tensor's on-disk form, their size and the entry crc.

    Per element: [varint64 len][serialized VariantTensorDataProto][uint32 masked
    crc]; the running crc covers each length as a uint64 (not its varint
    bytes), the bytes, and each element's 4-byte checksum (TF's
    WriteVariantTensor)."""
    end = ">" if big_endian else "<"
    pieces, crc = [], 0
    for proto in arr.reshape(-1).tolist():
        elem = proto.SerializeToString()
        length = bytearray()
        table.put_varint(length, len(elem))
        crc = _crc.crc32c(struct.pack(end + "Q", len(elem)), crc)
        crc = _crc.crc32c(elem, crc)
        check = struct.pack(end + "I", _crc.mask(crc))
        crc = _crc.crc32c(check, crc)
        pieces += [bytes(length), elem, check]
    return pieces, sum(len(p) for p in pieces), crc


def _string_payload(arr: np.ndarray, big_endian: bool = False) -> tuple[list, int, int]:
    """Pieces of a string tensor's on-disk form, their size and the entry crc.

    [varint64 len]... [uint32 masked crc of the lengths] [bytes]...; the lengths
    are checksummed as uint32 (uint64 above 2**32-1), not as varint bytes."""
    items = arr.reshape(-1).tolist()
    lengths = bytearray()
    crc = 0
    for s in items:
        n = len(s)
        table.put_varint(lengths, n)
        if n <= 0xFFFFFFFF:
            crc = _crc.crc32c(struct.pack(">I" if big_endian else "<I", n), crc)
        else:
            crc = _crc.crc32c(struct.pack(">Q" if big_endian else "<Q", n), crc)
    length_checksum = struct.pack(">I" if big_endian else "<I", _crc.mask(crc))
    crc = _crc.crc32c(length_checksum, crc)
    for s in items:
        crc = _crc.crc32c(s, crc)
    pieces = [bytes(lengths), length_checksum, *items]
    return pieces, sum(len(p) for p in pieces), crc


class BundleWriter:
    """Writes a single-shard V2 checkpoint ``prefix.index`` +
    ``prefix.data-00000-of-00001``.

    >>> w = BundleWriter("/tmp/ckpt/model")          # doctest: +SKIP
    >>> w.add("w", np.ones((2, 3), np.float32))      # doctest: +SKIP
    >>> w.finish()                                   # doctest: +SKIP

    Args:
      prefix: the checkpoint prefix; its directory is created.
      fsync: if True, flush each file to stable storage before renaming it
        into place (and the directory after), so the checkpoint survives a
        power loss, not only a crash of this process.
      data_alignment: pad each tensor's data to a multiple of this many bytes
        (TF's BundleWriter::Options::data_alignment, 1 by default).

    Tensors may be added in any order; the index is written sorted by name.
    Usable as a context manager (finish on success, abandon on error).
    """

    def __init__(self, prefix: str, fsync: bool = False, data_alignment: int = 1):
        self.prefix = str(prefix)
        self._fsync = fsync
        self._alignment = int(data_alignment)
        self._entries: dict[bytes, object] = {}
        self._size = 0
        directory = os.path.dirname(self.prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        tag = ".tempstate" + uuid.uuid4().hex
        self._data_path = data_filename(self.prefix, 0, 1)
        self._data_tmp = self._data_path + tag
        self._index_tmp = meta_filename(self.prefix) + tag
        self._out = open(self._data_tmp, "wb")
        self._closed = False

    # -- adding tensors -------------------------------------------------------
    def add(self, name: str, tensor, dtype=None) -> None:
        """Appends ``tensor`` under ``name``.

        ``tensor`` is array-like: NumPy numeric/bool arrays (bfloat16 as an
        ``ml_dtypes.bfloat16`` array) keep their type; bytes or str elements
        (object, ``S`` or ``U`` arrays) make a string tensor. ``dtype``
        converts to a TF type first (``"qint8"`` etc. take integer data)."""
        if self._closed:
            raise ValueError("BundleWriter.add after finish()")
        key = name.encode() if isinstance(name, str) else bytes(name)
        if key == HEADER_KEY:
            raise errors.InvalidArgumentError(None, None, "The empty name is reserved for the bundle header")
        if key in self._entries:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {name}")
        dtype, arr = _to_tensor(tensor, dtype)
        entry = _pb().BundleEntryProto(dtype=dtype.as_datatype_enum, shard_id=0, offset=self._size)
        entry.shape.SetInParent()  # TF writes the shape even for a scalar
        for d in arr.shape:
            entry.shape.dim.add(size=d)
        if dtype in (dtypes.string, dtypes.variant):
            pieces, size, crc = (_string_payload if dtype == dtypes.string else _variant_payload)(arr)
            for p in pieces:
                self._out.write(p)
        else:
            size, crc = arr.nbytes, _write_with_crc(self._out, arr.reshape(-1).view(np.uint8))
        entry.size = size
        entry.crc32c = _crc.mask(crc)
        self._entries[key] = entry
        self._size += size
        pad = -self._size % self._alignment
        if pad:
            self._out.write(b"\0" * pad)
            self._size += pad

    def add_slice(self, full_name: str, full_shape, slice_spec, tensor, dtype=None) -> None:
        """Adds one partition of tensor ``full_name`` of shape ``full_shape``.

        ``slice_spec`` is a :class:`TensorSlice` or its text form (``"0,2:-"``).
        A slice covering the whole tensor is stored as a plain tensor, as TF does."""
        full_shape = tuple(int(d) for d in full_shape)
        sl = TensorSlice.parse(slice_spec) if isinstance(slice_spec, str) else slice_spec
        dtype, arr = _to_tensor(tensor, dtype)
        if sl.shape(full_shape) != arr.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Slice {sl} of {full_name} has shape {sl.shape(full_shape)}, "
                            f"but the tensor has shape {arr.shape}")
        if sl.covers(full_shape):
            self.add(full_name, arr, dtype)
            return
        key = full_name.encode()
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _pb().BundleEntryProto(dtype=dtype.as_datatype_enum)
            entry.shape.SetInParent()
            for d in full_shape:
                entry.shape.dim.add(size=d)
        elif not entry.slices or entry.dtype != dtype.as_datatype_enum or \
                tuple(d.size for d in entry.shape.dim) != full_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Slice of {full_name} conflicts with the tensor already added under that name")
        sl.to_proto(entry.slices.add())
        self.add(encode_tensor_name_slice(full_name, sl), arr, dtype)

    # -- finishing ------------------------------------------------------------
    def _close_into_place(self, f, tmp: str, final: str) -> None:
        f.flush()
        if self._fsync:
            os.fsync(f.fileno())
        f.close()
        os.replace(tmp, final)

    def finish(self) -> None:
        """Renames the data shard into place, then writes the index."""
        if self._closed:
            return
        self._closed = True
        try:
            _state.crash_point("bundle_data_rename")
            self._close_into_place(self._out, self._data_tmp, self._data_path)
            with open(self._index_tmp, "wb") as f:
                builder = table.TableBuilder(f)
                header = _pb().BundleHeaderProto(num_shards=1, endianness=LITTLE)
                header.version.producer = TENSOR_BUNDLE_VERSION
                builder.add(HEADER_KEY, header.SerializeToString())
                for key in sorted(self._entries):
                    builder.add(key, self._entries[key].SerializeToString())
                builder.finish()
                _state.crash_point("bundle_index_rename")
                self._close_into_place(f, self._index_tmp, meta_filename(self.prefix))
            if self._fsync:
                _state.fsync_dir(self.prefix)
        except BaseException:
            self.abandon()
            raise

    def abandon(self) -> None:
        """Drops what was written so far; any previous checkpoint is untouched."""
        self._closed = True
        if not self._out.closed:
            self._out.close()
        for tmp in (self._data_tmp, self._index_tmp):
            try:
                os.remove(tmp)
            except FileNotFoundError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.finish()
        else:
            self.abandon()
        return False


class BundleReader:
    """Reads a V2 checkpoint written by :class:`BundleWriter` or TensorFlow.

    ``lookup(name)`` returns the tensor as a NumPy array (strings as an object
    array of bytes; sliced tensors reassembled); ``lookup_slice`` returns part
    of one. A missing tensor raises ``NotFoundError``; a corrupt or truncated
    file raises ``DataLossError`` naming the file.
    """

    def __init__(self, prefix: str):
        self.prefix = str(prefix)
        _state.recover_prefix(self.prefix)  # a publish a crash interrupted (Saver.save to a fixed prefix)
        self._index_path = meta_filename(self.prefix)
        try:
            with open(self._index_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{self._index_path}; No such file or directory") from None
        self._table = table.Table(data, self._index_path)
        header_value = self._table.get(HEADER_KEY)
        if header_value is None:
            self._corrupt(self._index_path, "failed to seek to header entry")
        header = self._parse(_pb().BundleHeaderProto, HEADER_KEY, header_value)
        self.num_shards = header.num_shards
        self._big_endian = header.endianness == BIG
        v = header.version
        if v.producer < TENSOR_BUNDLE_MIN_PRODUCER or v.min_consumer > TENSOR_BUNDLE_VERSION or \
                TENSOR_BUNDLE_VERSION in v.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {self._index_path} has version (producer {v.producer}, "
                            f"min_consumer {v.min_consumer}) that this reader (version "
                            f"{TENSOR_BUNDLE_VERSION}) cannot read")
        self._files: dict[int, object] = {}
        self._files_lock = threading.Lock()

    # -- errors ---------------------------------------------------------------
    @staticmethod
    def _corrupt(filename: str, detail: str):
        raise errors.DataLossError(
            None, None, f"Unable to read file ({filename}). Perhaps the file is corrupt or was "
                        f"produced by a newer version of TensorFlow with format changes ({detail})")

    def _parse(self, cls, key: bytes, value: bytes):
        msg = cls()
        try:
            msg.ParseFromString(value)
        except Exception:  # protobuf's DecodeError
            self._corrupt(self._index_path, f"entry for key {key!r} not parseable")
        return msg

    # -- entries --------------------------------------------------------------
    def _entry(self, name):
        key = name.encode() if isinstance(name, str) else bytes(name)
        value = self._table.get(key) if key != HEADER_KEY else None
        if value is None:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        entry = self._parse(_pb().BundleEntryProto, key, value)
        self._check_entry(name, entry)
        return entry

    def _check_entry(self, name, entry) -> None:
        """DataLossError (naming the index file and the key) for an entry no
        writer produces: a bad shape, dtype, shard, offset or size."""
        if any(d.size < 0 for d in entry.shape.dim) or entry.shape.unknown_rank:
            self._corrupt(self._index_path, f"invalid tensor shape for {name}")
        try:
            dtypes.as_dtype(entry.dtype)
        except (TypeError, ValueError, KeyError):
            self._corrupt(self._index_path, f"invalid dtype {entry.dtype} for {name}")
        if entry.offset < 0 or entry.size < 0 or entry.shard_id < 0:
            self._corrupt(self._index_path, f"negative offset {entry.offset}, size {entry.size} or shard "
                                            f"{entry.shard_id} in the entry for {name}")
        if entry.slices:
            shape = tuple(d.size for d in entry.shape.dim)
            for proto in entry.slices:
                try:
                    checked_slice(proto, shape)
                except ValueError as e:  # a rank or extent the shape does not hold
                    self._corrupt(self._index_path, f"tensor {name}: invalid slice: {e}")

    def contains(self, name) -> bool:
        key = name.encode() if isinstance(name, str) else bytes(name)
        return key != HEADER_KEY and self._table.get(key) is not None

    __contains__ = contains

    def data_bytes(self) -> int:
        """The size of the bundle's data files together (one missing counts 0:
        reading from it reports it)."""
        total = 0
        for shard in range(max(self.num_shards, 1)):
            try:
                total += os.path.getsize(data_filename(self.prefix, shard, self.num_shards))
            except OSError:
                pass
        return total

    def lookup_dtype_and_shape(self, name) -> tuple[dtypes.DType, tuple[int, ...]]:
        entry = self._entry(name)
        return dtypes.as_dtype(entry.dtype), tuple(d.size for d in entry.shape.dim)

    def lookup_tensor_slices(self, name) -> list[TensorSlice]:
        """The slices a partitioned tensor was saved as (empty if saved whole)."""
        return [TensorSlice.from_proto(s) for s in self._entry(name).slices]

    def entries(self):
        """Every ``(key, BundleEntryProto)`` in key order, slice keys included."""
        pb = _pb()
        for key, value in self._table:
            if key != HEADER_KEY:
                entry = self._parse(pb.BundleEntryProto, key, value)
                self._check_entry(key.decode("utf-8", "replace"), entry)
                yield key, entry

    def variables(self) -> list[tuple[str, dtypes.DType, tuple[int, ...]]]:
        """``(name, dtype, shape)`` of every tensor, the keys of the slices of
        partitioned tensors left out (as CheckpointReader does)."""
        entries = list(self.entries())
        slice_keys = {encode_tensor_name_slice(k.decode(), TensorSlice.from_proto(s))
                      for k, e in entries for s in e.slices}
        return [(k.decode(), dtypes.as_dtype(e.dtype), tuple(d.size for d in e.shape.dim))
                for k, e in entries if k not in slice_keys]

    # -- values ---------------------------------------------------------------
    def _file(self, shard_id: int):
        f = self._files.get(shard_id)
        if f is None:
            with self._files_lock:  # RestoreV2 reads tensors from several threads
                return self._open_shard(shard_id)
        return f

    def _open_shard(self, shard_id: int):
        f = self._files.get(shard_id)
        if f is None:
            if not 0 <= shard_id < max(self.num_shards, 1):
                self._corrupt(self._index_path, f"shard id {shard_id} out of range")
            path = data_filename(self.prefix, shard_id, self.num_shards)
            try:
                f = open(path, "rb", buffering=0)  # readinto straight into the arrays
            except FileNotFoundError:
                raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
            self._files[shard_id] = f
        return f

    def _read_value(self, name, entry) -> np.ndarray:
        """The tensor of one entry. Every size is checked against the entry and
        the data file before anything is allocated, so a crafted index cannot
        make the reader allocate more than the file holds."""
        dtype = dtypes.as_dtype(entry.dtype)
        shape = tuple(d.size for d in entry.shape.dim)
        npd = _np_dtype(dtype) if dtype not in (dtypes.string, dtypes.variant) else np.dtype(object)
        if npd is None:
            raise errors.UnimplementedError(None, None, f"Reading tensors of type {dtype.name} is not supported")
        f = self._file(entry.shard_id)
        path = f.name
        count = math.prod(shape)
        file_size = os.fstat(f.fileno()).st_size
        if entry.offset + entry.size > file_size:
            self._corrupt(path, f"entry for {name} claims {entry.size} bytes at offset {entry.offset}, "
                                f"past the end of the {file_size}-byte data file")
        if dtype == dtypes.string:
            if count and entry.size < count + 4:  # a length byte per string, then the 4-byte length crc
                self._corrupt(path, f"string tensor {name} of {count} elements cannot fit in {entry.size} bytes "
                                    f"at offset {entry.offset}")
            return self._read_strings(f, entry, shape, count).reshape(shape)
        if dtype == dtypes.variant:
            if count and entry.size < count * 5:  # a length byte and a 4-byte checksum per element
                self._corrupt(path, f"variant tensor {name} of {count} elements cannot fit in {entry.size} bytes "
                                    f"at offset {entry.offset}")
            return self._read_variants(f, entry, count).reshape(shape)
        if entry.size != count * npd.itemsize:
            self._corrupt(path, f"Invalid size in bundle entry: key {name}; stored size {entry.size}; "
                                f"expected size {count * npd.itemsize} (offset {entry.offset})")
        arr = buffers.empty(shape, npd.newbyteorder(">" if self._big_endian else "<")
                            if npd.itemsize > 1 else npd)  # a large one's pages are faulted in already
        got, crc = _readinto_with_crc(f, arr.reshape(-1).view(np.uint8), entry.offset)
        if got != arr.nbytes:
            self._corrupt(path, f"requested {arr.nbytes} bytes for {name} at offset {entry.offset}, "
                                f"got {got}: file truncated")
        if crc != _crc.unmask(entry.crc32c):
            self._corrupt(path, f"Checksum does not match: stored {_crc.unmask(entry.crc32c):08x} "
                                f"vs. calculated on the restored bytes, for tensor {name} at offset {entry.offset}")
        if self._big_endian:
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        return arr

    def _read_variants(self, f, entry, count) -> np.ndarray:
        """The ``VariantTensorDataProto`` elements of a variant entry, each
        length checked against the entry before it is sliced out."""
        path = f.name
        raw = _pread(f, entry.size, entry.offset)  # no more than the file holds: _read_value checked
        if len(raw) != entry.size:
            self._corrupt(path, f"file truncated reading variant tensor at offset {entry.offset}")
        end = ">" if self._big_endian else "<"
        out, pos, crc = np.empty(count, dtype=object), 0, 0
        for i in range(count):
            try:
                n, pos = table.get_varint(raw, pos, len(raw))
            except ValueError:
                self._corrupt(path, f"bad variant length in tensor at offset {entry.offset}")
            if pos + n + 4 > len(raw):
                self._corrupt(path, f"variant element {i} of {n} bytes runs past the entry's {entry.size} bytes "
                                    f"at offset {entry.offset}")
            elem, check = raw[pos:pos + n], raw[pos + n:pos + n + 4]
            crc = _crc.crc32c(elem, _crc.crc32c(struct.pack(end + "Q", n), crc))
            if check != struct.pack(end + "I", _crc.mask(crc)):
                self._corrupt(path, f"The checksum of variant element {i} does not match at offset {entry.offset}")
            crc = _crc.crc32c(check, crc)
            proto = protos.tensor_pb2.VariantTensorDataProto()
            try:
                proto.ParseFromString(elem)
            except Exception:
                self._corrupt(path, f"variant element {i} of the tensor at offset {entry.offset} does not parse")
            out[i] = proto
            pos += n + 4
        if pos != entry.size:
            self._corrupt(path, f"variant tensor elements add up to {pos} bytes, entry says {entry.size}")
        if crc != _crc.unmask(entry.crc32c):
            self._corrupt(path, f"Checksum does not match in variant tensor at offset {entry.offset}")
        return out

    def _read_strings(self, f, entry, shape, count) -> np.ndarray:
        out = np.empty(count, dtype=object)
        if entry.size == 0:
            out[:] = [b""] * count
            return out
        path = f.name
        raw = _pread(f, entry.size, entry.offset)  # no more than the file holds: _read_value checked
        if len(raw) != entry.size:
            self._corrupt(path, f"file truncated reading string tensor at offset {entry.offset}")
        lengths, pos = [], 0
        try:
            for _ in range(count):
                n, pos = table.get_varint(raw, pos, len(raw))
                lengths.append(n)
        except ValueError:
            self._corrupt(path, "bad string lengths")
        end = pos + 4 + sum(lengths)
        if end != entry.size:
            self._corrupt(path, f"string tensor lengths add up to {end} bytes, entry says {entry.size}")
        items = []
        p = pos + 4
        for n in lengths:
            items.append(raw[p:p + n])
            p += n
        out[:] = items
        pieces, _, crc = _string_payload(out, self._big_endian)
        if raw[pos:pos + 4] != pieces[1]:
            self._corrupt(path, f"The length checksum does not match in string tensor at offset {entry.offset}")
        if crc != _crc.unmask(entry.crc32c):
            self._corrupt(path, f"Checksum does not match in string tensor at offset {entry.offset}")
        return out

    def lookup(self, name) -> np.ndarray:
        """The whole tensor ``name``, reassembled from its slices if partitioned."""
        entry = self._entry(name)
        if not entry.slices:
            return self._read_value(name, entry)
        shape = tuple(d.size for d in entry.shape.dim)
        return self._assemble(name, entry, TensorSlice.full(len(shape)), shape)

    def lookup_slice(self, name, slice_spec) -> np.ndarray:
        """The part ``slice_spec`` (TensorSlice or ``"0,2:-"``) of tensor ``name``."""
        sl = TensorSlice.parse(slice_spec) if isinstance(slice_spec, str) else slice_spec
        entry = self._entry(name)
        shape = tuple(d.size for d in entry.shape.dim)
        try:
            sl.shape(shape)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"Slice {sl} of {name}: {e}") from None
        if not entry.slices:
            return self._read_value(name, entry)[sl.index(shape)]
        return self._assemble(name, entry, sl, shape)

    def _assemble(self, name, entry, want: TensorSlice, shape) -> np.ndarray:
        dtype = dtypes.as_dtype(entry.dtype)
        npd = np.dtype(object) if dtype == dtypes.string else _np_dtype(dtype)
        sname = name if isinstance(name, str) else name.decode()

        def load(sl):
            return self._read_value(name, self._entry(encode_tensor_name_slice(sname, sl)))

        try:
            stored = [TensorSlice.from_proto(sp) for sp in entry.slices]
            want_count = math.prod(want.shape(shape))
        except (ValueError, IndexError, TypeError) as e:
            self._corrupt(self._index_path, f"tensor {sname}: invalid slices: {e}")
        # Slices covering the request hold at least as many bytes as it needs
        # (a string at least one): checked against the slices' entries before
        # the result is allocated.
        have = 0
        for sl in stored:
            key = encode_tensor_name_slice(sname, sl)
            key = key.encode() if isinstance(key, str) else key
            have += self._entry(key).size if self._table.get(key) is not None else 0
        need = want_count if dtype == dtypes.string else want_count * npd.itemsize
        if need > have:
            if sum(math.prod(sl.shape(shape)) for sl in stored) < want_count:
                raise errors.NotFoundError(None, None, f"Tensor {sname}: the saved slices "
                                                       f"{[str(s) for s in stored]} do not cover slice {want}")
            self._corrupt(self._index_path, f"tensor {sname}: the slice entries hold {have} bytes, fewer than "
                                            f"the {need} the requested slice {want} needs")
        try:
            return assemble(shape, npd, want, stored, load)
        except ValueError as e:
            if "do not cover" in str(e):
                raise errors.NotFoundError(None, None, f"Tensor {sname}: {e}") from None
            self._corrupt(self._index_path, f"tensor {sname}: {e}")

    # -- lifetime -------------------------------------------------------------
    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def merge_bundles(prefixes, merged_prefix: str, fsync: bool = False) -> None:
    """Merges single-prefix bundles into one checkpoint (TF's MergeBundles, the
    kernel of MergeV2Checkpoints used by sharded savers): data files are
    renamed to ``merged_prefix.data-i-of-n``, a merged index is written, and
    the input indexes are deleted. Slices of one tensor across inputs merge."""
    pb = _pb()
    version = endianness = None
    entries: dict[bytes, object] = {}
    shard_ids: dict[str, int] = {}
    for prefix in prefixes:
        reader = BundleReader(prefix)
        header = pb.BundleHeaderProto.FromString(reader._table.get(HEADER_KEY))
        if version is None:
            version, endianness = header.version, header.endianness
        elif header.endianness != endianness:
            raise errors.InvalidArgumentError(None, None, "Merging bundles with conflicting endianness; inputs corrupted?")
        for key, entry in reader.entries():
            existing = entries.get(key)
            if existing is not None:
                if not existing.slices or not entry.slices:
                    raise errors.InvalidArgumentError(
                        None, None, f"Duplicate tensor keyed by {key.decode(errors='replace')} encountered, "
                                    f"when merging prefix: {prefix}")
                existing.slices.extend(entry.slices)
                continue
            if not entry.slices:
                path = data_filename(prefix, entry.shard_id, header.num_shards)
                entry.shard_id = shard_ids.setdefault(path, len(shard_ids))
            entries[key] = entry
    n = len(shard_ids)
    for path, i in shard_ids.items():
        os.replace(path, data_filename(merged_prefix, i, n))
    tmp = meta_filename(merged_prefix) + ".tempstate" + uuid.uuid4().hex
    with open(tmp, "wb") as f:
        builder = table.TableBuilder(f)
        header = pb.BundleHeaderProto(num_shards=n, endianness=endianness or LITTLE)
        if version is not None:
            header.version.CopyFrom(version)
        builder.add(HEADER_KEY, header.SerializeToString())
        for key in sorted(entries):
            builder.add(key, entries[key].SerializeToString())
        builder.finish()
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    os.replace(tmp, meta_filename(merged_prefix))
    for prefix in prefixes:
        if os.path.abspath(meta_filename(prefix)) != os.path.abspath(meta_filename(merged_prefix)):
            try:
                os.remove(meta_filename(prefix))
            except FileNotFoundError:
                pass
