"""NN kernels (ref/ops/nn.py): float64 NumPy oracles of TF's formulas,
``tf.raw_ops`` comparisons within tests/ops/tf_budgets.py, run-time errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ref.ops.nn  # noqa: F401  (registers the ops)
from ref.types import dtypes, errors
from ref.ops import eigen_reduce, registry
from ref import numpy_reference as npr
from tests.ops.math_cases import nn_rows
from tests.ops.tf_budgets import TF_BUDGETS

NN_OPS = sorted(n for n, d in registry.registered().items() if d.kernel.__module__ == "ref.ops.nn")


# Oracles written from the documented formulas, in float64 (ref/numpy_reference.py).
ORACLES = sorted(npr.ACTIVATIONS.items())


@pytest.mark.parametrize("op,oracle", ORACLES, ids=[r[0] for r in ORACLES])
@settings(max_examples=10, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple), seed=st.integers(0, 2**16))
def test_activation_vs_numpy(op, oracle, shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape) * 4
    got = registry.call(op, features=x) if op not in ("Softmax", "LogSoftmax") else registry.call(op, logits=x)
    assert got.dtype == np.float64 and got.shape == shape
    np.testing.assert_allclose(got, oracle(x), rtol=1e-13, atol=1e-15)


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 4), classes=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_cross_entropy_vs_numpy(batch, classes, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, classes)) * 3
    labels = rng.integers(0, classes, batch)
    onehot = np.eye(classes)[labels]
    p = npr.softmax(x)
    want_loss = -np.log(p[np.arange(batch), labels])
    loss, backprop = registry.call("SoftmaxCrossEntropyWithLogits", features=x, labels=onehot)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-12)
    np.testing.assert_allclose(backprop, p - onehot, atol=1e-15)
    sloss, sbackprop = registry.call("SparseSoftmaxCrossEntropyWithLogits", features=x, labels=labels)
    np.testing.assert_allclose(sloss, want_loss, rtol=1e-12)
    np.testing.assert_allclose(sbackprop, p - onehot, atol=1e-15)


F = np.float32
BEHAVIOUR = [
    ("Elu-is-exp-minus-one", "Elu", {"features": F([-1e-30])}, F([0])),
    ("Softplus-large", "Softplus", {"features": F([100])}, F([100])),
    ("Softplus-tiny", "Softplus", {"features": F([-100])}, np.exp(F([-100]))),
    ("ReluGrad", "ReluGrad", {"gradients": F([1, 2, 3]), "features": F([-1, 0, 1])}, F([0, 0, 3])),
    ("Relu6Grad", "Relu6Grad", {"gradients": F([1, 2, 3]), "features": F([-1, 3, 6])}, F([0, 2, 0])),
    ("EluGrad", "EluGrad", {"gradients": F([2, 2]), "outputs": F([-0.5, 3])}, F([1, 2])),
    ("LeakyReluGrad", "LeakyReluGrad", {"gradients": F([2, 2]), "features": F([-1, 1]), "alpha": 0.5}, F([1, 2])),
    ("SoftsignGrad", "SoftsignGrad", {"gradients": F([4]), "features": F([-1])}, F([1])),
    ("BiasAdd-NCHW", "BiasAdd", {"value": np.zeros((1, 2, 1, 2), F), "bias": F([1, 2]), "data_format": "NCHW"},
     F([[[[1, 1]], [[2, 2]]]])),
    ("BiasAddGrad", "BiasAddGrad", {"out_backprop": np.ones((2, 3, 4), F)}, F([6, 6, 6, 6])),
    ("L2Loss", "L2Loss", {"t": F([1, 2, 3])}, F(7)),
    ("InTopKV2-tie-counts-for-target", "InTopKV2", {"predictions": F([[1, 2, 2, 0]]), "targets": np.int32([1]),
                                                    "k": np.int32(1)}, np.array([True])),
    ("InTopKV2-out-of-range", "InTopKV2", {"predictions": F([[1, 2]]), "targets": np.int32([5]),
                                           "k": np.int32(2)}, np.array([False])),
    ("InTopKV2-nonfinite", "InTopKV2", {"predictions": F([[np.inf, 2]]), "targets": np.int32([0]),
                                        "k": np.int32(2)}, np.array([False])),
]


@pytest.mark.parametrize("rid,op,kwargs,expected", BEHAVIOUR, ids=[r[0] for r in BEHAVIOUR])
def test_behaviour(rid, op, kwargs, expected):
    got = np.asarray(registry.call(op, **kwargs))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


ERRORS = [
    ("sparse-label-out-of-range", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((2, 3), F), "labels": np.int32([0, 3])}, "outside the valid range of \\[0, 3\\)"),
    ("sparse-label-negative", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((2, 3), F), "labels": np.int64([-1, 0])}, "label value of -1"),
    # TF's kernel checks (sparse_xent_op.cc), in its order and wording
    ("sparse-logits-rank", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((2, 1, 3), F), "labels": np.int32([0, 1])}, r"logits must be 2-D, but got shape \[2,1,3\]"),
    ("sparse-labels-rank", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((1, 3), F), "labels": np.int32(0)}, r"labels must be 1-D, but got shape \[\]"),
    ("sparse-first-dim", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((2, 3), F), "labels": np.int32([0])},
     r"same first dimension, got logits shape \[2,3\] and labels shape \[1\]"),
    ("sparse-no-class", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((0, 0), F), "labels": np.int32([])}, r"at least one class, but got logits shape \[0,0\]"),
    ("bias-size", "BiasAdd", {"value": np.zeros((2, 3), F), "bias": np.zeros(2, F)}, "as many biases"),
    ("bias-rank", "BiasAdd", {"value": np.zeros(3, F), "bias": np.zeros(3, F)}, "at least 2D"),
    ("relu-grad-shapes", "ReluGrad", {"gradients": np.zeros(3, F), "features": np.zeros(2, F)}, "same shape"),
    # TF's data_format_ops checks, in its wording
    ("dimmap-length", "DataFormatDimMap", {"x": np.int32([0]), "src_format": "NHWCX1", "dst_format": "NCHWX1"},
     "Source format must be of length 4 or 5, received src_format = NHWCX1"),
    ("dimmap-duplicate", "DataFormatDimMap", {"x": np.int32([0]), "src_format": "NHHW", "dst_format": "NHWH"},
     "Destination and source format must determine a permutation, got NHHW and NHWH"),
    ("vecpermute-dst-length", "DataFormatVecPermute", {"x": np.int32([0, 1, 2, 3]), "dst_format": "NCH"},
     "Destination format must be of length 4 or 5, received dst_format = NCH"),
    ("vecpermute-size", "DataFormatVecPermute", {"x": np.int32([0, 1, 2]), "src_format": "NHWC"},
     r"1D input must be of size 2 or 4, but got shape \[3\]"),
    ("vecpermute-second-dim", "DataFormatVecPermute", {"x": np.int32([[0, 1, 2]] * 4)},
     r"Second dimension of 2D input must be of size 2, but got shape \[4,3\]"),
    ("vecpermute-no-hw", "DataFormatVecPermute", {"x": np.int32([1, 2]), "src_format": "NQWC", "dst_format": "NCQW"},
     "Format specifier must contain H and W for 2D case"),
    ("xent-shapes", "SoftmaxCrossEntropyWithLogits", {"features": np.zeros((2, 3), F), "labels": np.zeros((2, 4), F)},
     "broadcastable"),
]


@pytest.mark.parametrize("rid,op,kwargs,match", ERRORS, ids=[r[0] for r in ERRORS])
def test_runtime_errors(rid, op, kwargs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        registry.call(op, **kwargs)


@pytest.mark.parametrize("rid,op,kwargs,match", [r for r in ERRORS if r[0].startswith(("sparse-", "dimmap-", "vecp"))],
                         ids=[r[0] for r in ERRORS if r[0].startswith(("sparse-", "dimmap-", "vecp"))])
def test_runtime_errors_match_tf(rid, op, kwargs, match):
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        getattr(tf.raw_ops, op)(**kwargs)


def test_sparse_xent_bfloat16_matches_tf():
    """bfloat16 logits run (computed in float32, rounded back); TF's Eigen works in
    bfloat16 itself, so values agree to one bfloat16 ULP (8 significant bits)."""
    tf = pytest.importorskip("tensorflow")
    x = (np.arange(12).reshape(3, 4) / 7 - 0.5).astype(dtypes.bfloat16.np)
    labels = np.int32([3, 0, 2])
    got = registry.call("SparseSoftmaxCrossEntropyWithLogits", features=x, labels=labels)
    want = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=labels)
    for g, w in zip(got, want):
        assert g.dtype == dtypes.bfloat16.np
        np.testing.assert_allclose(g.astype(np.float32), w.numpy().astype(np.float32), rtol=2 ** -7, atol=2 ** -9)


ROWS = nn_rows()


@pytest.mark.parametrize("rid,op,kwargs", ROWS, ids=[r[0] for r in ROWS])
def test_vs_tf_raw_ops(rid, op, kwargs):
    tf = pytest.importorskip("tensorflow")
    from tests.ops.tf_compare import distance

    d = distance(tf, op, kwargs)
    assert d <= TF_BUDGETS[op], f"{rid}: {d} ULP from tf.raw_ops.{op} > budget {TF_BUDGETS[op]}"


def test_every_nn_op_has_a_budget_and_a_tf_row():
    exercised = {r[1] for r in ROWS}
    assert [op for op in NN_OPS if op not in TF_BUDGETS] == []
    assert [op for op in NN_OPS if op not in exercised] == []


# -- graph functions: ref.session.Session vs tensorflow.compat.v1 graphs -----

def _nn_graph_cases():
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((4, 5)) * 2).astype(np.float32)
    z = rng.uniform(0, 1, (4, 5)).astype(np.float32)
    z3 = rng.uniform(0, 1, (2, 3, 5)).astype(np.float32)
    x3 = (rng.standard_normal((2, 3, 5)) * 2).astype(np.float32)
    lab = np.int32([0, 4, 2, 1])
    return [
        ("relu-family", lambda n, a, b: n.relu(a) + n.relu6(a) + n.elu(a) + n.selu(a) + n.softsign(a), x, z),
        ("softplus", lambda n, a, b: n.softplus(a), x, z),
        ("leaky_relu", lambda n, a, b: n.leaky_relu(a, alpha=0.1), x, z),
        ("softmax", lambda n, a, b: n.softmax(a), x, z),
        ("softmax-axis0", lambda n, a, b: n.softmax(a, axis=0), x, z),
        ("log_softmax-dim", lambda n, a, b: n.log_softmax(a, dim=-1), x, z),
        ("bias_add", lambda n, a, b: n.bias_add(a, [1.0, 2.0, 3.0, 4.0, 5.0]), x, z),
        ("l2_loss", lambda n, a, b: n.l2_loss(a), x, z),
        ("xent", lambda n, a, b: n.softmax_cross_entropy_with_logits(labels=b, logits=a), x, z),
        ("xent-v2", lambda n, a, b: n.softmax_cross_entropy_with_logits_v2(labels=b, logits=a), x, z),
        ("xent-v2-rank3", lambda n, a, b: n.softmax_cross_entropy_with_logits_v2(labels=b, logits=a), x3, z3),
        ("sparse-xent", lambda n, a, b: n.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=a), x, z),
        ("sigmoid-xent", lambda n, a, b: n.sigmoid_cross_entropy_with_logits(labels=b, logits=a), x, z),
        ("weighted-xent", lambda n, a, b: n.weighted_cross_entropy_with_logits(labels=b, logits=a, pos_weight=2.0),
         x, z),
        ("l2_normalize", lambda n, a, b: n.l2_normalize(a, axis=1), x, z),
        ("moments-mean", lambda n, a, b: n.moments(a, [0])[0], x, z),
        ("moments-variance-keep", lambda n, a, b: n.moments(a, [0, 1], keep_dims=True)[1], x, z),
        ("in_top_k", lambda n, a, b: n.in_top_k(a, lab, 2), x, z),
        ("zero_fraction", lambda n, a, b: n.zero_fraction(n.relu(a)), x, z),
    ]


NN_GRAPH_CASES = _nn_graph_cases()


@pytest.mark.parametrize("rid,build,xv,zv", NN_GRAPH_CASES, ids=[r[0] for r in NN_GRAPH_CASES])
def test_graph_vs_tf_compat_v1(rid, build, xv, zv):
    tf = pytest.importorskip("tensorflow")
    import ref.ops
    from ref.graph_ops import nn_ops
    from ref.graph_ops.control_flow_ops import placeholder
    from ref.framework.graph import Graph
    from ref.session import Session
    from tests.ops.tf_compare import flush_subnormals
    from ref.golden.ulp import ulp_distance

    ref.ops.load_all()
    with Graph().as_default():
        a, b = placeholder("float32", xv.shape), placeholder("float32", zv.shape)
        out = build(nn_ops, a, b)
        with Session() as sess:
            got = np.asarray(sess.run(out, {a: xv, b: zv}))
    tg = tf.Graph()
    with tg.as_default():
        ta, tb = tf.compat.v1.placeholder(tf.float32, xv.shape), tf.compat.v1.placeholder(tf.float32, zv.shape)
        tout = build(tf.compat.v1.nn, ta, tb)
        assert out.shape.as_list() == tout.shape.as_list() and out.dtype.name == tout.dtype.name
        with tf.compat.v1.Session(graph=tg) as sess:
            want = np.asarray(sess.run(tout, {ta: xv, tb: zv}))
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        assert ulp_distance(flush_subnormals(got), flush_subnormals(want)).max() <= 64
    else:
        np.testing.assert_array_equal(got, want)


def test_dropout_keeps_and_scales():
    import ref.ops
    from ref.graph_ops import nn_ops
    from ref.framework.graph import Graph
    from ref.framework.op_def_library import constant
    from ref.session import Session

    ref.ops.load_all()
    x = np.ones((200, 50), np.float32)
    with Graph().as_default():
        out = nn_ops.dropout(constant(x), keep_prob=0.8, seed=3)
        with Session() as sess:
            y = sess.run(out)
    assert set(np.unique(y)) <= {np.float32(0), np.float32(1) / np.float32(0.8)}
    assert 0.75 < np.mean(y != 0) < 0.85  # 10000 Bernoulli(0.8) draws


NN_GRAPH_ERRORS = [
    ("sparse-rank", lambda n, g: n.sparse_softmax_cross_entropy_with_logits(
        labels=g.constant(np.zeros((2, 3), np.int32)), logits=g.constant(np.zeros((2, 3), np.float32))),
     ValueError, r"`labels\.shape\.rank` must equal `logits\.shape\.rank - 1`"),  # TF 2.21's message
    ("sigmoid-shapes", lambda n, g: n.sigmoid_cross_entropy_with_logits(
        labels=g.constant(np.zeros((2, 3), np.float32)), logits=g.constant(np.zeros((2, 4), np.float32))),
     ValueError, r"\(2, 4\) vs \(2, 3\)|\[2,4\] vs \[2,3\]|same shape"),
    # TF 2.21's compat.v1 losses take (labels, logits) by position: one argument misses logits
    ("labels-only", lambda n, g: n.softmax_cross_entropy_with_logits(g.constant([1.0])), ValueError,
     "Both `labels` and `logits` must be provided for softmax_cross_entropy_with_logitsReceived"),
    ("sparse-labels-only", lambda n, g: n.sparse_softmax_cross_entropy_with_logits(g.constant([1])), ValueError,
     "Both `labels` and `logits` must be provided for sparse_softmax_cross_entropy_with_logits"),
    ("sigmoid-logits-only", lambda n, g: n.sigmoid_cross_entropy_with_logits(logits=g.constant([1.0])), ValueError,
     "Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"),
    ("bias-size", lambda n, g: n.bias_add(g.constant(np.zeros((2, 3), np.float32)), g.constant(np.zeros(4, np.float32))),
     ValueError, "3 and 4"),
    # TF turns keep_prob into rate = 1 - keep_prob first; the range check names `rate`
    ("dropout-keep_prob", lambda n, g: n.dropout(g.constant([1.0]), keep_prob=1.5), ValueError,
     r"`rate` must be a scalar tensor or a float in the range \[0, 1\). Received: rate=-0.5"),
]


@pytest.mark.parametrize("rid,build,exc,match", NN_GRAPH_ERRORS, ids=[r[0] for r in NN_GRAPH_ERRORS])
def test_graph_construction_errors(rid, build, exc, match):
    import ref.ops
    from ref.framework import graph, op_def_library
    from ref.graph_ops import nn_ops

    ref.ops.load_all()
    with graph.Graph().as_default():
        with pytest.raises(exc, match=match):
            build(nn_ops, op_def_library)  # the module with ``constant``


L2_ROWS = [  # (shape, dtype, layout): L2Loss keeps the bits of sum((t * t) * 0.5): Eigen's full reduction of
    # the products in C order for float32/float64 (against TF: tests/ops/test_eigen_reduce.py), else NumPy's
    ((200, 10000), np.float32, "C"), ((400, 800), np.float32, "T"), ((7, 13), np.float64, "C"),
    ((), np.float32, "C"), ((0, 3), np.float32, "C"), ((1001,), np.float16, "C"), ((33, 5), np.float32, "slice"),
]


@pytest.mark.parametrize("shape, dtype, layout", L2_ROWS)
def test_l2_loss_bits_are_the_two_products_then_the_sum(shape, dtype, layout):
    rng = np.random.RandomState(3)
    x = np.asarray(rng.randn(*shape) * 3).astype(dtype)
    if layout == "T":
        x = x.T
    elif layout == "slice":
        x = x[::2, 1:]
    products = np.multiply(np.multiply(x, x), dtype(0.5))
    if dtype in (np.float32, np.float64) and x.size:
        want = eigen_reduce.full(np.ascontiguousarray(products).reshape(-1),
                                 cost=eigen_reduce.value_cost(dtype, 2))
    else:
        want = np.add.reduce(products, axis=None, dtype=dtype)
    got = registry.call("L2Loss", t=x)
    assert got.dtype == dtype and got.shape == ()
    assert got.tobytes() == np.asarray(want, dtype).tobytes()
