"""``tf.Session("grpc://host:port")``: a client of a master's ``MasterService``.

TensorFlow's ``GrpcSession``, for ``ref``: the Session keeps its graph, fetch
structures and feed checks (:mod:`ref.session.session`), and hands each step to
a :class:`RemoteSession`, which speaks TF's master protocol to a ``ref`` or a
TensorFlow server:

* constructing the session sends nothing; the first step sends
  ``CreateSession`` {graph_def: every node built so far, config, target};
* a step after nodes were added sends ``ExtendSession`` with only the new nodes
  and the master's ``current_graph_version`` first;
* each step is one ``RunStep`` {feed: ``"x:0"`` → TensorProto, fetch: tensor
  names, target: op names, options}; the master may answer in any order, so
  values are matched by name; errors come in the response body
  (``store_errors_in_response_body``) and keep TF's ``{{node name}}`` tags, from
  which the error's ``op`` is found in the graph, as TF's client does;
* ``close()`` sends ``CloseSession``, ``list_devices()`` ``ListDevices``
  (creating the session first when needed), ``Session.reset(target)`` ``Reset``
  on a fresh connection.

Security (ref only): a ``grpcs://host:port`` target is called over TLS with the
process's ``ClientSecurity`` (:func:`ref.distributed.security.set_client_security`, else
the ``REF_TLS_*`` environment); ``grpc://`` stays plain, as TensorFlow's. A configured
token is sent with every call. ``Session.reset`` also sends the handles of this
process's open sessions on that target, so that a server limiting resets to the
caller's own sessions knows which are its.

Deadlines: ``ConfigProto.operation_timeout_in_ms`` bounds every call and
``RunOptions.timeout_in_ms`` one step. Unlike TF (whose client waits forever
for an address where nothing listens), connecting is always bounded:
``rpc.DEFAULT_CONNECT_TIMEOUT`` seconds, or the call's deadline when shorter,
then an ``UnavailableError`` names the address. A master in this process (a
``ref`` Server's) is called directly, without gRPC: TF's LocalMaster.
"""
from __future__ import annotations

import random
import re
import threading
import weakref

from ref.distributed import rpc
from ref.distributed.security import SESSIONS_KEY, client_security
from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.framework.graph_export import as_graph_def
from ref.protos import master_pb2
from ref.platform import tf_logging as logging
from ref.session import session as _session
from ref.types import errors

__all__ = ["RemoteSession", "reset", "PREFIX", "TLS_PREFIX"]

PREFIX = "grpc://"
TLS_PREFIX = "grpcs://"
_OPEN = weakref.WeakSet()  # this process's RemoteSessions, for Reset's ref-sessions metadata
# CloseSession to a master that went away waits at most this long (seconds).
_CLOSE_TIMEOUT = 10.0
# TF's client's pattern for the node an error names ("{{node name}}" or "[[Node: name = ...").
_NODE_RE = re.compile(r"\[\[(Node: )?(\{\{node )?([^\} ]*)(\}\})?\s*=*|\{\{node ([^\} ]*)\}\}")


def _address(target):
    return rpc._bare(target)


def _seconds(ms):
    return ms / 1000.0 if ms and ms > 0 else None


