"""``ref.ops.eigen_reduce``: float32 ``Sum``/``Mean`` over trailing axes in Eigen's order,
bit for bit against ``tf.raw_ops`` (rows shorter and longer than a packet, than
four packets and than a leaf; full reductions up to the tree's second level;
size-1 dimensions dropped as TF's ReductionHelper drops them; full reductions around
the cost model's one-or-more-threads threshold), the compiled
rows against their NumPy form, and the layouts left to NumPy still reducing
as NumPy does."""
import os

import numpy as np
import pytest

from ref import raw_ops
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
# layouts Eigen reduces otherwise (a leading reduced axis, reduced axes between kept ones): NumPy's order
OTHER = [((128, 10), 0), ((4, 5, 6), 1), ((4, 5, 6), (0, 2))]


def _x(shape):
    return np.asarray(_RNG.randn(*shape) * 3, np.float32)


@pytest.mark.parametrize("op", ["Sum", "Mean"])
@pytest.mark.parametrize("shape, axis, keep", ROWS, ids=[f"{s}-{a}-{k}" for s, a, k in ROWS])
def test_equals_tensorflow(op, shape, axis, keep):
    tf = pytest.importorskip("tensorflow")
    x = _x(shape)
    ax = np.arange(len(shape), dtype=np.int32) if axis is None else np.asarray(axis, np.int32)
    want = getattr(tf.raw_ops, op)(input=x, axis=ax, keep_dims=keep).numpy()
    got = getattr(raw_ops, op)(input=x, axis=ax, keep_dims=keep)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled rows")
@pytest.mark.parametrize("rows, n", [(1, 7), (3, 8), (5, 31), (2, 32), (4, 100), (9, 1000), (2, 8192)])
def test_numpy_form_is_the_compiled_rows(rows, n):
    flat = _x((rows * n,))
    a = eigen_reduce._rows(flat, n, np.empty(rows, np.float32))
    b = eigen_reduce._rows_numpy(flat, n, np.empty(rows, np.float32))
    np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


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


@pytest.mark.parametrize("shape, axis", OTHER)
def test_other_layouts_reduce_as_numpy(shape, axis):
    x = _x(shape)
    want = np.add.reduce(x, axis=axis, dtype=np.float32)
    got = raw_ops.Sum(input=x, axis=np.asarray(axis, np.int32))
    np.testing.assert_array_equal(got, want)
