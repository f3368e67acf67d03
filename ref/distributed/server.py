"""``tf.train.Server``: a task of a cluster, serving TensorFlow's Master and Worker services.

TF docs, "Training" (Korean edition), ``class tf.train.Server``: "A
``tf.train.Server`` instance encapsulates a set of devices and a
``tf.Session`` target that can participate in distributed training. A server
belongs to a cluster (specified by a ``tf.train.ClusterSpec``), and corresponds
to a particular task in a named job."

``protocol="grpc"`` (the default) is TensorFlow's: one gRPC server on the task's
address from the cluster, with the ``MasterService`` (:mod:`ref.distributed.master`)
and the ``WorkerService`` (:mod:`ref.distributed.worker`) on TensorFlow's method
paths, so ref and TensorFlow processes talk to each other. It binds the host the
ClusterSpec names (``bind_address="0.0.0.0"`` binds every interface: TensorFlow
always does) and its port, or ``ServerDef.port`` when set; a port of 0 takes a
free port, which ``target`` and ``server_def`` then show (TensorFlow leaves
"host:0" in ``server_def``; ref writes the bound port there so that this task's
master and worker know their own address). Both services are also registered in this process
(``rpc.register_local``), so a ``Session(server.target)`` here calls them directly.
A port already in use is an UnknownError naming the address, as in TensorFlow
("Could not start gRPC server"); a protocol other than "grpc" and "inprocess" a
NotFoundError.

``protocol="inprocess"`` (a ref addition, for fast tests) opens no socket and
talks to no other process: its target ``inprocess://host:port`` is registered in
this process, and every ``Session(target)`` of servers built from equal cluster
definitions shares one variable store, one set of random generators and one set
of resources (queues, gradient accumulators). Device strings are recorded in the
graph but do not move computation: variables are shared by name, as TensorFlow
shares the variables of its ps tasks between the sessions of its workers. Variables
that TensorFlow would keep per worker task (local variables) are shared by name
too, so give them distinct names when workers must not share them.

Security (ref only; :mod:`ref.distributed.security`): ``security=ServerSecurity(cert=...,
key=..., ca=..., token=..., client_auth=..., allow_file_ops=..., allow_global_reset=...)``,
or the ``REF_TLS_*``/``REF_RPC_TOKEN``/``REF_SERVER_*`` environment when the keyword is not
given (``security=False``: plain, whatever the environment says). A TLS server's target is
``grpcs://host:port``; its master calls the other tasks over TLS with the same CA, its own
certificate as client certificate, and the token. Without any, the server is TensorFlow's
plain one.

``join()`` blocks until ``stop()`` or the optional timeout; ``stop()`` (a ref
addition: TensorFlow's servers run until the process ends) releases the port,
cancels blocked kernels, and a stopped server cannot be started again.
"""
from __future__ import annotations

import itertools
import threading

from ref.types import errors
from ref.platform import tf_logging
from ref.distributed import rpc, tensor_channel
from ref.distributed.cluster import ClusterSpec
from ref.distributed.master import Master
from ref.distributed.security import ServerSecurity
from ref.distributed.worker import Worker
from ref.protos import tensorflow_server_pb2
from ref.session.interpreter import RunState
from ref.session.session import local_target_state, register_local_target, unregister_local_target

__all__ = ["Server"]

_LOCK = threading.Lock()
_CLUSTERS = {}  # serialized ClusterDef -> _SharedState (the state of one in-process cluster)
_PORTS = itertools.count(20000)  # "ports" handed out for address "host:0"


class _SharedState:
    """What every Session on the servers of one cluster shares."""

    def __init__(self):
        self.state = RunState()  # variables, random generators, resources
        self.servers = 0  # live (started, not stopped) servers using this state

    def cancel_resources(self):
        """Tears down the queues and accumulators: blocked ops raise CancelledError."""
        self.state.close_resources()


def _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config):
    """The ServerDef for ``Server(...)``'s arguments (TensorFlow's rules)."""
    if isinstance(server_or_cluster_def, tensorflow_server_pb2.ServerDef):
        server_def = tensorflow_server_pb2.ServerDef()
        server_def.MergeFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
    else:
        try:
            cluster = ClusterSpec(server_or_cluster_def)
        except TypeError:
            raise TypeError("Could not convert `server_or_cluster_def` to a `tf.train.ServerDef` or "
                            "`tf.train.ClusterSpec`.") from None
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = cluster.jobs[0]
        if task_index is None:
            indices = cluster.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = indices[0]
        server_def = tensorflow_server_pb2.ServerDef(cluster=cluster.as_cluster_def(), job_name=job_name,
                                                     task_index=task_index, protocol=protocol or "grpc")
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


