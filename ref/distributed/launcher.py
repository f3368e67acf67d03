"""``python -m ref server`` and ``python -m ref cluster run|status``: running tasks.

* ``server --cluster JSON_OR_FILE --job NAME --task N [--bind ADDR]`` runs one task:
  ``tf.train.Server(cluster, job_name, task_index)`` until SIGTERM or SIGINT, then
  stops it and exits 0. Without ``--cluster``/``--job``/``--task`` it reads ``TF_CONFIG``.
* ``cluster run --ps N --workers M [--timeout S] [--cluster-file F] [--ps-cmd CMD]
  [--restart-failed N] -- CMD ...`` starts a cluster on free 127.0.0.1 ports: N ps tasks running the
  built-in server (or ``--ps-cmd``), M worker processes running CMD, each with ``TF_CONFIG`` in its
  environment and its output prefixed ``[worker:1]``. When every worker exits 0
  the ps tasks get SIGTERM (SIGKILL 5 s later) and the launcher exits 0; when a
  task fails its last lines are printed, everything is stopped and the launcher
  exits with that task's status (``--restart-failed N`` restarts failed tasks
  instead, N times in all, on the same address: recovery testing).
* Security (ref only): ``cluster run --tls`` makes a throwaway CA and task certificate
  for 127.0.0.1/localhost in a temporary directory (removed at the end) and starts every
  task with ``REF_TLS_CA``/``REF_TLS_CERT``/``REF_TLS_KEY`` set, so their
  ``tf.train.Server``s serve TLS and call each other over it; ``--mtls`` also requires
  client certificates; ``--token`` gives every task a fresh random ``REF_RPC_TOKEN``;
  ``--no-file-ops`` starts the ps tasks refusing file ops. ``server`` takes
  ``--tls-cert/--tls-key/--tls-ca/--client-auth/--token-file/--no-file-ops/
  --allow-global-reset`` (or the same environment).
* ``cluster status --cluster JSON_OR_FILE [--timeout S]`` sends
  ``WorkerService/GetStatus`` to every task (ref's or TensorFlow's servers) and
  prints one line per task; it exits 1 when a task is down.

TensorFlow has no launcher: its servers are started by hand and run forever.
"""
from __future__ import annotations

import argparse
import collections
import inspect
import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

from ref.distributed import rpc
from ref.distributed.cluster import ClusterSpec, _json_cluster, cluster_from_env
from ref.distributed.ports import free_ports
from ref.distributed.certs import make_local_ca
from ref.distributed.security import ClientSecurity, ServerSecurity
from ref.distributed.server import Server
from ref.protos import worker_pb2
from ref.types.cli import Parser

__all__ = ["server_main", "cluster_main", "load_cluster", "free_ports"]

_GRACE = 5.0  # seconds between SIGTERM and SIGKILL
_TAIL = 20  # lines of a failing task's output printed again
_PS_START = 120.0  # seconds a ps task may take to start listening
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_cluster(text):
    """A ``ClusterSpec`` from JSON text (``{"ps": ["host:port"], ...}``) or a JSON file's path.

    The text may also be a whole ``TF_CONFIG`` value (its ``"cluster"`` is used).
    """
    text = text.strip()
    if not text.startswith("{"):
        with open(text) as f:
            text = f.read()
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"--cluster is not JSON: {exc}") from None
    if isinstance(value, dict) and isinstance(value.get("cluster"), dict):
        value = value["cluster"]
    return ClusterSpec(_json_cluster(value))


