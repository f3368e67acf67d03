"""TF1 names ref lacked: ``tf.segment_mean``, ``tf.unsorted_segment_mean``, ``tf.unsorted_segment_sqrt_n``,
``tf.segment_max``/``min``/``prod`` (and the gradient of ``UnsortedSegmentProd`` over rows),
``tf.lgamma``, ``tf.digamma``, ``tf.zeta``, ``tf.polygamma``, ``tf.roll``
(and their ``tf.math.*`` spellings). Each row builds one snippet with both
libraries: the GraphDefs (gradients included) are identical, and the fetched
values equal TF's."""
import numpy as np
import pytest

from ref.graph_ops import math_special as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_X = np.array([[0.5, 1.5, 2.0], [3.25, 7.0, 0.1], [-0.5, 9.0, 4.0], [1.0, 2.0, 30.0]])


def segment_mean(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    y = tf.segment_mean(x, [0, 0, 1, 1]) + tf.math.segment_mean(x, tf.constant([0, 1, 1, 1], tf.int64))
    z = tf.segment_mean(x, [0, 0, 2, 2], name="empty_middle")
    return [y, z] + tf.gradients([y, z], [x]), {x: _X.astype(np.float32)}


def segment_mean_int(tf):
    x = tf.constant([[7, -7], [2, 3], [5, 5]])
    return [tf.segment_mean(x, [0, 0, 1], name="m")], {}


def unsorted_segment_mean(tf):
    x = tf.placeholder(tf.float64, [4, 3], name="x")
    y = tf.unsorted_segment_mean(x, [2, -1, 0, 2], 4)
    z = tf.math.unsorted_segment_mean(x, tf.constant([[0, 1, 1], [0, 0, 0], [2, 2, 1], [1, 1, 1]]), 3, name="u")
    return [y, z] + tf.gradients([y, z], [x]), {x: _X}


def unsorted_segment_mean_unknown_shape(tf):
    x = tf.placeholder(tf.float32, None, name="x")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    n = tf.placeholder(tf.int32, [], name="n")
    return [tf.unsorted_segment_mean(x, ids, n)], {x: _X.astype(np.float32), ids: [1, 0, 1, 3], n: 5}


def unsorted_segment_sqrt_n(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    y = tf.unsorted_segment_sqrt_n(x, [2, -1, 2, 2], 4)
    z = tf.math.unsorted_segment_sqrt_n(tf.cast(x, tf.float64), tf.constant([[0, 1, 1], [0, 0, 0], [2, 2, 1],
                                                                             [1, 1, 1]], tf.int64), 3, name="s")
    return [y, z] + tf.gradients([y, z], [x]), {x: _X.astype(np.float32)}


def segment_max_min_prod(tf):
    x = tf.placeholder(tf.float64, [5, 3], name="x")
    ids = [0, 0, 2, 2, 3]
    ys = [tf.segment_max(x, ids), tf.math.segment_min(x, tf.constant(ids, tf.int64), name="mn"),
          tf.segment_prod(x, ids), tf.segment_prod(x * tf.constant([[0.0], [1.0], [0.0], [0.0], [1.0]], tf.float64),
                                                   ids, name="zeros")]
    feeds = {x: np.array([[1.0, 5.0, 2.0], [1.0, -3.0, 4.0], [0.5, 2.0, 2.0], [7.0, 2.0, -1.0], [3.0, 3.0, 3.0]])}
    return ys + tf.gradients(ys, [x]), feeds


def segment_max_min_prod_int(tf):
    x = tf.constant([[7, -7], [2, 3], [5, 5]])
    return [tf.segment_max(x, [0, 0, 2]), tf.segment_min(x, [1, 1, 1]), tf.segment_prod(x, [0, 2, 2])], {}


def unsorted_segment_prod_rows(tf):
    x = tf.placeholder(tf.float32, [6, 2], name="x")
    y = tf.unsorted_segment_prod(x, [0, 1, -1, 1, 0, 2], 4)
    feeds = {x: np.array([[1.0, 2.0], [0.0, 3.0], [4.0, 5.0], [2.0, 0.0], [0.0, 0.0], [6.0, 7.0]], np.float32)}
    return [y] + tf.gradients(y, [x]), feeds


def _special(dtype):
    def snippet(tf):
        x = tf.placeholder(getattr(tf, dtype), [4, 3], name="x")
        ys = [tf.lgamma(x), tf.math.lgamma(x, name="lg"), tf.digamma(x), tf.math.digamma(x)]
        return ys + tf.gradients(ys, [x]), {x: _X.astype(dtype)}
    return snippet


def zeta_polygamma(tf):
    x = tf.placeholder(tf.float64, [4, 3], name="x")
    q = tf.placeholder(tf.float64, [3], name="q")
    n = tf.constant([0.0, 1.0, 2.0], tf.float64)
    ys = [tf.zeta(x + 1.5, q), tf.math.zeta(3.0 * tf.ones_like(x), x + 1.0), tf.polygamma(n, x + 1.0),
          tf.math.polygamma(tf.constant(3.0, tf.float64), q)]
    feeds = {x: np.abs(_X), q: np.array([0.5, 2.0, 7.5])}
    return ys + tf.gradients(ys, [x, q]), feeds


def zeta_float32_unknown(tf):
    x = tf.placeholder(tf.float32, None, name="x")
    q = tf.placeholder(tf.float32, None, name="q")
    y = tf.zeta(x, q)
    return [y] + tf.gradients(y, [q]), {x: [2.0, 3.0, 1.5], q: [[1.0], [2.5]]}


def rolls(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    ys = [tf.roll(x, 1, 0), tf.roll(x, [2, -1], [0, 1], name="r"), tf.roll(x, tf.constant([1, 1], tf.int64), [1, 1])]
    return ys + tf.gradients(ys, [x]), {x: _X.astype(np.float32)}


ROWS = [
    pytest.param(segment_mean, id="segment_mean"),
    pytest.param(segment_mean_int, id="segment_mean_int"),
    pytest.param(unsorted_segment_mean, id="unsorted_segment_mean"),
    pytest.param(unsorted_segment_mean_unknown_shape, id="unsorted_segment_mean_unknown_shape"),
    pytest.param(unsorted_segment_sqrt_n, id="unsorted_segment_sqrt_n"),
    pytest.param(segment_max_min_prod, id="segment_max_min_prod"),
    pytest.param(segment_max_min_prod_int, id="segment_max_min_prod_int"),
    pytest.param(unsorted_segment_prod_rows, id="unsorted_segment_prod_rows"),
    pytest.param(_special("float32"), id="lgamma_digamma_float32"),
    pytest.param(_special("float64"), id="lgamma_digamma_float64"),
    pytest.param(zeta_polygamma, id="zeta_polygamma"),
    pytest.param(zeta_float32_unknown, id="zeta_float32_unknown"),
    pytest.param(rolls, id="rolls"),
]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", ROWS)
def test_values_equal_tf(snippet):
    import ref

    tf = tf_v1()
    want = fed_values(tf, snippet)
    got = fed_values(ref, snippet)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        tol = 1e-5 if np.asarray(w).dtype == np.float32 else 1e-12
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])


def inverse_and_cholesky(dtype):
    def snippet(tf):
        a = tf.placeholder(getattr(tf, dtype), [2, 3, 3], name="a")
        ys = [tf.matrix_inverse(a), tf.linalg.inv(a, adjoint=True, name="inv_adj"), tf.cholesky(a),
              tf.linalg.cholesky(a, name="chol")]
        return ys + tf.gradients(ys, [a]), {a: np.stack([_SPD, _SPD.T @ _SPD]).astype(dtype)}
    return snippet


def inverse_unknown_shape(tf):
    a = tf.placeholder(tf.float64, [None, None], name="a")
    y = tf.cholesky(tf.matrix_inverse(a))
    return [y] + tf.gradients(y, [a]), {a: _SPD}


LINALG_ROWS = [
    pytest.param(inverse_and_cholesky("float32"), id="inverse_cholesky_float32"),
    pytest.param(inverse_and_cholesky("float64"), id="inverse_cholesky_float64"),
    pytest.param(inverse_unknown_shape, id="inverse_cholesky_unknown_shape"),
]


@pytest.mark.parametrize("snippet", LINALG_ROWS)
def test_linalg_same_graph_as_tf(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", LINALG_ROWS)
def test_linalg_values_equal_tf(snippet):
    test_values_equal_tf(snippet)


KERNEL_ERRORS = [  # (op, kwargs): TF's kernel raises InvalidArgumentError, and so does ref's
    ("MatrixInverse", dict(input=np.array([[1.0, 2.0], [2.0, 4.0]]))),
    ("Roll", dict(input=np.arange(4.0), shift=np.array([1, 2], np.int32), axis=np.array([0], np.int32))),
    ("Roll", dict(input=np.arange(4.0), shift=np.int32(1), axis=np.int32(1))),
    ("SegmentMean", dict(data=np.arange(3.0), segment_ids=np.array([1, 0, 0], np.int32))),
]


@pytest.mark.parametrize("op,kwargs", KERNEL_ERRORS, ids=[r[0] for r in KERNEL_ERRORS])
def test_kernel_errors_as_tf(op, kwargs):
    import ref

    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError):
        getattr(tf.raw_ops, op)(**kwargs)
    with pytest.raises(ref.errors.InvalidArgumentError):
        getattr(ref.raw_ops, op)(**kwargs)


def test_cholesky_of_a_matrix_not_positive_definite_is_nan_as_tf():
    import ref

    tf = pytest.importorskip("tensorflow")
    a = np.stack([np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([[4.0, 2.0], [2.0, 5.0]])])
    want, got = tf.raw_ops.Cholesky(input=a).numpy(), np.asarray(ref.raw_ops.Cholesky(input=a))
    np.testing.assert_array_equal(np.isnan(got[0]), np.ones((2, 2), bool))
    assert np.isnan(want[0][np.tril_indices(2)]).all()
    np.testing.assert_allclose(got[1], want[1], rtol=1e-15)


def bincounts(tf):
    arr = tf.placeholder(tf.int32, [2, 3], name="arr")
    w = tf.placeholder(tf.float64, [2, 3], name="w")
    ys = [tf.bincount(arr), tf.math.bincount(arr, weights=w, minlength=9), tf.bincount(arr, maxlength=3,
                                                                                           dtype=tf.int64),
          tf.bincount([2, 0, 2], minlength=2, maxlength=8, dtype=tf.float32)]
    return ys, {arr: [[1, 1, 4], [0, 6, 1]], w: [[0.5, 1.5, 2.0], [3.0, 4.0, 5.0]]}


def bincount_unknown_and_empty(tf):
    arr = tf.placeholder(tf.int64, None, name="arr")
    e = tf.placeholder(tf.int32, [None], name="e")
    return [tf.bincount(arr), tf.bincount(e, minlength=2)], {arr: [[3, 0], [3, 3]], e: np.zeros([0], np.int32)}


def unique_with_counts(tf):
    x = tf.placeholder(tf.float32, [7], name="x")
    y, idx, count = tf.unique_with_counts(x)
    y64 = tf.unique_with_counts(tf.constant([3, 1, 3, 3, 2]), out_idx=tf.int64, name="u64")
    return [y, idx, count] + list(y64), {x: [2.5, 1.0, 2.5, -3.0, 1.0, 2.5, 7.0]}


COUNT_ROWS = [
    pytest.param(bincounts, id="bincounts"),
    pytest.param(bincount_unknown_and_empty, id="bincount_unknown_and_empty"),
    pytest.param(unique_with_counts, id="unique_with_counts"),
]


@pytest.mark.parametrize("snippet", COUNT_ROWS)
def test_counting_same_graph_as_tf(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", COUNT_ROWS)
def test_counting_values_equal_tf(snippet):
    test_values_equal_tf(snippet)


def lbetas(tf):
    x = tf.placeholder(tf.float64, [4, 3], name="x")
    ys = [tf.lbeta(x + 1.0), tf.math.lbeta(tf.abs(x) + 0.5, name="lb")]
    return ys + tf.gradients(ys, [x]), {x: _X}


def searches(tf):
    s = tf.placeholder(tf.float32, [2, 4], name="s")
    v = tf.placeholder(tf.float32, [2, 3], name="v")
    u = tf.placeholder(tf.int64, None, name="u")
    ys = [tf.searchsorted(s, v), tf.searchsorted(s, v, side="right", out_type=tf.int64, name="ss"),
          tf.searchsorted(u, u)]
    return ys, {s: [[0, 1, 1, 3], [-2, 0, 5, 9]], v: [[1, 2, -1], [9, 10, 0]], u: [[1, 3, 3], [0, 2, 4]]}


def unravel_and_histogram(tf):
    i = tf.placeholder(tf.int32, [4], name="i")
    x = tf.placeholder(tf.float32, [7], name="x")
    ys = [tf.unravel_index(i, [3, 4]), tf.unravel_index(tf.constant(5, tf.int64), tf.constant([2, 3], tf.int64)),
          tf.histogram_fixed_width(x, [0.0, 5.0], nbins=5),
          tf.histogram_fixed_width(x, tf.constant([-1.0, 2.0]), 3, dtype=tf.int64, name="h")]
    return ys, {i: [0, 7, 11, 5], x: [-1.0, 0.0, 1.5, 2.0, 5.0, 12.0, 4.999]}


SEARCH_ROWS = [
    pytest.param(lbetas, id="lbeta"),
    pytest.param(searches, id="searchsorted"),
    pytest.param(unravel_and_histogram, id="unravel_index_histogram_fixed_width"),
]


@pytest.mark.parametrize("snippet", SEARCH_ROWS)
def test_search_same_graph_as_tf(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", SEARCH_ROWS)
def test_search_values_equal_tf(snippet):
    test_values_equal_tf(snippet)


def eigh(tf):
    a = tf.placeholder(tf.float64, [2, 3, 3], name="a")
    e, v = tf.self_adjoint_eig(a)
    e2, v2 = tf.linalg.eigh(a, name="eigh")
    vals = tf.self_adjoint_eigvals(a)
    # sign-independent fetches: eigenvalues, |v|, and losses invariant to each column's sign
    loss = tf.reduce_sum(e * e) + tf.reduce_sum(tf.square(v2)[:, 0, :]) + tf.reduce_sum(vals)
    return [e, tf.abs(v), e2, vals] + tf.gradients(loss, [a]), {a: np.stack([_SPD, _SPD.T @ _SPD])}


EIG_ROWS = [pytest.param(eigh, id="self_adjoint_eig")]


@pytest.mark.parametrize("snippet", EIG_ROWS)
def test_eig_same_graph_as_tf(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", EIG_ROWS)
def test_eig_values_equal_tf(snippet):
    test_values_equal_tf(snippet)


def edit_distances(tf):
    hyp = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]], ["a", "b", "c", "x", "y"],
                          [2, 2, 2])
    truth = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1]], ["a", "c", "z", "c", "d"],
                            [2, 2, 3])
    ys = [tf.edit_distance(hyp, truth), tf.edit_distance(hyp, truth, normalize=False, name="raw")]
    ind = tf.placeholder(tf.int64, [None, 2], name="ind")
    val = tf.placeholder(tf.int32, [None], name="val")
    shp = tf.placeholder(tf.int64, [2], name="shp")
    ys.append(tf.edit_distance(tf.SparseTensor(ind, val, shp), tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 3],
                                                                               [2, 2])))
    return ys, {ind: [[0, 0], [0, 1], [0, 2], [1, 1]], val: [1, 3, 2, 3], shp: [2, 3]}


@pytest.mark.parametrize("check", [test_same_graph_as_tf, test_values_equal_tf], ids=["graph", "values"])
def test_edit_distance_as_tf(check):
    check(edit_distances)
