"""Helpers for the fault-injection tests: run a snippet in a child process
bounded in time (a timeout, never a timing assertion) and in address space
(``resource.setrlimit(RLIMIT_AS)``), so a hang or an allocation driven by a
file's claims fails the test instead of the machine."""
import json
import os
import resource
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _limit(memory_mb):
    def apply():
        if memory_mb:
            limit = memory_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run_child(code, *args, timeout=120, memory_mb=1536):
    """Runs ``code`` (dedented) as ``python -c`` from the repository root with
    ``args`` as ``sys.argv[1:]``; the child prints one JSON line last, which is
    returned. A timeout or a crash fails with the child's output."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MALLOC_ARENA_MAX="2", TF_CPP_MIN_LOG_LEVEL="2")
    try:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout, preexec_fn=_limit(memory_mb))
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
