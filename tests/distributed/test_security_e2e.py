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
