"""TensorFlow's distributed-runtime RPCs over grpcio: method tables, serving, calling.

TF's servers register two services under hand-written names (not the ``.grpc``
package of its ``*_service.proto``), and every method is unary:

* ``/tensorflow.MasterService/<Method>``: what a client sends to a session's master;
* ``/tensorflow.WorkerService/<Method>``: what a master sends to the tasks.

The messages are ``ref.protos.master_pb2`` / ``worker_pb2`` (TF's field numbers), so a
TensorFlow client, master or worker reads ours and we read theirs.

A service here is any object with one method per RPC, ``Method(request, timeout=None)``
returning the response message; ``timeout`` is the seconds left before the caller's
deadline (``None``: no deadline). A local object and a remote :class:`Client` have the
same shape, so a master calls its own task's worker and a remote one alike. Errors are
``ref.errors.OpError`` subclasses on both sides: TF's error codes are gRPC's status codes
(equal numbers), and RunStep/RunGraph put them in the response body when the request
sets ``store_errors_in_response_body``, as TF's clients ask.

Failure detection (a ref addition; TF relies on deadlines alone): every channel sends
HTTP/2 keepalive pings while a call is in flight, every ``KEEPALIVE_TIME`` seconds of
silence, and drops the connection when a ping is not acknowledged within
``KEEPALIVE_TIMEOUT``; the calls on it then fail with an UnavailableError naming the
task, its address and the RPC. So a network partition under a call that may legitimately
block for long (a RunGraph waiting on a queue) surfaces within :func:`failure_bound`
seconds (10 s by default, at most 15 s with the master's restart check). A channel that
was connected once waits at most ``RECONNECT_WAIT`` seconds for its task to come back
before a call fails. Set them with :func:`set_failure_detection` or the environment
(``REF_GRPC_KEEPALIVE_TIME_S``, ``REF_GRPC_KEEPALIVE_TIMEOUT_S``, ``REF_GRPC_RECONNECT_WAIT_S``;
a keepalive time of 0 turns the pings off). ref's servers accept a ping every second;
a TensorFlow server accepts two pings without data per 5 minutes before it answers
``too_many_pings`` and closes the connection, so against TF tasks turn pings off.

Security (ref only; :mod:`.security`): :func:`serve` takes a ``ServerSecurity`` (TLS port,
mutual TLS, a token every call must carry: an interceptor answers UNAUTHENTICATED naming
the server otherwise) and a :class:`Client` a ``ClientSecurity`` (TLS channel, token in every
call's metadata). A plain client meeting a TLS port (or the reverse) cannot even finish the
handshake: after a few seconds of refused handshakes on a listening port the call fails with
an UnavailableError naming the address and saying so. :data:`CALL_METADATA` is the metadata
of the call a service method is serving; :func:`sending` adds metadata to a thread's calls.

``grpcio`` is imported on first use (``pip install 'ref-tf1[distributed]'``).
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import socket
import threading
import time
from concurrent import futures

from ref.protos import master_pb2, worker_pb2
from ref.types import errors
from ref.distributed.security import TOKEN_KEY, token_matches

__all__ = ["MASTER_SERVICE", "WORKER_SERVICE", "MASTER_METHODS", "WORKER_METHODS", "import_grpc",
           "serve", "Client", "connect", "register_local", "unregister_local", "local",
           "error_from_status", "DEFAULT_CONNECT_TIMEOUT", "set_failure_detection", "failure_bound",
           "CALL_METADATA", "sending", "HANDSHAKE_WAIT"]

# The metadata (pairs) of the call being served, set around each service method.
CALL_METADATA = contextvars.ContextVar("ref_rpc_call_metadata", default=())
_OUTGOING = contextvars.ContextVar("ref_rpc_outgoing_metadata", default=())


@contextlib.contextmanager
def sending(pairs):
    """Within it, every call this thread makes carries the metadata ``pairs``; a service in
    this process called directly sees them as its CALL_METADATA."""
    out, meta = _OUTGOING.set(tuple(pairs)), CALL_METADATA.set(tuple(pairs))
    try:
        yield
    finally:
        CALL_METADATA.reset(meta)
        _OUTGOING.reset(out)
# Seconds a listening port may refuse handshakes before a call fails (a TLS mismatch).
HANDSHAKE_WAIT = 3.0

MASTER_SERVICE = "tensorflow.MasterService"
WORKER_SERVICE = "tensorflow.WorkerService"


def _table(module, names):
    return {n: (getattr(module, n + "Request"), getattr(module, n + "Response")) for n in names}


MASTER_METHODS = _table(master_pb2, [
    "CreateSession", "ExtendSession", "PartialRunSetup", "RunStep", "CloseSession", "ListDevices",
    "Reset", "MakeCallable", "RunCallable", "ReleaseCallable"])
WORKER_METHODS = _table(worker_pb2, [
    "GetStatus", "CreateWorkerSession", "DeleteWorkerSession", "RegisterGraph", "DeregisterGraph",
    "RunGraph", "CleanupGraph", "CleanupAll", "RecvTensor", "MarkRecvFinished", "Logging", "Tracing"])
# ref only: the address of a ref task's tensor channel (ref.distributed.tensor_channel), as raw
# bytes ("" when it has none); a TensorFlow task answers UNIMPLEMENTED
WORKER_METHODS["RefTensorChannel"] = (worker_pb2.GetStatusRequest, worker_pb2.GetStatusResponse)
METHODS = {MASTER_SERVICE: MASTER_METHODS, WORKER_SERVICE: WORKER_METHODS}

# How long a client waits for a task's port to answer before giving up (TF waits forever).
DEFAULT_CONNECT_TIMEOUT = 60.0

_UNLIMITED = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]

KEEPALIVE_TIME = float(os.environ.get("REF_GRPC_KEEPALIVE_TIME_S", 5.0))
KEEPALIVE_TIMEOUT = float(os.environ.get("REF_GRPC_KEEPALIVE_TIMEOUT_S", 5.0))
RECONNECT_WAIT = float(os.environ.get("REF_GRPC_RECONNECT_WAIT_S", 5.0))


def set_failure_detection(keepalive_time=None, keepalive_timeout=None, reconnect_wait=None):
    """Sets the keepalive period and ack timeout (seconds; a period of 0 sends no pings) and
    how long a lost channel waits for its task; channels opened before are dropped so that
    the next call uses the new values. Returns the previous ``(time, timeout, wait)``."""
    global KEEPALIVE_TIME, KEEPALIVE_TIMEOUT, RECONNECT_WAIT
    old = KEEPALIVE_TIME, KEEPALIVE_TIMEOUT, RECONNECT_WAIT
    if keepalive_time is not None:
        KEEPALIVE_TIME = float(keepalive_time)
    if keepalive_timeout is not None:
        KEEPALIVE_TIMEOUT = float(keepalive_timeout)
    if reconnect_wait is not None:
        RECONNECT_WAIT = float(reconnect_wait)
    with _CHANNELS_LOCK:
        addresses = list(_CHANNELS)
    for address in addresses:
        forget_channel(address)
    return old


def failure_bound():
    """Seconds within which a silent connection under a call is declared lost (None: no pings)."""
    return KEEPALIVE_TIME + KEEPALIVE_TIMEOUT if KEEPALIVE_TIME > 0 else None


def _channel_options():
    opts = list(_UNLIMITED) + [("grpc.max_reconnect_backoff_ms", 1000)]  # TF's reconnect backoff
    if KEEPALIVE_TIME > 0:
        opts += [("grpc.keepalive_time_ms", int(KEEPALIVE_TIME * 1000)),
                 ("grpc.keepalive_timeout_ms", int(KEEPALIVE_TIMEOUT * 1000)),
                 ("grpc.http2.ping_timeout_ms", int(KEEPALIVE_TIMEOUT * 1000)),  # gRPC's other pings (BDP)
                 ("grpc.keepalive_permit_without_calls", 0), ("grpc.http2.max_pings_without_data", 0)]
    return opts


# ref's servers accept a client's pings every second, however long a call stays silent
_SERVER_PINGS = [("grpc.http2.min_recv_ping_interval_without_data_ms", 1000), ("grpc.http2.max_ping_strikes", 0),
                 ("grpc.keepalive_permit_without_calls", 1)]


def import_grpc():
    """``grpc``, or an ImportError saying how to install it."""
    try:
        import grpc
    except ImportError:
        raise ImportError("ref's distributed runtime (tf.train.Server, Session('grpc://...')) needs grpcio: "
                          "pip install 'ref-tf1[distributed]'") from None
    return grpc


# -- errors -------------------------------------------------------------------------


def error_from_status(code, message):
    """The ``ref.errors`` exception for a TF/gRPC status code (unknown codes: UnknownError)."""
    try:
        cls = errors.exception_type_from_error_code(int(code))
    except KeyError:
        cls = errors.UnknownError
    return cls(None, None, message)


def _code_of(exc):
    if isinstance(exc, errors.OpError):
        return exc.error_code
    if isinstance(exc, (ValueError, TypeError)):
        return errors.INVALID_ARGUMENT
    return errors.INTERNAL


# -- serving ------------------------------------------------------------------------


def _handler(grpc, impl, service, method, request_cls, response_cls):
    fn = getattr(impl, method, None)
    in_body = "status_code" in response_cls.DESCRIPTOR.fields_by_name

    def unary(request, context):
        if fn is None:
            context.abort(grpc.StatusCode.UNIMPLEMENTED,
                          f"{service}/{method} is not implemented by ref's {type(impl).__name__}")
        meta = CALL_METADATA.set(tuple(context.invocation_metadata() or ()))
        out = _OUTGOING.set(())  # nothing of the caller's goes on to the calls this one makes
        try:
            left = context.time_remaining()  # grpcio: a huge number when the call has no deadline
            return fn(request, timeout=left if left is not None and left < 1e9 else None)
        except Exception as exc:  # every failure becomes a status the caller can map back
            code = _code_of(exc)
            message = str(exc) or type(exc).__name__
            if in_body and getattr(request, "store_errors_in_response_body", False):
                return response_cls(status_code=code, status_error_message=message)
            context.abort(grpc.StatusCode(_grpc_status(grpc, code)), message)
        finally:
            _OUTGOING.reset(out)
            CALL_METADATA.reset(meta)

    return grpc.unary_unary_rpc_method_handler(
        unary, request_deserializer=request_cls.FromString, response_serializer=_serializer(method, response_cls))


# Methods whose response goes on the wire as bytes the service wrote itself (RecvTensor:
# tensor contents from the array's buffer, ref.distributed.tensor_coding); a Client
# returns them undecoded too.
RAW_RESPONSES = frozenset({"RecvTensor", "RefTensorChannel"})


def _serializer(method, response_cls):
    if method not in RAW_RESPONSES:
        return response_cls.SerializeToString
    return lambda r: r if isinstance(r, (bytes, bytearray, memoryview)) else r.SerializeToString()


def _grpc_status(grpc, code):
    for status in grpc.StatusCode:
        if status.value[0] == code:
            return status.value
    return grpc.StatusCode.UNKNOWN.value


def _token_interceptor(grpc, token, where):
    """A server interceptor refusing calls without ``token`` (UNAUTHENTICATED naming the
    server, ``where[0]``)."""
    def deny(request, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, f"the server at {where[0]} refused the call: missing or "
                      "wrong token (ref-token metadata; ClientSecurity(token=...) or REF_RPC_TOKEN)")
    denied = grpc.unary_unary_rpc_method_handler(deny)

    class TokenCheck(grpc.ServerInterceptor):
        def intercept_service(self, continuation, details):
            if token_matches(token, details.invocation_metadata or ()):
                return continuation(details)
            return denied
    return TokenCheck()


def serve(address, services, max_workers=64, start=True, security=None):
    """Starts a grpcio server on ``address`` ("host:port"; port 0 picks a free one).

    ``services`` maps a service name (``MASTER_SERVICE``, ``WORKER_SERVICE``) to its
    implementation. Returns ``(server, port)`` with the port actually bound. Raises
    UnavailableError naming the address when it cannot be bound. With ``start=False``
    the port is bound but nothing is served until ``server.start()``. ``security``
    (a ``ServerSecurity``): a TLS port when it has a certificate, and a token check.
    """
    grpc = import_grpc()
    interceptors, where = (), [address]
    if security is not None and security.token:
        interceptors = (_token_interceptor(grpc, security.token, where),)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="ref-rpc"),
                         options=_UNLIMITED + _SERVER_PINGS + [("grpc.so_reuseport", 0)], interceptors=interceptors)
    for service, impl in services.items():
        handlers = {m: _handler(grpc, impl, service, m, req, resp) for m, (req, resp) in METHODS[service].items()}
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    try:
        if security is not None and security.tls:
            port = server.add_secure_port(address, security.server_credentials(grpc))
        else:
            port = server.add_insecure_port(address)
    except RuntimeError as exc:
        raise errors.UnavailableError(None, None, f"could not bind {address}: {exc}") from None
    if not port:
        raise errors.UnavailableError(None, None, f"could not bind {address} (in use?)")
    where[0] = f"{address.rpartition(':')[0]}:{port}"
    if start:
        server.start()
    return server, port


# -- services living in this process -------------------------------------------------
#
# A Server registers its master and worker here under its address, so that a client
# in the same process (a between-graph worker script's Session(server.target), or a
# master calling its own task's worker) calls the object directly, without gRPC: TF's
# LocalMaster shortcut. Everything else goes through a Client.

_LOCAL = {}
_LOCAL_LOCK = threading.Lock()


def _bare(address):
    for prefix in ("grpc://", "grpcs://"):
        if address.startswith(prefix):
            return address[len(prefix):]
    return address


def register_local(address, service, impl):
    with _LOCAL_LOCK:
        _LOCAL[(_bare(address), service)] = impl


def unregister_local(address, service):
    with _LOCAL_LOCK:
        _LOCAL.pop((_bare(address), service), None)


def local(address, service):
    """The in-process implementation of ``service`` at ``address``, or None."""
    return _LOCAL.get((_bare(address), service))


def connect(address, service, name=None, connect_timeout=DEFAULT_CONNECT_TIMEOUT, security=None):
    """The in-process service at ``address`` if there is one, else a :class:`Client`."""
    impl = local(address, service)
    return impl if impl is not None else Client(address, service, name, connect_timeout, security)


# -- calling ------------------------------------------------------------------------

_CHANNELS = {}
_READY = set()  # channels that were connected once (a failed call takes its channel out)
_LOST = set()  # channels that were connected once and lost: they wait RECONNECT_WAIT at most
_CHANNELS_LOCK = threading.Lock()


def _channel(address, security=None):
    grpc = import_grpc()
    tls = security is not None and security.tls
    key = (address, security.key_id()) if tls else address
    with _CHANNELS_LOCK:
        ch = _CHANNELS.get(key)
        if ch is None:
            if tls:
                opts = _channel_options()
                if security.target_name:
                    opts.append(("grpc.ssl_target_name_override", security.target_name))
                ch = grpc.secure_channel(address, security.channel_credentials(grpc), options=opts)
            else:
                ch = grpc.insecure_channel(address, options=_channel_options())
            _CHANNELS[key] = ch
        return ch


def forget_channel(address):
    """Drops the cached channels to ``address`` (after its task went away)."""
    with _CHANNELS_LOCK:
        keys = [k for k in _CHANNELS if k == address or (isinstance(k, tuple) and k[0] == address)]
        chs = [_CHANNELS.pop(k) for k in keys]
    for ch in chs:
        _READY.discard(ch)
        _LOST.discard(ch)
        ch.close()


def _listening(address):
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=0.5):
            return True
    except (OSError, ValueError):
        return False


class Client:
    """A remote service with the same shape as a local one: ``client.RunGraph(request, timeout=None)``.

    ``name`` says who is called in error messages ("/job:ps/replica:0/task:0").
    Connecting waits for the port at most ``connect_timeout`` seconds (and never past
    the call's own ``timeout``), retrying while nothing listens; then an
    UnavailableError names the task, its address and the RPC. A call's ``timeout``
    becomes the gRPC deadline; running out of it is a DeadlineExceededError.
    """

    def __init__(self, address, service, name=None, connect_timeout=DEFAULT_CONNECT_TIMEOUT, security=None):
        self.address = _bare(address)
        self.service = service
        self.name = name
        self.connect_timeout = connect_timeout
        self.security = security
        self._metadata = security.metadata() if security is not None else ()
        self._calls = {}

    def __getattr__(self, method):
        if method.startswith("_") or method not in METHODS[self.service]:
            raise AttributeError(method)
        def rpc(request, timeout=None):
            return self.call(method, request, timeout)

        setattr(self, method, rpc)  # later lookups find it without __getattr__
        return rpc

    def _who(self):
        return f"{self.name} at {self.address}" if self.name else self.address

    def _where(self, method):
        return f"{self._who()}, RPC {self.service.split('.')[-1]}/{method}"

    def _connect(self, method, timeout):
        grpc = import_grpc()
        ch = _channel(self.address, self.security)
        if ch in _READY:  # connected before: no readiness future (it costs a thread per call)
            return ch
        wait = self.connect_timeout if timeout is None else min(timeout, self.connect_timeout)
        if ch in _LOST:
            wait = min(wait, RECONNECT_WAIT)
        try:
            self._wait_ready(grpc, ch, method, wait)
        except grpc.FutureTimeoutError:
            raise errors.UnavailableError(
                None, None, f"could not connect to {self._who()} within {wait:g} s "
                f"(RPC {self.service.split('.')[-1]}/{method}): is the task running and listening there?") from None
        _READY.add(ch)
        _LOST.discard(ch)
        return ch

    def _wait_ready(self, grpc, ch, method, wait):
        """Waits for the channel; a port that listens but keeps refusing the handshake for
        HANDSHAKE_WAIT seconds speaks the other protocol (TLS against plain): UnavailableError."""
        ready = grpc.channel_ready_future(ch)
        start = time.monotonic()
        refused_since = None
        while True:
            left = wait - (time.monotonic() - start)
            try:
                return ready.result(timeout=max(min(left, 0.5), 0.001))
            except grpc.FutureTimeoutError:
                if left <= 0.5:
                    raise
            if not _listening(self.address):
                refused_since = None
                continue
            refused_since = refused_since or time.monotonic()
            if time.monotonic() - refused_since >= HANDSHAKE_WAIT:
                ready.cancel()
                tls = self.security is not None and self.security.tls
                raise errors.UnavailableError(
                    None, None, f"{self._who()} listens but refused the {'TLS ' if tls else 'plain '}connection "
                    f"for {HANDSHAKE_WAIT:g} s (RPC {self.service.split('.')[-1]}/{method}): "
                    + ("is it a plain (grpc://) server, or does it require a client certificate, or is the "
                       "certificate not signed by this CA / not for this address?" if tls else
                       "does it require TLS (a grpcs:// target, ClientSecurity / REF_TLS_CA)?"))

    def call(self, method, request, timeout=None):
        grpc = import_grpc()
        start = time.monotonic()
        ch = self._connect(method, timeout)
        if timeout is not None:
            timeout = max(timeout - (time.monotonic() - start), 0.001)
        _, response_cls = METHODS[self.service][method]
        cached = self._calls.get(method)
        if cached is not None and cached[0] is ch:
            stub = cached[1]
        else:
            stub = ch.unary_unary(
                f"/{self.service}/{method}", request_serializer=type(request).SerializeToString,
                response_deserializer=None if method in RAW_RESPONSES else response_cls.FromString)
            self._calls[method] = (ch, stub)
        extra = _OUTGOING.get()
        try:
            response = stub(request, timeout=timeout, metadata=(self._metadata + tuple(extra)) or None)
        except grpc.RpcError as exc:
            code = exc.code().value[0]
            if code == errors.UNAVAILABLE:  # the next call waits (bounded) for the task to come back
                _READY.discard(ch)
                _LOST.add(ch)
            detail = exc.details() or exc.code().name
            if code == errors.DEADLINE_EXCEEDED and detail in ("Deadline Exceeded", exc.code().name):
                # gRPC's own deadline; a task's DeadlineExceededError (a kernel that waited) keeps its message
                detail = f"no answer within {timeout:g} s" if timeout is not None else detail
            raise error_from_status(code, f"{detail} ({self._where(method)})") from None
        if method in RAW_RESPONSES:
            return response
        if "status_code" in response.DESCRIPTOR.fields_by_name and response.status_code:
            raise error_from_status(response.status_code, response.status_error_message)
        return response
