"""Tensor slices and the keys TF stores them under.

A slice of an N-d tensor is, per dimension, either the full extent or
``(start, length)`` (TF's ``TensorSlice``; a full extent is start 0, length -1).
Its text form is TF's: dimensions joined by ``:``, each ``-`` or
``start,length`` (``"0,2:-"``). Partitioned variables are saved with a
``shape_and_slice`` string ``"dim0 dim1 ... slice"`` (``"4 10 0,2:-"``).

A slice's checkpoint key (``checkpoint::EncodeTensorNameSlice`` in
saved_tensor_slice_util.cc) is OrderedCode: ``NumIncreasing(0)``,
``String(name)``, ``NumIncreasing(rank)``, then per dimension
``SignedNumIncreasing(start)`` and ``SignedNumIncreasing(length)``. V1
checkpoints key every slice this way; V2 bundles key the slices of
partitioned variables this way.
"""
from __future__ import annotations

import numpy as np

FULL = -1  # the length of a full extent


class TensorSlice:
    """Per-dimension ``(start, length)`` pairs; ``length == -1`` means all."""

    __slots__ = ("starts", "lengths")

    def __init__(self, extents):
        self.starts = tuple(int(s) for s, _ in extents)
        self.lengths = tuple(int(n) for _, n in extents)

    @classmethod
    def full(cls, rank: int) -> "TensorSlice":
        return cls([(0, FULL)] * rank)

    @classmethod
    def parse(cls, spec: str) -> "TensorSlice":
        """Parses TF's text form (``"0,2:-"``); ``""`` is the slice of a scalar."""
        if spec == "":
            return cls([])
        extents = []
        for part in spec.split(":"):
            if part == "-":
                extents.append((0, FULL))
                continue
            fields = part.split(",")
            if len(fields) != 2:
                raise ValueError(f"Expected a pair of numbers or '-' but got '{part}': string = {spec}")
            start, length = int(fields[0]), int(fields[1])
            if start < 0 or length <= 0:
                raise ValueError(f"Expected non-negative start and positive length but got "
                                 f"start = {start}, length = {length}: string = {spec}")
            extents.append((start, length))
        return cls(extents)

    @classmethod
    def from_proto(cls, proto) -> "TensorSlice":
        return cls([(e.start, e.length if e.HasField("length") else FULL) for e in proto.extent])

    def to_proto(self, proto) -> None:
        """Fills a ``TensorSliceProto``: a full extent is left empty, as in TF."""
        for s, n in zip(self.starts, self.lengths):
            e = proto.extent.add()
            if n != FULL:
                e.start = s
                e.length = n

    @property
    def rank(self) -> int:
        return len(self.starts)

    def is_full(self) -> bool:
        return all(n == FULL for n in self.lengths)

    def bounds(self, full_shape) -> list[tuple[int, int]]:
        """``(begin, end)`` per dimension against ``full_shape``."""
        return [(0, int(d)) if n == FULL else (s, s + n)
                for s, n, d in zip(self.starts, self.lengths, full_shape)]

    def shape(self, full_shape) -> tuple[int, ...]:
        """The shape of this slice of a tensor of ``full_shape``."""
        if self.rank != len(full_shape):
            raise ValueError(f"slice {self} has rank {self.rank}, tensor shape {tuple(full_shape)}")
        out = []
        for (b, e), d in zip(self.bounds(full_shape), full_shape):
            if e > d:
                raise ValueError(f"slice {self} goes past the end of shape {tuple(full_shape)}")
            out.append(e - b)
        return tuple(out)

    def index(self, full_shape) -> tuple[slice, ...]:
        return tuple(slice(b, e) for b, e in self.bounds(full_shape))

    def covers(self, full_shape) -> bool:
        """True if this slice is the whole tensor (TF's IsFullSlice)."""
        return self.is_full() or self.shape(full_shape) == tuple(int(d) for d in full_shape)

    def __eq__(self, other):
        return isinstance(other, TensorSlice) and (self.starts, self.lengths) == (other.starts, other.lengths)

    def __hash__(self):
        return hash((self.starts, self.lengths))

    def __str__(self):
        return ":".join("-" if n == FULL else f"{s},{n}" for s, n in zip(self.starts, self.lengths))

    __repr__ = __str__


