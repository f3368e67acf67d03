"""TensorFlow's ``WorkerService`` for one task: runs the graph partitions a master registers.

A master (ref's, or TensorFlow's in the staged, master-mediated form of
``DISTRIBUTED.md`` §6.1) talks to a task's worker in this order:

* ``GetStatus``: the task's devices, here its CPU
  (``/job:ps/replica:0/task:0/device:CPU:0``) with this worker's *incarnation*,
  a random nonzero 64-bit number: a restarted task answers with a new one.
* ``CreateWorkerSession`` / ``DeleteWorkerSession``: a worker session per master
  session. Variables, queues and accumulators live in the worker (per process,
  as in TensorFlow) and every session shares them, which is how the workers of
  a between-graph replicated program find the same variables and SyncReplicas
  accumulators on a ps task; ``isolate_session_state`` gives a session its own.
  Stateful kernels' random generators belong to the session (TF's ``OpSegment``).
  A request naming a session that does not exist fails with AbortedError
  "Session handle is not found" (the worker may have restarted).
* ``RegisterGraph``: a partition GraphDef whose nodes all live on this task.
  Values the master sends in are client-terminated ``_Recv`` nodes, values it
  takes back client-terminated ``_Send`` nodes (attrs ``tensor_name``,
  ``send_device``, ``send_device_incarnation``, ``recv_device``,
  ``client_terminated``). The partition is imported into a ref Graph, each
  ``_Recv`` becoming a placeholder of its ``tensor_type`` and each ``_Send``'s
  input a fetch, and planned once. Returns a graph handle, a 16-hex-digit counter.
* ``RunGraph``: runs every node of a registered partition. ``send`` carries a
  value for each ``_Recv``, named by its rendezvous key
  ``"{send_device};{incarnation:016x};{recv_device};{tensor_name};0:0"``;
  ``recv_key`` names the ``_Send`` values to return. A missing value is an
  InvalidArgumentError naming the key (TensorFlow's worker waits forever).
  The call's deadline bounds blocking kernels (queue dequeue, accumulator take):
  past it they fail with DeadlineExceededError naming the node, the task and
  what they hold (:mod:`ref.ops.blocking`).
* ``DeregisterGraph``, ``CleanupGraph`` (ends the step's rendezvous and runs),
  ``CleanupAll`` (clears resource containers; none named: the default one,
  "localhost", which holds what was made with container "").

* ``RecvTensor``: the value a ``_Send`` of step ``step_id`` put under a rendezvous
  key, once it is there (phase 2: ``_Send``/``_Recv`` between tasks, see
  :class:`_Partition`, :mod:`.rendezvous`, :mod:`.dataflow`); ``MarkRecvFinished``
  is accepted. ``CleanupGraph`` ends a step's rendezvous.

``Logging`` and ``Tracing`` answer UnimplementedError (step stats come back in
``RunGraphResponse.step_stats`` when ``exec_opts.record_timeline`` asks).
"""
from __future__ import annotations

import itertools
import secrets
import threading
import time

import numpy as np

from ref.types import dtypes, errors
from ref.platform import allocator
from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.distributed import dataflow, grappler_nodes, rpc, tensor_channel
from ref.distributed.partition import tf_rendezvous_key as rendezvous_key
from ref.distributed.security import check_file_ops
from ref.distributed.rendezvous import Rendezvous, parse_key
from ref.distributed.tensor_coding import decode_recv_tensor_response, encode_recv_tensor_response_parts
from ref.framework.graph import Graph
from ref.framework.op_def_library import apply_op
from ref.framework.importer import import_nodes
from ref.ops import blocking
from ref.protos import device_attributes_pb2, tensor_pb2, worker_pb2
from ref.ops.control import DEAD
from ref.session.interpreter import Plan, Ref, RunState, execute
from ref.session.tracing import fill_step_stats

__all__ = ["Worker", "rendezvous_key"]

_RECV_OPS = ("_Recv", "_HostRecv")
_SEND_OPS = ("_Send", "_HostSend")
_CPU_MEMORY_LIMIT = 268435456  # what TensorFlow reports for a CPU
_DEFAULT_CONTAINER = "localhost"  # TF's name for the container of resources made with container ""
# Seconds of a RunGraph deadline kept back so that a kernel's own timeout error,
# naming what it waited for, reaches the caller before the call's deadline does.
_REPLY_MARGIN = 1.0


