"""ref's tensor channel: ``RecvTensor`` between two ref tasks over a plain TCP stream.

TensorFlow's worker protocol moves every tensor between tasks with the
``WorkerService/RecvTensor`` RPC; TF itself offers other tensor transports beside
gRPC for the same RPC (``grpc+verbs``, ``grpc+mpi``: the control RPCs stay gRPC, the
tensor bytes take the faster path). In Python, grpcio moves a large message at about
0.5 GB/s on this machine, a TCP socket at about 4 GB/s, so ref's tasks do the same:

* a ref ``Server`` (plain ``grpc://``, no ``ServerSecurity``) also listens on a TCP
  port of its own host and answers the ref-only ``WorkerService/RefTensorChannel``
  RPC with that ``host:port`` (a TensorFlow task answers UNIMPLEMENTED);
* a ref worker receiving from another task asks it once; where it has a channel and
  the port accepts a connection, every later ``RecvTensor`` to that task goes over a
  pooled connection: the request ``(step_id, rendezvous key, timeout)``, then the
  serialized ``RecvTensorResponse`` of the task's ``Worker.RecvTensor`` (the same bytes
  gRPC would carry, :mod:`.tensor_coding`), or its error's code and message. The sender
  writes the tensor's bytes from the array's own buffer into the socket (``sendmsg`` of
  the message's parts: no copy in the sending process, as TF's own encoder avoids one);
  the receiver reads them into one buffer that the array is then a view of;
* a task without a channel (TensorFlow's, a secured server, ``REF_TENSOR_CHANNEL=0``
  on either side) or a port that does not answer: gRPC as before.

Frames (little-endian): request ``b"RTC1"``, step id (u64), timeout in seconds (f64,
negative: none), key length (u32), key; answer ``0`` (u8), length (u64), the message;
or ``1`` (u8), error code (u32), length (u64), UTF-8 message. A connection serves one
request at a time; a lost connection is an UnavailableError naming the task.

A partition receiving several values of a step from one task asks for all of them in
one request (TF's gRPC worker makes one ``RecvTensor`` call per key, each on its own
completion queue tag; in Python a waiting thread per key on both sides costs a thread
wake-up and a GIL hand-off for each): ``b"RTC2"``, step id, timeout, the number of keys
(u32), then each key's length (u32) and key. The task answers each key as its value is
sent, in that order: the key's index in the request (u32), then the answer above. An
error answer ends the request (the keys not answered yet are not sent).
"""
from __future__ import annotations

import os
import socket
import struct
import threading

from ref.types import errors
from ref.protos import worker_pb2
from ref.distributed import rpc

__all__ = ["enabled", "ChannelServer", "ChannelClient", "MAGIC", "CONNECT_TIMEOUT"]

MAGIC = b"RTC1"
MAGIC_MANY = b"RTC2"
CONNECT_TIMEOUT = 2.0  # seconds to open a connection before gRPC is used instead
_REQUEST = struct.Struct("<4sQdI")
_OK = struct.Struct("<BQ")
_ERROR = struct.Struct("<BIQ")
_MAX_KEY = 1 << 16  # a rendezvous key is a few hundred bytes
_MAX_KEYS = 1 << 16  # keys in one request
_U32 = struct.Struct("<I")
_WAITALL = getattr(socket, "MSG_WAITALL", 0)


def enabled():
    """False when ``REF_TENSOR_CHANNEL`` is ``0``/``false``/``no``: gRPC only."""
    return os.environ.get("REF_TENSOR_CHANNEL", "1").strip().lower() not in ("0", "false", "no", "off")


