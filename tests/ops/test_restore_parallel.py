"""RestoreV2 reads a large checkpoint two tensors at a time
(``ref.ops.io.PARALLEL_RESTORE_BYTES``): the same values as one at a time, and
the same error -- the first failing tensor's, in the order asked for."""
import numpy as np
import pytest

import ref.raw_ops as raw
from ref.ops import io
from ref.types import errors

NAMES = [f"v{i}" for i in range(6)]


def _save(tmp_path):
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((64, 33 + i)).astype(np.float32) for i in range(len(NAMES))]
    prefix = str(tmp_path / "ckpt")
    raw.SaveV2(prefix=prefix, tensor_names=np.array(NAMES, object), shape_and_slices=np.array([""] * 6, object),
               tensors=values)
    return prefix, values


def _restore(prefix, names=NAMES, dtypes=None):
    return raw.RestoreV2(prefix=prefix, tensor_names=np.array(names, object),
                         shape_and_slices=np.array([""] * len(names), object),
                         dtypes=dtypes or [np.float32] * len(names))


@pytest.fixture(params=["one at a time", "two at a time"])
def mode(request, monkeypatch):
    monkeypatch.setattr(io, "PARALLEL_RESTORE_BYTES", 1 << 40 if request.param == "one at a time" else 1)
    return request.param


def test_values_are_the_saved_ones(tmp_path, mode):
    prefix, values = _save(tmp_path)
    for got, want in zip(_restore(prefix), values):
        assert got.tobytes() == want.tobytes()


def _flip(prefix, tensor):
    """Flips a byte in the middle of tensor ``tensor``'s data (they are stored in name order)."""
    path = prefix + ".data-00000-of-00001"
    data = bytearray(open(path, "rb").read())
    offset = sum(64 * (33 + i) * 4 for i in range(tensor)) + 100
    data[offset] ^= 0xFF
    open(path, "wb").write(bytes(data))


@pytest.mark.parametrize("bad", [(1, 4), (0, 5), (3,)])
def test_the_first_damaged_tensor_is_reported(tmp_path, mode, bad):
    prefix, _ = _save(tmp_path)
    for t in bad:
        _flip(prefix, t)
    with pytest.raises(errors.DataLossError, match=f"tensor {NAMES[bad[0]]} ") as info:
        _restore(prefix)
    assert "Checksum does not match" in str(info.value)


def test_a_damaged_tensor_before_a_wrong_dtype_is_reported_first(tmp_path, mode):
    prefix, _ = _save(tmp_path)
    _flip(prefix, 1)
    with pytest.raises(errors.DataLossError, match="tensor v1 "):
        _restore(prefix, dtypes=[np.float32] * 4 + [np.float64, np.float32])
    with pytest.raises(errors.InvalidArgumentError, match="tensor_name = v0; expected dtype double"):
        _restore(prefix, dtypes=[np.float64] + [np.float32] * 5)
