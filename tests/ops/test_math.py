"""Math kernels (ref/ops/math.py): NumPy oracles over shapes and dtypes,
``tf.raw_ops`` comparisons within tests/ops/tf_budgets.py, run-time errors."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ref.ops.math  # noqa: F401  (registers the ops)
import ref.ops.trig  # noqa: F401
from ref.types import dtypes, errors
from ref.ops import registry
from ref import numpy_reference as npr
from ref.golden.ulp import max_ulp
from tests.ops.math_cases import UNARY_ROWS, math_rows, values
from tests.ops.tf_budgets import TF_BUDGETS

# ref/ops/math.py and its sibling families (reductions, scans and sequences)
MATH_FAMILIES = ("ref.ops.math", "ref.ops.reduction", "ref.ops.sequence", "ref.ops.special_math", "ref.ops.trig")
MATH_OPS = sorted(n for n, d in registry.registered().items() if d.kernel.__module__ in MATH_FAMILIES)

# -- NumPy oracles (ref/numpy_reference.py): plain expressions, exact here ------

BINARY_ORACLES = sorted(npr.BINARY.items())
UNARY_ORACLES = sorted((op, npr.UNARY[op]) for op, row in UNARY_ROWS.items() if row.oracle_ulp == 0)

shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast: y's dims are x's trailing dims or 1."""
    sx = draw(shapes)
    k = draw(st.integers(0, len(sx)))
    sy = tuple(draw(st.sampled_from([d, 1])) for d in sx[len(sx) - k:])
    return sx, sy


DTYPES = [np.float32, np.float64, np.int32, np.int64]


@pytest.mark.parametrize("op,oracle", BINARY_ORACLES, ids=[r[0] for r in BINARY_ORACLES])
@settings(max_examples=15, deadline=None)
@given(pair=broadcast_pair(), dt=st.sampled_from(DTYPES), seed=st.integers(0, 2**16))
def test_binary_vs_numpy(op, oracle, pair, dt, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(pair[0]) * 5).astype(dt)
    y = (rng.standard_normal(pair[1]) * 5).astype(dt)
    got = np.asarray(registry.call(op, x=x, y=y))
    want = np.asarray(oracle(x, y))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op,oracle", UNARY_ORACLES, ids=[r[0] for r in UNARY_ORACLES])
@settings(max_examples=10, deadline=None)
@given(shape=shapes, dt=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_unary_vs_numpy(op, oracle, shape, dt, seed):
    x = (np.random.default_rng(seed).standard_normal(shape) * 5).astype(dt)
    if op == "Sqrt":
        x = np.abs(x)
    got = np.asarray(registry.call(op, x=x))
    assert got.dtype == dt and got.shape == shape
    np.testing.assert_array_equal(got, oracle(x))



@pytest.mark.parametrize("op", sorted(op for op, row in UNARY_ROWS.items() if row.oracle_ulp))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_unary_vs_numpy_reference_within_budget(op, dt):
    """Rows whose oracle (ref.numpy_reference, float64) is a formula, not the kernel's own NumPy call."""
    row = UNARY_ROWS[op]
    x = np.concatenate([values(dt, (64,), row.domain), np.array([0, -0.0, 1e-30, -1, 1, 1e15, -1e30], dt)])
    got = np.asarray(registry.call(op, x=x))
    assert got.dtype == dt and got.shape == x.shape
    assert max_ulp(got, npr.UNARY[op](x).astype(dt)) <= row.oracle_ulp

REDUCTIONS = [("Sum", np.sum), ("Prod", np.prod), ("Max", np.max), ("Min", np.min), ("Mean", np.mean),
              ("All", np.all), ("Any", np.any)]


@pytest.mark.parametrize("op,oracle", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple), keep=st.booleans(),
       seed=st.integers(0, 2**16), data=st.data())
def test_reduction_vs_numpy(op, oracle, shape, keep, seed, data):
    axes = data.draw(st.lists(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1), max_size=3)) if shape else []
    x = np.random.default_rng(seed).uniform(0.5, 1.5, shape)  # float64: the oracle's own precision
    if op in ("All", "Any"):
        x = x > 1
    got = registry.call(op, input=x, axis=np.int32(axes), keep_dims=keep)
    canon = tuple(sorted({a % len(shape) for a in axes})) if shape else ()
    want = oracle(x, axis=canon, keepdims=keep)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert np.shape(got) == np.shape(want)


