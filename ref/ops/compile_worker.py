"""Background builds in a process of their own (``ref.ops._jit``, :data:`_jit.PROCESS`).

A kernel registered with :func:`ref.ops._jit.compiles_in_background` used to compile
on a thread of the calling process. Numba's compiler is mostly Python: its typing
and lowering hold the GIL, so the thread slowed every step that ran beside it
(on a loaded machine each hand-over of the GIL also waits for the scheduler). Here
the compile runs in one child process, ``python -m ref.ops.compile_worker``, at the
lowest CPU priority, which writes Numba's on-disk cache; the parent's build thread
waits on a pipe (GIL released) and then only *loads* the kernel from that cache
(running the kernel's ``sample`` again: milliseconds a kernel).

Protocol: the parent writes ``<sample's module> <kernel's module> <kernel's name>``
lines on the child's stdin; the child imports both modules (the sample's module
registers it), finds the kernel, runs its ``sample`` with the NumPy forms off (so
every call compiles) and answers ``ref-built ok|failed <kernel's name>`` on stdout.
The child stops at the end of its input, or when its parent has gone (it finishes the
kernel it is building: the cache keeps it for the next process).
"""
from __future__ import annotations

import importlib
import os
import sys

from ref.ops import _jit

PREFIX = _jit.WORKER_PREFIX


def find_kernel(kernel_module, name):
    """The kernel ``name`` of ``kernel_module`` (a LazyKernel, or a SizedKernel's serial
    build) once its module is imported; None if there is none."""
    obj = getattr(importlib.import_module(kernel_module), name, None)
    if isinstance(obj, _jit.SizedKernel):
        obj = obj.serial
    return obj if isinstance(obj, _jit.LazyKernel) else None


def build(sample_module, kernel_module, name) -> bool:
    """Builds one kernel into Numba's on-disk cache by running its sample; whether it did."""
    importlib.import_module(sample_module)
    lazy = find_kernel(kernel_module, name)
    if lazy is None or lazy.sample is None:
        return False
    _jit.run_sample(lazy)
    return True


def main() -> int:
    try:
        os.nice(19)  # out of the way of the process whose steps wait for nothing here
    except (AttributeError, OSError):
        pass
    _jit.NUMPY_MAX = 0  # every call inside a sample compiles (ready() is True, no forms)
    _jit.IN_WORKER = True
    parent = os.getppid()
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 3:
            continue
        if os.getppid() != parent:  # the parent has gone: nobody waits for this build
            return 0
        try:
            ok = build(*parts)
        except Exception:  # noqa: BLE001 -- the parent compiles it itself and reports the error
            ok = False
        try:
            print(f"{PREFIX} {'ok' if ok else 'failed'} {parts[2]}", flush=True)
        except (BrokenPipeError, ValueError):  # the parent has gone (its kernel is in the cache now)
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
