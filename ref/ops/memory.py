"""Freed memory kept for the next step, as TensorFlow's allocator keeps its own.

A training step allocates the same large arrays every time (a convnet's
activations and gradients: megabytes each). glibc's ``malloc`` hands an
allocation above its mmap threshold (128 KiB, raised as such blocks are freed,
up to 32 MiB) to the kernel as a fresh mapping and unmaps it on ``free``, and
trims the heap's free top above its trim threshold: the next step's array is new
memory again, and each of its 4 KiB pages costs a page fault (zeroing it) the
first time it is written. TensorFlow's CPU allocator keeps what it has freed for
the next tensor. :func:`keep_freed_memory` asks glibc for the same
(``mallopt``): allocations up to :data:`MMAP_THRESHOLD` come from the heap and a
free top of up to :data:`TRIM_THRESHOLD` stays mapped, so a step's arrays reuse
the memory of the step before. Measured single-threaded, batch 64 (load 9): LeNet
4,900 page faults and 11.6 ms of system time a step -> none, 72 -> 61 ms of CPU a
step; VGG 2,535 faults, 109.6 -> 102.8 ms. A ``Session`` calls it when it is
made; ``REF_KEEP_FREED_MEMORY=0`` leaves glibc's defaults. Elsewhere than glibc
(musl, macOS, Windows) it does nothing.
"""
from __future__ import annotations

import ctypes
import os
import threading

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
"""Bytes up to which an allocation comes from the heap (glibc's largest allowed value
on 64-bit machines: larger blocks are still mapped apart)."""
TRIM_THRESHOLD = 1 << 30
"""Bytes of free memory at the heap's top that ``free`` leaves mapped."""

_LOCK = threading.Lock()
_DONE = []


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds (once per process; see the module
    docstring). Whether they are set."""
    if _DONE:
        return _DONE[0]
    with _LOCK:
        if not _DONE:
            _DONE.append(_set_thresholds())
    return _DONE[0]


def _set_thresholds() -> bool:
    if os.environ.get("REF_KEEP_FREED_MEMORY", "1") == "0":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: glibc's where it has them
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
