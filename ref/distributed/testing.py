"""Fault injection for distributed tests: ``FaultProxy``, a gRPC pass-through.

``tc netem`` is often unavailable (and needs root), so network faults are made
in user space: a ``FaultProxy`` listens on its own port and forwards every unary
call, whatever its method path (TensorFlow's services or any other), byte for
byte to the target task, keeping the caller's deadline. Point a ClusterSpec or a
Session at ``proxy.address`` instead of the task's, then::

    proxy.delay(0.5, method="RunGraph")  # RunGraph answers 0.5 s late
    proxy.drop("GetStatus")              # GetStatus fails with UNAVAILABLE
    proxy.blackhole()                    # nothing answers until the caller's deadline
    proxy.kill(); proxy.restore()        # the port goes away, then comes back

A ``method`` matches a full path (``/tensorflow.WorkerService/RunGraph``) or its
last part (``RunGraph``); ``None`` matches every method. ``calls`` lists the
method paths received, in order. TensorFlow has no such tool.
"""
from __future__ import annotations

import threading
import time
from concurrent import futures

from ref.distributed import rpc

__all__ = ["FaultProxy"]

_BLACKHOLE_WAIT = 3600.0  # a blackholed call without a deadline waits this long at most (or until restore)


class FaultProxy:
    """A gRPC pass-through to ``target_address`` ("host:port") listening on ``listen``."""

    def __init__(self, target_address, listen="127.0.0.1:0"):
        grpc = rpc.import_grpc()
        self._grpc = grpc
        self.target = rpc._bare(target_address)
        self._channel = grpc.insecure_channel(self.target, options=rpc._UNLIMITED)
        self._lock = threading.Lock()
        self._faults = []  # (kind, method, seconds), the first match wins
        self._released = threading.Event()  # set to wake blackholed calls
        self.calls = []
        self._server = None
        self._listen = listen
        self._start()

    # -- serving -------------------------------------------------------------------

    def _start(self):
        grpc = self._grpc
        proxy = self

        class _Handler(grpc.GenericRpcHandler):
            def service(self, details):
                method = details.method
                return grpc.unary_unary_rpc_method_handler(lambda request, context: proxy._forward(
                    method, request, context))

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="ref-fault-proxy"),
                             options=rpc._UNLIMITED + [("grpc.so_reuseport", 0)])
        server.add_generic_rpc_handlers((_Handler(),))
        port = server.add_insecure_port(self._listen)
        if not port:
            raise OSError(f"FaultProxy could not listen on {self._listen}")
        server.start()
        self._server = server
        host = self._listen.rpartition(":")[0]
        self._listen = f"{host}:{port}"  # a restart comes back on the same port

    def _fault(self, method):
        with self._lock:
            self.calls.append(method)
            for kind, match, seconds in self._faults:
                if match is None or method == match or method.rsplit("/", 1)[-1] == match:
                    return kind, seconds
        return None, 0.0

    def _forward(self, method, request, context):
        grpc = self._grpc
        kind, seconds = self._fault(method)
        if kind == "drop":
            context.abort(grpc.StatusCode.UNAVAILABLE, f"FaultProxy {self.address} dropped {method}")
        if kind == "blackhole":
            left = context.time_remaining()
            # past the caller's deadline (its client has given up by then), or until restore()
            if self._released.wait(_BLACKHOLE_WAIT if left is None else min(left + 1.0, _BLACKHOLE_WAIT)):
                context.abort(grpc.StatusCode.UNAVAILABLE, f"FaultProxy {self.address} released {method}")
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")
        if kind == "delay":
            left = context.time_remaining()
            time.sleep(seconds if left is None else max(min(seconds, left), 0))
        left = context.time_remaining()
        if left is not None and left <= 0:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")
        try:
            return self._channel.unary_unary(method)(request, timeout=left if left is None or left < 1e9 else None)
        except grpc.RpcError as exc:
            context.abort(exc.code(), exc.details() or exc.code().name)

    # -- controls ------------------------------------------------------------------

    @property
    def address(self):
        """``"host:port"`` where the proxy listens."""
        return self._listen

    def _add(self, kind, method, seconds=0.0):
        with self._lock:
            self._faults.insert(0, (kind, method, float(seconds)))
            if kind == "blackhole":
                self._released.clear()
        return self

    def delay(self, seconds, method=None):
        """Forwards ``method`` calls (all when None) ``seconds`` late."""
        return self._add("delay", method, seconds)

    def drop(self, method=None):
        """Fails ``method`` calls at once with UNAVAILABLE, as a broken connection does."""
        return self._add("drop", method)

    def blackhole(self, method=None):
        """Never answers ``method`` calls: they end at the caller's deadline (DEADLINE_EXCEEDED)."""
        return self._add("blackhole", method)

    def kill(self):
        """Closes the port at once: calls in flight fail and new ones cannot connect."""
        if self._server is not None:
            self._server.stop(0)
            self._server = None

    def restore(self):
        """Removes every fault and, after :meth:`kill`, listens again on the same port."""
        with self._lock:
            self._faults = []
        self._released.set()
        if self._server is None:
            self._start()
        return self

    def stop(self):
        """Shuts the proxy down for good."""
        self._released.set()
        self.kill()
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
