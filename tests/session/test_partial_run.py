"""Session.partial_run_setup / partial_run against TF: values piece by piece, a
variable update run once across pieces, and TF's errors."""
import pytest

import ref.session  # noqa: F401  (the package these tests cover)
import ref


def _graph(lib):
    a, b, c = (lib.placeholder(lib.float32, []) for _ in range(3))
    r1 = a + b
    r2 = r1 * c
    v = lib.Variable(1.0)
    inc = v.assign_add(1.0)
    r3 = inc * 2.0
    return dict(a=a, b=b, c=c, r1=r1, r2=r2, v=v, inc=inc, r3=r3)


# (setup fetches, setup feeds, pieces: (fetches, feeds)); names refer to _graph
SCRIPTS = [
    ("two_pieces", ["r1", "r2"], ["a", "b", "c"], [(["r1"], dict(a=1, b=2)), (["r2"], dict(c=3))]),
    ("single_fetch", ["r1", "r2"], ["a", "b", "c"], [("r1", dict(a=1, b=2)), ("r2", dict(c=3))]),
    ("feed_then_fetch", ["r2"], ["a", "b", "c"], [([], dict(a=1)), ([], dict(b=5)), (["r2"], dict(c=2))]),
    ("update_once", ["r1", "r3", "r2"], ["a", "b", "c"],
     [(["r3", "r1"], dict(a=1, b=2)), (["r2"], dict(c=3)), (None, "v")]),
    ("target_op", ["inc"], [], [(["inc"], {}), (None, "v")]),
    ("unspecified_fetch", ["r1"], ["a", "b"], [(["r2"], dict(a=1, b=2))]),
    ("fetched_twice", ["r1", "r2"], ["a", "b", "c"], [(["r1"], dict(a=1, b=2)), (["r1"], dict(c=1))]),
    ("fed_twice", ["r1", "r2"], ["a", "b", "c"], [(["r1"], dict(a=1, b=2)), (["r2"], dict(a=1))]),
    ("unspecified_feed", ["r1"], ["a", "b"], [(["r1"], dict(c=1))]),
    ("not_fed_yet", ["r1"], ["a", "b"], [(["r1"], dict(a=1))]),
    ("empty_setup", [], ["a"], []),
]


def _play(lib, fetches, feeds, pieces):
    out = []
    with lib.Graph().as_default():
        g = _graph(lib)
        with lib.Session() as s:
            s.run(g["v"].initializer)
            try:
                h = s.partial_run_setup([g[n] for n in fetches], [g[n] for n in feeds])
                for f, fd in pieces:
                    if f is None:
                        out.append(float(s.run(g[fd])))
                        continue
                    f = g[f] if isinstance(f, str) else [g[n] for n in f]
                    r = s.partial_run(h, f, {g[k]: v for k, v in fd.items()})
                    out.append([float(x) if x is not None else None for x in r] if isinstance(r, list)
                               else (None if r is None else float(r)))
            except lib.errors.OpError as e:
                out.append((type(e).__name__, e.message.split("\n")[-1]))
    return out


@pytest.mark.parametrize("case,fetches,feeds,pieces", SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_partial_run_matches_tf(case, fetches, feeds, pieces):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _play(tf, fetches, feeds, pieces)
    got = _play(ref, fetches, feeds, pieces)
    assert got == want


def test_unknown_handle():
    with ref.Graph().as_default():
        x = ref.constant(1.0)
        with ref.Session() as s:
            with pytest.raises(ref.errors.InvalidArgumentError, match="Must run 'setup'"):
                s.partial_run("nope", x)
