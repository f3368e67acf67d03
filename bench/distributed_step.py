"""One training step with its variable on a separate ps PROCESS: ref vs TensorFlow.

    python bench/distributed_step.py [--steps N] [--repeats R] [--only tf|ref]

The step: a 1000-float variable on ``/job:ps/task:0`` (``replica_device_setter``),
``loss = sum((w - t)**2)`` computed on the worker, ``GradientDescentOptimizer``
applying the update on the ps. Each framework gets its own cluster on free
127.0.0.1 ports: the ps is a separate process (``python -m ref server`` for ref,
a ``tf.distribute.Server`` for TensorFlow) and each worker is a process with its
own server, whose session runs the steps (between-graph replication).

Prints ms/step (median over R repeats of N steps, one worker), the ref/TF
ratio, and steps/s of 2 workers training the same variable asynchronously
against 1 worker, then the CPU ms/step each worker process and the ps process used
over the timed steps (from ``/proc``; the ps's divided by all workers' steps): on a
loaded machine these say more than the wall clock. Not a test: numbers vary on shared machines, so both
frameworks are measured side by side in one run. Design study: TF 2.21 took
2.8 ms/step here.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
from ref.distributed.ports import free_ports  # noqa: E402 (ports below the ephemeral range)
SIZE = 1000
START_TIMEOUT = 120.0  # seconds for a ps to listen or a worker to finish starting


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p),
                TF_CPP_MIN_LOG_LEVEL="3", PYTHONUNBUFFERED="1", TF_USE_LEGACY_KERAS="1")


def wait_listening(address, timeout=START_TIMEOUT):
    host, port = address.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex((host, int(port))) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {address} after {timeout:g} s")


# -- roles run in subprocesses ---------------------------------------------------------


def role_tf_ps(cluster):
    import tensorflow as tf
    tf.distribute.Server(tf.train.ClusterSpec(cluster), job_name="ps", task_index=0).join()


def barrier(directory, task, n):
    """Waits (bounded) until all ``n`` workers got here, so that their timed steps overlap."""
    open(os.path.join(directory, f"ready-{task}"), "w").close()
    deadline = time.monotonic() + START_TIMEOUT
    while len(os.listdir(directory)) < n and time.monotonic() < deadline:
        time.sleep(0.01)


def build_tiny(tf, np):
    """A 1000-float variable, ``loss = sum((w - t)**2)``: the step is all overhead."""
    w = tf.Variable(np.zeros(SIZE, np.float32), name="w")
    target = tf.constant(np.linspace(-1, 1, SIZE, dtype=np.float32))
    loss = tf.reduce_sum(tf.square(w - target))
    return tf.train.GradientDescentOptimizer(0.001).minimize(loss), {}


def build_mlp(tf, np):
    """MLP 784-1024-512-10 (1.33M parameters on the ps), batch 128 fed, Adam: every step reads
    the weights from the ps and sends their gradients back (10.6 MB on the wire each way)."""
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    h = tf.layers.dense(x, 1024, activation=tf.nn.relu)
    h = tf.layers.dense(h, 512, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    rng = np.random.RandomState(0)
    feeds = {x: rng.rand(128, 784).astype(np.float32), y: rng.randint(0, 10, 128)}
    return tf.train.AdamOptimizer(1e-3).minimize(loss), feeds


MODELS = {"tiny": build_tiny, "mlp": build_mlp}


def process_cpu(pid):
    """CPU seconds (user + system) process ``pid`` has used so far (Linux ``/proc``), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def role_worker(framework, cluster, task, steps, repeats, barrier_dir, model="tiny", ps_pid=0):
    """Trains ``repeats`` x ``steps`` steps; prints one JSON line with the timings and the CPU
    seconds this process and the ps (``ps_pid``) had used at the start and the end of them."""
    if framework == "tf":
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
    else:
        import ref as tf
    import numpy as np
    spec = tf.train.ClusterSpec(cluster)
    server = tf.train.Server(spec, job_name="worker", task_index=task)
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=spec, worker_device=f"/job:worker/task:{task}")):
            train_op, feeds = MODELS[model](tf, np)
        config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{task}"])
        with tf.Session(server.target, config=config) as sess:
            if task == 0:
                sess.run(tf.global_variables_initializer())
            else:  # wait for the chief's initialization (bounded)
                deadline = time.monotonic() + START_TIMEOUT
                while len(sess.run(tf.report_uninitialized_variables())):
                    if time.monotonic() > deadline:
                        raise RuntimeError("the chief did not initialize w")
                    time.sleep(0.05)
            for _ in range(20):
                sess.run(train_op, feeds)
            barrier(barrier_dir, task, len(cluster["worker"]))
            times, windows = [], []
            cpu = [(time.process_time(), process_cpu(ps_pid))]
            for _ in range(repeats):
                start, t0 = time.time(), time.perf_counter()
                for _ in range(steps):
                    sess.run(train_op, feeds)
                times.append((time.perf_counter() - t0) / steps * 1e3)
                windows.append((start, time.time()))
            cpu.append((time.process_time(), process_cpu(ps_pid)))
    print("RESULT " + json.dumps({"ms": times, "windows": windows, "cpu": cpu}), flush=True)