def _node_key(n):
    a = n.attr
    return rendezvous_key(a["send_device"].s.decode(), a["send_device_incarnation"].i, a["recv_device"].s.decode(),
                          a["tensor_name"].s.decode())


# Deadness between ref tasks. TF's workers pass a dead tensor (a Switch's untaken
# branch) to each other through the rendezvous with ``is_dead``; ref's partitions
# exchange values through the master, so a dead value travels as a TensorProto
# with no contents whose ``version_number`` is DEAD_VERSION (TF writes 0 there).
DEAD_VERSION = 0x44454144  # "DEAD"


def dead_tensor_proto(dtype):
    """The TensorProto a ref worker sends for a dead value of ``dtype``."""
    return tensor_pb2.TensorProto(dtype=int(dtypes.as_dtype(dtype).as_datatype_enum), version_number=DEAD_VERSION)


def is_dead_tensor_proto(tensor) -> bool:
    return tensor.version_number == DEAD_VERSION and not tensor.tensor_content and not tensor.tensor_shape.dim


class _State:
    """What a worker process keeps between runs: variable values and resources
    (queues, accumulators) -- a ``RunState`` whose generators no run uses (each
    worker session has its own) -- and the container each variable was made in."""

    def __init__(self):
        self.shared = RunState()
        self.store = self.shared.store
        self.resources = self.shared.resources
        self.containers = {}  # variable key -> container

    def clear(self, containers):
        """Drops the variables and resources of ``containers`` (none named: the
        default container, TF's "localhost", which holds those made with container "")."""
        wanted = set(containers) or {_DEFAULT_CONTAINER}
        with self.store.lock:
            for key in [k for k in self.store.values if self.containers.get(k, _DEFAULT_CONTAINER) in wanted]:
                del self.store.values[key]
        for key in list(self.resources):
            container = key[1] if isinstance(key, tuple) and len(key) > 2 and isinstance(key[1], str) else ""
            if (container or _DEFAULT_CONTAINER) in wanted:
                _close(self.resources.pop(key, None))

    def close(self):
        self.shared.close_resources()


def _close(resource):
    closer = getattr(resource, "close", None)
    if closer is not None:
        closer()


class _WorkerSession:
    """One master session's view of the worker: its graphs, its generators, its runs in flight."""

    def __init__(self, handle, state, master_task="", master_incarnation=0, task_name=None):
        self.handle = handle
        # the task this session knows the worker as: another for a ClusterSpec-propagated session
        self.task_name = task_name
        self.state = state
        self.master = (master_task, master_incarnation)
        # what its runs see: the worker's variables and resources, its own random generators
        self.run_state = RunState(state.store, {}, state.resources)
        self.graphs = {}
        self.runs = set()
        self.lock = threading.Lock()

    def cancel(self, reason):
        with self.lock:
            runs = list(self.runs)
        for run in runs:
            run.cancel(reason)


