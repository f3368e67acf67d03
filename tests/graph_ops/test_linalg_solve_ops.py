"""tf.linalg.det / slogdet / logdet / solve / cholesky_solve / matvec / cross and
their gradients against TF 2.21 (tf.compat.v1, TF1 behaviour): the same
GraphDef node for node, values to LU rounding, and TF's errors."""
import numpy as np
import pytest

from ref.graph_ops import linalg_solve_ops  # noqa: F401  (the builders under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_RNG = np.random.default_rng(11)
_A = {dt: (_RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(dt) for dt in (np.float32, np.float64)}
_B = {dt: _RNG.standard_normal((2, 3, 2)).astype(dt) for dt in (np.float32, np.float64)}
_SPD = {dt: (a @ np.swapaxes(a, -1, -2) + np.eye(3)).astype(dt) for dt, a in _A.items()}


def _snippet(dt, grads):
    def snippet(tf):
        d = tf.float32 if dt == np.float32 else tf.float64
        a, b = tf.placeholder(d, [2, 3, 3], name="a"), tf.placeholder(d, [2, 3, 2], name="b")
        s = tf.placeholder(d, [2, 3, 3], name="s")
        v, w = tf.placeholder(d, [4, 3], name="v"), tf.placeholder(d, [4, 3], name="w")
        sign, logabs = tf.linalg.slogdet(a)
        outs = [tf.linalg.det(a), sign, logabs, tf.linalg.logdet(s), tf.linalg.solve(a, b),
                tf.matrix_solve(a, b, adjoint=True), tf.linalg.cholesky_solve(tf.cholesky(s), b),
                tf.linalg.matvec(a, b[..., 0]), tf.linalg.matvec(a, b[..., 1], transpose_a=True), tf.cross(v, w),
                tf.matrix_determinant(a)]
        if grads:
            outs += tf.gradients([tf.reduce_sum(o) for o in outs], [a, b, s, v, w])
        feeds = {a: _A[dt], b: _B[dt], s: _SPD[dt], v: _RNG.standard_normal((4, 3)).astype(dt),
                 w: _RNG.standard_normal((4, 3)).astype(dt)}
        return outs, feeds
    return snippet


CASES = [(dt, grads) for dt in (np.float32, np.float64) for grads in (False, True)]
IDS = [f"{np.dtype(dt).name}{'-grads' if g else ''}" for dt, g in CASES]


@pytest.mark.parametrize("dt,grads", CASES, ids=IDS)
def test_graph_def_is_tensorflows(dt, grads):
    assert_same_graph(graph_only(_snippet(dt, grads)))


@pytest.mark.parametrize("dt,grads", CASES, ids=IDS)
def test_values_are_tensorflows(dt, grads):
    import ref
    snippet = _snippet(dt, grads)
    state = _RNG.bit_generator.state
    got = fed_values(ref, snippet)
    _RNG.bit_generator.state = state
    want = fed_values(tf_v1(), snippet)
    rtol = 2e-5 if dt == np.float32 else 1e-12  # LAPACK's getrf/getrs vs Eigen's PartialPivLU: same algorithm,
    for g, w in zip(got, want):                  # other blocking
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * np.abs(w).max())


def test_singular_and_edge_cases_are_tensorflows():
    import ref
    tf = tf_v1()
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])

    def snippet(lib):
        a = lib.constant(sing)
        return [lib.linalg.det(a), lib.linalg.slogdet(a), lib.linalg.det(lib.zeros([2, 0, 0]))], {}

    (d, (sign, logabs), empty), (td, (tsign, tlogabs), tempty) = fed_values(ref, snippet), fed_values(tf, snippet)
    assert abs(d) < 1e-12 and abs(td) < 1e-12
    assert sign == tsign == 0 and logabs == tlogabs == -np.inf
    np.testing.assert_array_equal(empty, tempty)
    for lib, err in ((ref, ref.errors.InvalidArgumentError), (tf, tf.errors.InvalidArgumentError)):
        with pytest.raises(err, match="not invertible"):
            fed_values(lib, lambda t: ([t.linalg.solve(t.constant(sing), t.ones([2, 1], t.float64))], {}))
    for lib in (ref, tf):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            lib.cross(lib.ones([2, 4]), lib.ones([2, 4]))
