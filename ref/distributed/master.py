"""TensorFlow's MasterService: sessions that run a client's graph over the cluster's tasks.

``Master(server_def, local_worker=None, connect_worker=None)`` serves the RPCs a TF 2.21
client sends (DISTRIBUTED.md §1.3) and drives the tasks with the WorkerService RPCs a TF
master sends (§1.4). A step is one partition per task whose ``_Send``/``_Recv`` nodes
let the tasks exchange tensors directly (phase 2, :func:`.partition.partition_direct`),
or with ``REF_DISTRIBUTED_EXCHANGE=master`` staged, master-mediated partitions (phase 1,
§6.1, :func:`.partition.partition`):

* **CreateSession** imports the GraphDef into a ref Graph (so unknown ops and bad graphs
  fail here), finds the devices of the tasks it needs with ``GetStatus`` and opens a worker
  session on each with ``CreateWorkerSession``. Which tasks: those ``config.device_filters``
  admit when given (TF); otherwise the master's own task, the ``ps`` job and every task a
  node's device names (so a between-graph worker never waits for the other workers, the
  fix TF users applied by hand). The wait is bounded: ``config.operation_timeout_in_ms``,
  else 60 s; one UnavailableError names every task that did not answer, with its address.
* **ExtendSession** adds only new nodes (an existing name: InvalidArgumentError) to the
  version the client names (another version: AbortedError, as TF's master says).
* **RunStep** prunes the graph to the step (ref's :func:`needed_ops`, so the same ops run
  as in a local Session), places it (:mod:`.placement`), partitions it into stages and
  registers each partition once per (feeds, fetches, targets) signature. Each step runs
  the stages in order (direct: one stage), those of one stage concurrently, with
  ``RunGraph`` (``send`` / ``recv_key`` for feeds and fetches); when one fails, the step is
  ended on every task (``CleanupGraph``) so none waits on it. Every RunGraph is bounded
  by the step's deadline: ``RunOptions.timeout_in_ms``, else ``operation_timeout_in_ms``.
  ``RunOptions.output_partition_graphs`` returns the partitions in ``RunMetadata``;
  ``RunOptions.trace_level`` above NO_TRACE sets ``exec_opts.record_timeline`` and merges
  every task's ``step_stats`` (one ``DeviceStepStats`` per task's CPU) into it. After
  each step the tasks get ``CleanupGraph`` in the background, as from TF's master.
  A task that restarted (a new incarnation in GetStatus, found after a RunGraph failed) is
  an AbortedError naming the task, its address and both incarnations: its variables are
  gone, and MonitoredTrainingSession recovers from AbortedError by restoring a checkpoint.
* **CloseSession** deregisters the graphs and deletes the worker sessions (bounded, 10 s as
  TF); **ListDevices**; **Reset** sends ``CleanupAll`` to the tasks and closes this
  master's sessions. On a server with a ``ServerSecurity`` (``self.security``) that does
  not allow global resets, Reset closes only the caller's own sessions (their handles come
  in the call's ``ref-sessions`` metadata, which ref's ``Session.reset`` sends) and clears
  only containers their graphs name; the default container, shared by every client, and
  any other container are a PermissionDeniedError naming them and the server.

PartialRunSetup, MakeCallable, RunCallable and ReleaseCallable answer UnimplementedError.
"""
from __future__ import annotations

import itertools
import os
import random
import threading
import time
from concurrent import futures

from ref.types import errors
from ref.types.device_spec import DeviceSpec
from ref.framework import importer
from ref.framework.graph import Graph
from ref.session.interpreter import needed_ops
from ref.protos import config_pb2, graph_pb2, master_pb2, tensorflow_server_pb2, worker_pb2
from ref.distributed import rpc
from ref.distributed.cluster import ClusterSpec
from ref.distributed.partition import partition, partition_direct, signed64
from ref.distributed.placement import place, task_of
from ref.distributed.security import SESSIONS_KEY

__all__ = ["Master", "DEFAULT_DISCOVERY_TIMEOUT"]

DEFAULT_DISCOVERY_TIMEOUT = 60.0  # seconds; TF's master waits forever
EXCHANGES = ("direct", "master")
"""How the tasks of a step exchange tensors: ``"direct"`` (phase 2: one partition per task,
``_Send``/``_Recv`` between tasks, pulled with ``RecvTensor``) or ``"master"`` (phase 1:
staged partitions, every tensor between tasks through the master). Environment
``REF_DISTRIBUTED_EXCHANGE``; default direct."""
_CLOSE_TIMEOUT = 10.0  # TF's DeleteWorkerSession deadline
_PS_JOBS = ("ps",)


