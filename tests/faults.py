"""Helpers for the fault-injection tests: run a snippet in a child process
bounded in time (a timeout, never a timing assertion) and in address space
(``resource.setrlimit(RLIMIT_AS)``), so a hang or an allocation driven by a
file's claims fails the test instead of the machine."""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _limited(code, memory_mb):
    """``code`` preceded by the address-space limit. The child sets it itself,
    first thing: a ``preexec_fn`` would run Python between fork and exec, which
    aborts children of a process with live gRPC threads (the distributed tests)."""
    code = textwrap.dedent(code)
    if not memory_mb:
        return code
    limit = memory_mb << 20
    return f"import resource as _r; _r.setrlimit(_r.RLIMIT_AS, ({limit}, {limit}))\n" + code


def run_child(code, *args, timeout=120, memory_mb=1536):
    """Runs ``code`` (dedented) as ``python -c`` from the repository root with
    ``args`` as ``sys.argv[1:]``; the child prints one JSON line last, which is
    returned. A timeout or a crash fails with the child's output."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MALLOC_ARENA_MAX="2", TF_CPP_MIN_LOG_LEVEL="2")
    try:
        proc = subprocess.run([sys.executable, "-c", _limited(code, memory_mb), *map(str, args)], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"child did not finish in {timeout} s (hang?):\n{e.stdout}\n{e.stderr}") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or not lines:
        raise AssertionError(f"child failed (rc {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[-1])


# A child's way of reporting an exception: its class name and message.
REPORT = """
import json, sys
def outcome(fn):
    try:
        value = fn()
    except BaseException as e:  # noqa: BLE001 - the kind is what is tested
        return {"error": type(e).__name__, "message": str(e)}
    return {"value": value}
"""