def _task_args(parser, args):
    """(cluster, job, task) from the command line, completed from TF_CONFIG."""
    env_cluster, env_job, env_task = cluster_from_env()
    cluster = load_cluster(args.cluster) if args.cluster else env_cluster
    job = args.job if args.job is not None else env_job
    task = args.task if args.task is not None else env_task
    if not cluster:
        parser.error("no cluster: pass --cluster JSON_OR_FILE or set TF_CONFIG")
    if job is None:
        parser.error("no job: pass --job NAME or set TF_CONFIG's task.type")
    if task is None:  # the job's only task, as Server does (ValueError naming the job when absent)
        indices = cluster.task_indices(job)
        if len(indices) != 1:
            parser.error(f"no task: job {job!r} has {len(indices)} tasks; pass --task N")
        task = indices[0]
    cluster.task_address(job, task)  # ValueError naming the job/task when absent
    return cluster, job, task


# -- python -m ref server -------------------------------------------------------------


def server_main(argv):
    p = Parser(prog="python -m ref server", description="Run one task of a cluster until SIGTERM/SIGINT.")
    p.add_argument("--cluster", help="the ClusterSpec as JSON, or a JSON file (default: TF_CONFIG)")
    p.add_argument("--job", help="this task's job name (default: TF_CONFIG)")
    p.add_argument("--task", type=int, help="this task's index (default: TF_CONFIG)")
    p.add_argument("--bind", help="address to listen on instead of the spec's host, e.g. 0.0.0.0")
    p.add_argument("--tls-cert", help="PEM certificate: serve TLS (default: REF_TLS_CERT)")
    p.add_argument("--tls-key", help="PEM private key of --tls-cert (default: REF_TLS_KEY)")
    p.add_argument("--tls-ca", help="PEM CA of the cluster: verifies the tasks called and, with "
                   "--client-auth, the clients' certificates (default: REF_TLS_CA)")
    p.add_argument("--client-auth", action="store_true", help="require client certificates (mutual TLS)")
    p.add_argument("--token-file", help="file holding the shared token every RPC must carry "
                   "(default: REF_RPC_TOKEN / REF_RPC_TOKEN_FILE)")
    p.add_argument("--no-file-ops", action="store_true", help="refuse graphs with ops that touch files")
    p.add_argument("--allow-global-reset", action="store_true",
                   help="let Reset clear every client's containers (TF's Reset); default with any security "
                   "option: only the caller's own sessions' containers")
    args = p.parse_args(argv)
    cluster, job, task = _task_args(p, args)
    kwargs = {}
    security = _server_security(p, args)
    if security is not None:
        kwargs["security"] = security
    if args.bind:
        if "bind_address" not in inspect.signature(Server).parameters:
            raise ValueError("--bind needs ref's gRPC server; this Server is the in-process stand-in")
        kwargs["bind_address"] = args.bind
    stop = threading.Event()

    def handler(signum, frame):
        stop.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        server = Server(cluster, job_name=job, task_index=task, **kwargs)
        print(f"Started server with target: {server.target} (/job:{job}/replica:0/task:{task})", flush=True)
        while not stop.wait(0.5):  # a signal sets it; wait() itself is not interrupted
            pass
        server.stop()
        server.join(timeout=_GRACE)
        print(f"Stopped server {server.target}", flush=True)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    return 0


def _server_security(parser, args):
    """A ServerSecurity from the flags, completed from the environment (None: flags give none)."""
    flags = (args.tls_cert, args.tls_key, args.tls_ca, args.client_auth, args.token_file, args.no_file_ops,
             args.allow_global_reset)
    if not any(flags):
        return None
    env = dict(os.environ)
    for name, value in (("REF_TLS_CERT", args.tls_cert), ("REF_TLS_KEY", args.tls_key), ("REF_TLS_CA", args.tls_ca),
                        ("REF_RPC_TOKEN_FILE", args.token_file)):
        if value:
            env[name] = value
    if args.token_file:
        env.pop("REF_RPC_TOKEN", None)
    for name, on in (("REF_TLS_CLIENT_AUTH", args.client_auth), ("REF_SERVER_NO_FILE_OPS", args.no_file_ops),
                     ("REF_SERVER_ALLOW_GLOBAL_RESET", args.allow_global_reset)):
        if on:
            env[name] = "1"
    try:
        return ServerSecurity.from_env(env)
    except (ValueError, OSError) as e:
        parser.error(str(e))


