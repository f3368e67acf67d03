"""``ref.ops.eigen_math``: TF's float32 ``Exp``/``Log``/``Tanh``/``Sigmoid`` bit for bit.

Each row is an input family; every op of :data:`OPS` runs on it through
``ref.raw_ops`` and through ``tf.raw_ops`` (TF's subnormal flushing on both
sides: ``ref.ops.fpenv.flush_denormals``), and the bits must be equal (any
NaN for a NaN). Sizes that are not a multiple of the packet check the scalar
tail; float16/bfloat16 rows check the widen-compute-round path. Without TF the
compiled loops are checked against their exact NumPy forms on the same rows,
and against NumPy's own functions within a few ULPs."""
import os

import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_math, fpenv
from ref.types import dtypes

OPS = ("Exp", "Log", "Tanh", "Sigmoid")
_RNG = np.random.RandomState(7)
_SPECIAL = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 1.17e-38, 2e-38, 0.5, 1e-8,
                     88.7, 88.72, 88.723, 88.8, 89, -87, -87.3, -88, -100, -103.9, -104, -104.1, -150,
                     1e30, -1e30, 3.4e38, -3.4e38, 7.9, 7.91, -7.91, 16.6, 16.7, 20, -20], np.float32)


def _f32(a):
    return np.asarray(a, np.float32)


INPUTS = {
    # name: (array, ops it is for)
    "normal_4099": (_f32(_RNG.randn(4099) * 8), OPS),
    "sizes_1_to_17": (None, OPS),  # one tensor per size, below
    "matrix_7x13": (_f32(_RNG.randn(7, 13) * 3), OPS),
    "wide": (_f32(np.concatenate([_RNG.randn(4000) * 40, np.exp(_RNG.randn(4000) * 30)])), OPS),
    "positive_wide": (_f32(np.exp(np.clip(_RNG.randn(4003) * 25, -87, 88))), ("Log",)),
    "specials": (_SPECIAL, OPS),
    "specials_abs": (np.abs(_SPECIAL), OPS),
    "subnormal_results": (_f32(_RNG.uniform(-104, -86, 1024)), ("Exp", "Sigmoid")),
    "clamps": (_f32(np.concatenate([np.linspace(-9, 9, 2001), np.linspace(15, 18, 501)])), OPS),
    "float16": (np.asarray(_RNG.randn(1003) * 3, np.float16), ("Exp", "Log", "Tanh")),
    "bfloat16": (np.asarray(_RNG.randn(1005) * 3, dtypes.bfloat16.as_numpy_dtype), ("Exp", "Log", "Tanh")),
}


def _cases():
    for name, (x, ops) in INPUTS.items():
        xs = [_f32(_RNG.randn(n) * 6) for n in range(1, 18)] if x is None else [x]
        for op in ops:
            yield pytest.param(op, xs, id=f"{op}-{name}")


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
    ia, ib = a.view(np.uint16 if a.itemsize == 2 else np.uint32), b.view(np.uint16 if b.itemsize == 2 else np.uint32)
    bad = ~((ia == ib) | nan)
    assert not bad.any(), f"{int(bad.sum())} of {a.size} differ: got {b[bad][:5]}, want {a[bad][:5]}"


@pytest.mark.parametrize("op, xs", list(_cases()))
def test_equals_tensorflow(op, xs):
    tf = pytest.importorskip("tensorflow")
    for x in xs:
        want = getattr(tf.raw_ops, op)(x=tf.constant(x)).numpy()
        with fpenv.flush_denormals():
            got = getattr(raw_ops, op)(x=x)
        _same_bits(want, got)


_LOOPS = {"Exp": eigen_math._exp_loop, "Log": eigen_math._log_loop, "Tanh": eigen_math._tanh_loop,
          "Sigmoid": eigen_math._sigmoid_loop}


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled loops")
@pytest.mark.parametrize("flush", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("op, xs", [c for c in _cases() if c.values[1][0].dtype == np.float32])
def test_numpy_form_is_the_loop(op, xs, flush):
    loop = _LOOPS[op]
    for x in xs:
        flat = np.ascontiguousarray(x).reshape(-1)
        if flush and op in ("Exp", "Log", "Sigmoid") and (np.abs(flat) < 1.2e-38).any():
            flat = np.where(np.abs(flat) < 1.2e-38, np.float32(0), flat)  # libm's tail reads a subnormal's bits
        with np.errstate(all="ignore"), (fpenv.flush_denormals() if flush else _nothing()):
            body = flat.size - flat.size % 8
            a = loop(flat, np.empty_like(flat), body)
            b = eigen_math._FORMS[loop](flat, np.empty_like(flat), body)
        _same_bits(a, b)


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled loops")
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", [8, 9, 15, 64, 1000, 4099])
def test_branch_free_loops_are_the_forms_on_every_kind_of_float(op, n):
    """The vectorised loops (Eigen's special cases as selects, subnormals scaled by 2^25 for
    frexp) on random bit patterns: every exponent, subnormals, zeros, infinities, NaNs."""
    rng = np.random.RandomState(n)
    flat = rng.randint(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    loop = _LOOPS[op]
    body = n - n % 8
    with np.errstate(all="ignore"):
        a = loop(flat, np.empty_like(flat), body)
        b = eigen_math._FORMS[loop](flat, np.empty_like(flat), body)
    _same_bits(a, b)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NUMPY = {"Exp": np.exp, "Log": np.log, "Tanh": np.tanh, "Sigmoid": lambda v: 1 / (1 + np.exp(-v.astype(np.float64)))}


_ULPS = {"Exp": 1, "Log": 2, "Tanh": 6, "Sigmoid": 6}
"""Largest distance from the correctly rounded function measured on these rows (Eigen's
approximation errors: tanh near its clamp, the logistic far into its left tail)."""


@pytest.mark.parametrize("op", OPS)
def test_within_a_few_ulps_of_the_function(op):
    x = INPUTS["clamps"][0] if op != "Log" else INPUTS["positive_wide"][0]
    got = getattr(raw_ops, op)(x=x)
    want = np.asarray(_NUMPY[op](x.astype(np.float64)), np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert ulps.max() <= _ULPS[op], (op, int(ulps.max()))