def _read_exact(sock, n):
    """``n`` bytes from ``sock``. ``MSG_WAITALL``: a blocking socket returns once all are
    there, so a large tensor is one call that reacquires the GIL once, not one per chunk
    the kernel happens to hold (each reacquire may wait out another thread's time slice);
    a socket with a timeout may return fewer, and the loop asks for the rest."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got, _WAITALL)
        if not k:
            raise ConnectionError("connection closed by the peer")
        got += k
    return buf


def _read_answer(sock):
    """``(message, None)`` or ``(None, the task's error)`` of one answer on ``sock``."""
    head = _read_exact(sock, _OK.size)  # an error's header is longer: the rest follows
    if head[0] == 0:
        return _read_exact(sock, _OK.unpack(head)[1]), None
    _, code, length = _ERROR.unpack(bytes(head) + bytes(_read_exact(sock, _ERROR.size - _OK.size)))
    return None, rpc.error_from_status(code, bytes(_read_exact(sock, length)).decode("utf-8", "replace"))


def _send_buffers(sock, buffers):
    """Sends the buffers one after the other (``sendmsg``: no copy joins them); empties the list."""
    views = [memoryview(b).cast("B") for b in buffers]
    buffers.clear()
    while views:
        sent = sock.sendmsg(views)
        while views and sent >= views[0].nbytes:
            sent -= views.pop(0).nbytes
        if sent:
            views[0] = views[0][sent:]


def _tune(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 5), ("TCP_KEEPINTVL", 2), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, name):  # a silent peer is declared lost within ~11 s
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def _error_frame(exc):
    code = exc.error_code if isinstance(exc, errors.OpError) else errors.INTERNAL
    message = (str(exc) or type(exc).__name__).encode("utf-8")
    return _ERROR.pack(1, code, len(message)) + message


def _send_answer(conn, parts, prefix):
    """One answer: ``prefix``, the header, the message's parts straight from the array's buffer
    into the socket; then the array is let go (while this thread refers to a variable's value,
    its update cannot be in place)."""
    parts.insert(0, prefix + _OK.pack(0, sum(memoryview(p).nbytes for p in parts)))
    _send_buffers(conn, parts)


