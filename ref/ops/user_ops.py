"""Kernels of TF's example and system ops with no numerics: ``Fact`` (the
``tf.user_ops`` example op) and ``ShutdownDistributedTPU`` (``tf.tpu``).

``Fact``: a 0-d string, always ``b"0! == 1"`` (TF's
``tensorflow/core/user_ops/fact.cc``; its static shape is unknown).

``ShutdownDistributedTPU``: TF registers no CPU kernel; it runs only on a
``TPU_SYSTEM`` device, which ref (like a CPU-only TensorFlow) does not have, so
running it raises ``InvalidArgumentError`` as TF's session does.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import register_op, invalid_argument
from ref.types import dtypes
from ref.types.shapes import unknown_shape


@register_op("Fact", inputs=(), outputs=("fact",), stateful=False,
             shape=lambda ins, attrs: [(dtypes.string, unknown_shape())])
def fact():
    """fact = "0! == 1", a scalar string (TF's example user op)."""
    return np.array(b"0! == 1", dtype=object)


@register_op("ShutdownDistributedTPU", inputs=(), outputs=(), stateful=True, shape=lambda ins, attrs: [])
def shutdown_distributed_tpu():
    """Shuts the TPU system down; without a TPU_SYSTEM device it cannot run."""
    raise invalid_argument(
        "No OpKernel was registered to support Op 'ShutdownDistributedTPU' with these attrs: []: "
        "it runs only on a TPU_SYSTEM device (/device:TPU_SYSTEM:0) and no TPU system is available "
        "(Registered devices: [CPU])")