def checked_slice(proto, full_shape) -> TensorSlice:
    """The ``TensorSlice`` of a ``TensorSliceProto`` read from a file, checked
    against the tensor's ``full_shape``: ValueError for a negative start or
    length, another rank, or an extent past the end (a damaged file; readers
    report it as DataLossError)."""
    sl = TensorSlice.from_proto(proto)
    if any(e.start < 0 or (e.HasField("length") and e.length < 0) for e in proto.extent):
        raise ValueError(f"negative start or length in slice {sl}")
    sl.shape(full_shape)
    return sl


def parse_shape_and_slice(shape_and_slice: str):
    """``"4 10 0,2:-"`` -> ``((4, 10), TensorSlice)``; ``""`` means a whole tensor
    of unknown shape and returns ``(None, None)``."""
    if shape_and_slice == "":
        return None, None
    parts = shape_and_slice.split(" ")
    shape = tuple(int(d) for d in parts[:-1])
    sl = TensorSlice.parse(parts[-1])
    if sl.rank != len(shape):
        raise ValueError(f"Expected {len(shape)} dimensions in slice, got {sl.rank}: {shape_and_slice!r}")
    sl.shape(shape)
    return shape, sl


# -- OrderedCode (tensorflow/core/lib/strings/ordered_code.cc) ------------------
def _write_num_increasing(out: bytearray, value: int) -> None:
    """A length byte, then the value big-endian without leading zero bytes."""
    body = value.to_bytes((value.bit_length() + 7) // 8, "big")
    out.append(len(body))
    out += body


def _escape(s: bytes) -> bytes:
    """OrderedCode's string body: ``\\0`` -> ``\\0\\xff``, ``\\xff`` -> ``\\xff\\0``
    (the terminator ``\\0\\1`` is appended by the caller)."""
    res = bytearray()
    for b in s:
        if b == 0:
            res += b"\x00\xff"
        elif b == 0xFF:
            res += b"\xff\x00"
        else:
            res.append(b)
    return bytes(res)


# Header bits of the first two bytes for each encoded length 1..10.
_HEADER = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0), 5: (0xF8, 0), 6: (0xFC, 0),
           7: (0xFE, 0), 8: (0xFF, 0), 9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def _write_signed_num_increasing(out: bytearray, value: int) -> None:
    """Sign bit, then as many bits equal to the sign bit as bytes follow, then
    the two's-complement value: n bytes hold values in [-2^(7n-1), 2^(7n-1))."""
    x = ~value if value < 0 else value
    length = min(10, x.bit_length() // 7 + 1)
    buf = bytearray((value & ((1 << 80) - 1)).to_bytes(10, "big")[10 - length:])
    h0, h1 = _HEADER[length]
    buf[0] ^= h0
    if length > 1:
        buf[1] ^= h1
    out += buf


def _read_num_increasing(key: bytes, pos: int) -> tuple[int, int]:
    n = key[pos]
    if n > 8 or pos + 1 + n > len(key):
        raise ValueError("bad NumIncreasing")
    return int.from_bytes(key[pos + 1:pos + 1 + n], "big"), pos + 1 + n


def _read_string(key: bytes, pos: int) -> tuple[bytes, int]:
    res = bytearray()
    while pos + 1 < len(key):
        b = key[pos]
        if b == 0:
            nxt = key[pos + 1]
            if nxt == 1:
                return bytes(res), pos + 2
            if nxt != 0xFF:
                raise ValueError("bad escape in OrderedCode string")
            res.append(0)
            pos += 2
        elif b == 0xFF:
            if key[pos + 1] != 0:
                raise ValueError("bad escape in OrderedCode string")
            res.append(0xFF)
            pos += 2
        else:
            res.append(b)
            pos += 1
    raise ValueError("unterminated OrderedCode string")


def _read_signed_num_increasing(key: bytes, pos: int) -> tuple[int, int]:
    if pos >= len(key):
        raise ValueError("bad SignedNumIncreasing")
    negative = not (key[pos] & 0x80)
    flip = 0xFFFF if negative else 0
    head = ((key[pos] << 8) | (key[pos + 1] if pos + 1 < len(key) else 0)) ^ flip
    length = 0
    while length < 16 and head & (0x8000 >> length):
        length += 1
    if not 1 <= length <= 10 or pos + length > len(key):
        raise ValueError("bad SignedNumIncreasing")
    buf = bytearray(key[pos:pos + length])
    h0, h1 = _HEADER[length]
    buf[0] ^= h0
    if length > 1:
        buf[1] ^= h1
    return int.from_bytes(buf, "big", signed=True), pos + length


def encode_tensor_name_slice(name: str, tensor_slice: TensorSlice) -> bytes:
    """The table key of one slice of tensor ``name`` (EncodeTensorNameSlice)."""
    out = bytearray()
    _write_num_increasing(out, 0)
    out += _escape(name.encode())
    out += b"\x00\x01"
    _write_num_increasing(out, tensor_slice.rank)
    for s, n in zip(tensor_slice.starts, tensor_slice.lengths):
        _write_signed_num_increasing(out, s)
        _write_signed_num_increasing(out, n)
    return bytes(out)


def decode_tensor_name_slice(key: bytes) -> tuple[str, TensorSlice]:
    """Inverse of :func:`encode_tensor_name_slice`; raises ValueError."""
    key = bytes(key)
    zero, pos = _read_num_increasing(key, 0)
    if zero != 0:
        raise ValueError(f"tensor slice key {key!r} does not start with 0")
    name, pos = _read_string(key, pos)
    rank, pos = _read_num_increasing(key, pos)
    extents = []
    for _ in range(rank):
        s, pos = _read_signed_num_increasing(key, pos)
        n, pos = _read_signed_num_increasing(key, pos)
        extents.append((s, n))
    if pos != len(key):
        raise ValueError(f"trailing bytes in tensor slice key {key!r}")
    return name.decode(), TensorSlice(extents)


def assemble(full_shape, np_dtype, want: TensorSlice, stored, load) -> np.ndarray:
    """Copies the part ``want`` of a tensor of ``full_shape`` out of its saved
    slices. ``stored`` lists the saved TensorSlices; ``load(slice)`` reads one.
    Only slices that intersect ``want`` are read. Raises ValueError when the
    saved slices do not cover ``want``."""
    want_bounds = want.bounds(full_shape)
    out = np.empty(want.shape(full_shape), dtype=np_dtype)
    covered = np.zeros(out.shape, dtype=bool)
    for sl in stored:
        have = sl.bounds(full_shape)
        inter = [(max(a0, b0), min(a1, b1)) for (a0, a1), (b0, b1) in zip(want_bounds, have)]
        if out.size and any(lo >= hi for lo, hi in inter):
            continue
        part = load(sl)
        if part.shape != sl.shape(full_shape):
            raise ValueError(f"saved slice {sl} has shape {part.shape}, expected {sl.shape(full_shape)}")
        dst = tuple(slice(lo - w0, hi - w0) for (lo, hi), (w0, _) in zip(inter, want_bounds))
        src = tuple(slice(lo - h0, hi - h0) for (lo, hi), (h0, _) in zip(inter, have))
        out[dst] = part[src]
        covered[dst] = True
    if not covered.all():
        raise ValueError(f"the saved slices {[str(s) for s in stored]} do not cover slice {want}")
    return out