def _split_address(address):
    """("host", port) of "host:port"; InvalidArgumentError (TF's) without a port."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise errors.InvalidArgumentError(None, None, f'Could not parse port for local server from "{address}".')
    return host, int(port)


class Server:
    """An in-process server for a task in a cluster (see the module docstring)."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True, bind_address=None, security=None):
        if security is None:
            security = ServerSecurity.from_env()
        self._security = security or None
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        protocol = self._server_def.protocol or "grpc"
        if protocol not in ("grpc", "inprocess"):
            raise errors.NotFoundError(None, None, f"No server factory registered for the given ServerDef: "
                                                   f"protocol {protocol!r} (ref has 'grpc' and 'inprocess')")
        cluster = ClusterSpec(self._server_def.cluster)
        address = cluster.task_address(self._server_def.job_name, self._server_def.task_index)
        self._host, self._port = _split_address(address)
        self._port = self._server_def.port or self._port  # ServerDef.port overrides the spec's (TF's rule)
        self._bind_address = bind_address
        self._cv = threading.Condition()
        self._started = False
        self._stopped = False
        self._grpc = None
        self._channel = None
        if protocol == "inprocess":
            if self._port == 0:
                self._port = next(_PORTS)
            self._key = self._server_def.cluster.SerializeToString(deterministic=True)
        else:
            self.worker = Worker(self._server_def)
            self.worker.security = self._security
            outgoing = self._security.outgoing() if self._security is not None else None
            self.master = Master(self._server_def, local_worker=self.worker, connect_worker=(
                lambda task, address: rpc.connect(address, rpc.WORKER_SERVICE, name=task, security=outgoing)))
            self.master.security = self._security
            if self._port == 0:  # TensorFlow lets the OS choose a free port, known at once
                self._bind()
        scheme = "grpcs" if protocol == "grpc" and self._security is not None and self._security.tls else protocol
        self._target = f"{scheme}://{self._host}:{self._port}"
        if start:
            self.start()

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task cluster ``{"localhost": ["localhost:0"]}`` on a free port (TensorFlow's)."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    @property
    def server_def(self):
        """The ``ServerDef`` describing this server."""
        return self._server_def

    @property
    def security(self):
        """The ``ServerSecurity`` this server was started with (None: TensorFlow's plain server)."""
        return self._security

    @property
    def target(self):
        """The target to pass to ``tf.Session`` to connect to this server."""
        return self._target

    def _bind(self):
        address = f"{self._bind_address or self._host}:{self._port}"
        services = {rpc.MASTER_SERVICE: self.master, rpc.WORKER_SERVICE: self.worker}
        try:
            self._grpc, port = rpc.serve(address, services, start=False, security=self._security)
        except errors.UnavailableError:
            raise errors.UnknownError(None, None, f"Could not start gRPC server: {address} is in use or cannot "
                                                  "be bound") from None
        self._open_channel()
        if self._port == 0:  # the chosen port, in the target and the server_def
            self._port = port
            for job in self._server_def.cluster.job:
                if job.name == self._server_def.job_name:
                    job.tasks[self._server_def.task_index] = f"{self._host}:{port}"
            self.worker.address = f"{self._host}:{port}"

    def _open_channel(self):
        """ref's tensor channel beside the gRPC port (:mod:`.tensor_channel`): plain servers only."""
        if self._security is not None or not tensor_channel.enabled() or self._channel is not None:
            return
        try:
            self._channel = tensor_channel.ChannelServer(self.worker, self._bind_address or self._host, self._host)
        except OSError as exc:
            tf_logging.warning("ref's tensor channel is off for %s: %s", self._host, exc)
            return
        self.worker.channel_address = self._channel.address

    def start(self):
        """Starts the server (nothing happens when it runs already)."""
        with _LOCK:
            if self._stopped:
                raise RuntimeError("A stopped Server cannot be restarted.")
            if self._started:
                return
            if self._server_def.protocol == "inprocess":
                self._start_inprocess()
            else:
                if self._grpc is None:
                    self._bind()
                self._grpc.start()
                for service, impl in ((rpc.MASTER_SERVICE, self.master), (rpc.WORKER_SERVICE, self.worker)):
                    rpc.register_local(self._target, service, impl)
            self._started = True
        if self._server_def.protocol != "inprocess":
            tf_logging.info("Started server with target: %s", self._target)

    def _start_inprocess(self):
        if local_target_state(self._target) is not None:
            raise errors.UnknownError(None, None, f"Could not start server: address {self._target} is "
                                                  "already in use by another running Server")
        state = _CLUSTERS.get(self._key)
        if state is None:
            state = _CLUSTERS[self._key] = _SharedState()
        state.servers += 1
        self._state = state
        register_local_target(self._target, state.state)

    def join(self, timeout=None):
        """Blocks until the server is stopped (or ``timeout`` seconds pass);
        returns True when it was stopped."""
        with self._cv:
            return self._cv.wait_for(lambda: self._stopped, timeout)

    def stop(self):
        """Stops the server (ref only): waiting ``join()`` calls return. A gRPC
        server unregisters its services, cancels its blocked kernels and releases
        its port; an in-process one unregisters its target, and when it is its
        cluster's last running server the cluster's queues and accumulators are
        cancelled and its state freed."""
        with _LOCK:
            if self._started and not self._stopped:
                if self._server_def.protocol == "inprocess":
                    unregister_local_target(self._target)
                    self._state.servers -= 1
                    if self._state.servers == 0:
                        _CLUSTERS.pop(self._key, None)
                        self._state.cancel_resources()
                else:
                    for service in (rpc.MASTER_SERVICE, rpc.WORKER_SERVICE):
                        rpc.unregister_local(self._target, service)
            self._stopped = True
        if self._grpc is not None:
            self.worker.close()  # first: handlers blocked in kernels return
            self.master.close()
            self._grpc.stop(grace=None).wait(10)
            self._grpc = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        with self._cv:
            self._cv.notify_all()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
