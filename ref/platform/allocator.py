"""The C allocator's policy for a Session's arrays: freed blocks are kept for
the next step instead of going back to the kernel.

TF's CPU allocator (its BFC allocator, "Best-Fit with Coalescing") keeps the
memory it frees in its own pool, so a training step's tensors reuse the pages
of the previous step's. NumPy allocates through glibc's ``malloc``, whose
defaults hand large blocks back: a block above ``M_MMAP_THRESHOLD`` (128 KiB,
raised as such blocks are freed, up to 32 MiB) is an ``mmap`` of its own and
an ``munmap`` when freed, and free memory at the heap's top beyond
``M_TRIM_THRESHOLD`` is returned by ``sbrk``. Either way the next step's
array of that size starts on fresh pages: one page fault and one zeroed 4 KiB
page per page written. Measured on the MLP of ``bench/models.py`` (batch 256)
and the 2-layer LSTM LM: 3,500 and 7,000 page faults a step, a gate weight
gradient's ``[400, 800]`` product 3x slower in the step than alone
(``bench/README.md``, "Allocator policy").

:func:`keep_freed_memory` sets both thresholds once per process (glibc only):
blocks up to 32 MiB come from the heap, and the heap keeps up to
:data:`TRIM_THRESHOLD` bytes of free memory at its top. The resident size
then stays at the steps' peak, as TF's does. Not done where the user chose a
policy (``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_`` /
``MALLOC_TOP_PAD_`` in the environment) or set ``REF_KEEP_FREED_MEMORY=0``.
No value changes: only where the arrays' memory comes from.
"""
from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["keep_freed_memory", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""``mallopt`` parameters (glibc's ``malloc.h``)."""
MMAP_THRESHOLD = 32 << 20
"""Bytes from which a block is its own ``mmap``: glibc's largest allowed value
(``DEFAULT_MMAP_THRESHOLD_MAX`` on 64-bit), the top of its own dynamic range."""
TRIM_THRESHOLD = 1 << 30
"""Free bytes the heap's top may keep: a step's transient arrays (the LSTM LM's
largest is its 16 MB logits) and far more, while a one-off peak above 1 GiB is
still returned."""

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")
_LOCK = threading.Lock()
_DONE = []  # [applied: bool] once decided


def keep_freed_memory() -> bool:
    """Sets glibc's thresholds as the module docstring says, once per process;
    True when they are set (now or before)."""
    if _DONE:
        return _DONE[0]
    with _LOCK:
        if not _DONE:
            _DONE.append(_apply())
    return _DONE[0]


def _apply() -> bool:
    if os.environ.get("REF_KEEP_FREED_MEMORY", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if any(name in os.environ for name in _USER_SETTINGS):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (macOS, musl without it): its own policy stays
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
