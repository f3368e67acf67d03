"""Runs one table row through ``ref.raw_ops`` and ``tf.raw_ops`` and measures
the distance: the largest ULP distance over float outputs; dtype, shape and
(non-float) values must agree exactly."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes

from ref.ops import registry
from ref.golden.ulp import ulp_distance


def tf_kwargs(tf, kwargs):
    """TF's view of the arguments: our DTypes become tf.DTypes, NumPy values
    tf.constants of the same dtype (tf.raw_ops would otherwise cast a NumPy
    input to a type attr's default dtype)."""
    def conv(v):
        if isinstance(v, dtypes.DType):
            return tf.as_dtype(v.name)
        if isinstance(v, (np.ndarray, np.generic)):
            return tf.constant(v, dtype=tf.as_dtype(np.asarray(v).dtype))
        if isinstance(v, list):
            return [conv(x) for x in v]
        return v
    return {k: conv(v) for k, v in kwargs.items()}


def flush_subnormals(a):
    """TF's CPU kernels flush subnormal results to zero, and Eigen's ``exp``
    flushes a little above that; values within 16x of the smallest normal
    count as zero on both sides."""
    tiny = np.finfo(a.dtype).tiny * 16
    return np.where(np.abs(a) < tiny, np.zeros((), a.dtype), a)


def _outs(out):
    return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def distance(tf, op, kwargs) -> int:
    """Max ULP between ``ref`` and TF for one call (AssertionError on a dtype,
    shape or exact-value mismatch)."""
    ours = _outs(registry.call(op, **kwargs))
    theirs = _outs(getattr(tf.raw_ops, op)(**tf_kwargs(tf, kwargs)))
    theirs = [t.numpy() if hasattr(t, "numpy") else np.asarray(t) for t in theirs]
    theirs = [np.asarray(t) for t in theirs]
    assert len(ours) == len(theirs)
    worst = 0
    for a, e in zip(ours, theirs):
        assert a.dtype == e.dtype, f"{op}: dtype {a.dtype} != TF's {e.dtype}"
        assert a.shape == e.shape, f"{op}: shape {a.shape} != TF's {e.shape}"
        if a.dtype.kind == "f" and a.size:
            worst = max(worst, int(ulp_distance(flush_subnormals(a), flush_subnormals(e)).max()))
        elif a.dtype.kind == "c" and a.size:
            worst = max(worst, int(ulp_distance(a.real, e.real).max()), int(ulp_distance(a.imag, e.imag).max()))
        else:
            np.testing.assert_array_equal(a, e, err_msg=op)
    return worst