class _Partition:
    """A registered partition: its graph, how it runs, its keys.

    Client-terminated ``_Recv``/``_Send`` nodes are the values the master sends in
    and takes back (``RunGraph.send``/``recv_key``). The others cross to another
    task: a ``_Send`` puts its value into this worker's rendezvous for the step, a
    ``_Recv`` asks the sending task (``RecvTensor``). A partition with such
    ``_Recv`` nodes runs in the dataflow executor (:mod:`.dataflow`), others as one
    plan (sends to other tasks published when it ends)."""

    def __init__(self, graph_def, wsession, task_name):
        recvs, sends, body = [], [], []
        for n in grappler_nodes.expand(graph_def.node, f" on {task_name}"):
            if n.op in _RECV_OPS or n.op in _SEND_OPS:
                (recvs if n.op in _RECV_OPS else sends).append(n)
            else:
                _check_device(n, task_name)
                body.append(n)
        self.graph = g = Graph()
        functions = {f.signature.name: f for f in graph_def.library.function}
        with g.as_default():
            placeholders = {}
            taken = {n.name for n in body}
            for n in recvs:
                name = n.name.lstrip("_") or "recv"  # a graph's op names cannot start with "_"
                while name in taken:
                    name += "_"
                taken.add(name)
                with g.device(n.device or None):
                    placeholders[n.name] = apply_op("Placeholder", name=name + "/",
                                                    dtype=dtypes.as_dtype(n.attr["tensor_type"].type), shape=None)
            # a cross-task control edge arrives as a _Recv that is a control input
            input_map = {"^" + name: t.op for name, t in placeholders.items()}
            try:
                created = import_nodes(g, body, input_map, functions, "", placeholders_as=placeholders)
            except (ValueError, TypeError) as e:
                raise errors.InvalidArgumentError(None, None, f"RegisterGraph on {task_name}: {e}") from None
        client = {n.name for n in recvs + sends if n.attr["client_terminated"].b}
        self.recvs = {_node_key(n): (n.name, placeholders[n.name]) for n in recvs if n.name in client}
        self.remote_recvs = {_node_key(n): placeholders[n.name] for n in recvs if n.name not in client}
        self.sends, self.remote_sends = {}, []
        for n in sends:
            src, _, idx = n.input[0].partition(":")
            if src in placeholders:
                t = placeholders[src]
            elif src in created:
                t = created[src].outputs[int(idx or 0)]
            else:
                raise errors.InvalidArgumentError(
                    None, None, f"RegisterGraph on {task_name}: {{{{node {n.name}}}}} sends '{n.input[0]}', "
                                "which is not in the partition")
            if n.name in client:
                self.sends[_node_key(n)] = (n.name, t, n.attr["T"].type)
            else:
                ctrl = [created[i[1:]] if i[1:] in created else placeholders[i[1:]].op
                        for i in n.input[1:] if i.startswith("^")]
                self.remote_sends.append((_node_key(n), t, ctrl))
        for op in created.values():
            if op._opdef.creates_ref:  # remember each variable's container, for CleanupAll
                wsession.state.containers[op._attrs.get("shared_name") or op.name] = (
                    op._attrs.get("container") or _DEFAULT_CONTAINER)
        self.fetches = [t for _, t, _ in self.sends.values()]
        self.fetch_index = {k: i for i, k in enumerate(self.sends)}
        self.feeds = [t for _, t in self.recvs.values()]
        self.state = wsession.run_state
        self.ops = list(created.values())
        self.loops = sorted(n.name for n in body if n.op in dataflow.FRAME_OPS)
        self._partial = None
        self.dataflow = None
        if self.remote_recvs:
            loops = sorted(n.name for n in body if n.op in dataflow.FRAME_OPS)
            if loops:
                raise errors.UnimplementedError(
                    None, None, f"RegisterGraph on {task_name}: a while loop whose frame receives values from "
                                f"another task ({', '.join(loops[:3])}) is not supported by ref's workers")
            self.dataflow = dataflow.DataflowGraph(
                created.values(), {t.op: t for t in placeholders.values()}, self.remote_sends)
        else:  # sends to other tasks are fetched with the master's
            remote = [t for _, t, _ in self.remote_sends]
            self.plan = Plan(self.fetches + remote, list(created.values()) + [t.op for t in remote], self.feeds)

    def partial_graph(self):
        """The dataflow schedule of a partial run: the master's values arrive and leave
        through the step's rendezvous too, over several RunGraph calls."""
        if self._partial is None:
            if self.loops:
                raise errors.UnimplementedError(None, None, f"partial runs of a partition with a while loop "
                                                            f"({', '.join(self.loops[:3])}) on ref's workers")
            sends = self.remote_sends + [(k, t, []) for k, (_, t, _) in self.sends.items()]
            self._partial = dataflow.DataflowGraph(self.ops, {}, sends)
        return self._partial


class _PartialRun:
    """A partial run in progress: the thread running the partition, its error."""
    thread = None
    error = None


def _response_parts(value, dead, start):
    """A ``RecvTensorResponse`` of ``value`` (sent at ``start`` µs) as buffers, the array's among them."""
    if dead:
        return encode_recv_tensor_response_parts(None, dtypes.float32, is_dead=True, send_start_micros=start)
    arr = np.asarray(value)
    dtype = dtypes.string if arr.dtype.kind in "OSU" else dtypes.as_dtype(arr.dtype)
    return encode_recv_tensor_response_parts(value, dtype, send_start_micros=start)


def _check_device(n, task_name):
    """InvalidArgumentError when node ``n`` is placed on another task."""
    if not n.device:
        return
    parts = dict(p.split(":", 1) for p in n.device.split("/") if ":" in p)
    mine = dict(p.split(":", 1) for p in task_name.split("/") if ":" in p)
    for field in ("job", "replica", "task"):
        if field in parts and parts[field] != mine[field]:
            raise errors.InvalidArgumentError(
                None, None, f"RegisterGraph on {task_name}: {{{{node {n.name}}}}} is placed on {n.device}, "
                            "another task")