# -- python -m ref cluster run -------------------------------------------------------


class _Task:
    """One child process whose output lines are copied to ours with a prefix."""

    def __init__(self, job, index, cmd, env, out_lock):
        self.name = f"{job}:{index}"
        self.tail = collections.deque(maxlen=_TAIL)
        self.started = threading.Event()  # a ps printed "Started server"
        self._cmd, self._env, self._lock = cmd, env, out_lock
        self._spawn()

    def _spawn(self):
        self.proc = subprocess.Popen(self._cmd, env=self._env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self._reader = threading.Thread(target=self._copy, daemon=True)
        self._reader.start()

    def restart(self):
        """Runs the task's command again, with the same address and TF_CONFIG."""
        self.finish()
        self._spawn()

    def _copy(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self.tail.append(line)
            if "Started server with target" in line:
                self.started.set()
            with self._lock:
                sys.stdout.write(f"[{self.name}] {line}\n")
                sys.stdout.flush()

    def signal(self, signum):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass

    def finish(self):
        self._reader.join(timeout=2)
        self.proc.stdout.close()


def _stop(tasks):
    """SIGTERM to every running task, SIGKILL to those still running after the grace period."""
    for t in tasks:
        t.signal(signal.SIGTERM)
    deadline = time.monotonic() + _GRACE
    for t in tasks:
        try:
            t.proc.wait(max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            t.signal(signal.SIGKILL)
            t.proc.wait()
    for t in tasks:
        t.finish()


def _status(code):
    return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as a shell reports it


def _listening(address):
    host, _, port = address.rpartition(":")
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, int(port))) == 0


def _start_ps(n, m, env, lock, deadline, ps, ps_cmd=None, tries=3):
    """The cluster's addresses; its ps tasks, started (or one of them dead, for the caller to
    report), are put in the list ``ps``. A ps has started when it prints TF's "Started server"
    line or its port accepts connections. Free ports can be taken by others before a ps binds:
    then it retries with new ones."""
    deadline = min(deadline, time.monotonic() + _PS_START)
    for attempt in range(tries):
        ports = free_ports(n + m)
        cluster = {"ps": [f"127.0.0.1:{p}" for p in ports[:n]]} if n else {}
        cluster["worker"] = [f"127.0.0.1:{p}" for p in ports[n:]]
        ps[:] = [_Task("ps", i, ps_cmd or [sys.executable, "-m", "ref", "server", "--cluster", json.dumps(cluster),
                                           "--job", "ps", "--task", str(i)], _task_env(env, cluster, "ps", i), lock)
                 for i in range(n)]
        dead, waiting = [], list(zip(ps, cluster.get("ps", [])))
        while waiting:
            waiting = [(t, a) for t, a in waiting if not (t.started.is_set() or _listening(a))]
            dead = [t for t in ps if t.proc.poll() is not None and not t.started.is_set()]
            if dead:
                break
            if time.monotonic() > deadline:
                _stop(ps)
                raise TimeoutError("the ps tasks did not start listening: " + ", ".join(t.name for t, _ in waiting))
            time.sleep(0.05)
        if not dead:
            return cluster
        for t in dead:
            t.finish()  # all its output is in t.tail
        if attempt == tries - 1 or not any("could not bind" in line for t in dead for line in t.tail):
            return cluster
        _stop(ps)
        print(f"[cluster] a ps port was taken; retrying with new ports ({attempt + 1})", file=sys.stderr, flush=True)


def _say(lock, message):
    with lock:
        print(f"[cluster] {message}", flush=True)


def _task_env(env, cluster, job, index):
    out = dict(env)
    out["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": job, "index": index}})
    out["PYTHONUNBUFFERED"] = "1"
    return out


