"""A pass-through TCP proxy for partition tests: ``StallProxy(target)``.

It forwards bytes both ways between each accepted connection and ``target``
("host:port"). ``stall()`` stands in for a network partition: nothing is read or
forwarded any more, in either direction, and new connections are accepted but
not forwarded, so neither side sees a reset or a close (as when a cable is cut
or a switch drops packets); only a timeout or a keepalive ping can tell.
``resume()`` heals it: the bytes held in the sockets' buffers flow again.
``cut()`` closes every connection at once (a reset).
"""
import socket
import threading

__all__ = ["StallProxy"]

_CHUNK = 1 << 16


class StallProxy:
    def __init__(self, target, listen_host="127.0.0.1"):
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self._flowing = threading.Event()
        self._flowing.set()
        self._lock = threading.Lock()
        self._socks = []
        self._closed = False
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((listen_host, 0))
        self._listener.listen(64)
        self.address = f"{listen_host}:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True, name="stall-proxy-accept").start()

    def stall(self):
        self._flowing.clear()

    def resume(self):
        self._flowing.set()

    def cut(self):
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            _close(s)

    def stop(self):
        self._closed = True
        self._flowing.set()
        _close(self._listener)
        self.cut()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client):
        self._flowing.wait()  # a connection made during a stall reaches nobody until it heals
        try:
            upstream = socket.create_connection(self.target, timeout=10)
            upstream.settimeout(None)
        except OSError:
            _close(client)
            return
        with self._lock:
            self._socks += [client, upstream]
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while not self._closed:
                self._flowing.wait()
                data = src.recv(_CHUNK)
                if not data:
                    break
                self._flowing.wait()  # read just before a stall: held until it heals
                dst.sendall(data)
        except OSError:
            pass
        _close(src)
        _close(dst)


def _close(s):
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass
