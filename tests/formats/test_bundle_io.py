"""The bundle's data path (ref/formats/bundle.py): tensors are written and
read in chunks straight from and into the arrays' memory, each chunk
checksummed in place. The checksums must equal the CRC32C of the whole byte
string (google_crc32c.value, an independent one-shot computation), at sizes
around the chunk boundary, and a flipped byte anywhere must still be caught."""
import os

import google_crc32c
import numpy as np
import pytest

from ref.types import errors
from ref.formats import bundle
from ref.formats import crc32c as _crc
from ref.checkpoint import BundleReader, BundleWriter

CHUNK = bundle._CRC_CHUNK
SIZES = [0, 1, 7, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5]


@pytest.mark.parametrize("nbytes", SIZES)
def test_write_and_read_checksums_equal_one_shot_crc(tmp_path, nbytes):
    data = np.random.default_rng(nbytes).integers(0, 256, nbytes, dtype=np.uint8)
    path = tmp_path / "blob"
    with open(path, "wb") as f:
        crc_w = bundle._write_with_crc(f, data)
    assert path.read_bytes() == data.tobytes()
    expected = google_crc32c.value(data.tobytes())
    assert crc_w == expected
    out = np.empty(nbytes, np.uint8)
    with open(path, "rb", buffering=0) as f:
        got, crc_r = bundle._readinto_with_crc(f, out, 0)
    assert (got, crc_r) == (nbytes, expected)
    assert np.array_equal(out, data)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "bool", "complex64"])
@pytest.mark.parametrize("count", [1, CHUNK // 4 + 3])
def test_roundtrip_entry_crc_matches_bytes(tmp_path, dtype, count):
    rng = np.random.default_rng(1)
    value = (rng.standard_normal(count) > 0) if dtype == "bool" else \
        (rng.standard_normal(count) * 100).astype(dtype)
    prefix = str(tmp_path / "ckpt")
    with BundleWriter(prefix) as w:
        w.add("v", value)
    with BundleReader(prefix) as r:
        entry = r._entry("v")
        assert _crc.unmask(entry.crc32c) == google_crc32c.value(np.ascontiguousarray(value).tobytes())
        assert np.array_equal(r.lookup("v"), value)


@pytest.mark.parametrize("where", [0, CHUNK - 1, CHUNK, 2 * CHUNK + 17])
def test_flipped_byte_in_any_chunk_is_data_loss(tmp_path, where):
    value = np.arange(3 * CHUNK // 4 + 100, dtype=np.float32)
    prefix = str(tmp_path / "ckpt")
    with BundleWriter(prefix) as w:
        w.add("v", value)
    data = bundle.data_filename(prefix, 0, 1)
    with open(data, "r+b") as f:
        f.seek(where)
        b = f.read(1)
        f.seek(where)
        f.write(bytes([b[0] ^ 0x40]))
    assert os.path.getsize(data) == value.nbytes
    with BundleReader(prefix) as r, pytest.raises(errors.DataLossError, match="Checksum does not match"):
        r.lookup("v")
