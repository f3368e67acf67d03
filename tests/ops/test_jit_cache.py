"""Numba's on-disk cache and the two builds of a SizedKernel loop.

Numba keys its cache by file, qualname and signature, not by options: if the
serial and parallel builds of one loop shared a qualname, a process that found
the serial build cached would run it for large arrays too -- correct numbers,
one core. Each build must come back from the cache as itself."""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import numba
    import numpy as np
    from ref.ops import _jit
    from ref.ops.training.gradient_descent import _gradient_descent_loop as loop

    which = sys.argv[1]
    kernel = (loop.serial if which == "serial" else loop.parallel).compiled()
    var = np.ones(1000, np.float32)
    kernel(var, np.ones(1000, np.float32), np.float32(0.5), np.float32)
    assert var[0] == 0.5
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = None
    print(which, layer is not None, kernel.targetoptions.get("parallel", False))
""")


@pytest.mark.parametrize("first", ["serial", "parallel"])
def test_serial_and_parallel_builds_do_not_share_a_cache_entry(tmp_path, first):
    if os.environ.get("REF_DISABLE_JIT"):
        pytest.skip("Numba disabled")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    second = "parallel" if first == "serial" else "serial"
    outputs = {}
    for which in (first, second, first, second):  # the second round loads both from the cache
        out = subprocess.run([sys.executable, "-c", SCRIPT, which], env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        outputs.setdefault(which, []).append(out.stdout.split())
    # the parallel build starts Numba's thread pool, every time; the serial one never does
    assert outputs["parallel"] == [["parallel", "True", "True"]] * 2
    assert outputs["serial"] == [["serial", "False", "False"]] * 2
