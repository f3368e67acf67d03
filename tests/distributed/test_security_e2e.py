"""Issue 29 under the launcher: a SyncReplicas cluster over mutual TLS with a token trains
to the numbers of the plain run (a local session applying the mean of both replicas'
gradients each step, bit for bit), and ends without waiting for the coordinator's grace
period (TF's default, 120 s) or the program's 60 s operation timeout.
"""
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

from ref.distributed import certs
from ref.distributed.launcher import free_ports
from tests.distributed.programs import train as program
from tests.distributed.test_end_to_end import sync_expectation

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOUND = 120  # seconds: a ceiling for one cluster run on a loaded machine

RUNS = [
    # (launcher flags, steps)
    (["--mtls", "--token"], 20),
    (["--tls"], 3),
]


@pytest.mark.parametrize("flags, steps", RUNS)
def test_secured_sync_replicas_cluster_trains_to_the_plain_numbers(flags, steps):
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "ref", "cluster", "run", "--ps", "1", "--workers", "2", *flags,
                        "--timeout", str(BOUND - 10), "--", sys.executable, str(pathlib.Path(program.__file__)),
                        "sync", str(steps)], cwd=ROOT, capture_output=True, text=True, timeout=BOUND)
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "Started server with target: grpcs://127.0.0.1:" in r.stdout  # the ps serves TLS
    final = [json.loads(line.split(" ", 2)[2]) for line in r.stdout.splitlines()
             if line.startswith("[worker:0] final ")]
    assert len(final) == 1 and final[0]["global_step"] == steps and final[0]["trained"] == steps
    w, b = sync_expectation(steps)
    np.testing.assert_array_equal(np.float32(final[0]["w"]), w.ravel())  # bit for bit
    np.testing.assert_array_equal(np.float32(final[0]["b"]), b)
    # the end: no 120 s grace period, no 60 s operation timeout (the chief runner is cancelled at the stop)
    assert elapsed < 55, f"{elapsed:.1f} s\n" + r.stdout[-2000:]


def test_cluster_status_of_a_tls_cluster_needs_its_ca(tmp_path):
    """``cluster status`` reads REF_TLS_* too: with the cluster's CA a TLS task is up, plain it is down."""
    paths = certs.make_local_ca(str(tmp_path))
    port, = free_ports(1)
    cluster = json.dumps({"ps": [f"127.0.0.1:{port}"]})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REF_TLS_CA": paths["ca"], "REF_TLS_CERT": paths["cert"],
           "REF_TLS_KEY": paths["key"]}
    server = subprocess.Popen([sys.executable, "-m", "ref", "server", "--cluster", cluster, "--job", "ps"], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        for line in server.stdout:
            if "Started server" in line or time.monotonic() > deadline:
                break
        plain_env = {k: v for k, v in env.items() if not k.startswith("REF_TLS")}
        results = {}
        for name, e in (("tls", env), ("plain", plain_env)):
            r = subprocess.run([sys.executable, "-m", "ref", "cluster", "status", "--cluster", cluster,
                                "--timeout", "8"], cwd=ROOT, env=e, capture_output=True, text=True, timeout=60)
            results[name] = (r.returncode, r.stdout)
        assert results["tls"][0] == 0 and " up " in results["tls"][1], results
        assert results["plain"][0] == 1 and "does it require TLS" in results["plain"][1], results
    finally:
        server.terminate()
        server.wait(10)


NO_FS_WORKER = """
import ref as tf
from ref.distributed import cluster_from_env
spec, job, task = cluster_from_env()
server = tf.train.Server(tf.train.ClusterSpec(spec.as_dict()), job_name=job, task_index=task)
with tf.device("/job:ps/task:0"):
    write = tf.io.write_file({path!r}, "x", name="write_on_ps")
    total = tf.reduce_sum(tf.constant([1.0, 2.0]))
with tf.device("/job:worker/task:0"):
    local = tf.io.write_file({path!r} + ".local", "x", name="write_on_worker")
with tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=60000)) as s:
    print("sum", s.run(total))
    s.run(local)  # the worker task allows file ops
    try:
        s.run(write)
    except tf.errors.PermissionDeniedError as e:
        print("refused", e.op.name if e.op is not None else None)
"""


def test_launcher_no_file_ops_ps_refuses_a_file_op_the_worker_may_run(tmp_path):
    script = tmp_path / "w.py"
    target = tmp_path / "written"
    script.write_text(NO_FS_WORKER.format(path=str(target)))
    r = subprocess.run([sys.executable, "-m", "ref", "cluster", "run", "--ps", "1", "--workers", "1", "--no-file-ops",
                        "--token", "--timeout", str(BOUND - 10), "--", sys.executable, str(script)], cwd=ROOT,
                       capture_output=True, text=True, timeout=BOUND)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "[worker:0] sum 3.0" in r.stdout and "[worker:0] refused write_on_ps" in r.stdout, r.stdout[-3000:]
    assert not target.exists() and (tmp_path / "written.local").exists()
