"""``gradients_helper`` (TF's ``gradients_util._GradientsHelper``): ``optimize_identity_n``
lets an ``IdentityN`` pass each gradient through alone (an output without a gradient
gives its input none, not zeros), ``src_graph`` names the graph. Which gradients are
None and their values, against TensorFlow, one row per case."""
import numpy as np
import pytest

from ref.grad import gradients_helper as _under_test
import ref


def _build(lib):
    """a, b -> IdentityN -> c, d; e = 2 * c + 3 * d; also a plain Identity of b."""
    a = lib.constant(1.5)
    b = lib.constant([2.0, -1.0])
    c, d = lib.identity_n([a, b])
    e = 2.0 * c + 3.0 * lib.reduce_sum(d)
    f = lib.identity(b)
    return dict(a=a, b=b, c=c, d=d, e=e, f=f)


# (id, y names, x names, optimize_identity_n)
ROWS = [
    ("d-wrt-a-opt", ["d"], ["a"], True),
    ("d-wrt-a", ["d"], ["a"], False),
    ("c-wrt-b-opt", ["c"], ["b"], True),
    ("c-wrt-b", ["c"], ["b"], False),
    ("c-wrt-a-opt", ["c"], ["a"], True),
    ("d-wrt-b-opt", ["d"], ["b"], True),
    ("e-wrt-ab-opt", ["e"], ["a", "b"], True),
    ("cd-wrt-ab-opt", ["c", "d"], ["a", "b"], True),
    ("f-wrt-ab-opt", ["f"], ["a", "b"], True),
]


def _grads(lib, helper, ys, xs, opt):
    g = lib.Graph()
    with g.as_default():
        t = _build(lib)
        out = helper(ys=[t[n] for n in ys], xs=[t[n] for n in xs], src_graph=g, optimize_identity_n=opt)
        with lib.Session() as s:
            return [None if v is None else s.run(v) for v in out]


@pytest.mark.parametrize("rid,ys,xs,opt", ROWS, ids=[r[0] for r in ROWS])
def test_matches_tf(rid, ys, xs, opt):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import gradients_util
    want = _grads(tf, gradients_util._GradientsHelper, ys, xs, opt)
    got = _grads(ref, _under_test, ys, xs, opt)
    assert [g is None for g in got] == [w is None for w in want]
    for g, w in zip(got, want):
        if w is not None:
            np.testing.assert_array_equal(g, w)
