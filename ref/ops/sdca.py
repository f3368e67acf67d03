"""Kernels of TF's SDCA helpers (``tf.train.sdca_*``; ``tensorflow/core/kernels/sdca_ops.cc``).

``SdcaShrinkL1``: the proximal L1 step on each weight tensor, in float32::

    shrinkage = l1 / l2
    w <- sign(w) * max(|w| - shrinkage, 0)

``SdcaFprint``: for each string of a vector, farmhash's 128-bit fingerprint
(``ref/ops/farmhash.py``) as an int64 pair [low64, high64]; a low64 of 0 or 1
is moved to low64 + 2**64 - 2 so that 0 and 1 never occur.
"""
from __future__ import annotations

import numpy as np

from ref.ops.farmhash import M as _M, fingerprint128
from ref.ops.registry import register_op, REQUIRED, invalid_argument
from ref.types import dtypes


def _no_outputs(ins, attrs):
    return []


@register_op("SdcaShrinkL1", inputs=("weights",), outputs=(), attrs={"l1": REQUIRED, "l2": REQUIRED},
             list_inputs={"weights": "num_features"}, refs=("weights",), shape=_no_outputs)
def sdca_shrink_l1(weights, l1, l2, num_features=None):
    """weights[i] <- sign(w) * max(|w| - l1 / l2, 0), each a float32 tensor (returns the new values)."""
    shrinkage = np.float32(np.float32(l1) / np.float32(l2))
    return ([np.sign(w) * np.maximum(np.abs(w) - shrinkage, np.float32(0)) for w in weights],)


def _fprint_shape(ins, attrs):
    s = ins["input"].shape
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims} for '{attrs['_op_name']}' (op: 'SdcaFprint') "
                         f"with input shapes: {s}.")
    return [(dtypes.int64, [s.dims[0] if s.ndims else None, 2])]


@register_op("SdcaFprint", inputs=("input",), outputs=("output",), allowed={}, shape=_fprint_shape)
def sdca_fprint(input):  # noqa: A002  (TF's argument name)
    """output[i] = (low64, high64) of farmhash ``Fingerprint128(input[i])`` as int64;
    a low64 of 0 or 1 becomes low64 + 2**64 - 2 (0 and 1 stay free as sentinels)."""
    arr = np.asarray(input)
    if arr.ndim != 1:
        raise invalid_argument(f"Input must be a vector, got shape {list(arr.shape)}")
    out = np.empty((arr.shape[0], 2), np.uint64)
    for i, s in enumerate(arr.tolist()):
        lo, hi = fingerprint128(s if isinstance(s, bytes) else str(s).encode())
        out[i] = (lo if lo >= 2 else lo + _M - 1, hi)
    return out.view(np.int64)
