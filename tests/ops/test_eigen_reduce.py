"""``ref.ops.eigen_reduce``: float32/float64 ``Sum``/``Mean``/``Prod`` in Eigen's order,
bit for bit against ``tf.raw_ops``: over trailing axes (rows shorter and longer
than a packet, than four packets and than a leaf; full reductions up to the
tree's second level; size-1 dimensions dropped as TF's ReductionHelper drops
them; full reductions around the cost model's one-or-more-threads threshold),
over leading and middle axes (``InnerMostDimPreserver``'s packets, fewer and
more than 16 reduced rows, packets straddling a kept row), over the first and
third of three (``GenericDimReducer``) and over more dimensions (TF's transpose
first); the compiled loops against their NumPy forms; the orders by hand."""
import os

import numpy as np
import pytest

from ref import raw_ops
from ref.types import dtypes
from ref.ops import eigen_reduce

_RNG = np.random.RandomState(11)

# (shape, axis, keep_dims): every row is a trailing-axes reduction (Eigen's order here)
ROWS = [
    ((7,), None, False), ((8,), None, False), ((31,), None, False), ((32,), None, False), ((64,), None, False),
    ((100,), None, False), ((1000,), 0, False), ((8193,), None, False), ((50000,), None, True),
    ((108387,), None, False), ((108389,), None, False), ((300001,), None, False),
    ((1000003,), None, True), ((128, 10), None, False), ((128, 10), 1, False), ((128, 10), -1, True),
    ((32, 784), 1, False), ((20, 33), 1, False), ((3, 9000), 1, False), ((4, 5, 6), (1, 2), False),
    ((4, 5, 6), 2, True), ((3, 4, 5, 6), (2, 3), False), ((10, 20, 30), None, False), ((2, 3, 1000), -1, False),
    ((128, 1), 0, False), ((1, 77), 1, False), ((5, 1, 40), (1, 2), False), ((1, 1), None, False),
]
# leading / middle axes ([reduced, kept], [kept, reduced, kept]), axes 0 and 2 of three, more dims
LAYOUTS = [
    ((128, 10), 0, False), ((1000, 5), 0, False), ((15, 9), 0, False), ((16, 9), 0, True), ((17, 33), 0, False),
    ((400, 1000), 0, False), ((3, 8), 0, False), ((64, 100), 0, True), ((4, 20, 6), 1, False),
    ((3, 17, 10), 1, False), ((2, 100, 9), 1, True), ((7, 16, 8), 1, False), ((5, 40, 13), 1, False),
    ((4, 5, 6), (0, 2), False), ((5, 33, 12), (0, 2), True), ((3, 40, 3), (0, 2), False),
    ((3, 4, 5, 6), (0, 2), False), ((3, 4, 5, 6), (1, 3), True), ((2, 3, 4, 5, 6), (0, 2, 4), False),
    ((20, 9000), 0, False), ((1, 128, 1, 10), (0, 1), False), ((128, 1, 10), (0, 1), False),
]
DTYPES = [np.float32, np.float64]


def _x(shape, dtype=np.float32, op="Sum"):
    if op == "Prod":  # products near 1, neither overflowing nor vanishing
        return np.asarray(_RNG.randn(*shape) * 0.3 + 1, dtype)
    return np.asarray(_RNG.randn(*shape) * 3, dtype)


def _tf_equal(op, shape, axis, keep, dtype):
    tf = pytest.importorskip("tensorflow")
    x = _x(shape, dtype, op)
    ax = np.arange(len(shape), dtype=np.int32) if axis is None else np.asarray(axis, np.int32)
    want = getattr(tf.raw_ops, op)(input=x, axis=ax, keep_dims=keep).numpy()
    got = getattr(raw_ops, op)(input=x, axis=ax, keep_dims=keep)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8))


@pytest.mark.parametrize("op", ["Sum", "Mean"])
@pytest.mark.parametrize("shape, axis, keep", ROWS, ids=[f"{s}-{a}-{k}" for s, a, k in ROWS])
def test_equals_tensorflow(op, shape, axis, keep):
    _tf_equal(op, shape, axis, keep, np.float32)


