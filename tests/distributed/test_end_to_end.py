"""Issue 17's "done when", as separate processes on 127.0.0.1.

* ``python -m ref cluster run --ps 1 --workers 2 -- python programs/train.py ...``: a
  between-graph SyncReplicasOptimizer program (``MonitoredTrainingSession``,
  ``replica_device_setter``) ends with the variables of a local session that applies
  the mean of both replicas' gradients each step, bit for bit; async training ends with
  a checkpoint that restores locally to the final values; a second run resumes from
  the first one's checkpoint.
* A TensorFlow client trains on ``python -m ref server`` tasks and gets the numbers of
  TensorFlow's local session.

Every process and wait is bounded (the launcher's --timeout, ``subprocess`` timeouts).
"""
import json
import os
import pathlib
import select
import subprocess
import sys

import numpy as np
import pytest

import ref as tf
from ref.distributed.launcher import free_ports
from tests.distributed.programs import train as program

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAM = str(pathlib.Path(program.__file__))
BOUND = 90  # seconds: a generous ceiling for one cluster run


def cluster_run(mode, steps, checkpoint_dir, workers=2):
    """Runs the program under the launcher: ``{task: [output lines]}`` and the chief's final values."""
    r = subprocess.run([sys.executable, "-m", "ref", "cluster", "run", "--ps", "1", "--workers", str(workers),
                        "--timeout", str(BOUND - 10), "--", sys.executable, PROGRAM, mode, str(steps),
                        str(checkpoint_dir)], cwd=ROOT, capture_output=True, text=True, timeout=BOUND)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = {}
    for line in r.stdout.splitlines():
        prefix, _, rest = line.partition(" ")
        lines.setdefault(prefix.strip("[]"), []).append(rest)
    final = [json.loads(x[len("final "):]) for x in lines["worker:0"] if x.startswith("final ")]
    assert len(final) == 1, r.stdout[-3000:]
    trained = [int(x.split()[1]) for t in lines if t.startswith("worker:") for x in lines[t]
               if x.startswith("trained ")]
    return final[0], trained