class RemoteSession:
    """The wire side of a Session whose target is a master elsewhere."""

    def __init__(self, target, graph, config=None):
        self._target = target
        self._address = _address(target)
        self._graph = graph
        self._config = config
        self._timeout = _seconds(config.operation_timeout_in_ms) if config is not None else None
        self._master = None
        self._handle = None
        self._sent = 0  # how many of the graph's ops (in creation order) the master has
        self._master_version = 0
        self._lock = threading.Lock()
        _OPEN.add(self)

    # -- calls -----------------------------------------------------------------
    def _call(self, method, request, timeout):
        if self._master is None:
            self._master = _connect(self._target, self._config)
        try:
            response = getattr(self._master, method)(request, timeout=timeout)
        except errors.OpError as e:
            raise self._with_op(e) from None
        if getattr(response, "status_code", 0):  # an in-process master may answer in the body too
            raise self._with_op(rpc.error_from_status(response.status_code, response.status_error_message))
        return response

    def _with_op(self, e):
        """``e`` with ``op``/``node_def`` set to the graph's op its message names."""
        if e.op is not None:
            return e
        m = _NODE_RE.search(e.message)
        name = m and (m.group(3) or m.group(5))
        try:
            op = self._graph.get_operation_by_name(name)
        except (KeyError, ValueError, TypeError):
            return e
        return type(e)(op.node_def, op, e.message)

    def _sync_graph(self):
        """CreateSession on first use, then ExtendSession with the nodes added since."""
        with self._lock:
            # ops are numbered in creation order; graph.version also counts edits of
            # existing ops (a control input added), so the op count says what was sent
            count = len(self._graph.get_operations())
            if self._handle is not None and count == self._sent:
                return
            graph_def = as_graph_def(self._graph, from_version=self._sent or None)
            late = {op.name for op in self._graph.get_operations()[count:]}  # go with the next step
            if late:
                keep = [n for n in graph_def.node if n.name not in late]
                del graph_def.node[:]
                graph_def.node.extend(keep)
            if self._handle is None:
                request = master_pb2.CreateSessionRequest(graph_def=graph_def, target=self._target)
                if self._config is not None:
                    request.config.CopyFrom(self._config)
                response = self._call("CreateSession", request, self._timeout)
                self._handle, self._master_version = response.session_handle, response.graph_version
            else:
                request = master_pb2.ExtendSessionRequest(session_handle=self._handle, graph_def=graph_def,
                                                          current_graph_version=self._master_version)
                self._master_version = self._call("ExtendSession", request, self._timeout).new_graph_version
            self._sent = count

    # -- what the Session calls ---------------------------------------------------
    def run(self, tensors, targets, feeds, options=None, run_metadata=None):
        """The arrays of ``tensors`` after running ``targets`` with ``feeds`` ({Tensor: ndarray})."""
        self._sync_graph()
        request = master_pb2.RunStepRequest(session_handle=self._handle, store_errors_in_response_body=True,
                                            request_id=random.getrandbits(63))
        for t, value in feeds.items():
            request.feed.add(name=t.name, tensor=make_tensor_proto(value, dtype=t.dtype.base_dtype))
        names = [t.name for t in tensors]
        request.fetch.extend(dict.fromkeys(names))
        request.target.extend(op.name for op in targets)
        timeout = self._timeout
        if options is not None:
            request.options.CopyFrom(options)
            timeout = _seconds(options.timeout_in_ms) or timeout
        try:
            response = self._call("RunStep", request, timeout)
        except errors.DeadlineExceededError as e:
            if e.op is not None:
                raise
            raise errors.DeadlineExceededError(None, None, f"{e.message}; the step fetched "
                                               f"{list(request.fetch)} and ran {list(request.target)}") from None
        if run_metadata is not None:
            run_metadata.MergeFrom(response.metadata)
        by_name = {nt.name: nt.tensor for nt in response.tensor}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise errors.InternalError(None, None, f"the master at {self._address} returned no value for "
                                                   f"{', '.join(missing)}")
        return [make_ndarray(by_name[n]) for n in names]

    def list_devices(self):
        """(name, device_type, memory_limit, incarnation) of every device the master sees."""
        self._sync_graph()
        response = self._call("ListDevices", master_pb2.ListDevicesRequest(session_handle=self._handle),
                              self._timeout)
        return [(d.name, d.device_type, d.memory_limit, d.incarnation)
                for d in list(response.local_device) + list(response.remote_device)]

    def close(self):
        """CloseSession, when one was created; a master that went away is logged, not raised."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is None:
            return
        timeout = min(self._timeout or _CLOSE_TIMEOUT, _CLOSE_TIMEOUT)
        try:
            self._call("CloseSession", master_pb2.CloseSessionRequest(session_handle=handle), timeout)
        except errors.OpError as e:
            logging.warning("Could not close session %s on %s: %s", handle, self._address, e)


def _security(target):
    """The ClientSecurity for ``target``: TLS only for grpcs://; the token either way."""
    security = client_security()
    if target.startswith(TLS_PREFIX) or not security.tls:
        return security
    return type(security)(token=security.token)


def _connect(target, config):
    """The master of ``target``: this process's own, unless
    ``config.rpc_options.use_rpc_for_inprocess_master`` (as TF), else a Client."""
    address = _address(target)
    if config is not None and config.rpc_options.use_rpc_for_inprocess_master:
        return rpc.Client(address, rpc.MASTER_SERVICE, connect_timeout=rpc.DEFAULT_CONNECT_TIMEOUT,
                          security=_security(target))
    return rpc.connect(address, rpc.MASTER_SERVICE, connect_timeout=rpc.DEFAULT_CONNECT_TIMEOUT,
                       security=_security(target))


def reset(target, containers=None, config=None):
    """``Session.reset(target)``: the master's Reset over a fresh connection, naming this
    process's open sessions on ``target`` (``ref-sessions`` metadata)."""
    timeout = _seconds(config.operation_timeout_in_ms) if config is not None else None
    request = master_pb2.ResetRequest(container=list(containers or []))
    if config is not None:
        request.device_filters.extend(config.device_filters)
    address = _address(target)
    handles = [s._handle for s in list(_OPEN) if s._address == address and s._handle]
    with rpc.sending(((SESSIONS_KEY, ",".join(handles)),) if handles else ()):
        try:
            _connect(target, config).Reset(request, timeout=timeout)
        except errors.UnavailableError as e:
            if timeout is None:
                raise
            # TF's Reset is one call with the operation timeout as its deadline: no master there reads
            # as that deadline passing
            raise errors.DeadlineExceededError(None, None, f"Deadline Exceeded: {e.message}") from None


_session.register_target_handler(PREFIX, RemoteSession, reset)
_session.register_target_handler(TLS_PREFIX, RemoteSession, reset)