# float64 and Prod over trailing axes: the rows that reach each branch (packets of 4 doubles,
# leaves of 4096 doubles; products never split into a tree)
ROWS_SHORT = [r for r in ROWS if np.prod(r[0]) <= 400000]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["Sum", "Mean", "Prod"])
@pytest.mark.parametrize("shape, axis, keep", ROWS_SHORT, ids=[f"{s}-{a}-{k}" for s, a, k in ROWS_SHORT])
def test_rows_equal_tensorflow(dtype, op, shape, axis, keep):
    if dtype == np.float32 and op != "Prod":
        pytest.skip("test_equals_tensorflow")
    _tf_equal(op, shape, axis, keep, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["Sum", "Mean", "Prod"])
@pytest.mark.parametrize("shape, axis, keep", LAYOUTS, ids=[f"{s}-{a}-{k}" for s, a, k in LAYOUTS])
def test_layouts_equal_tensorflow(dtype, op, shape, axis, keep):
    _tf_equal(op, shape, axis, keep, dtype)


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled rows")
@pytest.mark.parametrize("rows, n", [(1, 7), (3, 8), (5, 31), (2, 32), (4, 100), (9, 1000), (2, 8192)])
def test_numpy_form_is_the_compiled_rows(rows, n):
    flat = _x((rows * n,))
    a = eigen_reduce._rows(flat, n, np.empty(rows, np.float32))
    b = eigen_reduce._rows_numpy(flat, n, np.empty(rows, np.float32))
    np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled tree")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("first, n", [(0, 8193), (0, 8200), (3, 10000), (5, 16385), (8, 40001), (1, 100003),
                                      (0, 4097), (7, 12289), (0, 1 << 17)])
def test_compiled_tree_is_the_recursion(dtype, first, n):
    """tree_sum (a stack of frames) and _tree_rows equal the recursive form: leaves split at
    the first packet boundary at or after the middle, counted from the tensor's start."""
    x = _x((first + 3 * n,), dtype)
    lanes = eigen_reduce._LANES[np.dtype(dtype)]
    a = eigen_reduce.tree_sum(x, first, n, lanes)
    b = eigen_reduce._tree_numpy(x, first, n)
    assert np.asarray(a, dtype).tobytes() == np.asarray(b, dtype).tobytes()
    assert type(eigen_reduce._tree(x, first, n)) is np.dtype(dtype).type  # compiled or not: a NumPy scalar
    rows = x[first:first + 3 * n]
    a = eigen_reduce._tree_rows(rows, n, lanes, np.empty(3, dtype))
    b = eigen_reduce._tree_rows_numpy(rows, n, lanes, np.empty(3, dtype))
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_tree_by_hand():
    """A row of 3 * 8192 + 8 float32: split at 12296 (the packet boundary at or after the
    middle, 12292), the left half [0, 12296) again at 6152, the right half [12296, 24584)
    at 18440; the sum is (leaf + leaf) + (leaf + leaf)."""
    x = _x((3 * 8192 + 8,))
    leaf = lambda a, b: eigen_reduce._rows_numpy(x[a:b], b - a, np.empty(1, np.float32))[0]
    want = np.float32(np.float32(leaf(0, 6152) + leaf(6152, 12296)) + np.float32(leaf(12296, 18440) + leaf(18440, 24584)))
    got = eigen_reduce.reduce_rows(x.reshape(1, -1))[0]
    assert got.view(np.int32) == want.view(np.int32)