@settings(max_examples=15, deadline=None)
@given(m=st.integers(0, 5), k=st.integers(0, 5), n=st.integers(0, 5), ta=st.booleans(), tb=st.booleans(),
       seed=st.integers(0, 2**16))
def test_matmul_vs_numpy(m, k, n, ta, tb, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-9, 9, (m, k)).astype(np.float64), rng.integers(-9, 9, (k, n)).astype(np.float64)
    got = registry.call("MatMul", a=a.T.copy() if ta else a, b=b.T.copy() if tb else b, transpose_a=ta,
                        transpose_b=tb)
    np.testing.assert_array_equal(got, a @ b)  # small integers: every order is exact


# -- behaviour rows: (op, kwargs, expected) -----------------------------------

F = np.float32
BEHAVIOUR = [
    ("Round-bankers", "Round", {"x": F([0.5, 1.5, 2.5, -0.5, -1.5, 2.4])}, F([0, 2, 2, -0, -2, 2])),
    ("Round-int-unchanged", "Round", {"x": np.int32([3, -5])}, np.int32([3, -5])),
    ("Mean-int-truncates", "Mean", {"input": np.int32([-7, 0, 0]), "axis": np.int32(0)}, np.int32(-2)),
    ("Div-int-truncates", "Div", {"x": np.int32([-7, 7]), "y": np.int32([2, -2])}, np.int32([-3, -3])),
    ("FloorDiv-int", "FloorDiv", {"x": np.int32([-7, 7]), "y": np.int32([2, -2])}, np.int32([-4, -4])),
    ("FloorMod-float-sign-of-y", "FloorMod", {"x": F([-7.5, 7.5]), "y": F([2, -2])}, F([0.5, -0.5])),
    ("TruncateDiv", "TruncateDiv", {"x": np.int64([-7, 7]), "y": np.int64([2, 2])}, np.int64([-3, 3])),
    ("DivNoNan", "DivNoNan", {"x": F([1, 2]), "y": F([0, 4])}, F([0, 0.5])),
    ("ArgMax-first-tie-skips-nan", "ArgMax", {"input": F([1, np.nan, 3, 3]), "dimension": 0}, np.int64(2)),
    ("Max-empty", "Max", {"input": np.zeros((0,), F), "axis": np.int32(0)}, F(-np.inf)),
    ("Range-float", "Range", {"start": F(0.5), "limit": F(2), "delta": F(0.5)}, F([0.5, 1, 1.5])),
    ("Range-down", "Range", {"start": np.int32(5), "limit": np.int32(0), "delta": np.int32(-2)}, np.int32([5, 3, 1])),
    ("Cumsum-exclusive-reverse", "Cumsum", {"x": F([1, 2, 3]), "axis": 0, "exclusive": True, "reverse": True},
     F([5, 3, 0])),
    ("Cumprod-exclusive", "Cumprod", {"x": F([2, 3, 4]), "axis": 0, "exclusive": True}, F([1, 2, 6])),
    ("Select-rows", "Select", {"condition": np.array([True, False]), "x": np.ones((2, 2), F),
                               "y": np.zeros((2, 2), F)}, F([[1, 1], [0, 0]])),
    ("SelectV2-broadcast", "SelectV2", {"condition": np.array([True, False]), "t": F(1), "e": np.zeros((2, 2), F)},
     F([[1, 0], [1, 0]])),
    ("Equal-incompatible", "Equal", {"x": F([1, 2]), "y": F([1, 2, 3]), "incompatible_shape_error": False},
     np.array(False)),
    ("Cast-float-to-bool", "Cast", {"x": F([0, -0.0, 2, np.nan]), "DstT": dtypes.bool},
     np.array([False, False, True, True])),
    ("Cast-truncate", "Cast", {"x": np.float64([1 + 2**-24 + 2**-30, -(1 + 2**-24 + 2**-30)]), "DstT": dtypes.float32,
                               "Truncate": True}, F([1, -1])),
    ("Cast-round", "Cast", {"x": np.float64([1 + 2**-24 + 2**-30]), "DstT": dtypes.float32},
     F([1 + 2**-23])),
    ("ClipByValue-inverted-bounds", "ClipByValue", {"t": F([1, 5]), "clip_value_min": F(3), "clip_value_max": F(2)},
     F([3, 3])),
    ("Sign-nan", "Sign", {"x": F([np.nan, -0.0, -3])}, F([np.nan, 0, -1])),
    ("Erf", "Erf", {"x": np.float64([0.5, -2])}, np.float64([math.erf(0.5), math.erf(-2)])),
    ("SigmoidGrad", "SigmoidGrad", {"y": F([0.25]), "dy": F([2])}, F([0.375])),
    ("RsqrtGrad", "RsqrtGrad", {"y": F([0.5]), "dy": F([2])}, F([-0.125])),
    ("BatchMatMulV2-broadcast", "BatchMatMulV2", {"x": np.ones((2, 1, 2, 3), F), "y": np.ones((3, 3, 4), F)},
     np.full((2, 3, 2, 4), 3, F)),
    ("AddN-order", "AddN", {"inputs": [F([1e8]), F([1]), F([-1e8]), F([1])]}, F([1])),
]


