"""The LevelDB-style table (ref/formats/table.py) against a sorted-dict oracle
and the layout facts of TF's table_builder.cc / format.cc. (TF reading our
tables, and our index bytes equal to TF's, are checked in test_bundle.py.)"""
import io
import struct

import pytest

from ref.types import errors
from ref.formats import table
from ref.formats.crc32c import crc32c, mask


def _keys(style, n):
    if style == "prefixed":  # long shared prefixes, like variable names in scopes
        return [f"model/layer_{i // 10:04d}/sublayer/weights_{i:06d}".encode() for i in range(n)]
    if style == "binary":  # every byte value, including 0x00 and 0xff
        return sorted({bytes([i % 256, (i * 7) % 256, 0xFF, 0]) + i.to_bytes(3, "big") for i in range(n)})
    if style == "varying":  # keys that are prefixes of each other
        return sorted({("a" * (i % 40) + str(i)).encode() for i in range(n)})
    raise ValueError(style)


def _build(items, **kw):
    f = io.BytesIO()
    b = table.TableBuilder(f, **kw)
    for k, v in items:
        b.add(k, v)
    b.finish()
    assert b.file_size == len(f.getvalue())
    return f.getvalue()


@pytest.mark.parametrize("style,n,block_size", [
    ("prefixed", 0, table.BLOCK_SIZE),
    ("prefixed", 1, table.BLOCK_SIZE),
    ("prefixed", 15, table.BLOCK_SIZE),
    ("prefixed", 16, table.BLOCK_SIZE),
    ("prefixed", 17, table.BLOCK_SIZE),
    ("prefixed", 1000, table.BLOCK_SIZE),
    ("prefixed", 1000, 512),
    ("binary", 700, 256),
    ("varying", 300, 1024),
    ("varying", 300, 64),
])
def test_round_trip_iterate_get_seek(style, n, block_size):
    keys = _keys(style, n)
    oracle = {k: (b"v" * (i % 50)) + k for i, k in enumerate(keys)}
    data = _build(sorted(oracle.items()), block_size=block_size)
    t = table.Table(data, "mem")
    assert t.items() == sorted(oracle.items())
    for k in keys[:: max(1, n // 50)]:
        assert t.get(k) == oracle[k]
        assert t.get(k + b"\x00") is None  # between two keys
        after = [kv for kv in sorted(oracle.items()) if kv[0] >= k + b"\x00"]
        assert list(t.seek(k + b"\x00")) == after
    assert t.get(b"\xff" * 20) is None


@pytest.mark.parametrize("n,expected_restarts", [(1, 1), (16, 1), (17, 2), (32, 2), (33, 3)])
def test_restart_points_every_16_keys(n, expected_restarts):
    """One data block: its trailing fixed32 is the number of restart points."""
    data = _build([(b"key%03d" % i, b"x") for i in range(n)])
    footer = data[-table.FOOTER_SIZE:]
    t = table.Table(data)
    off, size = t._handles[0]
    assert off == 0
    num_restarts = struct.unpack_from("<I", data, size - 4)[0]
    assert num_restarts == expected_restarts
    restarts = struct.unpack_from(f"<{num_restarts}I", data, size - 4 - 4 * num_restarts)
    assert restarts[0] == 0
    assert footer[-8:] == struct.pack("<Q", table.MAGIC)


def test_empty_table_layout():
    """No data block; empty metaindex block and empty index block, each the
    8-byte restart array [0] + count 1, then the 48-byte footer."""
    data = _build([])
    empty_block = struct.pack("<II", 0, 1)
    trailer = b"\x00" + struct.pack("<I", mask(crc32c(empty_block + b"\x00")))
    assert data[:13] == empty_block + trailer
    assert data[13:26] == empty_block + trailer
    assert len(data) == 26 + 48
    footer = data[26:]
    assert footer[:4] == bytes([0, 8, 13, 8])  # handles (0, 8) and (13, 8) as varints
    assert footer[4:40] == b"\0" * 36
    assert footer[40:] == bytes.fromhex("57fb808b247547db")
    assert table.Table(data).items() == []


@pytest.mark.parametrize("start,limit,expected", [
    (b"the quick brown fox", b"the who", b"the r"),
    (b"abc", b"abcd", b"abc"),          # a prefix: unchanged
    (b"ab\xff", b"ac", b"ab\xff"),        # differing bytes adjacent: unchanged
    (b"a1", b"a3", b"a2"),
])
def test_shortest_separator(start, limit, expected):
    assert table._shortest_separator(start, limit) == expected
    assert start <= expected < limit


@pytest.mark.parametrize("key,expected", [(b"abc", b"b"), (b"\xff\xffz", b"\xff\xff{"), (b"\xff\xff", b"\xff\xff")])
def test_short_successor(key, expected):
    assert table._short_successor(key) == expected


def test_keys_must_increase():
    b = table.TableBuilder(io.BytesIO())
    b.add(b"b", b"1")
    with pytest.raises(ValueError, match="increasing"):
        b.add(b"a", b"2")
    with pytest.raises(ValueError, match="increasing"):
        b.add(b"b", b"2")


@pytest.mark.parametrize("compressed,expected", [
    # preamble varint 5, literal tag (len-1)<<2, bytes
    (b"\x05\x10hello", b"hello"),
    # "abcd" literal then copy-1 (len 8 -> tag bits (8-4)<<2 | 01, offset 4): overlapping repeat
    (b"\x0c\x0cabcd" + bytes([((8 - 4) << 2) | 1, 4]), b"abcd" * 3),
    # copy-2: length 3 -> tag (3-1)<<2 | 2, offset 2 little-endian
    (b"\x05\x04xy" + bytes([(2 << 2) | 2, 2, 0]), b"xyxyx"),
    # literal with a 1-byte length extension (tag 60<<2): 70 bytes
    (b"\x46" + bytes([60 << 2, 69]) + b"z" * 70, b"z" * 70),
])
def test_snappy_decoder(compressed, expected):
    assert table.snappy_decompress(compressed) == expected


def test_snappy_compressed_block_is_read():
    """A block stored with type byte 1 (snappy) is decompressed before parsing."""
    data = bytearray(_build([(b"k1", b"v1"), (b"k2", b"v2")]))
    t = table.Table(bytes(data))
    off, size = t._handles[0]
    raw = bytes(data[off:off + size])
    comp = bytearray()
    table.put_varint(comp, len(raw))
    comp += bytes([((len(raw) - 1) << 2)]) + raw  # one literal (len <= 60)
    comp = bytes(comp)
    block = comp + b"\x01" + struct.pack("<I", mask(crc32c(comp + b"\x01")))
    # rebuild the file: snappy data block, then the original metaindex/index/footer re-pointed
    ib = table.BlockBuilder(1)
    handle = bytearray()
    table.put_varint(handle, 0)
    table.put_varint(handle, len(comp))
    ib.add(b"k3", bytes(handle))
    meta = table.BlockBuilder().finish()
    idx = ib.finish()
    out = bytearray(block)
    meta_off = len(out)
    out += meta + b"\x00" + struct.pack("<I", mask(crc32c(meta + b"\x00")))
    idx_off = len(out)
    out += idx + b"\x00" + struct.pack("<I", mask(crc32c(idx + b"\x00")))
    footer = bytearray()
    for v in (meta_off, len(meta), idx_off, len(idx)):
        table.put_varint(footer, v)
    out += bytes(footer).ljust(40, b"\0") + struct.pack("<Q", table.MAGIC)
    assert table.Table(bytes(out)).items() == [(b"k1", b"v1"), (b"k2", b"v2")]


@pytest.mark.parametrize("damage", ["truncate_footer", "truncate_half", "flip_data", "flip_index", "flip_magic",
                                    "unknown_block_type"])
def test_corruption_raises_data_loss_naming_file(damage):
    data = bytearray(_build([(b"key%04d" % i, b"value%d" % i) for i in range(200)], block_size=512))
    if damage == "truncate_footer":
        data = data[:-10]
    elif damage == "truncate_half":
        data = data[: len(data) // 2]
    elif damage == "flip_data":
        data[20] ^= 0x10
    elif damage == "flip_index":
        data[len(data) - 48 - 10] ^= 0x01
    elif damage == "flip_magic":
        data[-1] ^= 0x80
    elif damage == "unknown_block_type":
        t = table.Table(bytes(data))
        off, size = t._handles[0]
        data[off + size] = 7  # with a valid checksum, so the type check itself must fire
        data[off + size + 1:off + size + 5] = struct.pack("<I", mask(crc32c(bytes(data[off:off + size + 1]))))
    match = "bad block type 7" if damage == "unknown_block_type" else "some/file.index"
    with pytest.raises(errors.DataLossError, match=match):
        t = table.Table(bytes(data), "some/file.index")
        t.items()