def sync_expectation(steps, replicas=2):
    """The local numbers: one Session, each step the mean of every replica's gradient
    (the replicas' batches for that step) applied with GradientDescent."""
    g = tf.Graph()
    with g.as_default():
        x, y, w, b, loss = program.model()
        grads = tf.gradients(loss, [w, b])
        fed = [tf.placeholder(tf.float32, v.shape) for v in (w, b)]
        apply = tf.train.GradientDescentOptimizer(program.LEARNING_RATE).apply_gradients(zip(fed, [w, b]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for step in range(steps):
                per_replica = []
                for task in range(replicas):
                    xs, ys = program.data(task, step)
                    per_replica.append(s.run(grads, {x: xs, y: ys}))
                mean = [sum(gs[i] for gs in per_replica) / np.float32(replicas) for i in range(2)]
                assert all(m.dtype == np.float32 for m in mean)
                s.run(apply, dict(zip(fed, mean)))
            return s.run([w, b])


def restore(checkpoint_dir):
    """w, b and global_step from the latest checkpoint in ``checkpoint_dir``, in a local session."""
    g = tf.Graph()
    with g.as_default():
        gs = tf.train.get_or_create_global_step()
        _, _, w, b, _ = program.model()
        saver = tf.train.Saver([gs, w, b])
        with tf.Session() as s:
            saver.restore(s, tf.train.latest_checkpoint(str(checkpoint_dir)))
            return s.run([w, b, gs])


def test_sync_replicas_two_workers_equal_the_local_mean_of_gradients(tmp_path):
    final, trained = cluster_run("sync", 4, tmp_path)
    w, b = sync_expectation(4)
    assert final["global_step"] == 4 and trained == [4] and final["trained"] == 4  # one gradient a step each
    np.testing.assert_array_equal(np.float32(final["w"]), w.ravel())  # bit for bit
    np.testing.assert_array_equal(np.float32(final["b"]), b)
    cw, cb, cgs = restore(tmp_path)  # the chief's checkpoint, saved on the chief's task from the ps' values
    assert cgs == 4
    np.testing.assert_array_equal(cw, w)
    np.testing.assert_array_equal(cb, b)


def test_sync_replicas_with_tfs_default_tokens_finishes(tmp_path):
    """``make_session_run_hook(is_chief)``: the replicas_to_aggregate initial tokens let a
    replica push several gradients a step (TF's behaviour; which ones count depends on
    timing), so only the end is checked: global_step reached, checkpoint of the final values."""
    final, trained = cluster_run("sync-default-tokens", 4, tmp_path)
    assert final["global_step"] == 4 and final["trained"] + sum(trained) >= 4
    w, b, gs = restore(tmp_path)
    assert gs == 4
    np.testing.assert_array_equal(w.ravel(), np.float32(final["w"]))
    np.testing.assert_array_equal(b, np.float32(final["b"]))


def test_async_two_workers_checkpoint_restores_the_final_values(tmp_path):
    final, trained = cluster_run("async", 6, tmp_path)
    # every worker's steps reached the ps: global_step counts both workers' updates
    assert final["global_step"] == final["trained"] + sum(trained) >= 6
    w, b, gs = restore(tmp_path)
    assert gs == final["global_step"]
    np.testing.assert_array_equal(w.ravel(), np.float32(final["w"]))
    np.testing.assert_array_equal(b, np.float32(final["b"]))
    assert not np.array_equal(w.ravel(), np.linspace(-1, 1, 3, dtype=np.float32))  # it trained


def test_a_second_run_resumes_from_the_chiefs_checkpoint(tmp_path):
    first, _ = cluster_run("sync", 2, tmp_path)
    assert first["global_step"] == 2 and restore(tmp_path)[2] == 2
    second, trained = cluster_run("sync", 4, tmp_path)  # new ps and workers: the chief restores step 2
    assert second["global_step"] == 4 and second["trained"] == 2 and trained == [2]
    w, b = sync_expectation(4)  # the same numbers as four steps in one run
    np.testing.assert_array_equal(np.float32(second["w"]), w.ravel())
    np.testing.assert_array_equal(np.float32(second["b"]), b)


# -- a TensorFlow client on `python -m ref server` ---------------------------------------


@pytest.fixture()
def ref_servers():
    """A ps and a worker task, each a `python -m ref server` process; the cluster spec."""
    ps, worker = free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{worker}"]}
    procs = []
    try:
        for job in ("ps", "worker"):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "ref", "server", "--cluster", json.dumps(spec), "--job", job, "--task", "0"],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for p in procs:  # each prints its target once it serves
            assert p.stdout.readline().startswith("Started server with target: grpc://127.0.0.1:")
        yield spec
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(BOUND)
            finally:
                p.kill()
                p.communicate()


def test_a_tensorflow_client_trains_on_ref_server_processes(ref_servers):
    tfm = pytest.importorskip("tensorflow").compat.v1
    spec = ref_servers

    def run(target):
        with tfm.Graph().as_default():
            setter = tfm.train.replica_device_setter(cluster=tfm.train.ClusterSpec(spec),
                                                     worker_device="/job:worker/task:0")
            with tfm.device(setter if target else None):
                x = tfm.placeholder(tfm.float32, [3], name="x")
                w = tfm.get_variable("w", initializer=[1.0, -2.0, 0.5])
                v = tfm.get_variable("v", initializer=[0.25, 0.5, -1.0], use_resource=True)
                loss = tfm.reduce_sum(tfm.square(w * x + v), name="loss")
                gs = tfm.train.get_or_create_global_step()
                train = tfm.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=gs)
            init = tfm.global_variables_initializer()
            with tfm.Session(target, config=tfm.ConfigProto(operation_timeout_in_ms=30000)) as s:
                s.run(init)
                got = [s.run([loss, train], {x: [1.0, 2.0, 3.0 + i]})[0] for i in range(4)]
                return got + s.run([w, v, gs])
    local, remote = run(""), run("grpc://" + spec["worker"][0])
    assert remote[-1] == 4
    for a, b in zip(local, remote):
        np.testing.assert_array_equal(a, b)


