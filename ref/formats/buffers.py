"""Large read buffers that outlive the arrays read into them.

A restore reads each tensor into a new array. For hundreds of megabytes that
array's pages are touched for the first time by the read itself, and the
kernel's page faults (and, for NumPy's huge-page advice, its memory
compaction) cost more than the copy: 400 MB restored again into fresh arrays
took 50–600 ms a round here, in the same rounds where TF took ~72 ms. TF's
allocator hands a freed block out again; this pool does the same for the
checkpoint readers:

* :func:`empty` of at least :data:`MIN_BYTES` returns a view of a pooled raw
  buffer that nothing else refers to (its pages already faulted in), or of a
  new one;
* a buffer is free again once every array viewing it is gone (its reference
  count, no hook needed), so an array handed out is never written again;
* the pool keeps at most :data:`MAX_BYTES` (least recently used dropped first),
  so it holds no more memory than a few restores of the same checkpoint need.

Anything smaller is a plain ``np.empty``.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

MIN_BYTES = 16 << 20
"""Arrays of fewer bytes are plain ``np.empty``."""

MAX_BYTES = 1 << 30
"""Bytes of free buffers the pool keeps at most."""

_lock = threading.Lock()
_pool: list[np.ndarray] = []  # raw uint8 buffers, most recently used last


def _free(i: int) -> bool:
    """Whether ``_pool[i]`` is free: its only references are the pool's and getrefcount's argument."""
    return sys.getrefcount(_pool[i]) <= 2


def empty(shape, dtype) -> np.ndarray:
    """An uninitialized C-contiguous array (like ``np.empty``), from the pool when large."""
    dtype = np.dtype(dtype)
    count = 1
    for d in shape:
        count *= int(d)
    nbytes = count * dtype.itemsize
    if nbytes < MIN_BYTES or dtype.hasobject:
        return np.empty(shape, dtype)
    with _lock:
        raw = _take(nbytes)
    return raw[:nbytes].view(dtype).reshape(shape)


def _take(nbytes: int) -> np.ndarray:
    """The smallest free pooled buffer of ``nbytes`` to twice that (moved to the
    recently-used end), else a new one; trims the pool's free bytes to MAX_BYTES."""
    best = None
    for i in range(len(_pool)):
        size = _pool[i].size
        if nbytes <= size <= 2 * nbytes and _free(i) and (best is None or size < _pool[best].size):
            best = i
    raw = _pool.pop(best) if best is not None else np.empty(nbytes, np.uint8)
    free = 0
    for i in reversed(range(len(_pool))):
        if _free(i):
            free += _pool[i].size
            if free > MAX_BYTES:
                del _pool[i]
    _pool.append(raw)
    return raw


def pooled_bytes() -> tuple[int, int]:
    """``(buffers, bytes)`` the pool holds now (free or in use)."""
    with _lock:
        return len(_pool), sum(raw.size for raw in _pool)


def clear() -> None:
    """Forgets every pooled buffer (arrays viewing one keep theirs alive)."""
    with _lock:
        _pool.clear()