def test_the_order_is_the_documented_one():
    """One row of 45 values by hand: four packets into p0..p3, p0 += p1, p2, p3, one more
    packet, five values from 0, then s + ((q0 + q2) + (q1 + q3)), q_i = p_i + p_{i+4}."""
    v = _x((45,))
    f = np.float32
    p = [np.zeros(8, f) for _ in range(4)]
    for k in range(4):
        p[k] = p[k] + v[8 * k:8 * k + 8]
    p0 = ((p[0] + p[1]) + p[2]) + p[3]
    p0 = p0 + v[32:40]
    s = f(0)
    for t in v[40:]:
        s = f(s + t)
    q = p0[:4] + p0[4:]
    want = f(s + f(f(q[0] + q[2]) + f(q[1] + q[3])))
    assert raw_ops.Sum(input=v, axis=np.int32(0)).view(np.int32) == want.view(np.int32)


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled loops")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mul", [False, True])
@pytest.mark.parametrize("k1, r, k2", [(1, 128, 10), (1, 15, 9), (3, 17, 10), (2, 100, 9), (5, 40, 13), (1, 3, 8)])
def test_numpy_forms_are_the_compiled_loops(dtype, mul, k1, r, k2):
    x = _x((k1 * r * k2,), dtype, "Prod" if mul else "Sum")
    lanes = eigen_reduce._LANES[np.dtype(dtype)]
    pairs = [(eigen_reduce._middle, eigen_reduce._middle_numpy, (k1, r, k2, lanes, mul), k1 * k2),
             (eigen_reduce._outer, eigen_reduce._outer_numpy, (k1, r, k2, mul), r),
             (eigen_reduce._leaves, eigen_reduce._rows_numpy, (r * k2, lanes, mul), k1)]
    for loop, form, args, size in pairs:
        if loop is eigen_reduce._leaves:
            a = loop(x, *args, np.empty(size, dtype))
            b = form(x, r * k2, np.empty(size, dtype), mul)
        else:
            a = loop(x, *args, np.empty(size, dtype))
            b = form(x, *args, np.empty(size, dtype))
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_leading_axis_order_by_hand():
    """reduce_sum(x, 0) of [18, 9] float32: columns 0..7 (one packet) by four accumulators of
    rows j % 4 up to row 16, added 0 += 1, += 2, += 3, then rows 16, 17 into the first;
    column 8 (no whole packet) row by row from 0."""
    x = _x((18, 9))
    f = np.float32
    acc = [np.zeros(8, f) for _ in range(4)]
    for j in range(16):
        acc[j % 4] = acc[j % 4] + x[j, :8]
    a = ((acc[0] + acc[1]) + acc[2]) + acc[3]
    a = (a + x[16, :8]) + x[17, :8]
    s = f(0)
    for j in range(18):
        s = f(s + x[j, 8])
    want = np.concatenate([a, [s]])
    got = raw_ops.Sum(input=x, axis=np.int32(0))
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_outer_axes_order_by_hand():
    """reduce_sum(x, [0, 2]) of [3, 2, 4]: for each kept k, for j2 in 0..3, for j0 in 0..2."""
    x = _x((3, 2, 4))
    f = np.float32
    want = np.zeros(2, f)
    for k in range(2):
        s = f(0)
        for j2 in range(4):
            for j0 in range(3):
                s = f(s + x[j0, k, j2])
        want[k] = s
    got = raw_ops.Sum(input=x, axis=np.int32([0, 2]))
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_double_predux_by_hand():
    """A float64 row of 19: four packets of 4 into p0..p3, p0 += p1, p2, p3, three values
    from 0, then s + ((p0 + p2) + (p1 + p3))."""
    v = _x((19,), np.float64)
    p = [v[4 * k:4 * k + 4] for k in range(4)]
    p0 = ((p[0] + p[1]) + p[2]) + p[3]
    s = (0.0 + v[16] + v[17]) + v[18]
    want = s + ((p0[0] + p0[2]) + (p0[1] + p0[3]))
    assert raw_ops.Sum(input=v, axis=np.int32(0)) == want


