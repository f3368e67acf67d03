"""``tf.train.Server``: an IN-PROCESS stand-in for TensorFlow's gRPC server.

Seed 004_96791d6311aaba71.txt, ``class tf.train.Server``: "A
``tf.train.Server`` instance encapsulates a set of devices and a
``tf.Session`` target that can participate in distributed training. A server
belongs to a cluster (specified by a ``tf.train.ClusterSpec``), and corresponds
to a particular task in a named job."

ref has no network runtime. A ref ``Server`` opens no socket and talks to no
other process: it is a target string (``grpc://host:port``, the address of its
task in the cluster) registered in this process. Every ``Session(server.target)``
uses the state of the server's CLUSTER instead of a private one: all servers
built in this process from equal cluster definitions share one variable store,
one set of random generators and one set of resources (queues, gradient
accumulators). Device strings are recorded in the graph but do not move
computation: variables are shared by name, as TensorFlow shares the variables
of its ps tasks between the sessions of its workers. This is what lets a
between-graph replicated program run in one process, one thread per worker.
Variables that TensorFlow would keep per worker task (local variables) are
shared by name too, so give them distinct names when workers must not share
them.

``join()`` blocks until ``stop()`` (a ref addition: TensorFlow's servers run until
the process ends) or until the optional timeout.
"""
from __future__ import annotations

import itertools
import threading

from ref.types import errors
from ref.distributed.cluster import ClusterSpec
from ref.protos import tensorflow_server_pb2
from ref.session import session as _session
from ref.session.interpreter import StateStore

__all__ = ["Server"]

_LOCK = threading.Lock()
_CLUSTERS = {}  # serialized ClusterDef -> _SharedState (the state of one in-process cluster)
_PORTS = itertools.count(20000)  # "ports" handed out for address "host:0"


class _SharedState:
    """What every Session on the servers of one cluster shares."""

    def __init__(self):
        self.store = StateStore()
        self.rngs = {}
        self.resources = {}
        self.servers = 0  # live (started, not stopped) servers using this state

    def cancel_resources(self):
        """Tears down the queues and accumulators: blocked ops raise CancelledError."""
        for res in list(self.resources.values()):
            closer = getattr(res, "close", None)
            if closer is not None:
                closer()
        self.resources.clear()


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


class Server:
    """An in-process server: a Session target whose sessions share the state of
    the server's cluster (see the module docstring)."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True):
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        cluster = ClusterSpec(self._server_def.cluster)
        address = cluster.task_address(self._server_def.job_name, self._server_def.task_index)
        host, _, port = address.rpartition(":")
        if port == "0":  # TensorFlow lets the OS choose a free port
            address = f"{host}:{next(_PORTS)}"
        self._target = f"{self._server_def.protocol or 'grpc'}://{address}"
        self._key = self._server_def.cluster.SerializeToString(deterministic=True)
        self._cv = threading.Condition()
        self._started = False
        self._stopped = False
        if start:
            self.start()

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task cluster ``{"localhost": ["localhost:0"]}`` on its own fresh port."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    @property
    def server_def(self):
        """The ``ServerDef`` describing this server."""
        return self._server_def

    @property
    def target(self):
        """The target to pass to ``tf.Session`` to share this server's state."""
        return self._target

    def start(self):
        """Starts the server: Sessions on ``target`` now share the cluster's state."""
        with _LOCK:
            if self._stopped:
                raise RuntimeError("A stopped in-process Server cannot be restarted.")
            if self._started:
                return
            if self._target in _session._SHARED_TARGETS:
                raise errors.UnknownError(None, None, f"Could not start server: address {self._target} is "
                                                      "already in use by another running Server")
            state = _CLUSTERS.get(self._key)
            if state is None:
                state = _CLUSTERS[self._key] = _SharedState()
            state.servers += 1
            self._state = state
            _session._SHARED_TARGETS[self._target] = state
            self._started = True

    def join(self, timeout=None):
        """Blocks until the server is stopped (or ``timeout`` seconds pass);
        returns True when it was stopped."""
        with self._cv:
            return self._cv.wait_for(lambda: self._stopped, timeout)

    def stop(self):
        """Stops the server (ref only): its target is unregistered, waiting
        ``join()`` calls return, and when it is the cluster's last running
        server the cluster's queues and accumulators are cancelled and its state
        freed."""
        with _LOCK:
            if self._started and not self._stopped:
                _session._SHARED_TARGETS.pop(self._target, None)
                self._state.servers -= 1
                if self._state.servers == 0:
                    _CLUSTERS.pop(self._key, None)
                    self._state.cancel_resources()
            self._stopped = True
        with self._cv:
            self._cv.notify_all()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
