"""Cold start: the first training step of a fresh process, for the demo model
(``python -m ref demo``: 2-64-3 MLP, clipping, decayed learning rate, moving
averages, summaries), with an empty and with a warm Numba cache.

    python bench/cold_start.py [--repeat 5] [--optimizer momentum] [--no-tf]

Each sample is a new ``python`` process that imports ``ref``, builds the demo
graph, runs the initializer and one training step (a batch of 128). It reports
``first step``: seconds from just after ``import ref`` to the end of that step
(graph construction included), and ``wall``: the whole process, interpreter
start and ``import ref`` included. Targets (issue 18): first step <= 1.0 s with
an empty Numba cache, <= 0.3 s with a warm one.

Rows, side by side in one run (rounds interleaved, so all see the same load):

* ``ref, empty cache``: ``NUMBA_CACHE_DIR`` a new empty directory every time;
* ``ref, warm cache``: one directory, filled by an untimed first run;
* ``ref+Numba, empty/warm cache``: the same with ``REF_NUMPY_MAX=0``, i.e.
  every kernel compiled by Numba as before the small-input NumPy forms (what a
  larger model pays: its tensors are over the NumPy forms' size limit);
* ``tf``: TensorFlow's ``tf.compat.v1`` running the same graph builder.

Python's own bytecode cache is used (``PYTHONDONTWRITEBYTECODE`` unset, the
``.pyc`` files kept under a temporary ``PYTHONPYCACHEPREFIX`` and filled by an
untimed run), as for an installed package; ``--no-pyc`` keeps the environment's
setting instead.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = r"""
import sys, time
t0 = time.perf_counter()
if sys.argv[1] == "tf":
    import os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as _tf
    tf = _tf.compat.v1
    tf.disable_eager_execution()
    tf.logging.set_verbosity(tf.logging.ERROR)
else:
    import ref as tf
t1 = time.perf_counter()
from ref import demo
x, y = demo.spirals()
with tf.Graph().as_default():
    m = demo.build(tf, sys.argv[2])
    with tf.Session() as s:
        s.run(m["init"])
        s.run([m["train_op"], m["loss"], m["global_step"]], {m["x"]: x[:128], m["y"]: y[:128]})
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, "numba" in sys.modules)
"""


def _sample(kind, optimizer, env):
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", SCRIPT, kind, optimizer], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{kind} run failed:\n{out.stderr}")
    _, step, numba = out.stdout.split()[-3:]
    return float(step), wall, numba == "True"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="rounds (each runs every row once)")
    p.add_argument("--optimizer", default="momentum")
    p.add_argument("--no-tf", action="store_true", help="skip TensorFlow")
    p.add_argument("--no-pyc", action="store_true", help="keep the environment's bytecode setting")
    args = p.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="ref-cold-")
    base = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for k in ("REF_NUMPY_MAX", "REF_NUMPY_BUDGET_S", "REF_DISABLE_JIT"):
        base.pop(k, None)
    if not args.no_pyc:
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pyc")
    rows = {"ref, empty cache": ("ref", {}, True), "ref, warm cache": ("ref", {}, False),
            "ref+Numba, empty cache": ("ref", {"REF_NUMPY_MAX": "0"}, True),
            "ref+Numba, warm cache": ("ref", {"REF_NUMPY_MAX": "0"}, False)}
    if not args.no_tf:
        try:
            import importlib.util
            if importlib.util.find_spec("tensorflow") is not None:
                rows["tf"] = ("tf", {}, False)
        except ImportError:
            pass
    results = {name: [] for name in rows}
    try:
        warm = {}
        for name, (kind, extra, empty) in rows.items():  # untimed: fill .pyc and the warm caches
            env = {**base, **extra, "NUMBA_CACHE_DIR": os.path.join(tmp, f"warm{len(warm)}")}
            warm[name] = env
            _sample(kind, args.optimizer, env)
        for r in range(args.repeat):
            for name, (kind, extra, empty) in rows.items():
                env = dict(warm[name])
                if empty:
                    env["NUMBA_CACHE_DIR"] = os.path.join(tmp, f"empty{r}-{len(results[name])}-{name[:3]}")
                results[name].append(_sample(kind, args.optimizer, env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"cold start: demo model ({args.optimizer}), first training step of a fresh process, "
          f"{args.repeat} rounds; seconds (load average {load} on {os.cpu_count()} CPUs)")
    print(f"  {'':24s} {'first step (after import ref)':>40s}   {'wall (whole process)':>30s}  Numba loaded")
    for name, samples in results.items():
        steps = [s for s, _, _ in samples]
        walls = [w for _, w, _ in samples]
        loaded = {n for _, _, n in samples}
        print(f"  {name:24s} {' '.join(f'{s:5.2f}' for s in steps)}  med {statistics.median(steps):5.2f}   "
              f"{' '.join(f'{w:5.2f}' for w in walls)}  med {statistics.median(walls):5.2f}  "
              f"{'/'.join(sorted(str(x) for x in loaded))}")
    for name, target in (("ref, empty cache", 1.0), ("ref, warm cache", 0.3)):
        med = statistics.median(s for s, _, _ in results[name])
        print(f"  {name}: median first step {med:.2f} s, target <= {target} s: {'met' if med <= target else 'MISSED'}")
    if "tf" in results:
        tf_wall = statistics.median(w for _, w, _ in results["tf"])
        for name in ("ref, empty cache", "ref, warm cache"):
            print(f"  wall {name} / tf: {statistics.median(w for _, w, _ in results[name]) / tf_wall:.2f}x")


if __name__ == "__main__":
    main()