# (op, shape, axis): L2Loss and EuclideanNorm reduce an expression (x * x * 0.5, x * x), whose
# element-wise operations count in a full reduction's cost (threads) -- rows around both thresholds
EXPRESSIONS = [("L2Loss", (100,), None), ("L2Loss", (91000,), None), ("L2Loss", (300, 70), None),
               ("L2Loss", (50001,), None), ("L2Loss", (200001,), None), ("L2Loss", (7,), None),
               ("EuclideanNorm", (1000,), 0), ("EuclideanNorm", (91000,), 0), ("EuclideanNorm", (128, 10), 0),
               ("EuclideanNorm", (128, 10), 1), ("EuclideanNorm", (3, 40, 13), (0, 2)),
               ("EuclideanNorm", (300, 70), (0, 1)), ("EuclideanNorm", (200001,), 0),
               ("EuclideanNorm", (45000,), 0), ("L2Loss", (45000,), None)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op, shape, axis", EXPRESSIONS, ids=[f"{o}-{s}-{a}" for o, s, a in EXPRESSIONS])
def test_expression_reductions_equal_tensorflow(dtype, op, shape, axis):
    tf = pytest.importorskip("tensorflow")
    x = _x(shape, dtype)
    if op == "L2Loss":
        want, got = tf.raw_ops.L2Loss(t=x).numpy(), raw_ops.L2Loss(t=x)
    else:
        ax = np.asarray(axis, np.int32)
        want, got = tf.raw_ops.EuclideanNorm(input=x, axis=ax).numpy(), raw_ops.EuclideanNorm(input=x, axis=ax)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8))


def test_l2_loss_by_hand():
    """L2Loss of 10 float32 values: y = (x * x) * 0.5, one packet of 8 and two values from 0,
    s + ((q0 + q2) + (q1 + q3)), q_i = y_i + y_{i+4}."""
    x = _x((10,))
    f = np.float32
    y = (x * x) * f(0.5)
    q = y[:4] + y[4:8]
    s = f(f(0) + y[8]) + y[9]
    want = f(s + f(f(q[0] + q[2]) + f(q[1] + q[3])))
    assert raw_ops.L2Loss(t=x).view(np.int32) == want.view(np.int32)


BF16_ROWS = [("Sum", (100,), 0), ("Mean", (100,), 0), ("Sum", (128, 10), 0), ("Mean", (128, 10), 1),
             ("Sum", (3, 40, 13), (0, 2)), ("Mean", (3, 40, 13), 1), ("EuclideanNorm", (128, 10), 0),
             ("EuclideanNorm", (1000,), 0)]


@pytest.mark.parametrize("op, shape, axis", BF16_ROWS, ids=[f"{o}-{s}-{a}" for o, s, a in BF16_ROWS])
def test_bfloat16_reduces_in_float_as_tensorflow(op, shape, axis):
    tf = pytest.importorskip("tensorflow")
    x = _x(shape).astype(dtypes.bfloat16.np)
    ax = np.asarray(axis, np.int32)
    want = getattr(tf.raw_ops, op)(input=x, axis=ax).numpy()
    got = getattr(raw_ops, op)(input=x, axis=ax)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint16), np.atleast_1d(want).view(np.uint16))


_NAN = np.nan
EXTREMES = [[1, _NAN, 3], [-0.0, 0.0], [0.0, -0.0], [_NAN] * 3 + [1.0] * 20, [1.0] * 20 + [_NAN],
            [-np.inf, _NAN, np.inf], [np.inf, -0.0] * 9]


@pytest.mark.parametrize("op", ["Max", "Min", "ArgMax", "ArgMin"])
@pytest.mark.parametrize("values", EXTREMES, ids=[str(v[:3]) + str(len(v)) for v in EXTREMES])
def test_max_min_nan_and_signed_zero_as_tensorflow(op, values):
    """Max/Min/ArgMax/ArgMin keep TF's NaN (propagated by Max/Min, never picked by ArgMax/ArgMin)
    and signed-zero (the first of equal values) results, in and beyond one packet."""
    tf = pytest.importorskip("tensorflow")
    x = np.asarray(values, np.float32)
    if op.startswith("Arg"):
        want = getattr(tf.raw_ops, op)(input=x, dimension=0).numpy()
        got = getattr(raw_ops, op)(input=x, dimension=np.int32(0))
        assert int(got) == int(want)
    else:
        want = getattr(tf.raw_ops, op)(input=x, axis=[0]).numpy()
        got = getattr(raw_ops, op)(input=x, axis=np.int32([0]))
        assert np.atleast_1d(got).view(np.uint32)[0] == np.atleast_1d(want).view(np.uint32)[0] or (
            np.isnan(got) and np.isnan(want))
