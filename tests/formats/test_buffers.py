"""The checkpoint readers' pool of large buffers (ref/formats/buffers.py)."""
import gc

import numpy as np
import pytest

from ref.formats import buffers, bundle


@pytest.fixture
def small_pool(monkeypatch):
    """A pool for arrays of 1 KiB and more, holding at most 64 KiB free, empty at start and end."""
    monkeypatch.setattr(buffers, "MIN_BYTES", 1024)
    monkeypatch.setattr(buffers, "MAX_BYTES", 64 * 1024)
    buffers.clear()
    yield
    buffers.clear()


def _address(a):
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("shape,dtype", [((16, 16), np.float32), ((300,), np.float64), ((4, 8, 32), np.int32),
                                         ((2048,), np.uint8)])
def test_empty_has_the_shape_and_dtype_asked_for(small_pool, shape, dtype):
    a = buffers.empty(shape, dtype)
    assert a.shape == shape and a.dtype == np.dtype(dtype) and a.flags.c_contiguous and a.flags.writeable


def test_a_freed_buffer_is_handed_out_again(small_pool):
    a = buffers.empty((1024,), np.float32)
    where = _address(a)
    del a
    gc.collect()
    b = buffers.empty((1024,), np.float32)
    assert _address(b) == where
    assert buffers.pooled_bytes() == (1, 4096)


@pytest.mark.parametrize("keep", [lambda a: a, lambda a: a[10:20], lambda a: a.reshape(32, 32), lambda a: a.view(np.int32)])
def test_a_buffer_something_still_views_is_never_handed_out(small_pool, keep):
    a = buffers.empty((1024,), np.float32)
    a[:] = 7.0
    held = keep(a)
    before = np.array(held, copy=True)
    del a
    b = buffers.empty((1024,), np.float32)
    b[:] = -1.0
    np.testing.assert_array_equal(held, before)
    assert buffers.pooled_bytes()[0] == 2


def test_a_buffer_more_than_twice_the_size_is_not_used(small_pool):
    a = buffers.empty((4096,), np.float32)  # 16 KiB
    del a
    b = buffers.empty((1024,), np.float32)  # 4 KiB: the 16 KiB buffer is too big
    assert buffers.pooled_bytes() == (2, 16384 + 4096)
    del b
    c = buffers.empty((3000,), np.float32)  # 12000 bytes: the 16 KiB buffer fits
    assert buffers.pooled_bytes() == (2, 16384 + 4096)
    assert c.nbytes == 12000


def test_the_pool_keeps_at_most_max_bytes_free(small_pool):
    arrays = [buffers.empty((4096,), np.float32) for _ in range(6)]  # 6 x 16 KiB in use
    assert buffers.pooled_bytes() == (6, 6 * 16384)
    del arrays
    buffers.empty((256,), np.float32)  # a new 1 KiB buffer; trimming keeps the newest 64 KiB of free ones
    assert buffers.pooled_bytes() == (5, 4 * 16384 + 1024)


def test_small_and_object_arrays_are_plain(small_pool):
    assert buffers.empty((10,), np.float32).base is None
    assert buffers.empty((1000,), object).base is None
    assert buffers.pooled_bytes() == (0, 0)


def test_restored_tensors_stay_intact_when_the_next_restore_reuses_the_pool(small_pool, tmp_path):
    rng = np.random.default_rng(1)
    first = {"w": rng.standard_normal((64, 64)).astype(np.float32), "b": np.arange(512, dtype=np.int64)}
    second = {"w": rng.standard_normal((64, 64)).astype(np.float32), "b": -np.arange(512, dtype=np.int64)}
    for name, tensors in (("one", first), ("two", second)):
        w = bundle.BundleWriter(str(tmp_path / name))
        for k, v in tensors.items():
            w.add(k, v)
        w.finish()
    r = bundle.BundleReader(str(tmp_path / "one"))
    kept = r.lookup("w")
    r.lookup("b")  # dropped: its buffer is free again
    r.close()
    r = bundle.BundleReader(str(tmp_path / "two"))
    got = {k: r.lookup(k) for k in ("w", "b")}
    r.close()
    np.testing.assert_array_equal(kept, first["w"])
    for k in got:
        np.testing.assert_array_equal(got[k], second[k])