def _random64():
    return random.SystemRandom().getrandbits(64) or 1


def _remaining(deadline):
    return None if deadline is None else deadline - time.monotonic()


class _Task:
    """A task taking part in a session: its address, service, incarnation and devices."""

    def __init__(self, name, address, service, incarnation, devices):
        self.name, self.address, self.service = name, address, service
        self.incarnation, self.devices = incarnation, devices


class _Plan:
    def __init__(self, step_plan, handles, tasks):
        self.step_plan, self.handles, self.tasks = step_plan, handles, tasks


class Master:
    """The MasterService of one task (``server_def.job_name``/``task_index``)."""

    def __init__(self, server_def, local_worker=None, connect_worker=None):
        self.server_def = tensorflow_server_pb2.ServerDef()
        self.server_def.CopyFrom(server_def)
        self.cluster = ClusterSpec(server_def.cluster)
        self.task_name = f"/job:{server_def.job_name}/replica:{server_def.replica}/task:{server_def.task_index}"
        self.device_name = self.task_name + "/device:CPU:0"
        self.incarnation = _random64()
        self._local_worker = local_worker
        self._connect = connect_worker or (lambda task, address: rpc.connect(address, rpc.WORKER_SERVICE,
                                                                                name=task))
        self._services = {}
        self._sessions = {}
        self._lock = threading.Lock()
        self._pool = futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="ref-master")
        self._step_ids = itertools.count(1)
        self.security = None  # the server's ServerSecurity: limits Reset unless it allows global resets
        self.exchange = os.environ.get("REF_DISTRIBUTED_EXCHANGE", "direct")
        self.propagated = False  # a session's master for its ConfigProto.cluster_def (for_cluster)
        if self.exchange not in EXCHANGES:
            raise ValueError(f"REF_DISTRIBUTED_EXCHANGE={self.exchange!r}: expected one of {EXCHANGES}")

    # -- tasks -------------------------------------------------------------------
    def all_tasks(self):
        """Every task of the cluster: ``{"/job:ps/replica:0/task:0": "host:port"}``."""
        return {f"/job:{job}/replica:0/task:{i}": self.cluster.task_address(job, i)
                for job in self.cluster.jobs for i in self.cluster.task_indices(job)}

    def service(self, task):
        """The WorkerService of ``task`` (this task's own worker in-process)."""
        if task == self.task_name and self._local_worker is not None:
            return self._local_worker
        with self._lock:
            if task not in self._services:
                self._services[task] = self._connect(task, self.all_tasks()[task])
            return self._services[task]

    def tasks_for(self, config, node_devices=()):
        """The tasks a session contacts: those ``config.device_filters`` admit when set (and
        this task); else this task, the ps job, and for each device in ``node_devices`` the
        task placement would pick (every task it names; for a spec without a task that admits
        this task, none more; else the first it admits). A ClusterSpec-propagated session's
        master contacts every task of the session's cluster, as TF's."""
        tasks = self.all_tasks()

        def admits(s, t):
            d = DeviceSpec.from_string(t)
            return s.job in (None, d.job) and s.replica in (None, d.replica) and s.task in (None, d.task)
        if config.device_filters:
            specs = [DeviceSpec.from_string(f) for f in config.device_filters]
            picked = {t for t in tasks if any(admits(s, t) for s in specs)}
        elif self.propagated:  # the session named its cluster: all of it, as TF's DeviceFinder
            picked = set(tasks)
        else:
            picked = {t for t in tasks if DeviceSpec.from_string(t).job in _PS_JOBS}
            for d in set(node_devices):
                s = DeviceSpec.from_string(d) if d else None
                if s is None or s.job is None or (s.task is None and admits(s, self.task_name)):
                    continue
                matched = sorted((t for t in tasks if admits(s, t)), key=_task_key)
                picked.update(matched if s.task is not None else matched[:1])
        picked.add(self.task_name)
        return {t: tasks[t] for t in sorted(picked, key=_task_key) if t in tasks}

    def _fan_out(self, calls, deadline, what, task_of_key=None):
        """Runs ``{task: fn(timeout)}`` concurrently; ``{task: result}``, or one error naming
        every task that failed (AbortedError for a restarted task; UnavailableError if any did
        not answer). ``task_of_key`` names the task of a key that is not one."""
        futs = {t: self._pool.submit(fn, _remaining(deadline)) for t, fn in calls.items()}
        results, failed = {}, []
        for t, f in futs.items():
            try:
                results[t] = f.result(timeout=None if deadline is None else max(_remaining(deadline), 0) + 5)
            except futures.TimeoutError:
                failed.append((t, errors.DeadlineExceededError(None, None, f"no answer to {what}")))
            except errors.OpError as e:
                failed.append((t, e))
        if failed:
            aborted = [e for _, e in failed if isinstance(e, errors.AbortedError)]
            if aborted:
                raise aborted[0]
            addresses = self.all_tasks()
            name = task_of_key or (lambda k: k)
            lines = "; ".join(f"task {name(t)} at {addresses.get(name(t), '?')}: {e.message}" for t, e in failed)
            cls = type(failed[0][1]) if len(failed) == 1 else errors.UnavailableError
            if any(isinstance(e, (errors.UnavailableError, errors.DeadlineExceededError)) for _, e in failed):
                cls = errors.UnavailableError
            raise cls(None, None, f"{what} failed for {len(failed)} of {len(calls)} tasks: {lines}")
        return results

    def discover(self, tasks, deadline):
        """GetStatus to each of ``tasks`` ({task: address}) within ``deadline``; {task: _Task}."""
        def status(task):
            return lambda timeout: self.service(task).GetStatus(worker_pb2.GetStatusRequest(), timeout=timeout)
        wait = _remaining(deadline)
        try:
            answers = self._fan_out({t: status(t) for t in tasks}, deadline, "GetStatus (device discovery)")
        except errors.UnavailableError as e:
            hint = "; ".join(f"is `python -m ref server --job {DeviceSpec.from_string(t).job} --task "
                             f"{DeviceSpec.from_string(t).task}` (or TF's server) running at {a}?"
                             for t, a in tasks.items() if f"task {t} at" in e.message)
            within = f" {wait:.3g} s" if wait is not None else ""
            said = e.message if e.message.endswith(("?", ".")) else e.message + "."
            raise errors.UnavailableError(None, None, f"{said} Device discovery waited{within} for "
                                          f"the tasks this session needs ({', '.join(tasks)}); {hint} "
                                          "(config.device_filters chooses the tasks)") from None
        found = {}
        for t, resp in answers.items():
            devices = [_renamed(d, t) for d in resp.device_attributes]
            cpu = next((d for d in devices if d.name.endswith("/device:CPU:0")), devices[0] if devices else None)
            found[t] = _Task(t, tasks[t], self.service(t), cpu.incarnation if cpu else 0, devices)
        return found

    # -- MasterService -------------------------------------------------------------
    def _session(self, handle):
        with self._lock:
            sess = self._sessions.get(handle)
        if sess is None:
            raise errors.AbortedError(None, None, f"Session {handle} is not found. Possibly, this master "
                                      f"({self.task_name}) has restarted.")
        return sess

    def for_cluster(self, cluster_def, target):
        """TF's ClusterSpec propagation: the master of a session whose ConfigProto names a
        ``cluster_def``. This task is the one whose address is ``target``'s (TF matches the
        request's target with the grpc:// prefix dropped); the other tasks are reached at the
        cluster_def's addresses. It shares this master's worker, threads and incarnation, and
        exchanges tensors through the master (the workers know only their own cluster)."""
        address = rpc._bare(target) if target else ""
        found = [(job.name, i) for job in cluster_def.job for i, a in job.tasks.items() if a == address]
        short = " ".join(str(cluster_def).split())
        if len(found) > 1:
            raise errors.InvalidArgumentError(None, None, "Found multiple matching tasks that correspond to to the "
                                              f"master. Master target: '{target}'. ClusterDef: {short}")
        if not found:
            raise errors.InvalidArgumentError(None, None, f"No task of the ClusterDef has the master's address. "
                                              f"Master target: '{target}'. ClusterDef: {short}")
        if (found[0][0], found[0][1]) == (self.server_def.job_name, self.server_def.task_index):
            raise errors.InvalidArgumentError(
                None, None, "The ClusterSpec names the job and task index to be the same names that were provided "
                f"when the server booted. This is currently not allowed. Job: {found[0][0]}, task index: {found[0][1]}")
        server_def = tensorflow_server_pb2.ServerDef(job_name=found[0][0], task_index=found[0][1],
                                                     protocol=self.server_def.protocol or "grpc")
        server_def.cluster.CopyFrom(cluster_def)
        sub = Master(server_def, local_worker=self._local_worker, connect_worker=self._connect)
        sub._pool.shutdown(wait=False)
        sub._pool, sub.incarnation, sub.security, sub.exchange = self._pool, self.incarnation, self.security, "master"
        sub.propagated = True
        return sub

    def CreateSession(self, request, timeout=None):
        config = config_pb2.ConfigProto()
        config.CopyFrom(self.server_def.default_session_config)
        config.MergeFrom(request.config)
        master = self
        if config.cluster_def.job:
            master = self.for_cluster(config.cluster_def, request.target)
            # propagated sessions do not share their workers' state unless asked (TF)
            if not config.experimental.share_session_state_in_clusterspec_propagation:
                config.isolate_session_state = True
        sess = MasterSession(master, request.graph_def, config, timeout)
        with self._lock:
            self._sessions[sess.handle] = sess
        return master_pb2.CreateSessionResponse(session_handle=sess.handle, graph_version=sess.version)

    def ExtendSession(self, request, timeout=None):
        sess = self._session(request.session_handle)
        version = sess.extend(request.graph_def, request.current_graph_version, timeout)
        return master_pb2.ExtendSessionResponse(new_graph_version=version)

    def RunStep(self, request, timeout=None):
        if request.partial_run_handle:
            raise errors.UnimplementedError(None, None, "partial runs are not supported by ref's master; "
                                            "run the whole step with Session.run")
        sess = self._session(request.session_handle)
        return sess.run_step(request, timeout)

    def CloseSession(self, request, timeout=None):
        with self._lock:
            sess = self._sessions.pop(request.session_handle, None)
        if sess is None:
            raise errors.AbortedError(None, None, f"Session {request.session_handle} is not found.")
        sess.close(timeout)
        return master_pb2.CloseSessionResponse()

    def ListDevices(self, request, timeout=None):
        if request.session_handle:
            tasks = self._session(request.session_handle).tasks
        else:
            tasks = self.discover(self.all_tasks(), time.monotonic() + min(
                timeout or DEFAULT_DISCOVERY_TIMEOUT, DEFAULT_DISCOVERY_TIMEOUT))
        resp = master_pb2.ListDevicesResponse()
        for t in sorted(tasks, key=_task_key):
            (resp.local_device if t == self.task_name else resp.remote_device).extend(tasks[t].devices)
        return resp

    def Reset(self, request, timeout=None):
        if self.security is not None and not self.security.allow_global_reset:
            return self._reset_own(request, timeout)
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for sess in sessions:
            sess.close(timeout)
        config = config_pb2.ConfigProto(device_filters=list(request.device_filters))
        tasks = self.tasks_for(config) if request.device_filters else self.all_tasks()
        deadline = time.monotonic() + (timeout if timeout is not None else DEFAULT_DISCOVERY_TIMEOUT)

        def cleanup(task):
            return lambda t: self.service(task).CleanupAll(
                worker_pb2.CleanupAllRequest(container=list(request.container)), timeout=t)
        self._fan_out({t: cleanup(t) for t in tasks}, deadline, "CleanupAll (Reset)")
        return master_pb2.ResetResponse()

    def _reset_own(self, request, timeout):
        """Reset limited to the caller's sessions and the containers their graphs name."""
        handles = [h for k, v in rpc.CALL_METADATA.get() if k == SESSIONS_KEY for h in v.split(",") if h]
        with self._lock:
            own = {h: self._sessions[h] for h in handles if h in self._sessions}
        where = f"{self.task_name} at {self.all_tasks().get(self.task_name, '?')}"
        allowed = {n.attr["container"].s.decode() for sess in own.values() for n in sess.node_defs.values()
                   if "container" in n.attr and n.attr["container"].s}
        if not request.container:
            denied = ['"" (the default container, which holds every client\'s variables)']
        else:
            denied = [repr(c) for c in request.container if c not in allowed]
        if denied:
            raise errors.PermissionDeniedError(
                None, None, f"Reset of container {', '.join(denied)} refused by the server {where}: it allows a "
                f"reset only of containers the caller's own sessions use ({sorted(allowed) or 'none'}); start it "
                "with ServerSecurity(allow_global_reset=True) (REF_SERVER_ALLOW_GLOBAL_RESET=1) for TF's global Reset")
        with self._lock:
            for h in own:
                self._sessions.pop(h, None)
        tasks = {}
        for sess in own.values():
            sess.close(timeout)
            tasks.update({t: task.service for t, task in sess.tasks.items()})
        deadline = time.monotonic() + (timeout if timeout is not None else DEFAULT_DISCOVERY_TIMEOUT)
        req = worker_pb2.CleanupAllRequest(container=list(request.container))
        self._fan_out({t: (lambda service: lambda left: service.CleanupAll(req, timeout=left))(svc)
                       for t, svc in tasks.items()}, deadline, "CleanupAll (Reset)")
        return master_pb2.ResetResponse()

    def _unimplemented(self, what, instead):
        def method(request, timeout=None):
            raise errors.UnimplementedError(None, None, f"MasterService/{what} is not implemented by ref's "
                                            f"master; {instead}")
        return method

    def __getattr__(self, name):
        instead = {"PartialRunSetup": "run the whole step with Session.run",
                   "MakeCallable": "use Session.run (TF's Python make_callable sends RunStep)",
                   "RunCallable": "use Session.run", "ReleaseCallable": "use Session.run"}
        if name in instead:
            return self._unimplemented(name, instead[name])
        raise AttributeError(name)

    def close(self):
        """Closes every session (bounded) and stops the master's threads."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for sess in sessions:
            try:
                sess.close(_CLOSE_TIMEOUT)
            except errors.OpError:
                pass
        self._pool.shutdown(wait=False)


class MasterSession:
    """One client session: its graph, worker sessions and per-signature plans."""

    def __init__(self, master, graph_def, config, timeout=None):
        self.master, self.config = master, config
        self.handle = f"{_random64():016x}"
        self.graph = Graph()
        self.node_defs = {}
        self.versions = graph_pb2.GraphDef().versions
        self.library = graph_pb2.GraphDef().library
        self.version = 0
        self.tasks = {}
        self._plans = {}
        self._lock = threading.RLock()
        self._aborted = None
        self._import(graph_def)
        self._join(self.master.tasks_for(config, (n.device for n in graph_def.node)), self._deadline(None, timeout))

    # -- graph ------------------------------------------------------------------
    def _import(self, graph_def):
        nodes = list(graph_def.node)
        for n in nodes:
            if n.name in self.node_defs:
                raise errors.InvalidArgumentError(
                    None, None, f"GraphDef argument to Extend includes node '{n.name}', which was created by a "
                    "previous call to Create or Extend in this session.")
        new = {n.name for n in nodes}
        input_map = {}
        for n in nodes:
            for i in n.input:
                src = i.lstrip("^").split(":")[0]
                if src in new or src not in self.node_defs:
                    continue
                op = self.graph.get_operation_by_name(src)
                if i.startswith("^"):
                    input_map[i] = op
                else:
                    idx = int(i.split(":")[1]) if ":" in i else 0
                    input_map[f"{src}:{idx}"] = op.outputs[idx]
        functions = {f.signature.name: f for f in list(self.library.function) + list(graph_def.library.function)}
        try:
            with self.graph.as_default():
                importer.import_nodes(self.graph, nodes, input_map, functions, "")
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"Invalid GraphDef: {e}") from None
        for n in nodes:
            self.node_defs[n.name] = n
        self.library.MergeFrom(graph_def.library)
        if graph_def.HasField("versions"):
            self.versions.CopyFrom(graph_def.versions)

    def extend(self, graph_def, current_version, timeout):
        with self._lock:
            if current_version != self.version:
                raise errors.AbortedError(None, None, f"Current version is {self.version} but caller expected "
                                          f"{current_version}.")
            self._import(graph_def)
            if not self.config.device_filters:  # devices named for the first time: discover their tasks
                wanted = self.master.tasks_for(self.config, (n.device for n in graph_def.node))
                new = {t: a for t, a in wanted.items() if t not in self.tasks}
                if new:
                    self._join(new, self._deadline(None, timeout))
            self.version += 1
            return self.version

    # -- workers ------------------------------------------------------------------
    def _deadline(self, options, timeout):
        ms = options.timeout_in_ms if options is not None and options.timeout_in_ms > 0 else \
            self.config.operation_timeout_in_ms
        limits = [s for s in (ms / 1000.0 if ms > 0 else None, timeout) if s is not None]
        if options is None and not limits:
            limits = [DEFAULT_DISCOVERY_TIMEOUT]
        return time.monotonic() + min(limits) if limits else None

    def _join(self, tasks, deadline):
        found = self.master.discover(tasks, deadline)
        master = self.master

        def create(task):
            job, idx = DeviceSpec.from_string(task).job, DeviceSpec.from_string(task).task
            req = worker_pb2.CreateWorkerSessionRequest(
                session_handle=self.handle, isolate_session_state=self.config.isolate_session_state,
                master_task=master.task_name, master_incarnation=signed64(master.incarnation))
            req.server_def.job_name, req.server_def.task_index, req.server_def.protocol = job, idx, "grpc"
            if master.propagated:  # the worker serves this session as `task` (TF renames its devices)
                req.server_def.cluster.CopyFrom(master.server_def.cluster)
            return lambda t: found[task].service.CreateWorkerSession(req, timeout=t)
        master._fan_out({t: create(t) for t in found}, deadline, "CreateWorkerSession")
        self.tasks.update(found)

    def devices(self):
        return [d.name for t in sorted(self.tasks, key=_task_key) for d in self.tasks[t].devices]

    # -- steps --------------------------------------------------------------------
    def _element(self, name, what):
        op_name, _, idx = name.partition(":")
        try:
            op = self.graph.get_operation_by_name(op_name)
        except (KeyError, ValueError):
            op = None
        if op is None:
            raise errors.NotFoundError(None, None, f"{what} '{name}' is not in the graph")
        if what == "target":
            return op
        i = int(idx) if idx else 0
        if i >= len(op.outputs):
            raise errors.InvalidArgumentError(None, None, f"{what} '{name}': {{{{node {op_name}}}}} has "
                                              f"{len(op.outputs)} outputs")
        return op.outputs[i]

    def _plan(self, feeds, fetches, targets, deadline):
        key = (tuple(sorted(feeds)), tuple(sorted(set(fetches))), tuple(sorted(set(targets))))
        plan = self._plans.get(key)
        if plan is not None:  # the common case: no lock
            return plan
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                return plan
            feed_t = [self._element(f, "feed") for f in key[0]]
            fetch_t = [self._element(f, "fetch") for f in key[1]]
            target_ops = [self._element(t, "target") for t in key[2]]
            ops = needed_ops(fetch_t, target_ops, feed_t)
            placement = place(ops, self.devices(), self.master.device_name, self.config.allow_soft_placement,
                              fetches=fetch_t, graph=self.graph)
            partitioner = partition_direct if self.master.exchange == "direct" else partition
            step = partitioner(ops, self.node_defs, placement, [t.name for t in feed_t], [t.name for t in fetch_t],
                               {t: task.incarnation for t, task in self.tasks.items()})

            def register(p):
                gd = p.graph_def
                gd.versions.CopyFrom(self.versions)
                gd.library.CopyFrom(self.library)
                req = worker_pb2.RegisterGraphRequest(session_handle=self.handle, create_worker_session_called=True,
                                                      graph_def=gd, config_proto=self.config)
                req.graph_options.CopyFrom(self.config.graph_options)
                task = self.tasks[p.task]

                def call(timeout):
                    until = None if timeout is None else time.monotonic() + timeout
                    try:
                        return task.service.RegisterGraph(req, timeout=timeout).graph_handle
                    except errors.OpError as e:
                        self._check_restart(task, e, until)
                        raise
                return call
            for i, p in enumerate(step.partitions):
                if p.task not in self.tasks:
                    raise errors.InvalidArgumentError(None, None, f"partition for {p.task}: no worker session")
            results = self.master._fan_out({i: register(p) for i, p in enumerate(step.partitions)}, deadline,
                                           "RegisterGraph", lambda i: step.partitions[i].task)
            handles = [results[i] for i in range(len(step.partitions))]
            plan = self._plans[key] = _Plan(step, handles, [p.task for p in step.partitions])
            return plan

    def run_step(self, request, timeout):
        if self._aborted is not None:
            raise errors.AbortedError(None, None, self._aborted)
        deadline = self._deadline(request.options, timeout)
        values = {}
        for nt in request.feed:
            values[nt.name if ":" in nt.name else nt.name + ":0"] = nt.tensor
        fetches = [f if ":" in f else f + ":0" for f in request.fetch]
        plan = self._plan(list(values), fetches, list(request.target), deadline)
        step_id = (next(self.master._step_ids) + (self.master.incarnation << 20)) % (1 << 62)
        resp = master_pb2.RunStepResponse()
        stats = resp.metadata.step_stats if request.options.trace_level > 0 else None
        try:
            self._run_levels(plan, step_id, values, deadline, stats)
        finally:
            self._cleanup(plan, step_id)
        for name, f in zip(request.fetch, fetches):
            resp.tensor.add(name=name, tensor=values[f])
        if request.options.output_partition_graphs:
            resp.metadata.partition_graphs.extend(p.graph_def for p in plan.step_plan.partitions)
        return resp

    def _run_levels(self, plan, step_id, values, deadline, stats=None):
        """Runs the stages in order, the partitions of one stage together; what they send
        back goes into ``values``, their step stats (when traced) into ``stats``. When one
        partition fails, the step is ended on every task at once (``CleanupGraph``: their
        waits for tensors of this step end), and the first error is raised."""
        parts = plan.step_plan.partitions
        for level in plan.step_plan.levels:
            left = _remaining(deadline)
            if left is not None and left <= 0:
                raise errors.DeadlineExceededError(
                    None, None, f"RunStep ran out of its deadline before stage {parts[level[0]].stage} on "
                    f"{', '.join(parts[i].task for i in level)}")
            # one partition runs on this thread (the local task's, whose RunGraph is a call in this
            # process): a step then hands off to a pool thread only for the other tasks' RunGraphs
            inline = next((i for i in level if parts[i].task == self.master.task_name), level[-1])
            ended, lock = [], threading.Lock()

            def failing(error):
                """The first error of a partition that failed on its own ends the step on every
                task at once (``CleanupGraph``): the others may wait on its tensors, the partition
                on this thread among them. A wait that failed on its own leaves the others to
                find their own errors, which say more."""
                if not isinstance(error, errors.OpError) or _derived(error):
                    return
                with lock:
                    if ended:
                        return
                    ended.append(error)
                self._end_step(plan, step_id)
            calls = {}
            for i in level:
                if i != inline:
                    f = calls[i] = self.master._pool.submit(
                        self._run_graph(plan, i, step_id, values, stats is not None), left)
                    f.add_done_callback(lambda f: failing(f.exception()))
            results, failed = {}, []
            try:
                results[inline] = self._run_graph(plan, inline, step_id, values, stats is not None)(left)
            except errors.OpError as e:
                failed.append(e)
                if calls:
                    failing(e)
            futures.wait(calls.values())
            for i, f in calls.items():
                try:
                    results[i] = f.result()
                except errors.OpError as e:
                    failed.append(e)
            if failed:
                # a restarted task (found by the RunGraph to it) says more than the errors of
                # the tasks that waited on it; else the first error of a partition that did not
                # fail only because another one did
                raise next((e for e in failed if isinstance(e, errors.AbortedError) and self._aborted),
                           next((e for e in failed if not _derived(e)), failed[0]))
            for i, resp in results.items():
                for nt in resp.recv:
                    values[parts[i].sends[nt.name]] = nt.tensor
                if stats is not None:
                    stats.dev_stats.extend(resp.step_stats.dev_stats)

    def _end_step(self, plan, step_id):
        """CleanupGraph to each task of the step now, without waiting for the answers (a
        task that does not answer must not hold the step): its runs and waits end."""
        self._cleanup(plan, step_id)

    def _cleanup(self, plan, step_id):
        """CleanupGraph to each task of the step, in the background, as TF's master does after
        every step (a TF worker keeps the step's rendezvous until then)."""
        req = worker_pb2.CleanupGraphRequest(step_id=step_id)
        for task in set(plan.tasks):
            service = self.tasks[task].service
            try:
                self.master._pool.submit(_quietly, service.CleanupGraph, req, _CLOSE_TIMEOUT)
            except RuntimeError:  # the master is shutting down
                return

    def _run_graph(self, plan, i, step_id, values, trace=False):
        p = plan.step_plan.partitions[i]
        req = worker_pb2.RunGraphRequest(session_handle=self.handle, create_worker_session_called=True,
                                         graph_handle=plan.handles[i], step_id=step_id, recv_key=list(p.sends))
        req.exec_opts.record_timeline = trace
        for key, tensor_name in p.recvs.items():
            req.send.add(name=key, tensor=values[tensor_name])
        task = self.tasks[p.task]

        def call(timeout):
            until = None if timeout is None else time.monotonic() + timeout
            try:
                resp = task.service.RunGraph(req, timeout=timeout)
            except errors.OpError as e:
                self._check_restart(task, e, until)
                raise
            if resp.status_code:
                raise rpc.error_from_status(resp.status_code, resp.status_error_message)
            return resp
        return call

    def _check_restart(self, task, error, deadline=None):
        """After a failed RunGraph: a task with a new incarnation restarted (AbortedError).
        The GetStatus that asks is bounded by what is left of the step's ``deadline``."""
        if not isinstance(error, (errors.AbortedError, errors.NotFoundError, errors.FailedPreconditionError,
                                  errors.InvalidArgumentError, errors.UnavailableError)):
            return
        if isinstance(error, (errors.InvalidArgumentError, errors.FailedPreconditionError)) and \
                "handle" not in error.message.lower():
            return
        left = _remaining(deadline)
        if left is not None and left < 0.05:
            return
        # a lost connection: ask briefly (the task restarted and listens, or the error stands)
        ask = 1.0 if isinstance(error, errors.UnavailableError) else 5.0
        try:
            status = task.service.GetStatus(worker_pb2.GetStatusRequest(), timeout=min(ask, left or ask))
        except errors.OpError:
            return
        now = next((d.incarnation for d in status.device_attributes if d.name.endswith("/device:CPU:0")), None)
        if now is not None and now != task.incarnation:
            self._aborted = (f"task {task.name} at {task.address} restarted (incarnation {task.incarnation:016x} -> "
                             f"{now:016x}): its variables and queues are lost; recreate the session (a "
                             f"MonitoredTrainingSession restores from its checkpoint)")
            raise errors.AbortedError(None, None, self._aborted) from None

    def close(self, timeout=None):
        deadline = time.monotonic() + min(timeout if timeout is not None else _CLOSE_TIMEOUT, _CLOSE_TIMEOUT)
        with self._lock:
            plans, self._plans = list(self._plans.values()), {}
        for plan in plans:
            for task, handle in zip(plan.tasks, plan.handles):
                req = worker_pb2.DeregisterGraphRequest(session_handle=self.handle, graph_handle=handle,
                                                        create_worker_session_called=True)
                try:
                    self.tasks[task].service.DeregisterGraph(req, timeout=max(_remaining(deadline), 0.001))
                except errors.OpError:
                    pass
        for task in self.tasks.values():
            try:
                task.service.DeleteWorkerSession(worker_pb2.DeleteWorkerSessionRequest(session_handle=self.handle),
                                                 timeout=max(_remaining(deadline), 0.001))
            except errors.OpError:
                pass


def _renamed(device, task):
    """``device`` (a worker's DeviceAttributes) named on ``task``, as TF's remote devices are:
    a worker answers with its own name, a ClusterSpec-propagated session knows it as ``task``."""
    spec = DeviceSpec.from_string(device.name)
    name = f"{task}/device:{spec.device_type}:{spec.device_index or 0}"
    if name == device.name:
        return device
    out = type(device)()
    out.CopyFrom(device)
    out.name = name
    return out


def _task_key(task):
    s = DeviceSpec.from_string(task)
    return s.job or "", s.replica or 0, s.task or 0


def _derived(error):
    """Whether a partition's ``error`` only reflects another task's failure: its wait for
    a tensor from that task (RecvTensor) failed or timed out on the sending task (the value
    "was never sent": that task's partition is what failed), or its step was ended (CleanupGraph)."""
    return (isinstance(error, errors.CancelledError) or "WorkerService/RecvTensor" in error.message
            or "(CleanupGraph)" in error.message or "from other tasks not received" in error.message
            or ("RecvTensor" in error.message and "which was never sent" in error.message))


def _quietly(fn, request, timeout):
    try:
        fn(request, timeout=timeout)
    except errors.OpError:
        pass

