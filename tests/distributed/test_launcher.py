"""``python -m ref server`` / ``cluster run`` / ``cluster status`` and ``cluster_from_env``.

The launcher's tasks are real processes on 127.0.0.1; every run has a --timeout
and every wait a bound. Worker commands are small Python scripts that print
their TF_CONFIG, fail or sleep.
"""
import importlib.util
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap

import pytest

from ref.distributed import ClusterSpec, cluster_from_env
from ref.distributed.launcher import free_ports, load_cluster

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOUND = 60  # seconds: a generous ceiling for any one command here


def ref_cli(*args, timeout=BOUND):
    return subprocess.run([sys.executable, "-m", "ref", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture()
def script(tmp_path):
    """A worker script: prints its TF_CONFIG as one JSON line, then does what the task's row says."""
    path = tmp_path / "worker.py"
    path.write_text(textwrap.dedent("""
        import json, os, sys, time
        config = json.loads(os.environ["TF_CONFIG"])
        print("CONFIG " + json.dumps(config))
        actions = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
        action = actions.get(str(config["task"]["index"]), "ok")
        if action == "sleep":
            time.sleep(120)
        if action.startswith("exit"):
            print("about to fail")
            sys.exit(int(action[4:]))
    """))
    return str(path)


def configs(stdout):
    """{task name: TF_CONFIG} from the prefixed output lines."""
    out = {}
    for line in stdout.splitlines():
        prefix, _, rest = line.partition(" ")
        if rest.startswith("CONFIG "):
            out[prefix.strip("[]")] = json.loads(rest[len("CONFIG "):])
    return out


# -- TF_CONFIG ------------------------------------------------------------------------

TF_CONFIG_CASES = [
    # (TF_CONFIG, expected cluster dict, job, index)
    (None, {}, None, None),
    ("", {}, None, None),
    ('{"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": 1}}',
     {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "worker", 1),
    ('{"cluster": {"worker": {"3": "h:9"}}, "task": {"type": "worker", "index": 3}}',
     {"worker": {3: "h:9"}}, "worker", 3),
    ('{"cluster": {"chief": ["h:1"]}, "task": {"type": "chief"}}', {"chief": ["h:1"]}, "chief", None),
    ('{"task": {"type": "worker", "index": 2}}', {}, "worker", 2),
]


@pytest.mark.parametrize("value, cluster, job, index", TF_CONFIG_CASES)
def test_cluster_from_env(value, cluster, job, index):
    env = {} if value is None else {"TF_CONFIG": value}
    spec, job_name, task_index = cluster_from_env(env)
    assert spec.as_dict() == cluster and spec == ClusterSpec(cluster)
    assert (job_name, task_index) == (job, index)


@pytest.mark.parametrize("value", ["{not json", '["h:1"]', '{"cluster": ["h:1"]}',
                                   '{"task": {"type": "ps", "index": "x"}}'])
def test_cluster_from_env_malformed_names_tf_config(value):
    with pytest.raises(ValueError, match="TF_CONFIG"):
        cluster_from_env({"TF_CONFIG": value})


RESOLVER_CASES = [
    # (TF_CONFIG, resolver arguments, master() arguments)
    (None, {}, {}),
    ('{"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 0}}', {}, {}),
    ('{"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": 1}}', {}, {}),
    ('{"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": 1},'
     ' "rpc_layer": "grpc"}', {}, {"task_type": "ps", "task_id": 0}),
    ('{"cluster": {"ps": ["h:1"], "worker": ["h:2"]}, "task": {"type": "worker", "index": 0}}',
     {"task_type": "ps", "task_id": 0, "rpc_layer": "grpc", "environment": "google"}, {}),
    ('{"cluster": {"ps": ["h:1"], "worker": ["h:2"]}, "session_master": "grpc://m:1"}', {}, {}),
]


@pytest.mark.parametrize("value, kwargs, master_kwargs", RESOLVER_CASES)
def test_tf_config_cluster_resolver_is_tfs(monkeypatch, value, kwargs, master_kwargs):
    tf = pytest.importorskip("tensorflow")
    from ref.distributed import TFConfigClusterResolver
    if value is None:
        monkeypatch.delenv("TF_CONFIG", raising=False)
    else:
        monkeypatch.setenv("TF_CONFIG", value)
    ours, theirs = (TFConfigClusterResolver(**kwargs),
                    tf.distribute.cluster_resolver.TFConfigClusterResolver(**kwargs))
    assert ours.cluster_spec().as_dict() == theirs.cluster_spec().as_dict()
    for attr in ("task_type", "task_id", "rpc_layer", "environment"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.master(**master_kwargs) == theirs.master(**master_kwargs)


def test_load_cluster_from_text_file_and_tf_config(tmp_path):
    spec = {"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]}
    f = tmp_path / "cluster.json"
    f.write_text(json.dumps(spec))
    for arg in (json.dumps(spec), str(f), json.dumps({"cluster": spec, "task": {"type": "ps", "index": 0}})):
        assert load_cluster(arg) == ClusterSpec(spec)


def test_free_ports_are_distinct_and_bindable():
    import socket
    ports = free_ports(4)
    assert len(set(ports)) == 4
    for p in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", p))


def test_free_ports_are_not_ones_an_outgoing_connection_can_take():
    """The ports lie below the kernel's ephemeral range, from which connect() picks
    local ports: a port found by binding port 0 could be taken before the server binds."""
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    assert all(p < low for p in free_ports(8))


# -- cluster run ------------------------------------------------------------------------


def test_run_sets_tf_config_and_prefixes_output(script, tmp_path):
    cluster_file = tmp_path / "c.json"
    r = ref_cli("cluster", "run", "--ps", "1", "--workers", "2", "--timeout", "50", "--cluster-file",
                str(cluster_file), "--", sys.executable, script)
    assert r.returncode == 0, r.stderr
    seen = configs(r.stdout)
    assert set(seen) == {"worker:0", "worker:1"}
    cluster = seen["worker:0"]["cluster"]
    assert seen["worker:1"]["cluster"] == cluster and json.loads(cluster_file.read_text()) == cluster
    assert [c["task"] for c in (seen["worker:0"], seen["worker:1"])] == [
        {"type": "worker", "index": 0}, {"type": "worker", "index": 1}]
    addresses = cluster["ps"] + cluster["worker"]
    assert len(addresses) == 3 and len(set(addresses)) == 3
    assert all(a.startswith("127.0.0.1:") for a in addresses)
    # the ps ran the built-in server on its address and was stopped after the workers finished
    assert f"[ps:0] Started server with target: grpc://{cluster['ps'][0]}" in r.stdout
    assert "[ps:0] Stopped server" in r.stdout


@pytest.mark.parametrize("workers, actions, code", [
    (2, {"1": "exit3", "0": "sleep"}, 3),   # a failing worker stops the sleeping one
    (1, {"0": "exit1"}, 1),
])
def test_run_failing_worker_stops_everything(script, workers, actions, code):
    r = ref_cli("cluster", "run", "--ps", "0", "--workers", str(workers), "--timeout", "50", "--",
                sys.executable, script, json.dumps(actions))
    assert r.returncode == code
    failed = f"worker:{[k for k, v in actions.items() if v.startswith('exit')][0]}"
    assert f"{failed} exited with status {code}" in r.stderr
    assert f"[{failed}] about to fail" in r.stderr  # its last lines, printed again
    assert "timed out" not in r.stderr


def test_run_timeout_kills_everything(script):
    r = ref_cli("cluster", "run", "--ps", "0", "--workers", "1", "--timeout", "2", "--", sys.executable, script,
                json.dumps({"0": "sleep"}))
    assert r.returncode == 124
    assert "timed out after 2 s" in r.stderr and "worker:0" in r.stderr


@pytest.mark.parametrize("args", [
    ["cluster", "run", "--workers", "2"],
    ["cluster", "run", "--workers", "0", "--", "true"],
    ["cluster", "run", "--ps", "x", "--", "true"],
    ["cluster"],
    ["server", "--cluster", '{"ps": ["127.0.0.1:1"]}', "--task", "x"],
])
def test_usage_errors_are_one_line_exit_2(args):
    r = ref_cli(*args)
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1


def test_server_unknown_job_is_one_line_error():
    r = ref_cli("server", "--cluster", '{"ps": ["127.0.0.1:1"]}', "--job", "worker", "--task", "0")
    assert r.returncode == 1 and r.stderr.strip() == "error: No such job in cluster: 'worker'"


# -- server ------------------------------------------------------------------------------


def start_server(cluster, job, task, env=None):
    proc = subprocess.Popen([sys.executable, "-m", "ref", "server", "--cluster", json.dumps(cluster), "--job", job,
                             "--task", str(task)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    line = proc.stdout.readline()  # the server prints its target once it serves
    return proc, line


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_server_stops_cleanly_on_signal(signum):
    port, = free_ports(1)
    proc, line = start_server({"ps": [f"127.0.0.1:{port}"]}, "ps", 0)
    try:
        assert line.startswith(f"Started server with target: grpc://127.0.0.1:{port}")
        proc.send_signal(signum)
        assert proc.wait(BOUND) == 0
    finally:
        proc.kill()
        proc.communicate()


def test_server_reads_tf_config():
    port, = free_ports(1)
    env = dict(os.environ, TF_CONFIG=json.dumps({"cluster": {"ps": [f"127.0.0.1:{port}"]},
                                                  "task": {"type": "ps", "index": 0}}))
    proc = subprocess.Popen([sys.executable, "-m", "ref", "server"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().startswith(f"Started server with target: grpc://127.0.0.1:{port}")
        proc.terminate()
        assert proc.wait(BOUND) == 0
    finally:
        proc.kill()
        proc.communicate()


# -- cluster status ----------------------------------------------------------------------


def test_status_dead_port_is_down_within_the_timeout():
    pytest.importorskip("grpc")
    port, = free_ports(1)
    r = ref_cli("cluster", "status", "--cluster", json.dumps({"ps": [f"127.0.0.1:{port}"]}), "--timeout", "1")
    assert r.returncode == 1
    assert r.stdout.startswith(f"ps:0  127.0.0.1:{port}  down  ")
    assert "/job:ps/replica:0/task:0" in r.stdout and "within 1 s" in r.stdout


def test_status_against_a_tensorflow_server(capsys):
    pytest.importorskip("grpc")
    tf = pytest.importorskip("tensorflow").compat.v1
    from ref.distributed import launcher
    server = tf.train.Server.create_local_server()
    address = server.target[len("grpc://"):]
    dead, = free_ports(1)
    code = launcher.cluster_main(["status", "--cluster", json.dumps({"localhost": [address],
                                                                     "ps": [f"127.0.0.1:{dead}"]}),
                                  "--timeout", "10"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1  # the ps is down
    up = [line for line in lines if line.startswith("localhost:0")][0].split()
    assert up[1:3] == [address, "up"] and up[3] == "incarnation" and int(up[4], 16) != 0
    assert any(line.startswith(f"ps:0  127.0.0.1:{dead}  down") for line in lines)


def test_server_answers_get_status_and_cluster_run_pings_it(script):
    pytest.importorskip("grpc")
    from ref.distributed import rpc
    from ref.protos import worker_pb2
    port, = free_ports(1)
    proc, line = start_server({"ps": [f"127.0.0.1:{port}"]}, "ps", 0)
    try:
        assert line.startswith(f"Started server with target: grpc://127.0.0.1:{port}")
        client = rpc.Client(f"127.0.0.1:{port}", rpc.WORKER_SERVICE, connect_timeout=BOUND)
        status = client.GetStatus(worker_pb2.GetStatusRequest(), timeout=BOUND)
        assert status.device_attributes[0].name == "/job:ps/replica:0/task:0/device:CPU:0"
        assert status.device_attributes[0].incarnation != 0
        r = ref_cli("cluster", "status", "--cluster", json.dumps({"ps": [f"127.0.0.1:{port}"]}))
        assert r.returncode == 0 and r.stdout.startswith(f"ps:0  127.0.0.1:{port}  up  incarnation "
                                                         f"{status.device_attributes[0].incarnation:016x}")
        proc.terminate()
        assert proc.wait(BOUND) == 0
    finally:
        proc.kill()
        proc.communicate()


def test_sigterm_to_the_launcher_stops_its_tasks(tmp_path):
    pid_file = tmp_path / "pid"
    worker = tmp_path / "w.py"
    worker.write_text("import os, pathlib, sys, time\n"
                      f"pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))\n"
                      "print('running', flush=True)\ntime.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-m", "ref", "cluster", "run", "--ps", "1", "--workers", "1",
                             "--timeout", "100", "--", sys.executable, str(worker)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:  # wait until the worker runs
            if line.startswith("[worker:0] running"):
                break
        proc.terminate()
        assert proc.wait(BOUND) == 128 + signal.SIGTERM
        with pytest.raises(ProcessLookupError):  # the worker is gone (and reaped) too
            os.kill(int(pid_file.read_text()), 0)
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize("args", [["server"], ["server", "--cluster", '{"ps": ["127.0.0.1:1"]}'],
                                  ["cluster", "status"]])
def test_missing_cluster_or_job_is_a_usage_error(args):
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    r = subprocess.run([sys.executable, "-m", "ref", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=BOUND, env=env)
    assert r.returncode == 2 and r.stderr.startswith("error: no ") and r.stderr.count("\n") == 1


TRAIN = """
import json, os, sys, time
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import ref as tf
from ref.distributed import cluster_from_env
spec, job, task = cluster_from_env()
cluster = tf.train.ClusterSpec(spec.as_dict())
server = tf.train.Server(cluster, job_name=job, task_index=task)
if job == "ps":
    server.join()
with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task}")):
    w = tf.Variable([0.0, 0.0], name="w")
    add = tf.assign_add(w, [1.0, float(task + 1)])
    ready = tf.is_variable_initialized(w)
config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{task}"])
deadline = time.monotonic() + 60
with tf.Session(server.target, config=config) as sess:
    if task == 0:
        sess.run(w.initializer)
    while not sess.run(ready) and time.monotonic() < deadline:
        time.sleep(0.05)
    for _ in range(5):
        sess.run(add)
    if task == 0:  # the chief waits for the other worker's steps, then reports the ps' value
        while sess.run(w)[0] < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        print("final", sess.run(w).tolist())
"""


@pytest.mark.parametrize("framework", [
    "tf",  # TensorFlow's servers and sessions under ref's launcher (ps via --ps-cmd)
    pytest.param("ref", marks=pytest.mark.skipif(importlib.util.find_spec("ref.distributed.worker") is None,
                                                 reason="needs ref's gRPC Server (ref.distributed.worker)")),
])
def test_run_one_ps_two_workers_training(tmp_path, framework):
    pytest.importorskip("grpc")
    if framework == "tf":
        pytest.importorskip("tensorflow")
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    cmd = [sys.executable, str(script), framework]
    ps_cmd = ["--ps-cmd", " ".join(cmd)] if framework == "tf" else []
    r = ref_cli("cluster", "run", "--ps", "1", "--workers", "2", "--timeout", "100", *ps_cmd, "--", *cmd,
                timeout=150)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # 5 steps of [1, 1] from worker 0 and 5 of [1, 2] from worker 1 on the ps' variable
    assert "[worker:0] final [10.0, 15.0]" in r.stdout


@pytest.mark.parametrize("restarts, code", [(1, 0), (0, 5)])
def test_restart_failed_reruns_the_task_on_its_address(tmp_path, restarts, code):
    marker = tmp_path / "failed_once"
    worker = tmp_path / "w.py"
    worker.write_text("import os, pathlib, sys\n"
                      f"m = pathlib.Path({str(marker)!r})\n"
                      "print('CONFIG ' + os.environ['TF_CONFIG'], flush=True)\n"
                      "if not m.exists():\n    m.write_text('x')\n    sys.exit(5)\n")
    r = ref_cli("cluster", "run", "--ps", "0", "--workers", "1", "--timeout", "50", "--restart-failed",
                str(restarts), "--", sys.executable, str(worker))
    assert r.returncode == code, r.stderr
    runs = [json.loads(line.split(" ", 2)[2]) for line in r.stdout.splitlines() if line.startswith("[worker:0] CONFIG")]
    assert len(runs) == 1 + restarts and all(run == runs[0] for run in runs)  # same address and TF_CONFIG
    assert ("worker:0 exited with status 5; restarting it (0 restarts left)" in r.stderr) == bool(restarts)