# -- the driver --------------------------------------------------------------------------


def start_ps(framework, cluster):
    address = cluster["ps"][0]
    if framework == "tf":
        cmd = [sys.executable, __file__, "--role", "tf-ps", "--cluster", json.dumps(cluster)]
    else:
        cmd = [sys.executable, "-m", "ref", "server", "--cluster", json.dumps(cluster), "--job", "ps", "--task", "0"]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        wait_listening(address)
    except RuntimeError:
        proc.kill()
        raise
    return proc


def run_workers(framework, cluster, n, steps, repeats, model, ps_pid):
    barrier_dir = tempfile.mkdtemp(prefix="ref-bench-barrier-")
    procs = [subprocess.Popen([sys.executable, __file__, "--role", "worker", "--framework", framework,
                               "--cluster", json.dumps(cluster), "--task", str(i), "--steps", str(steps),
                               "--repeats", str(repeats), "--barrier", barrier_dir, "--model", model,
                               "--ps-pid", str(ps_pid)], env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for i in range(n)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=START_TIMEOUT + 60 * repeats)
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        if p.returncode or not lines:
            raise RuntimeError(f"{framework} worker failed ({p.returncode}):\n{err[-2000:]}")
        results.append(json.loads(lines[-1][len("RESULT "):]))
    shutil.rmtree(barrier_dir, ignore_errors=True)
    return results


def measure(framework, steps, repeats, model):
    """(median ms/step with 1 worker, steps/s with 1 worker, steps/s with 2 workers), and the CPU
    ms/step of a worker and of the ps with 1 and 2 workers (``{n: (worker, ps)}``)."""
    cpu = {}
    out = []
    for n in (1, 2):
        ports = free_ports(1 + n)
        cluster = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
        ps = start_ps(framework, cluster)
        try:
            results = run_workers(framework, cluster, n, steps, repeats, model, ps.pid)
        finally:
            ps.kill()
            ps.wait()
        if n == 1:
            out.append(statistics.median(results[0]["ms"]))
        # throughput over the whole timed span of all workers together
        begin = min(r["windows"][0][0] for r in results)
        end = max(r["windows"][-1][1] for r in results)
        out.append(n * steps * repeats / (end - begin))
        worker_cpu = statistics.mean(r["cpu"][1][0] - r["cpu"][0][0] for r in results) / (steps * repeats)
        ps_cpu = None
        if all(r["cpu"][0][1] is not None and r["cpu"][1][1] is not None for r in results):
            ps_cpu = (max(r["cpu"][1][1] for r in results) - min(r["cpu"][0][1] for r in results)) / (
                n * steps * repeats)
        cpu[n] = (worker_cpu * 1e3, None if ps_cpu is None else ps_cpu * 1e3)
    return out, cpu


def ref_available():
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    return importlib.util.find_spec("ref.distributed.worker") is not None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--only", choices=["tf", "ref"])
    p.add_argument("--model", choices=sorted(MODELS), default="tiny",
                   help="tiny: a 1000-float variable (default); mlp: 784-1024-512-10, Adam, batch 128")
    p.add_argument("--role", choices=["tf-ps", "worker"], help=argparse.SUPPRESS)
    p.add_argument("--framework", help=argparse.SUPPRESS)
    p.add_argument("--cluster", help=argparse.SUPPRESS)
    p.add_argument("--task", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--barrier", help=argparse.SUPPRESS)
    p.add_argument("--ps-pid", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.role == "tf-ps":
        return role_tf_ps(json.loads(args.cluster))
    if args.role == "worker":
        return role_worker(args.framework, json.loads(args.cluster), args.task, args.steps, args.repeats,
                           args.barrier, args.model, args.ps_pid)

    print(f"distributed step ({args.model}): {MODELS[args.model].__doc__.splitlines()[0]} "
          f"{args.repeats} x {args.steps} steps")
    rows = {}
    for framework in ("ref", "tf"):
        if args.only and args.only != framework:
            continue
        if framework == "ref" and not ref_available():
            print("  ref: ref distributed runtime not available (no ref.distributed.worker: "
                  "tf.train.Server is the in-process stand-in)")
            continue
        if framework == "tf" and importlib.util.find_spec("tensorflow") is None:
            print("  tf:  TensorFlow not installed")
            continue
        try:
            rows[framework], cpu = measure(framework, args.steps, args.repeats, args.model)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"  {framework}: failed: {exc}")
            continue
        ms, one, two = rows[framework]
        print(f"  {framework:3s}  {ms:7.3f} ms/step   1 worker {one:7.1f} steps/s   2 workers {two:7.1f} steps/s"
              f"   (2 vs 1: {two / one:.2f}x)")
        print("       CPU ms/step " + "   ".join(
            f"{n} worker{'s' if n > 1 else ''}: worker {w:.1f} ps {'?' if p is None else f'{p:.1f}'}"
            for n, (w, p) in sorted(cpu.items())))
    if len(rows) == 2:
        print(f"  ref/TF ms/step: {rows['ref'][0] / rows['tf'][0]:.2f}x")


if __name__ == "__main__":
    main()
