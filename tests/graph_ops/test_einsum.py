"""tf.einsum (the ``Einsum`` kernel in ref/ops/linalg.py, its gradient in
ref/grad/linalg_grad.py) against TensorFlow: the static output shape, the
values, and the gradients of a weighted sum, for a table of equations
(matmul, batch matmul, transpose, reductions, outer products, implicit
outputs, broadcasting ``...``)."""
import numpy as np
import pytest

import ref
from ref.ops.linalg import parse_einsum
from ref.graph_ops import linalg_ops as _under_test  # noqa: F401  (the module these tests cover)

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ij,k->ijk", [(2, 3), (4,)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ijk,j->ik", [(2, 3, 4), (3,)]),
    ("...ij,...jk->...ik", [(1, 2, 3), (4, 3, 5)]),
    ("...i,...i->...", [(3, 2, 4), (2, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]),
]


def _run(lib, equation, xs, weights):
    with lib.Graph().as_default(), lib.Session() as sess:
        ts = [lib.constant(x) for x in xs]
        y = lib.einsum(equation, *ts)
        loss = lib.reduce_sum(y * lib.constant(weights))
        grads = lib.gradients(loss, ts)
        return y.shape.as_list(), sess.run([y, grads])


@pytest.mark.parametrize("equation, shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_and_gradient_match_tf(equation, shapes):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(len(equation))
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = tf.einsum(equation, *xs).numpy()
    weights = rng.standard_normal(want.shape).astype(np.float32)
    static, (got, grads) = _run(ref, equation, xs, weights)
    t_static, (_, t_grads) = _run(tf.compat.v1, equation, xs, weights)
    assert static == t_static == list(want.shape)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for g, t in zip(grads, t_grads):
        assert g.shape == t.shape
        np.testing.assert_allclose(g, t, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("equation, shapes", [("ii->i", [(3, 3)]), ("ii->", [(3, 3)]), ("ij,jk->ik", [(2, 3), (3, 4)]),
                                              ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)])])
def test_raw_kernel_matches_tf_raw_ops(equation, shapes):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s).astype(np.float64) for s in shapes]
    want = tf.raw_ops.Einsum(inputs=xs, equation=equation).numpy()
    got = ref.raw_ops.Einsum(inputs=xs, equation=equation)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("equation, ranks, expected", [
    ("ij,jk->ik", [2, 2], (["ij", "jk"], "ik")),
    ("ij,jk", [2, 2], (["ij", "jk"], "ik")),
    ("ba", [2], (["ba"], "ab")),
    ("...ij,...jk->...ik", [4, 2], (["YZij", "jk"], "YZik")),
    ("i...,i...", [3, 1], (["iYZ", "i"], "YZ")),
])
def test_parse_einsum(equation, ranks, expected):
    assert parse_einsum(equation, ranks) == expected


@pytest.mark.parametrize("equation, shapes, match", [
    ("ij,jk->ik", [(2, 3)], "Expecting 2 inputs"),
    ("ijk->i", [(2, 3)], "does not match the subscripts"),
    ("ij->ix", [(2, 3)], "Invalid output subscripts"),
    ("ij->ijj", [(2, 3)], "Output subscripts contain a label appearing more than once"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "Expected dimension"),
])
def test_construction_errors(equation, shapes, match):
    with ref.Graph().as_default():
        with pytest.raises(ValueError, match=match):
            ref.einsum(equation, *[ref.zeros(s) for s in shapes])


def test_raw_kernel_needs_an_explicit_output():
    with pytest.raises(ref.errors.InvalidArgumentError, match="Expecting exactly one '->'"):
        ref.raw_ops.Einsum(inputs=[np.eye(2)], equation="ii")
    assert ref.raw_ops.Einsum(inputs=[np.eye(2)], equation="ii->") == 2.0
