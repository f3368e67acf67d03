"""Session.reset("", containers) against TF: every open in-process session is
closed (its runs raise CancelledError), a new session starts uninitialised, and
tf.container names the container of the variables built under it."""
import pytest

import ref.session  # noqa: F401  (the package these tests cover)
import ref

CONTAINERS = [["c1"], ["c1", "c2"], [""], ["zzz"], None]


def _play(lib, containers):
    out = []
    with lib.Graph().as_default():
        with lib.container("c1"):
            a = lib.Variable(1.0, name="a", use_resource=False)
        with lib.container("c2"):
            b = lib.Variable(2.0, name="b", use_resource=False)
        d = lib.Variable(3.0, name="d", use_resource=False)
        out.append([v.op.get_attr("container") for v in (a, b, d)])
        s = lib.Session()
        s.run(lib.global_variables_initializer())
        lib.Session.reset("", containers)
        for sess in (s, lib.Session()):
            for v in (a, b, d):
                try:
                    out.append(float(sess.run(v)))
                except lib.errors.OpError as e:
                    out.append(type(e).__name__)
    return [[c.decode() if isinstance(c, bytes) else c for c in out[0]]] + out[1:]


@pytest.mark.parametrize("containers", CONTAINERS)
def test_reset_closes_local_sessions_like_tf(containers):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _play(ref, containers) == _play(tf, containers)


# Session.reset on a target no session factory takes, and on a grpc target with no
# server there within the operation timeout: TF's error kinds.
RESET_ERROR_ROWS = [
    ("unknown-target", "nonexistent", None, "NotFoundError"),
    ("no-server-within-timeout", "grpc://localhost:0", 5, "DeadlineExceededError"),
]


@pytest.mark.parametrize("rid,target,timeout_ms,kind", RESET_ERROR_ROWS, ids=[r[0] for r in RESET_ERROR_ROWS])
def test_reset_errors_match_tf(rid, target, timeout_ms, kind):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        config = lib.ConfigProto(operation_timeout_in_ms=timeout_ms) if timeout_ms else None
        with pytest.raises(getattr(lib.errors, kind)):
            lib.Session.reset(target, ["test0"], config=config)
