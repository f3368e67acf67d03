"""ULP distances between floating-point arrays, for golden-number comparisons."""
from __future__ import annotations

import numpy as np

_INT = {np.dtype(np.float16): np.int16, np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}


def _ordered(a: np.ndarray) -> np.ndarray:
    """Map floats to integers so that adjacent floats differ by 1 (sign-magnitude fixed)."""
    it = _INT[a.dtype]
    i = a.view(it).astype(np.int64)
    return np.where(i < 0, np.iinfo(it).min - i, i)


def ulp_distance(a, b) -> np.ndarray:
    """Elementwise distance in units in the last place; 0 where both are the
    same NaN/inf, a huge number where only one is NaN."""
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype)
    if a.dtype not in _INT:
        raise TypeError(f"ulp_distance needs float16/32/64, got {a.dtype}")
    d = np.abs(_ordered(a) - _ordered(b))
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    d = np.where(nan_a & nan_b, 0, d)
    d = np.where(nan_a ^ nan_b, np.iinfo(np.int64).max, d)
    return d


def assert_ulp(actual, expected, max_ulp: int, msg: str = ""):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{msg} shape {actual.shape} != {expected.shape}"
    if actual.size == 0:
        return
    d = ulp_distance(actual, expected)
    worst = int(d.max())
    if worst > max_ulp:
        i = np.unravel_index(int(d.argmax()), d.shape)
        raise AssertionError(f"{msg} {worst} ULP > {max_ulp} at {i}: "
                             f"actual {actual[i]!r}, expected {expected[i]!r}")
