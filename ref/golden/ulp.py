"""Units in the last place: how far apart two floating-point arrays are.

``ulp_distance(a, b)`` counts the representable numbers of ``a``'s dtype
between ``a`` and ``b`` (element-wise). Floats are mapped to integers so that
neighbouring floats differ by one -- the sign-magnitude bit pattern folded onto
a two's-complement line, so ``-0.0`` and ``+0.0`` are the same point and the
smallest subnormals of either sign are one apart.

* both NaN: 0 (whatever the payloads); one NaN: :data:`NAN_MISMATCH`;
* ``inf`` vs the largest finite float: 1 (``inf`` is the next point on the line).

``ulp_scaled(actual, expected, scale)`` measures an error in ULPs *at a scale*:
``|actual - expected| / spacing(|scale|)``. A training step ``x_new = x - u``
cannot be more accurate than the ULP of ``x``; measured plainly, a 1-ULP
rounding of ``u`` becomes arbitrarily many ULPs of ``x_new`` when ``x_new`` is
near zero (cancellation).

float16, bfloat16, float32 and float64 are supported.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

NAN_MISMATCH = np.iinfo(np.int64).max
"""The distance reported where exactly one side is NaN."""

_INT_OF_SIZE: dict[int, type[np.signedinteger]] = {2: np.int16, 4: np.int32, 8: np.int64}


def _is_float(dtype) -> bool:
    return dtype.kind == "f" or dtype.name == "bfloat16"


def _ordered(a: np.ndarray) -> np.ndarray:
    """Integers in float order: adjacent floats differ by 1, -0.0 == +0.0."""
    it = _INT_OF_SIZE[a.dtype.itemsize]
    i = a.view(it).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)


def ulp_distance(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Element-wise distance in ULPs of ``a``'s dtype (``b`` is cast to it), int64."""
    a = np.asarray(a)
    if not _is_float(a.dtype):
        raise TypeError(f"ulp_distance needs a float16/bfloat16/float32/float64 array, got {a.dtype}")
    b = np.asarray(b).astype(a.dtype)
    a, b = np.broadcast_arrays(a, b)
    d = np.abs(_ordered(np.array(a, order="C")) - _ordered(np.array(b, order="C")))
    nan_a = np.isnan(a.astype(np.float64))
    nan_b = np.isnan(b.astype(np.float64))
    d = np.where(nan_a & nan_b, 0, d)
    return np.where(nan_a ^ nan_b, NAN_MISMATCH, d)


def spacing(x, dtype=None) -> np.ndarray:
    """The ULP of ``|x|`` in ``dtype`` (default ``x``'s): ``nextafter(|x|, inf) - |x|``,
    the smallest subnormal at zero, ``inf`` at the largest finite float."""
    x = np.asarray(x)
    dtype = np.dtype(dtype or x.dtype)
    x = np.abs(x.astype(dtype))
    if dtype.name == "bfloat16":  # no nextafter: the next bit pattern of a non-negative float
        nxt = (x.view(np.int16).astype(np.int32) + 1).astype(np.int16).view(dtype)
        return nxt.astype(np.float64) - x.astype(np.float64)
    return np.nextafter(x, dtype.type(np.inf)).astype(np.float64) - x.astype(np.float64)


def ulp_scaled(actual, expected, scale=None) -> np.ndarray:
    """``|actual - expected|`` in ULPs of ``|scale|`` (float64 result; default scale
    ``expected``). Equal values (NaN with NaN, inf with inf) are 0; a NaN against a
    number is ``inf``."""
    actual = np.asarray(actual)
    expected = np.asarray(expected).astype(actual.dtype)
    scale = expected if scale is None else np.asarray(scale)
    a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        err = np.abs(a64 - e64) / spacing(scale, actual.dtype)
    same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
    err = np.where(same, 0.0, err)
    return np.where(np.isnan(err), np.inf, err)


def max_ulp(a: ArrayLike, b: ArrayLike) -> int:
    """The largest element-wise :func:`ulp_distance` (0 for empty arrays)."""
    d = ulp_distance(a, b)
    return int(d.max()) if d.size else 0


def assert_ulp(actual: ArrayLike, expected: ArrayLike, max_ulp: int, msg: str = "") -> None:
    """AssertionError naming the worst element unless every element of ``actual`` is
    within ``max_ulp`` ULPs of ``expected`` (shapes must agree)."""
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
