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
from ref.ops import _jit as _under_test  # noqa: F401  (the module these tests cover)

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


STEP = textwrap.dedent("""
    import sys
    import numpy as np
    import ref.raw_ops as raw
    from ref.ops import _jit
    from ref.ops.training.adam import _adam_loop

    n = _jit.PARALLEL_MIN + 16  # the parallel loop
    if sys.argv[1] == "loop only":  # the parallel loop compiled and cached, no T-bound wrapper
        _adam_loop.parallel.compiled()
        f = np.float32
        a = [np.zeros(n, f) for _ in range(3)]
        # (var, m, v, grad, alpha, beta1, beta2, epsilon, use_nesterov, T)
        _adam_loop.parallel(*a, np.ones(n, f), f(0.001), f(0.9), f(0.999), f(1e-8), False, f)
    else:
        f = np.float32
        var, m, v = (np.zeros(n, f) for _ in range(3))
        new = raw.ApplyAdam(var=var, m=m, v=v, beta1_power=f(0.9), beta2_power=f(0.999), lr=f(0.001),
                            beta1=f(0.9), beta2=f(0.999), epsilon=f(1e-8), grad=np.ones(n, f))
        new = new[0] if isinstance(new, tuple) else new
        assert np.allclose(new, -0.001, rtol=1e-3)  # lr * sqrt(1 - 0.999) / (1 - 0.9) * 0.1 / sqrt(0.001)
    print("ok")
""")


def test_a_parallel_loop_from_the_cache_runs_in_every_later_process(tmp_path):
    """The loop cached by one process, its T-bound wrapper made by a second that
    loaded the loop from the cache, a third process running both: the third
    crashed (SIGSEGV) while the wrapper of a parallel loop was cached too."""
    if os.environ.get("REF_DISABLE_JIT"):
        pytest.skip("Numba disabled")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for stage in ("loop only", "step", "step"):
        done = subprocess.run([sys.executable, "-c", STEP, stage], env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0 and done.stdout.strip() == "ok", (stage, done.returncode, done.stderr[-2000:])
