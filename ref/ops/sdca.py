"""Kernels of TF's SDCA helpers (``tf.train.sdca_*``; ``tensorflow/core/kernels/sdca_ops.cc``).

``SdcaShrinkL1``: the proximal L1 step on each weight tensor, in float32::

    shrinkage = l1 / l2
    w <- sign(w) * max(|w| - shrinkage, 0)
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import register_op, REQUIRED
from ref.types import dtypes


def _no_outputs(ins, attrs):
    return []


@register_op("SdcaShrinkL1", inputs=("weights",), outputs=(), attrs={"l1": REQUIRED, "l2": REQUIRED},
             list_inputs={"weights": "num_features"}, refs=("weights",), shape=_no_outputs)
def sdca_shrink_l1(weights, l1, l2, num_features=None):
    """weights[i] <- sign(w) * max(|w| - l1 / l2, 0), each a float32 tensor (returns the new values)."""
    shrinkage = np.float32(np.float32(l1) / np.float32(l2))
    return ([np.sign(w) * np.maximum(np.abs(w) - shrinkage, np.float32(0)) for w in weights],)
