"""``Session(target)`` finds the implementation of a remote target on its own.

A ``grpc://`` target is handled by ``ref.distributed.remote_session``, which
registers itself with the Session when imported. A Session created before
anything imported ``ref.distributed`` must still talk to the master (it once ran
the graph locally and returned local numbers). Each row runs in a fresh
interpreter, so that ``ref.distributed`` is really not loaded yet; the oracle
is the server's state: a variable initialized there (to a value no local run
could produce) is read back by a graph that never initializes it.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ref
import ref.session.session  # noqa: F401  what this file tests: Session's target registry

pytest.importorskip("grpc")
from ref.distributed.server import Server  # noqa: E402

BOUND = 120  # seconds: a generous bound for the subprocess

CLIENT = textwrap.dedent("""
    import sys
    from ref.framework.graph import Graph
    from ref.graph_ops.variables import Variable
    from ref.session.session import Session
    from ref.types import errors

    g = Graph()
    with g.as_default():
        v = Variable(0.0, name="v")
        y = v * 2.0
    assert "ref.distributed" not in sys.modules, "imported too early"
    {make}
    assert "ref.distributed.remote_session" in sys.modules
    try:
        print("VALUE", repr(float(s.run(y))))
    except errors.FailedPreconditionError:
        print("LOCAL")  # the graph ran here, on a Session of its own
""")

MAKERS = {
    "Session(target)": "s = Session(TARGET, graph=g)",
    "Session(bytes target)": "s = Session(TARGET.encode(), graph=g)",
}


@pytest.fixture(scope="module")
def server_with_v():
    """A gRPC server whose variable ``v`` holds 21.5 (written through a Session on it)."""
    server = Server.create_local_server()
    g = ref.Graph()
    with g.as_default():
        v = ref.Variable(21.5, name="v")
        with ref.Session(server.target) as s:
            s.run(v.initializer)
            assert s.run(v) == np.float32(21.5)
    yield server
    server.stop()


@pytest.mark.parametrize("make", sorted(MAKERS))
def test_a_grpc_session_made_before_ref_distributed_runs_on_the_master(server_with_v, make):
    code = CLIENT.format(make=MAKERS[make].replace("TARGET", repr(server_with_v.target)))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=BOUND)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split()[-2:] == ["VALUE", "43.0"], r.stdout


def test_a_local_target_needs_no_handler():
    """Targets without a registered scheme (here ``""``) still run in this process."""
    code = textwrap.dedent("""
        import sys
        from ref.framework.graph import Graph
        from ref.graph_ops.array_ops import constant
        from ref.session.session import Session
        g = Graph()
        with g.as_default():
            y = constant(3.0) * 2.0
        with Session("", graph=g) as s:
            print("VALUE", float(s.run(y)))
        print("LOADED", "ref.distributed" in sys.modules)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=BOUND)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["VALUE", "6.0", "LOADED", "False"], r.stdout
