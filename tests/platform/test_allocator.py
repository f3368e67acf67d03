"""The allocator policy (ref/platform/allocator.py): after a Session is made, a
step's large transient arrays reuse freed pages (no page faults), unless the
user opted out or chose glibc's thresholds; each row runs in a fresh process."""
import json
import os
import subprocess
import sys

import pytest

from ref.platform import allocator as _under_test  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = r"""
import json, resource, numpy as np
import ref as tf
from ref.platform import allocator
with tf.Graph().as_default():
    tf.Session().close()
sizes = [8 << 20, 20 << 20, 2 << 20, 12 << 20, 300 << 10]   # bytes: all below 32 MiB
for size in sizes:   # a first "step": its pages are faulted in once
    np.ones(size // 4, np.float32)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):   # later "steps": the same sizes again, each array freed before the next
    for size in sizes:
        np.ones(size // 4, np.float32)
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"applied": allocator.keep_freed_memory(), "faults": faults,
                  "pages": 5 * sum(sizes) // 4096}))
"""

FEW = 200
"""Faults the five later steps may take under the policy (of ~54,000 pages written)."""

ROWS = [
    # (environment added, policy applied)
    ({}, True),
    ({"REF_KEEP_FREED_MEMORY": "0"}, False),
    ({"REF_KEEP_FREED_MEMORY": "off"}, False),
    ({"MALLOC_TRIM_THRESHOLD_": "131072"}, False),
    ({"MALLOC_MMAP_THRESHOLD_": "131072"}, False),
]


def _run(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "REF_KEEP_FREED_MEMORY"}
    env.update(extra, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
@pytest.mark.parametrize("extra,applied", ROWS)
def test_policy_rows(extra, applied):
    got = _run(extra)
    assert got["applied"] is applied
    if applied:  # every later array on pages the process already has: (almost) no faults
        assert got["faults"] < FEW, got
    if extra.get("MALLOC_MMAP_THRESHOLD_") == "131072":  # each array its own mmap: faulted in again
        assert got["faults"] > 10 * FEW, got  # (fewer than its pages where the kernel maps huge pages)