def _time_left(run):
    """Seconds to ``run``'s deadline (at least a millisecond), None without one."""
    return None if run.deadline is None else max(run.deadline - time.monotonic(), 0.001)


def _same_task(a, b):
    return _task_fields(a) == _task_fields(b)


def _task_fields(name):
    parts = dict(p.split(":", 1) for p in name.split("/") if ":" in p)
    return parts.get("job"), int(parts.get("replica", 0)), int(parts.get("task", 0))


def _task_address(server_def, task):
    job, _, index = _task_fields(task)
    for j in server_def.cluster.job:
        if j.name == job:
            return j.tasks.get(index, "")
    return ""


def _address(server_def):
    for job in server_def.cluster.job:
        if job.name == server_def.job_name:
            return job.tasks.get(server_def.task_index, "")
    return ""


class Worker:
    """The WorkerService of the task ``server_def`` describes (a ``ServerDef``).

    Methods take a ``worker_pb2`` request and ``timeout`` (seconds left before the
    caller's deadline, or None) and return the response; errors are ``ref.errors``.
    """

    def __init__(self, server_def):
        self.server_def = server_def
        allocator.keep_freed_memory()  # a task's steps reuse freed pages, as a local Session's do
        self.task_name = f"/job:{server_def.job_name}/replica:{server_def.replica}/task:{server_def.task_index}"
        self.device_name = self.task_name + "/device:CPU:0"
        self.address = _address(server_def)
        self.incarnation = secrets.randbits(64) or 1
        self._state = _State()
        self._sessions = {"": _WorkerSession("", self._state)}  # "": the legacy session
        self._graph_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._rendezvous = Rendezvous()
        self._step_runs = {}  # step id -> the runs of it in progress
        self._partials = {}  # (session handle, step id) -> _PartialRun
        self._peers = {}
        self._channels = {}  # task -> its tensor channel's ChannelClient, or False: gRPC
        self._closed = False
        self.security = None  # the server's ServerSecurity: refuses file ops when it says so
        self.channel_address = None  # this task's tensor channel (set by its Server), or None

    def _where(self):
        return f"{self.task_name} at {self.address}" if self.address else self.task_name

    def _check_open(self):
        if self._closed:
            raise errors.UnavailableError(None, None, f"worker {self._where()} has been stopped")

    def _session(self, handle, create_worker_session_called=True):
        self._check_open()
        with self._lock:
            session = self._sessions.get(handle if create_worker_session_called else "")
        if session is None:
            raise errors.AbortedError(None, None, f"Session handle is not found: {handle}. Possibly this worker "
                                                  f"(\"{self.task_name}\") just restarted.")
        return session

    # -- WorkerService -----------------------------------------------------------------
    def GetStatus(self, request, timeout=None):
        """This task's devices: its CPUs (``device_count["CPU"]`` of the server's session
        config, default one), with the worker's incarnation."""
        self._check_open()
        cpus = max(1, self.server_def.default_session_config.device_count.get("CPU", 1))
        return worker_pb2.GetStatusResponse(device_attributes=[device_attributes_pb2.DeviceAttributes(
            name=f"{self.task_name}/device:CPU:{i}", device_type="CPU", memory_limit=_CPU_MEMORY_LIMIT,
            locality=device_attributes_pb2.DeviceLocality(), incarnation=self.incarnation) for i in range(cpus)])

    def CreateWorkerSession(self, request, timeout=None):
        """Creates a worker session; an existing handle is kept. Sessions an earlier
        incarnation of the same master task created are dropped (TF's rule)."""
        self._check_open()
        handle = request.session_handle
        if not handle:
            raise errors.InvalidArgumentError(None, None, "Session must be non-empty.")
        with self._lock:
            master = (request.master_task, request.master_incarnation)
            if request.master_task:
                stale = [h for h, s in self._sessions.items()
                         if s.master[0] == request.master_task and s.master != master]
                for h in stale:
                    self._sessions.pop(h).cancel(f"the master {request.master_task} restarted")
            if handle not in self._sessions:
                state = _State() if request.isolate_session_state else self._state
                sd = request.server_def
                # a cluster in the request: TF's ClusterSpec propagation names this task in it
                task = f"/job:{sd.job_name}/replica:{sd.replica}/task:{sd.task_index}" if sd.cluster.job \
                    else self.task_name
                self._sessions[handle] = _WorkerSession(handle, state, *master, task_name=task)
        return worker_pb2.CreateWorkerSessionResponse()

    def DeleteWorkerSession(self, request, timeout=None):
        """Deletes a worker session: its graphs go, its blocked runs are cancelled."""
        self._check_open()
        with self._lock:
            session = self._sessions.pop(request.session_handle, None) if request.session_handle else None
        if session is not None:
            session.cancel(f"Session::Close: worker session {session.handle} on {self.task_name} was deleted")
            if session.state is not self._state:
                session.state.close()
        return worker_pb2.DeleteWorkerSessionResponse()

    def RegisterGraph(self, request, timeout=None):
        """Imports and plans a partition; returns its graph handle."""
        session = self._session(request.session_handle, request.create_worker_session_called)
        check_file_ops(request.graph_def, self.security, self._where())
        partition = _Partition(request.graph_def, session, session.task_name or self.task_name)
        handle = f"{next(self._graph_ids):016x}"
        with session.lock:
            session.graphs[handle] = partition
        return worker_pb2.RegisterGraphResponse(graph_handle=handle)

    def DeregisterGraph(self, request, timeout=None):
        session = self._session(request.session_handle, request.create_worker_session_called)
        with session.lock:
            if session.graphs.pop(request.graph_handle, None) is None:
                raise errors.AbortedError(None, None, f"Graph handle is not found: {request.graph_handle}. "
                                                      f"Possibly, this worker ({self.task_name}) just restarted.")
        return worker_pb2.DeregisterGraphResponse()

    def RunGraph(self, request, timeout=None):
        """Runs a registered partition with the sent values; returns the asked-for ``_Send`` values.

        Values for other tasks go into this worker's rendezvous for ``step_id`` (served
        by ``RecvTensor``); values from them are pulled with ``RecvTensor``. A failing
        run ends the step's rendezvous with its error, so tasks waiting on it stop too.
        ``exec_opts.record_timeline``/``record_costs``: the ops run, in ``step_stats``."""
        session = self._session(request.session_handle, request.create_worker_session_called)
        with session.lock:
            part = session.graphs.get(request.graph_handle)
        if part is None:
            raise errors.AbortedError(None, None, f"Graph handle is not found: {request.graph_handle} "
                                                  f"(on {self.task_name})")
        if request.is_partial:
            return self._partial_run(session, part, request, timeout)
        feeds = self._feeds(part, request)
        for key in request.recv_key:
            if key not in part.sends:
                raise errors.InvalidArgumentError(
                    None, None, f"RunGraph on {self._where()}: recv_key {key} names no _Send of graph "
                                f"{request.graph_handle}")
        step_id = request.step_id
        opts = request.exec_opts
        trace = [] if (opts.record_timeline or opts.record_costs) else None
        limit = None if timeout is None else max(timeout - min(_REPLY_MARGIN, 0.1 * timeout), 0.0)
        with blocking.bounded(limit, self._where()) as run:
            with session.lock:
                session.runs.add(run)
            with self._lock:
                self._step_runs.setdefault(step_id, set()).add(run)
            try:
                with np.errstate(all="ignore"):
                    values = self._execute(part, feeds, step_id, run, trace)
            except errors.OpError as e:
                error = self._named(e)
                # the step's other partitions waiting on this task end with the error (TF: StartAbort)
                self._rendezvous.cleanup(step_id, error)
                raise error from None
            finally:
                with session.lock:
                    session.runs.discard(run)
                with self._lock:
                    runs = self._step_runs.get(step_id)
                    if runs is not None:
                        runs.discard(run)
                        if not runs:
                            del self._step_runs[step_id]
        response = worker_pb2.RunGraphResponse()
        for key in request.recv_key:
            name, _, dtype = part.sends[key]
            value = values[part.fetch_index[key]]
            if value is DEAD:
                response.recv.add(name=key, tensor=dead_tensor_proto(dtype))
                continue
            try:
                tensor = make_tensor_proto(value, dtype=dtypes.as_dtype(dtype))
            except (TypeError, ValueError) as e:
                raise errors.InvalidArgumentError(
                    None, None, f"{{{{node {name}}}}} on {self.task_name} cannot send its value: {e}") from None
            response.recv.add(name=key, tensor=tensor)
        if trace is not None:
            fill_step_stats(response, trace, 3 if opts.record_timeline else 1,
                            device=(session.task_name or self.task_name) + "/device:CPU:0")
        return response

    def _partial_run(self, session, part, request, timeout):
        """One call of TF's partial run (``is_partial``): the first call of a step starts
        the partition in the background, its ``_Recv`` nodes of the master's values
        waiting on the step's rendezvous; each call puts its ``send`` values there and
        waits for its ``recv_key`` values; ``is_last_partial_run`` waits for the
        partition to finish (its error, if it failed)."""
        for key in request.recv_key:
            if key not in part.sends:
                raise errors.InvalidArgumentError(
                    None, None, f"RunGraph on {self._where()}: recv_key {key} names no _Send of graph "
                                f"{request.graph_handle}")
        step_id = request.step_id
        step = self._rendezvous.step(step_id)
        graph = part.partial_graph()
        with self._lock:
            pr = self._partials.get((session.handle, step_id))
            if pr is None:
                pr = self._partials[(session.handle, step_id)] = _PartialRun()
                pr.thread = threading.Thread(target=self._partial_body, args=(session, part, graph, step, pr),
                                             daemon=True, name=f"ref-partial-run-{step_id}")
                pr.thread.start()
        for nt in request.send:
            dead = is_dead_tensor_proto(nt.tensor)
            step.send(nt.name, DEAD if dead else make_ndarray(nt.tensor), dead)
        response = worker_pb2.RunGraphResponse()
        for key in request.recv_key:
            name, _, dtype = part.sends[key]
            value, dead = step.recv(key, timeout, None, f" on {self._where()}")
            response.recv.add(name=key, tensor=dead_tensor_proto(dtype) if dead else
                              make_tensor_proto(value, dtype=dtypes.as_dtype(dtype)))
        if request.is_last_partial_run:
            pr.thread.join(timeout)
            with self._lock:
                self._partials.pop((session.handle, step_id), None)
            if pr.thread.is_alive():
                self._end_step(step_id, f"the last partial run of step {step_id} ran out of its deadline")
                raise errors.DeadlineExceededError(None, None, f"partial run of step {step_id} on "
                                                               f"{self._where()} did not finish in time")
            if pr.error is not None:
                raise pr.error
        return response

    def _partial_body(self, session, part, graph, step, pr):
        recvs = dict(part.remote_recvs)
        recvs.update((k, ph) for k, (_, ph) in part.recvs.items())
        with blocking.bounded(None, self._where()) as run:
            with session.lock:
                session.runs.add(run)
            with self._lock:
                self._step_runs.setdefault(step.step_id, set()).add(run)
            try:
                with np.errstate(all="ignore"):
                    dataflow.run(graph, {}, part.state, recvs, lambda k: self._recv(step, k, run), step.send,
                                 None, self._where())
            except errors.OpError as e:
                pr.error = self._named(e)
                self._rendezvous.cleanup(step.step_id, pr.error)
            finally:
                with session.lock:
                    session.runs.discard(run)
                with self._lock:
                    runs = self._step_runs.get(step.step_id, set())
                    runs.discard(run)
                    if not runs:
                        self._step_runs.pop(step.step_id, None)

    def _execute(self, part, feeds, step_id, run, trace):
        """The values of ``part.fetches``; sends to other tasks published into the rendezvous."""
        if part.dataflow is None and not part.remote_sends:  # nothing to or from other tasks
            return execute(part.plan, feeds, part.state, part.fetches, trace=trace, allow_dead=True)
        step = self._rendezvous.step(step_id)
        if part.dataflow is None:
            remote = part.remote_sends
            out = execute(part.plan, feeds, part.state, part.fetches + [t for _, t, _ in remote], trace=trace,
                          allow_dead=True)
            for (key, _, _), value in zip(remote, out[len(part.fetches):]):
                step.send(key, value, value is DEAD)
            return out[:len(part.fetches)]

        def publish(key, value, is_dead):
            step.send(key, value, is_dead)

        def recv(key):
            return self._recv(step, key, run)
        def recv_many(keys):
            return self._recv_batches(step, keys, run)
        env = dataflow.run(part.dataflow, feeds, part.state, part.remote_recvs, recv, publish, trace,
                           self._where(), keep=part.fetches, recv_many=recv_many)
        store = part.state.store
        return [v if v is DEAD or v.__class__ is not Ref else store.read(v.key, t.op)
                for v, t in ((env[t], t) for t in part.fetches)]

    def _recv(self, step, key, run):
        """``(value, is_dead)`` of ``key`` for ``step``: from this worker's rendezvous when
        this task sent it, else by ``RecvTensor`` to the sending task."""
        src = parse_key(key)[0]
        task = src.split("/device:")[0]

        def cancelled():
            return None if run.cancelled is None else errors.CancelledError(None, None, run.cancelled)
        left = _time_left(run)
        if _same_task(task, self.task_name):
            return step.recv(key, left, cancelled, f" on {self._where()}")
        channel = self._channel(task, left)
        if channel is not None:
            try:
                data = channel.recv_tensor(step.step_id, key, left)
            except errors.UnavailableError:
                self._drop_channel(task, channel)
                raise
        else:
            req = worker_pb2.RecvTensorRequest(step_id=step.step_id, rendezvous_key=key)
            data = self._peer(task).RecvTensor(req, timeout=left)
        value, _, dead, _ = decode_recv_tensor_response(data)
        return value, dead

    def _recv_batches(self, step, keys, run):
        """The batches of ``keys`` to ask for in one request each: those from one task that has
        a tensor channel, when there are several (``[(keys, produce)]``, see :func:`.dataflow.run`).
        The rest are asked one by one (``_recv``): gRPC (TensorFlow's tasks), this task's own."""
        by_task = {}
        for key in keys:
            by_task.setdefault(parse_key(key)[0].split("/device:")[0], []).append(key)
        batches = []
        for task, group in by_task.items():
            if len(group) < 2 or _same_task(task, self.task_name):
                continue
            left = _time_left(run)
            channel = self._channel(task, left)
            if channel is not None:
                batches.append((group, self._batch(step, task, channel, group, run)))
        return batches

    def _batch(self, step, task, channel, keys, run):
        def produce():
            left = _time_left(run)
            try:
                for key, data in channel.recv_tensors(step.step_id, keys, left):
                    value, _, dead, _ = decode_recv_tensor_response(data)
                    data = None
                    yield key, value, dead
            except errors.UnavailableError:
                self._drop_channel(task, channel)
                raise
        return produce

    def _drop_channel(self, task, channel):
        """Forgets a channel that failed: the next step asks the task again (it may have restarted)."""
        with self._lock:
            if self._channels.get(task) is channel:
                del self._channels[task]
        channel.close()

    def _channel(self, task, left):
        """The tensor channel to ``task`` (:mod:`.tensor_channel`), or None: gRPC. Asked once
        per task; a task without one (TensorFlow's, a secured one) or whose port does not
        answer is called over gRPC from then on."""
        with self._lock:
            known = self._channels.get(task)
        if known is not None:
            return known or None
        peer = self._peer(task)
        if self.security is not None or not tensor_channel.enabled() or not isinstance(peer, rpc.Client):
            found = False  # secured, switched off, or a worker in this process (called directly)
        else:
            try:
                address = peer.RefTensorChannel(worker_pb2.GetStatusRequest(),
                                                timeout=10.0 if left is None else min(left, 10.0))
            except errors.UnimplementedError:
                address = b""  # TensorFlow's worker
            except errors.OpError:
                return None  # unreachable now: gRPC says why, and the next step asks again
            found = False
            if address:
                client = tensor_channel.ChannelClient(bytes(address).decode("utf-8"), peer._who())
                found = client if client.probe() else False
        with self._lock:
            known = self._channels.setdefault(task, found)
        if known is not found and found:
            found.close()
        return known or None

    def RefTensorChannel(self, request, timeout=None):
        """ref only: this task's tensor channel address as bytes (empty: none)."""
        self._check_open()
        return (self.channel_address or "").encode("utf-8")

    def _peer(self, task):
        """The WorkerService of ``task`` (a name like /job:ps/replica:0/task:0), from this task's cluster."""
        with self._lock:
            peer = self._peers.get(task)
            if peer is None:
                address = _task_address(self.server_def, task)
                if not address:
                    raise errors.InvalidArgumentError(
                        None, None, f"{self.task_name}: no address for task {task} in this task's cluster")
                # a secured server's task calls its peers as its master does: TLS and the token
                outgoing = self.security.outgoing() if self.security is not None else None
                peer = self._peers[task] = rpc.connect(address, rpc.WORKER_SERVICE, name=task, security=outgoing)
            return peer

    def _feeds(self, part, request):
        sent = {nt.name: nt.tensor for nt in request.send}
        feeds = {}
        for key, (name, placeholder) in part.recvs.items():
            if key not in sent:
                raise errors.InvalidArgumentError(
                    None, None, f"RunGraph on {self._where()}: no value sent for {{{{node {name}}}}} "
                                f"(rendezvous key {key})")
            if is_dead_tensor_proto(sent[key]):
                feeds[placeholder] = DEAD  # a Switch's untaken branch on the sending task
                continue
            value = make_ndarray(sent[key])
            want = placeholder.dtype.base_dtype
            got = dtypes.as_dtype(sent[key].dtype)
            if got != want:
                raise errors.InvalidArgumentError(
                    None, None, f"RunGraph on {self._where()}: the value sent for {{{{node {name}}}}} is "
                                f"{got.name}, expected {want.name} (rendezvous key {key})")
            feeds[placeholder] = value
        return feeds

    def _named(self, e):
        """``e`` with the node in TF's ``{{node name}}`` form and this task named."""
        message = e.message.split("\n\t [[node ")[0]
        node = f"\n\t [[{{{{node {e.op.name}}}}}]]" if e.op is not None else ""
        if self.task_name not in message:
            message += f" (on {self._where()})"
        return type(e)(None, None, message + node)

    def CleanupGraph(self, request, timeout=None):
        """Ends the step: its rendezvous goes (pending ``RecvTensor`` waits end with
        AbortedError) and runs of it still going are cancelled."""
        self._check_open()
        self._end_step(request.step_id, f"step {request.step_id} was cleaned up (CleanupGraph) on {self._where()}")
        return worker_pb2.CleanupGraphResponse()

    def _end_step(self, step_id, reason):
        with self._lock:
            runs = list(self._step_runs.get(step_id, ()))
        for run in runs:
            run.cancel(reason)
        self._rendezvous.cleanup(step_id)

    def CleanupAll(self, request, timeout=None):
        """Clears the named resource containers (none named: the default container)."""
        self._check_open()
        self._state.clear(list(request.container))
        return worker_pb2.CleanupAllResponse()

    def RecvTensor(self, request, timeout=None):
        """The value a ``_Send`` of step ``step_id`` put under ``rendezvous_key``, once sent:
        a serialized ``RecvTensorResponse`` whose ``tensor_content`` comes from the array's
        buffer (:mod:`.tensor_coding`). Waits at most ``timeout``; an ended step fails at once."""
        return b"".join(self.recv_tensor_parts(request, timeout))

    def recv_tensor_parts(self, request, timeout=None):
        """``RecvTensor``'s message as buffers, the array's own buffer among them (what ref's
        tensor channel sends as they are: no copy of the tensor in this process)."""
        self._check_open()
        start = time.time_ns() // 1000
        step = self._rendezvous.step(request.step_id)
        value, dead = step.recv(request.rendezvous_key, timeout, None, f" on {self._where()}")
        return _response_parts(value, dead, start)

    def recv_tensors_parts(self, step_id, keys, timeout=None):
        """Yields ``(index in keys, RecvTensor's message as buffers)`` for each of ``keys`` of
        step ``step_id`` in the order their values are sent (ref's tensor channel answers a
        batch of keys so, :mod:`.tensor_channel`); ``timeout`` bounds the wait for them all."""
        self._check_open()
        deadline = None if timeout is None else time.monotonic() + timeout
        step = self._rendezvous.step(step_id)
        index = {k: i for i, k in enumerate(keys)}
        left = list(index)
        while left:
            start = time.time_ns() // 1000
            wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            key, value, dead = step.recv_any(left, wait, None, f" on {self._where()}")
            left.remove(key)
            parts = _response_parts(value, dead, start)
            value = None  # the parts alone refer to the array: gone once sent
            yield index[key], parts
            parts = None

    def MarkRecvFinished(self, request, timeout=None):
        """Accepted: a ref worker keeps no per-request state for RecvTensor."""
        return worker_pb2.MarkRecvFinishedResponse()

    def Logging(self, request, timeout=None):
        raise errors.UnimplementedError(None, None, f"Logging is not supported by ref's worker {self.task_name}")

    def Tracing(self, request, timeout=None):
        raise errors.UnimplementedError(None, None, f"Tracing is not supported by ref's worker {self.task_name}")

    def close(self):
        """Stops the worker: blocked kernels are cancelled, later calls fail (UnavailableError)."""
        with self._lock:
            self._closed = True
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.cancel(f"the worker {self._where()} was stopped")
            if s.state is not self._state:
                s.state.close()
        self._rendezvous.abort_all(errors.UnavailableError(None, None, f"the worker {self._where()} was stopped"))
        with self._lock:
            channels, self._channels = [c for c in self._channels.values() if c], {}
        for c in channels:
            c.close()
        self._state.close()
