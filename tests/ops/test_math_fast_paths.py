"""The per-call fast paths of small element-wise kernels (ref/ops/math.py):
``Reciprocal`` on float64 and short float32 tensors (NumPy's reciprocal), ``AddN`` on a list of
same-shape arrays and ``Select``'s element-wise case give the bits of their
independent oracles -- an exactly computed quotient rounded once, TF's
summation order spelled out, NumPy's where -- and the other inputs (Python
values, mismatched shapes, broadcasting conditions) still take the general
path with its errors."""
from fractions import Fraction

import numpy as np
import pytest

from ref.types import errors
from ref.ops import math as m

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -3.0, 1e-45, -1e-40, 5e-324, 1e-310, 3.4e38, 1.7e308, 0.1]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[a.dtype.itemsize])


def _exact_reciprocal(v, dtype):
    """1 / v rounded once to ``dtype`` (IEEE: +-inf at +-0, +-0 at +-inf, NaN at NaN)."""
    v = float(v)
    if np.isnan(v):
        return dtype(np.nan)
    if v == 0:
        return dtype(np.copysign(np.inf, v))
    if np.isinf(v):
        return dtype(np.copysign(0.0, v))
    try:
        q = float(Fraction(1) / Fraction(v))  # correctly rounded to double
    except OverflowError:  # 1 / (a subnormal double) is beyond the largest double
        q = np.copysign(np.inf, v)
    with np.errstate(over="ignore"):
        return dtype(q)  # float32: a second rounding, harmless (53 >= 2 * 24 + 2 bits)


# float32 tensors of 8 or more elements take Eigen's rcpps-and-Newton packets
# (tests/ops/test_eigen_recip.py); fewer are all scalar tail, the exact quotient.
@pytest.mark.parametrize("dtype, shape", [(np.float32, ()), (np.float32, (7,)),
                                          (np.float64, ()), (np.float64, (7,)), (np.float64, (3, 5))])
def test_reciprocal_is_the_rounded_exact_quotient(dtype, shape):
    rng = np.random.default_rng(0)
    x = np.array(rng.standard_normal(shape) * 10.0 ** rng.integers(-30, 30, shape), dtype)
    flat = x.reshape(-1)
    with np.errstate(over="ignore"):  # 1.7e308 is inf in float32
        flat[: min(flat.size, len(SPECIAL))] = np.asarray(SPECIAL[: flat.size], np.float64).astype(dtype)
    with np.errstate(all="ignore"):
        got = m.reciprocal(x)
        old = np.true_divide(x.dtype.type(1), x)  # the kernel before: the same bits
    want = np.array([_exact_reciprocal(v, dtype) for v in flat], dtype).reshape(shape)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(_bits(np.where(np.isnan(got), 0, got).astype(dtype)),
                                  _bits(np.where(np.isnan(want), 0, want).astype(dtype)))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(_bits(got), _bits(old))


@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.complex128])
def test_reciprocal_other_dtypes_divide(dtype):
    x = np.array([2, -4, 0.5, 3], dtype)
    if dtype == np.complex64 or dtype == np.complex128:
        x = x + 1j * np.array([1, 0, -2, 0.25], dtype)
    got = m.reciprocal(x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(_bits(got), _bits(np.true_divide(dtype(1), x)))


def _tf_order(xs):
    """TF's AddN order: the first N % 8 inputs (8 or 9 when that is 0 or 1) left to
    right, then each further group of eight left to right, added to the total."""
    n = len(xs)
    first = n % 8 + (8 if n % 8 < 2 else 0)
    first = min(first, n)
    total = xs[0]
    for x in xs[1:first]:
        total = np.add(total, x)
    for start in range(first, n, 8):
        group = xs[start]
        for x in xs[start + 1:start + 8]:
            group = np.add(group, x)
        total = np.add(total, group)
    return total


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 9, 10, 11, 17, 26])
@pytest.mark.parametrize("shape", [(), (5,), (4, 3)])
@pytest.mark.parametrize("as_list", [False, True])
def test_add_n_in_tfs_order(n, shape, as_list):
    rng = np.random.default_rng(n)
    xs = [np.array(rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 7), np.float32) for _ in range(n)]
    before = [x.copy() for x in xs]
    got = m.add_n([x.tolist() for x in xs] if as_list else xs)
    want = _tf_order([x for x in xs])
    assert np.asarray(got).dtype == (np.float64 if as_list else np.float32)
    if not as_list:
        np.testing.assert_array_equal(_bits(np.asarray(got)), _bits(np.asarray(want)))
        assert all(got is not x for x in xs)  # a new array, even for one input
    else:
        np.testing.assert_array_equal(got, _tf_order([np.asarray(x.tolist()) for x in xs]))
    for x, b in zip(xs, before):
        np.testing.assert_array_equal(x, b)


@pytest.mark.parametrize("inputs,message", [
    ([np.ones(3, np.float32), np.ones(4, np.float32)], r"Input 0: \[3\] != input: \[4\]"),
    ([np.ones(3, np.float32), np.ones(3, np.float32), np.ones((1, 3), np.float32)],
     r"Input 0: \[3\] != input: \[1, 3\]"),
    ([np.ones((2, 3), np.float32), [[1.0, 2.0, 3.0]]], r"Input 0: \[2, 3\] != input: \[1, 3\]"),
    ([1.0, np.ones(2)], r"Input 0: \[\] != input: \[2\]"),
])
def test_add_n_rejects_shapes_that_differ(inputs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        m.add_n(inputs)


SELECT = [  # condition, x, y: NumPy's where is the oracle; one shape, or TF's row/scalar conditions
    (np.array([True, False, True]), np.arange(3.0), -np.arange(3.0)),
    (np.array([[True], [False]]), np.ones((2, 1), np.float32), np.zeros((2, 1), np.float32)),
    (np.array([True, False]), np.arange(6).reshape(2, 3), -np.arange(6).reshape(2, 3)),  # rows
    (np.array(False), np.arange(4.0), -np.arange(4.0)),                                   # a scalar
    ([True, False], [1.0, 2.0], [3.0, 4.0]),                                              # Python lists
    (np.array([True, False, True])[::-1], np.arange(6.0)[::2], np.full(3, np.nan)),       # views
]


@pytest.mark.parametrize("c,x,y", SELECT)
def test_select(c, x, y):
    got = m.select(c, x, y)
    c, x, y = np.asarray(c), np.asarray(x), np.asarray(y)
    cond = c.reshape(c.shape + (1,) * (x.ndim - c.ndim)) if c.ndim == 1 and x.ndim > 1 else c
    want = np.where(cond, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("c,x,y,message", [
    (np.ones(3, bool), np.ones(3), np.ones(4), "'then' and 'else' must have the same size"),
    (np.ones(2, bool), np.ones(3), np.ones(3),
     r"'cond' and 'then' must have the same size.  but received: \[2\] vs. \[3\]"),
    (np.ones(3, bool), np.ones((2, 2)), np.ones((2, 2)), "Number of batches of 'then' must match size of 'cond'"),
])
def test_select_errors(c, x, y, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        m.select(c, x, y)