class ChannelServer:
    """Serves ``worker.RecvTensor`` over TCP on ``host`` (a free port); ``address`` is
    ``advertised_host:port``. ``close()`` stops accepting and closes every connection."""

    def __init__(self, worker, host, advertised_host=None):
        self._worker = worker  # its ``recv_tensor_parts(request, timeout)``: the message as buffers
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.bind((host.strip("[]"), 0))
        self._listener.listen(64)
        port = self._listener.getsockname()[1]
        self.address = f"{advertised_host or host}:{port}"
        self._lock = threading.Lock()
        self._conns = set()
        self._closed = False
        threading.Thread(target=self._accept, name="ref-channel-accept", daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self._conns.add(conn)
            _tune(conn)
            threading.Thread(target=self._serve, args=(conn,), name="ref-channel", daemon=True).start()

    def _serve(self, conn):
        try:
            while True:
                magic, step_id, timeout, count = _REQUEST.unpack(_read_exact(conn, _REQUEST.size))
                timeout = None if timeout < 0 else timeout
                if magic == MAGIC and count <= _MAX_KEY:
                    key = bytes(_read_exact(conn, count)).decode("utf-8")
                    request = worker_pb2.RecvTensorRequest(step_id=step_id, rendezvous_key=key)
                    try:
                        parts = self._worker.recv_tensor_parts(request, timeout=timeout)
                    except Exception as exc:  # every failure goes back as a status, as over gRPC
                        conn.sendall(_error_frame(exc))
                        continue
                    _send_answer(conn, parts, b"")
                elif magic == MAGIC_MANY and count <= _MAX_KEYS:
                    keys = []
                    for _ in range(count):
                        (n,) = _U32.unpack(_read_exact(conn, _U32.size))
                        if n > _MAX_KEY:
                            return
                        keys.append(bytes(_read_exact(conn, n)).decode("utf-8"))
                    self._serve_many(conn, step_id, keys, timeout)
                else:
                    return  # not ref's channel: drop the connection
        except (OSError, ConnectionError, struct.error):
            return
        finally:
            with self._lock:
                self._conns.discard(conn)
            conn.close()

    def _serve_many(self, conn, step_id, keys, timeout):
        """Answers ``keys`` of ``step_id`` in the order their values are sent (``recv_tensors_parts``
        of the worker: ``(index, parts)``, bounded by ``timeout`` in all); an error ends the request."""
        try:
            for index, parts in self._worker.recv_tensors_parts(step_id, keys, timeout):
                _send_answer(conn, parts, _U32.pack(index))
                del parts
        except (OSError, ConnectionError):
            raise
        except Exception as exc:  # every failure goes back as a status, as over gRPC
            conn.sendall(_U32.pack(0) + _error_frame(exc))

    def close(self):
        with self._lock:
            self._closed = True
            conns, self._conns = list(self._conns), set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()


class ChannelClient:
    """Connections to one task's channel at ``address``; ``who`` names the task in errors."""

    def __init__(self, address, who):
        self.address = address
        self.who = who
        host, _, port = address.rpartition(":")
        self._target = (host.strip("[]"), int(port))
        self._idle = []
        self._lock = threading.Lock()

    def probe(self):
        """True when the port accepts a connection (kept for the first request)."""
        try:
            sock = self._open()
        except OSError:
            return False
        with self._lock:
            self._idle.append(sock)
        return True

    def _open(self):
        sock = socket.create_connection(self._target, timeout=CONNECT_TIMEOUT)
        _tune(sock)
        return sock

    def recv_tensor(self, step_id, key, timeout=None):
        """The serialized ``RecvTensorResponse`` of ``key`` in step ``step_id``; the task's
        error as the same ``ref.errors`` class; UnavailableError when the connection fails."""
        with self._lock:
            sock = self._idle.pop() if self._idle else None
        try:
            if sock is None:
                sock = self._open()
            # the peer bounds its wait by ``timeout``; the socket waits a little longer for its answer
            sock.settimeout(None if timeout is None else timeout + 5.0)
            raw = key.encode("utf-8")
            sock.sendall(_REQUEST.pack(MAGIC, step_id, -1.0 if timeout is None else float(timeout), len(raw)) + raw)
            data, error = _read_answer(sock)
        except socket.timeout:
            if sock is not None:
                sock.close()
            raise errors.DeadlineExceededError(None, None, f"no answer within {timeout:g} s ({self._where()})") \
                from None
        except (OSError, ConnectionError) as exc:
            if sock is not None:
                sock.close()
            raise errors.UnavailableError(None, None, f"{exc} ({self._where()})") from None
        with self._lock:
            self._idle.append(sock)
        if error is not None:
            raise error
        return data

    def recv_tensors(self, step_id, keys, timeout=None):
        """Yields ``(key, serialized RecvTensorResponse)`` for each of ``keys`` of step ``step_id``
        as the task sends them (one ``RTC2`` request; ``timeout`` bounds them all); errors as
        :meth:`recv_tensor`. A caller that stops early loses the connection, not the pool."""
        with self._lock:
            sock = self._idle.pop() if self._idle else None
        left, error = len(keys), None
        try:
            if sock is None:
                sock = self._open()
            sock.settimeout(None if timeout is None else timeout + 5.0)
            request = [_REQUEST.pack(MAGIC_MANY, step_id, -1.0 if timeout is None else float(timeout), len(keys))]
            for key in keys:
                raw = key.encode("utf-8")
                request += (_U32.pack(len(raw)), raw)
            sock.sendall(b"".join(request))
            while left:
                (index,) = _U32.unpack(_read_exact(sock, _U32.size))
                data, error = _read_answer(sock)
                if error is not None:
                    left = 0  # the task ends the request with its error: the connection stays usable
                    break
                if index >= len(keys):
                    raise ConnectionError(f"answer for key {index} of {len(keys)}")
                left -= 1
                yield keys[index], data
                data = None
        except socket.timeout:
            raise errors.DeadlineExceededError(None, None, f"no answer within {timeout:g} s ({self._where()})") \
                from None
        except (OSError, ConnectionError) as exc:
            raise errors.UnavailableError(None, None, f"{exc} ({self._where()})") from None
        finally:
            if sock is not None:
                if left:  # stopped early, or failed: answers may still come on it
                    sock.close()
                else:
                    with self._lock:
                        self._idle.append(sock)
        if error is not None:
            raise error

    def _where(self):
        return f"{self.who}, RPC WorkerService/RecvTensor over ref's tensor channel {self.address}"

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for s in idle:
            s.close()

