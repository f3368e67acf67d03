"""Free TCP ports for cluster specs written before their servers start.

A port found by binding port 0 comes from the kernel's ephemeral range, the same
range outgoing connections draw their local ports from: between picking such a
port and the server binding it, any connect() on the machine (a readiness probe,
a gRPC channel) may take it. So ports are drawn at random from below that range
(``/proc/sys/net/ipv4/ip_local_port_range``) and checked bindable; only where no
such port can be bound does it fall back to port 0.
"""
import random
import socket

__all__ = ["free_ports", "free_port"]

_LOW = 20000  # above the registered services most machines run


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def _bindable(host, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_ports(n, host="127.0.0.1"):
    """``n`` distinct ports of ``host`` that were free a moment ago and that no outgoing
    connection will be given meanwhile."""
    high = _ephemeral_low()
    ports, rng = [], random.SystemRandom()
    for _ in range(200 * max(n, 1)):
        if len(ports) == n or high - _LOW < 1000:
            break
        p = rng.randrange(_LOW, high)
        if p not in ports and _bindable(host, p):
            ports.append(p)
    socks = []
    try:
        while len(ports) < n:  # fall back to ports the kernel picks
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
            if s.getsockname()[1] not in ports:
                ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def free_port(host="127.0.0.1"):
    return free_ports(1, host)[0]
