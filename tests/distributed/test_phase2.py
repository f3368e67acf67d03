"""Phase 2 of the distributed runtime, with real processes on 127.0.0.1: tensors between
tasks by ``RecvTensor`` (``_Send``/``_Recv`` partitions), TensorFlow masters driving ref
tasks, ref's master letting its tasks exchange tensors directly, failing steps, and
FULL_TRACE step stats from every task. Every process and wait is bounded."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from ref.distributed import rendezvous as _under_test  # noqa: F401
from ref.distributed.launcher import free_ports

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
TF_MASTER = str(ROOT / "tests" / "distributed" / "programs" / "tf_master.py")
BOUND = 150  # seconds: a ceiling for one TensorFlow process (its import alone takes ~10 s here)


def start_ref_servers(spec, tasks):
    """``python -m ref server`` for each (job, index) of ``tasks``; returns the processes once each serves."""
    procs = []
    for job, index in tasks:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "ref", "server", "--cluster", json.dumps(spec), "--job", job, "--task", str(index)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        line = p.stdout.readline()
        assert line.startswith("Started server with target: grpc://127.0.0.1:"), line + p.stderr.read()[-2000:]
    return procs


def stop(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
        p.communicate()


# mode of programs/tf_master.py, ref tasks it needs, relative tolerance against TF's local session
TF_MASTER_ROWS = [
    ("ps", [("ps", 0)], 0.0),  # TF worker, ref ps: replica_device_setter, TF's numbers bit for bit
    ("monitored", [("ps", 0)], 0.0),  # the same under TF's MonitoredTrainingSession
    # part of the forward pass on a ref worker: Grappler's _FusedMatMul(+BiasAdd+Tanh) runs as
    # ref's MatMul, BiasAdd and Tanh (Tanh within ref's ULP budget of TF's)
    ("split", [("ps", 0), ("worker", 1)], 1e-6),
]


@pytest.mark.parametrize("mode, tasks, rtol", TF_MASTER_ROWS, ids=[r[0] for r in TF_MASTER_ROWS])
def test_a_tensorflow_master_drives_ref_tasks(mode, tasks, rtol):
    pytest.importorskip("tensorflow")
    ps, w0, w1 = free_ports(3)
    spec = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{w0}", f"127.0.0.1:{w1}"]}
    procs = start_ref_servers(spec, tasks)
    try:
        r = subprocess.run([sys.executable, TF_MASTER, mode, json.dumps(spec)], cwd=ROOT, capture_output=True,
                           text=True, timeout=BOUND)
    finally:
        stop(procs)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    local, remote = got["local"], got["remote"]
    assert remote[-1] == local[-1] == 4  # global step
    for a, b in zip(local[:-1], remote[:-1]):
        np.testing.assert_allclose(np.asarray(b, np.float32), np.asarray(a, np.float32), rtol=rtol, atol=0)
