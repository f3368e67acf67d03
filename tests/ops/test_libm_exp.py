"""``ref.ops.libm_exp.exp``: libm's ``expf`` reproduced in a vectorisable loop, bit
for bit against the C library's own function (``_jit.libm``, what ``math.exp``
compiles to), and the cross-entropy row kernels built on it (the row maximum on
eight chains, four rows' sums in one loop) against their NumPy forms, which call
libm element by element. The module was checked on all 2^32 float32 inputs once;
here a sample of every exponent and every boundary on each run."""
import math
import os

import numpy as np
import pytest

from ref.ops import _jit, libm_exp, nn

pytestmark = pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles an intrinsic")


def _libm_expf():
    fn = _jit.libm("exp", np.float32)
    if fn is None:
        pytest.skip("no C math library")
    return fn


def _loop():
    import numba

    exp = libm_exp.exp.compiled()

    @numba.njit(error_model="numpy")
    def loop(x, out):
        for i in range(x.size):
            out[i] = exp(x[i])

    return loop


def _around(value, ulps):
    """The float32 values within ``ulps`` steps of ``value``."""
    b = int(np.array(value, np.float32).view(np.int32))
    return np.arange(b - ulps, b + ulps + 1, dtype=np.int64).astype(np.int32).view(np.float32)


BOUNDS = [88.0, -88.0, float.fromhex("0x1.62e42ep6"), -float.fromhex("0x1.9fe368p6"),
          -float.fromhex("0x1.9d1d9ep6"), 0.0, 1.0, -1.0, 0.5 * math.log(2) / 32, 1e-7, -1e-7, 2.0 ** -126]

CASES = [  # (name, float32 inputs)
    ("every 65521st bit pattern", (np.arange(0, 1 << 32, 65521, dtype=np.uint64).astype(np.uint32)).view(np.float32)),
    ("around the bounds", np.concatenate([_around(v, 4096) for v in BOUNDS])),
    ("specials", np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38],
                          np.float32)),
    ("softmax range", np.random.default_rng(0).uniform(-110, 0, 200000).astype(np.float32)),
]


@pytest.mark.parametrize("name,x", CASES, ids=[c[0] for c in CASES])
def test_expf_bits_are_libm(name, x):
    want = _libm_expf()(x)
    got = np.empty_like(x)
    _loop()(x, got)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


def test_float64_is_math_exp():
    x = np.concatenate([np.random.default_rng(1).uniform(-700, 700, 5000), [0.0, -np.inf, np.inf]])
    got = np.empty_like(x)
    _loop()(x, got)
    np.testing.assert_array_equal(got, _jit.libm("exp", np.float64)(x) if _jit.libm("exp", np.float64)
                                  else np.array([math.exp(v) for v in x]))


def _rows(kind, n, c, dtype):
    """Logits whose rows exercise the row maximum's cases."""
    rng = np.random.default_rng(n * 7 + c)
    x = (rng.standard_normal((n, c)) * 5).astype(dtype)
    if kind == "zero max":  # the largest value a zero, both signs, in any column
        x = -np.abs(x)
        x[:, rng.integers(0, c, n)] = 0.0
        x[np.arange(n), rng.integers(0, c, n)] = -0.0
    elif kind == "nan":
        x[::2, 0] = np.nan
        x[1::3, rng.integers(1, c)] = np.nan
    elif kind == "inf":
        x[::2, rng.integers(0, c)] = np.inf
        x[1::2, rng.integers(0, c)] = -np.inf
    elif kind == "tied max":
        x[:, rng.integers(0, c, 3)] = 7.0
    return x


ROW_CASES = [(kind, n, c, dtype) for kind in ("normal", "zero max", "nan", "inf", "tied max")
             for n, c in ((1, 40), (5, 33), (9, 100), (4, 1000), (7, 3001))  # the last past NUMPY_MAX:
             for dtype in (np.float32, np.float64)]                             # gemm_llvm.libm's loops


@pytest.mark.parametrize("kind,n,c,dtype", ROW_CASES)
@pytest.mark.parametrize("sparse", [True, False])
def test_xent_rows_are_their_libm_form(kind, n, c, dtype, sparse):
    if _jit.libm("exp", dtype) is None:
        pytest.skip("no C math library")
    x = _rows(kind, n, c, dtype)
    rng = np.random.default_rng(c)
    labels = rng.integers(0, c, n).astype(np.int64) if sparse else rng.random((n, c)).astype(dtype)
    kernel, form = (nn._sparse_xent_rows, nn._sparse_xent_rows_numpy) if sparse else \
        (nn._xent_rows, nn._xent_rows_numpy)
    a = (np.empty(n, dtype), np.empty((n, c), dtype))
    b = (np.empty(n, dtype), np.empty((n, c), dtype))
    with np.errstate(all="ignore"):
        kernel(x, labels, *a, dtype(0))
        form(x, labels, *b, dtype(0))
    for got, want in zip(a, b):
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        bits = np.uint32 if dtype == np.float32 else np.uint64
        np.testing.assert_array_equal(np.where(nan, 0, got).view(bits), np.where(nan, 0, want).view(bits))


LIBM_CASES = [(name, dtype, size) for name in ("exp", "log") for dtype in (np.float32, np.float64)
              for size in (0, 1, 7, 1 << 15)]


@pytest.mark.parametrize("name,dtype,size", LIBM_CASES)
def test_compiled_libm_loop_is_libms_calls(name, dtype, size):
    """``gemm_llvm.libm``: one compiled loop calling the C math library's function once an
    element, the bits of the element-by-element ``ctypes`` calls (``_jit.libm``, which
    the kernels' own calls equal), special values included."""
    from ref.ops import gemm_llvm

    if _jit.libm(name, dtype) is None:
        pytest.skip("no C math library")
    rng = np.random.default_rng(size)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, -103.97, 709.78, -745.2, 1e-40, 5e-324, 1.0])
    x = np.concatenate([rng.standard_normal(size) * 40, special])[:size].astype(dtype)
    if name == "log":
        x = np.concatenate([np.abs(x[: size // 2]), x[size // 2:]])  # negative ones too: NaN
    with np.errstate(all="ignore"):
        got, want = gemm_llvm.libm(name, dtype)(x), _jit.libm(name, dtype)(x)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    assert got.dtype == dtype and got.shape == x.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(np.where(nan, 0, got).view(bits), np.where(nan, 0, want).view(bits))