def test_a_tensorflow_monitored_training_session_on_ref_server_processes(ref_servers, tmp_path):
    """TF's MonitoredTrainingSession (its Scaffold's tf.cond global-step read and sharded
    Saver included) as the chief on ref's servers: TF's local losses, and a checkpoint,
    written by the ref ps task, that TensorFlow restores to the same variables."""
    tfm = pytest.importorskip("tensorflow").compat.v1
    spec = ref_servers

    def run(target, checkpoint_dir):
        with tfm.Graph().as_default():
            setter = tfm.train.replica_device_setter(cluster=tfm.train.ClusterSpec(spec),
                                                     worker_device="/job:worker/task:0")
            with tfm.device(setter if target else None):
                x = tfm.placeholder(tfm.float32, [3], name="x")
                w = tfm.get_variable("w", initializer=[1.0, -2.0, 0.5])
                loss = tfm.reduce_sum(tfm.square(w * x))
                gs = tfm.train.get_or_create_global_step()
                train = tfm.train.AdamOptimizer(0.05).minimize(loss, global_step=gs)
            losses = []
            with tfm.train.MonitoredTrainingSession(
                    master=target, is_chief=True, checkpoint_dir=str(checkpoint_dir),
                    hooks=[tfm.train.StopAtStepHook(last_step=4)],
                    config=tfm.ConfigProto(operation_timeout_in_ms=30000)) as s:
                while not s.should_stop():
                    losses.append(s.run([loss, train], {x: [1.0, 2.0, 3.0]})[0])
        with tfm.Graph().as_default():  # the checkpoint, restored by TensorFlow in this process
            w = tfm.get_variable("w", [3])
            gs = tfm.train.get_or_create_global_step()
            with tfm.Session() as s:
                tfm.train.Saver([w, gs]).restore(s, tfm.train.latest_checkpoint(str(checkpoint_dir)))
                return losses, s.run([w, gs])
    local, remote = run("", tmp_path / "local"), run("grpc://" + spec["worker"][0], tmp_path / "remote")
    assert len(remote[0]) == 4 and remote[1][1] == 4
    np.testing.assert_array_equal(local[0], remote[0])
    np.testing.assert_array_equal(local[1][0], remote[1][0])


def test_workers_restart_against_a_running_ps_and_resume_from_the_checkpoint(tmp_path):
    """Async training; the two worker processes exit and start again (new addresses'
    processes, same cluster) while the ps task keeps running: the new chief restores
    the checkpoint (global step included) and both go on to the new last step."""
    ps, w0, w1 = free_ports(3)
    spec = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{w0}", f"127.0.0.1:{w1}"]}
    server = subprocess.Popen([sys.executable, "-m", "ref", "server", "--cluster", json.dumps(spec), "--job", "ps",
                               "--task", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def start(i, steps):
        return subprocess.Popen([sys.executable, PROGRAM, "async", str(steps), str(tmp_path)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, TF_CONFIG=json.dumps(
                                    {"cluster": spec, "task": {"type": "worker", "index": i}})))

    def workers(steps):
        # The other worker starts once the chief has restored: the PS still holds the last
        # run's initialized variables, so it would not wait, and the chief's restore would
        # overwrite its first updates (TF's MonitoredTrainingSession does the same).
        procs = [start(0, steps)]
        outs = []
        try:
            assert select.select([procs[0].stdout], [], [], BOUND)[0], "the chief did not start in time"
            ready = procs[0].stdout.readline()
            assert ready.startswith("ready"), ready or procs[0].stderr.read()[-3000:]
            procs.append(start(1, steps))
            for p in procs:
                out, err = p.communicate(timeout=BOUND)
                assert p.returncode == 0, err[-3000:]
                outs.append(out)
        finally:
            for p in procs:
                p.kill()
        final = json.loads(outs[0].split("final ", 1)[1])
        return final, int(outs[1].split("trained ", 1)[1])
    try:
        assert server.stdout.readline().startswith("Started server with target: grpc://127.0.0.1:")
        first, other = workers(4)
        assert first["global_step"] == first["trained"] + other >= 4
        second, other = workers(first["global_step"] + 3)
        assert second["global_step"] == first["global_step"] + second["trained"] + other
        assert second["global_step"] >= first["global_step"] + 3
        w, b, gs = restore(tmp_path)
        assert gs == second["global_step"]
        np.testing.assert_array_equal(w.ravel(), np.float32(second["w"]))
    finally:
        server.terminate()
        try:
            server.wait(BOUND)
        finally:
            server.kill()
            server.communicate()