def _secure_env(args, env):
    """Adds the security settings of ``cluster run``'s flags to ``env``; returns the
    temporary directory holding the certificates (None without --tls)."""
    directory = None
    if args.tls or args.mtls:
        directory = tempfile.mkdtemp(prefix="ref-cluster-tls-")
        paths = make_local_ca(directory)
        env.update(REF_TLS_CA=paths["ca"], REF_TLS_CERT=paths["cert"], REF_TLS_KEY=paths["key"])
        if args.mtls:
            env["REF_TLS_CLIENT_AUTH"] = "1"
    if args.token:
        env.pop("REF_RPC_TOKEN_FILE", None)
        env["REF_RPC_TOKEN"] = secrets.token_hex(32)
    return directory


def _run(args):
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)  # the ps' `-m ref`
    tls_dir = _secure_env(args, env)
    ps_env = dict(env, REF_SERVER_NO_FILE_OPS="1") if args.no_file_ops else env
    start = time.monotonic()
    deadline = start + args.timeout if args.timeout else float("inf")
    lock = threading.Lock()
    tasks = []
    restarts = args.restart_failed

    def terminated(signum, frame):
        raise SystemExit(128 + signum)  # stops the tasks on the way out (finally below)

    old = signal.signal(signal.SIGTERM, terminated)
    try:
        ps_cmd = shlex.split(args.ps_cmd) if args.ps_cmd else None
        cluster = _start_ps(args.ps, args.workers, ps_env, lock, deadline, tasks, ps_cmd)
        if args.cluster_file:
            with open(args.cluster_file, "w") as f:
                json.dump(cluster, f)
        _say(lock, "cluster " + json.dumps(cluster))
        if all(t.proc.poll() is None for t in tasks):
            tasks += [_Task("worker", i, cmd, _task_env(env, cluster, "worker", i), lock)
                      for i in range(args.workers)]
        while True:
            failed = next((t for t in tasks if t.proc.poll() not in (None, 0)), None)
            if failed is not None and restarts > 0:
                restarts -= 1
                print(f"[cluster] {failed.name} exited with status {_status(failed.proc.returncode)}; restarting it "
                      f"({restarts} restart{'s' if restarts != 1 else ''} left)", file=sys.stderr, flush=True)
                failed.restart()
                continue
            if failed is not None:
                _stop(tasks)
                code = _status(failed.proc.returncode)
                print(f"error: {failed.name} exited with status {code}; its last lines:", file=sys.stderr)
                for line in failed.tail:
                    print(f"  [{failed.name}] {line}", file=sys.stderr)
                print(f"error: stopped the cluster ({len(tasks)} tasks) because {failed.name} failed",
                      file=sys.stderr, flush=True)
                return code
            if all(t.proc.returncode == 0 for t in tasks if t.name.startswith("worker:")):
                _stop(tasks)
                _say(lock, f"all {args.workers} workers exited 0; stopped the ps tasks ({args.ps})")
                return 0
            if time.monotonic() > deadline:
                running = [t.name for t in tasks if t.proc.poll() is None]
                _stop(tasks)
                print(f"error: cluster run timed out after {args.timeout:g} s; killed the tasks still running: "
                      f"{', '.join(running)}", file=sys.stderr, flush=True)
                return 124
            time.sleep(0.05)
    except TimeoutError as exc:
        print(f"error: cluster run timed out after {args.timeout:g} s: {exc}", file=sys.stderr, flush=True)
        return 124
    finally:
        _stop(tasks)  # SIGTERM, KeyboardInterrupt, errors: never leave a task behind
        signal.signal(signal.SIGTERM, old)
        if tls_dir is not None:
            shutil.rmtree(tls_dir, ignore_errors=True)


# -- python -m ref cluster status ------------------------------------------------------