@pytest.mark.parametrize("rid,op,kwargs,expected", BEHAVIOUR, ids=[r[0] for r in BEHAVIOUR])
def test_behaviour(rid, op, kwargs, expected):
    got = np.asarray(registry.call(op, **kwargs))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_float32_never_promoted():
    x = np.float32([1.5, 2.0])
    for op in ("Exp", "Sigmoid", "Rsqrt", "Square", "Erf", "Round"):
        assert np.asarray(registry.call(op, x=x)).dtype == np.float32, op
    assert np.asarray(registry.call("AddV2", x=x, y=2.5)).dtype == np.float32
    assert registry.call("Mean", input=x, axis=0).dtype == np.float32


ERRORS = [
    ("Div-by-zero", "Div", {"x": np.int32([1]), "y": np.int32([0])}, "Integer division by zero"),
    ("FloorMod-by-zero", "FloorMod", {"x": np.int64([1]), "y": np.int64([0])}, "Integer division by zero"),
    ("Pow-negative-int", "Pow", {"x": np.int32([2]), "y": np.int32([-1])}, "negative integer powers"),
    ("Sum-bad-axis", "Sum", {"input": np.ones((2, 3), F), "axis": np.int32(2)}, "Invalid reduction dimension"),
    ("ArgMax-bad-axis", "ArgMax", {"input": np.ones((2, 3), F), "dimension": 5}, "Expected dimension"),
    ("Range-zero-delta", "Range", {"start": 0, "limit": 3, "delta": 0}, "Requires delta != 0"),
    ("Range-wrong-way", "Range", {"start": 5, "limit": 1, "delta": 1}, "Requires start <= limit"),
    ("MatMul-inner", "MatMul", {"a": np.ones((2, 3), F), "b": np.ones((4, 2), F)}, "Matrix size-incompatible"),
    ("Select-shapes", "Select", {"condition": np.ones(3, bool), "x": np.ones((2, 2), F), "y": np.ones((2, 2), F)},
     "Number of batches"),
    ("ClipByValue-shape", "ClipByValue", {"t": np.ones((2, 2), F), "clip_value_min": np.ones(2, F),
                                          "clip_value_max": F(1)}, "clip_value_min"),
    ("AddN-shapes", "AddN", {"inputs": [np.ones(2, F), np.ones(3, F)]}, "same size and shape"),
    ("Equal-shapes", "Equal", {"x": F([1, 2]), "y": F([1, 2, 3])}, "Incompatible shapes"),
]


