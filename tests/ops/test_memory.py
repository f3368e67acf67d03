"""``ref.ops.memory.keep_freed_memory``: once set (a Session sets it), a step-like
round of large arrays allocated, written and freed reuses the memory of the round
before -- no page faults for its pages after the first round (counted by the
kernel: ``getrusage``'s minor faults), in a fresh process of its own."""
import os
import platform
import subprocess
import sys

import pytest

from ref.ops import memory

ROUND = """
import resource, sys
import numpy as np
from ref.ops import memory
assert memory.keep_freed_memory() is {want}
sizes = [int(s) for s in sys.argv[1:]]
faults = []
for _ in range(4):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = []
    for i, size in enumerate(sizes):
        arrays.append(np.ones(size // 4, np.float32))
        if i % 3 == 2:
            del arrays[0]  # frees in another order than allocations, as a step's do
    del arrays
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(faults[-1], sum(sizes) // 4096)
"""

# bytes of each array of a round: a convnet's activations and gradients, and a few
# sizes between glibc's default mmap threshold (128 KiB) and its largest (32 MiB)
ROUNDS = [
    [6422528, 3211264, 6422528, 1605632, 802816, 3211264, 6422528, 262144],
    [8388608, 8388608, 2097152, 4194304, 300000, 2097152, 16777216],
]


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
@pytest.mark.parametrize("sizes", ROUNDS, ids=str)
def test_a_round_of_arrays_reuses_the_last_rounds_memory(sizes):
    env = dict(os.environ, PYTHONPATH=os.getcwd(), REF_KEEP_FREED_MEMORY="1")
    out = subprocess.run([sys.executable, "-c", ROUND.format(want=True), *map(str, sizes)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    faults, pages = int(out[0]), int(out[1])
    assert faults < pages // 50, (faults, pages)


def test_the_environment_variable_leaves_the_defaults():
    env = dict(os.environ, PYTHONPATH=os.getcwd(), REF_KEEP_FREED_MEMORY="0")
    subprocess.run([sys.executable, "-c", ROUND.format(want=False), "1000000"], env=env, check=True)
    assert memory.MMAP_THRESHOLD <= 32 << 20  # glibc refuses more on 64-bit machines