def _ping(job, index, address, timeout):
    name = f"/job:{job}/replica:0/task:{index}"
    client = rpc.Client(address, rpc.WORKER_SERVICE, name=name, connect_timeout=timeout,
                        security=ClientSecurity.from_env())
    start = time.monotonic()
    try:
        response = client.GetStatus(worker_pb2.GetStatusRequest(), timeout=timeout)
    except Exception as exc:  # noqa: BLE001 -- every failure is "down", with its reason
        return f"{job}:{index}  {address}  down  {' '.join(str(exc).split())}", False
    ms = (time.monotonic() - start) * 1e3
    devices = response.device_attributes
    incarnation = f"{devices[0].incarnation:016x}" if devices else "-"
    return (f"{job}:{index}  {address}  up  incarnation {incarnation}  {ms:.1f} ms  "
            f"{len(devices)} device{'s' if len(devices) != 1 else ''}"), True


def _status_cmd(parser, args):
    cluster = load_cluster(args.cluster) if args.cluster else cluster_from_env()[0]
    if not cluster:
        parser.error("no cluster: pass --cluster JSON_OR_FILE or set TF_CONFIG")
    rpc.import_grpc()
    tasks = [(job, i, cluster.task_address(job, i)) for job in cluster.jobs for i in cluster.task_indices(job)]
    with futures.ThreadPoolExecutor(max_workers=min(len(tasks), 32) or 1) as pool:
        results = list(pool.map(lambda t: _ping(*t, args.timeout), tasks))
    for line, _ in results:
        print(line, flush=True)
    return 0 if all(up for _, up in results) else 1


def cluster_main(argv):
    p = Parser(prog="python -m ref cluster", description="Run a local cluster or ping the tasks of one.")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    run = sub.add_parser("run", help="start N ps tasks and M workers running CMD on 127.0.0.1",
                         description="Start a cluster on free 127.0.0.1 ports: N ps tasks (python -m ref "
                         "server) and M worker processes running CMD, each with TF_CONFIG set and its output "
                         "prefixed [worker:i]. When every worker exits 0 the ps tasks are stopped and the exit "
                         "status is 0; when a task fails, everything is stopped and its status is returned.")
    run.add_argument("--ps", type=int, default=1, help="number of ps tasks (default 1)")
    run.add_argument("--workers", type=int, default=1, help="number of worker processes running CMD (default 1)")
    run.add_argument("--timeout", type=float, help="seconds after which every task is killed")
    run.add_argument("--cluster-file", help="write the cluster's JSON here")
    run.add_argument("--restart-failed", type=int, default=0, metavar="N",
                     help="restart a task that exits non-zero, up to N times in all (default 0)")
    run.add_argument("--ps-cmd", help="run this command (with TF_CONFIG) as each ps task instead of "
                     "python -m ref server, e.g. 'python train.py'")
    run.add_argument("--tls", action="store_true", help="make a throwaway CA and serve every task over TLS "
                     "(REF_TLS_CA/CERT/KEY in every task's environment)")
    run.add_argument("--mtls", action="store_true", help="--tls, and every server requires client certificates")
    run.add_argument("--token", action="store_true", help="a fresh random REF_RPC_TOKEN that every RPC must carry")
    run.add_argument("--no-file-ops", action="store_true", help="the ps tasks refuse graphs with file ops")
    run.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ...: the worker command")
    status = sub.add_parser("status", help="send GetStatus to every task of a cluster")
    status.add_argument("--cluster", help="the ClusterSpec as JSON, or a JSON file (default: TF_CONFIG)")
    status.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for each task (default 5)")
    args = p.parse_args(argv)
    if args.command == "run":
        if args.ps < 0 or args.workers < 1:
            run.error("--ps must be >= 0 and --workers >= 1")
        if not [a for a in args.cmd if a != "--"]:
            run.error("a worker command is needed after --, e.g. -- python train.py")
        return _run(args)
    if args.command == "status":
        return _status_cmd(status, args)
    p.error("a command is required: run or status")