@pytest.mark.parametrize("rid,op,kwargs,match", ERRORS, ids=[r[0] for r in ERRORS])
def test_runtime_errors(rid, op, kwargs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        registry.call(op, **kwargs)


# -- TensorFlow: tf.raw_ops.<Name> on the same inputs ------------------------

ROWS = math_rows()


@pytest.mark.parametrize("rid,op,kwargs", ROWS, ids=[r[0] for r in ROWS])
def test_vs_tf_raw_ops(rid, op, kwargs):
    tf = pytest.importorskip("tensorflow")
    from tests.ops.tf_compare import distance

    d = distance(tf, op, kwargs)
    assert d <= TF_BUDGETS[op], f"{rid}: {d} ULP from tf.raw_ops.{op} > budget {TF_BUDGETS[op]}"


def test_every_math_op_has_a_budget_and_a_tf_row():
    exercised = {r[1] for r in ROWS}
    assert [op for op in MATH_OPS if op not in TF_BUDGETS] == []
    assert [op for op in MATH_OPS if op not in exercised] == []


# -- graph functions: ref.session.Session vs tensorflow.compat.v1 graphs -----

def _graph_cases():
    x = np.random.default_rng(3).uniform(0.1, 2, (3, 4)).astype(np.float32)
    w = np.random.default_rng(4).uniform(0.1, 2, (4, 2)).astype(np.float32)
    i = np.int32([[7, -3, 0, 5], [1, 2, -8, 4], [0, 0, 9, -1]])
    return [
        ("add-scalar", lambda m, a, b: m.add(a, 2.0), x, w),
        ("operators", lambda m, a, b: (a + 1.5) * a - a / 3.0, x, w),
        ("truediv-int", lambda m, a, b: m.truediv(a, 2), i, w),
        ("div-int-floors", lambda m, a, b: m.div(a, 3), i, w),
        ("floordiv-mod", lambda m, a, b: m.floormod(a, 3) + m.floordiv(a, 3), i, w),
        ("matmul", lambda m, a, b: m.matmul(a, b), x, w),
        ("matmul-transpose", lambda m, a, b: m.matmul(b, a, transpose_a=True, transpose_b=True), x, w),
        ("reduce_sum-keep_dims", lambda m, a, b: m.reduce_sum(a, 1, keep_dims=True), x, w),
        ("reduce_mean-all", lambda m, a, b: m.reduce_mean(a), x, w),
        ("reduce_mean-int", lambda m, a, b: m.reduce_mean(a, axis=1), i, w),
        ("reduce_max-indices", lambda m, a, b: m.reduce_max(a, reduction_indices=[0]), x, w),
        ("reduce_prod-keepdims", lambda m, a, b: m.reduce_prod(a, [0, 1], keepdims=True), x, w),
        ("argmax", lambda m, a, b: m.argmax(a, 1, output_type=m_int32(m)), x, w),
        ("argmin-dimension", lambda m, a, b: m.argmin(a, dimension=0), x, w),
        ("add_n", lambda m, a, b: m.add_n([a, a * 2.0, a]), x, w),
        ("cast", lambda m, a, b: m.cast(a * 3.0, m_int32(m)), x, w),
        ("clip_by_value", lambda m, a, b: m.clip_by_value(a, 0.5, 1.5), x, w),
        ("cumsum", lambda m, a, b: m.cumsum(a, axis=1, exclusive=True), x, w),
        ("range", lambda m, a, b: m.range(1, 10, 2), x, w),
        ("range-float", lambda m, a, b: m.range(0.5, 3.0, 0.5), x, w),
        ("count_nonzero", lambda m, a, b: m.count_nonzero(a, axis=0), i, w),
        ("logical_xor", lambda m, a, b: m.logical_xor(a > 1.0, a < 1.5), x, w),
        ("comparisons", lambda m, a, b: m.logical_and(m.less_equal(a, 1.0), m.not_equal(a, 0.5)), x, w),
        ("unary-chain", lambda m, a, b: m.sqrt(m.exp(m.negative(m.square(m.sin(a))))), x, w),
        ("saturate_cast", lambda m, a, b: m.saturate_cast(a * 1000, m_int8(m)), i, w),
        ("tensordot", lambda m, a, b: m.tensordot(a, b, 1), x, w),
        ("scalar_mul", lambda m, a, b: m.scalar_mul(2.0, a), x, w),
        ("squared_difference", lambda m, a, b: m.squared_difference(a, m.reduce_mean(a, 0)), x, w),
        ("pow-sigmoid-tanh", lambda m, a, b: m.pow(m.sigmoid(a), 2.0) + m.tanh(a), x, w),
    ]


def m_int32(m):
    return m.int32


def m_int8(m):
    return m.int8


class _RefNamespace:
    """The ref functions under tf's names for the shared lambdas."""

    def __init__(self):
        from ref.types import dtypes as d
        from ref.graph_ops import math_ops

        self.__dict__.update({k: getattr(math_ops, k) for k in math_ops.__all__})
        self.int32, self.int8 = d.int32, d.int8


GRAPH_CASES = _graph_cases()


@pytest.mark.parametrize("rid,build,xv,wv", GRAPH_CASES, ids=[r[0] for r in GRAPH_CASES])
def test_graph_vs_tf_compat_v1(rid, build, xv, wv):
    tf = pytest.importorskip("tensorflow")
    import ref.ops
    from ref.graph_ops.control_flow_ops import placeholder
    from ref.framework.graph import Graph
    from ref.session import Session
    from tests.ops.tf_compare import flush_subnormals
    from ref.golden.ulp import ulp_distance

    ref.ops.load_all()
    g = Graph()
    with g.as_default():
        a = placeholder(dtypes.as_dtype(xv.dtype), xv.shape)
        b = placeholder(dtypes.as_dtype(wv.dtype), wv.shape)
        out = build(_RefNamespace(), a, b)
        with Session() as sess:
            got = np.asarray(sess.run(out, {a: xv, b: wv}))
    tg = tf.Graph()
    with tg.as_default():
        ta = tf.compat.v1.placeholder(xv.dtype, xv.shape)
        tb = tf.compat.v1.placeholder(wv.dtype, wv.shape)
        ns = type("NS", (), {})()
        for k in dir(tf.math):
            setattr(ns, k, getattr(tf.math, k))
        for k in ("matmul", "cast", "clip_by_value", "cumsum", "range", "add_n", "tensordot", "scalar_mul",
                  "saturate_cast", "int32", "int8", "squared_difference", "count_nonzero"):
            setattr(ns, k, getattr(tf.compat.v1, k))
        for k in ("div", "floordiv", "argmax", "argmin", "reduce_sum", "reduce_mean", "reduce_max", "reduce_prod"):
            setattr(ns, k, getattr(tf.compat.v1, k))
        tout = build(ns, ta, tb)
        assert out.shape.as_list() == tout.shape.as_list(), (out.shape, tout.shape)
        assert out.dtype.name == tout.dtype.name
        with tf.compat.v1.Session(graph=tg) as sess:
            want = np.asarray(sess.run(tout, {ta: xv, tb: wv}))
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        assert ulp_distance(flush_subnormals(got), flush_subnormals(want)).max() <= 16
    else:
        np.testing.assert_array_equal(got, want)


GRAPH_ERRORS = [
    ("dtype-mismatch", lambda m, g: m.add(g.constant([1.0], dtype=m.float32), g.constant([1.0], dtype=m.float64)),
     TypeError, r"float64.*float32|float32.*float64"),
    ("shape-mismatch", lambda m, g: m.add(g.constant(np.zeros(2, np.float32)), g.constant(np.zeros(3, np.float32))),
     ValueError, r"(\[2\]|\(2,\)).*(\[3\]|\(3,\))"),
    ("matmul-inner", lambda m, g: m.matmul(g.constant(np.zeros((2, 3), np.float32)),
                                           g.constant(np.zeros((4, 3), np.float32))), ValueError, r"\[2,3\].*\[4,3\]"),
    ("sqrt-int", lambda m, g: m.sqrt(g.constant([1, 2])), TypeError, "int32"),
    ("reduce-bad-axis", lambda m, g: m.reduce_sum(g.constant(np.zeros((2, 3), np.float32)), 2), ValueError,
     "Invalid reduction dimension"),
    ("clip-broadcasts", lambda m, g: m.clip_by_value(g.constant(np.zeros(3, np.float32)),
                                                     np.zeros((2, 3), np.float32), 1.0), ValueError, "incompatible"),
    ("scalar_mul-vector", lambda m, g: m.scalar_mul(g.constant([1.0, 2.0]), g.constant([1.0, 2.0])), ValueError,
     "must be a 0-D value"),
    ("keep_dims-twice", lambda m, g: m.reduce_sum(g.constant([1.0]), keepdims=True, keep_dims=True), ValueError,
     "keep_dims"),
]


@pytest.mark.parametrize("rid,build,exc,match", GRAPH_ERRORS, ids=[r[0] for r in GRAPH_ERRORS])
def test_graph_construction_errors(rid, build, exc, match):
    import ref.ops
    from ref.framework import graph, op_def_library
    from ref.graph_ops import math_ops

    ref.ops.load_all()
    ns = _RefNamespace()
    ns.float32, ns.float64 = dtypes.float32, dtypes.float64
    with graph.Graph().as_default():
        with pytest.raises(exc, match=match):
            build(ns, op_def_library)  # the module with ``constant``
    assert math_ops  # the module under test
