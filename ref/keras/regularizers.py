"""``tf.keras.regularizers``: ``L1L2`` and its short forms; a layer builds a
weight's penalty in ``<weight>/Regularizer`` when its ``losses`` are read."""
from __future__ import annotations

from ref.framework.op_def_library import constant
from ref.graph_ops import math_ops, nn_ops

__all__ = ["Regularizer", "L1L2", "L1", "L2", "l1", "l2", "l1_l2", "get"]


class Regularizer:
    """A penalty ``regularizer(weight) -> scalar``."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)`` (the l2 part as ``2 * l2 * l2_loss(x)``, as Keras)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1 or 0.0), float(l2 or 0.0)

    def __call__(self, x):
        regularization = constant(0.0, dtype=x.dtype.base_dtype)
        if self.l1:
            regularization += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            regularization += 2.0 * self.l2 * nn_ops.l2_loss(x)
        return regularization

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1=0.01):
        self.l1 = float(l1)

    def __call__(self, x):
        return self.l1 * math_ops.reduce_sum(math_ops.abs(x))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(x ** 2)`` (as ``2 * l2 * l2_loss(x)``)."""

    def __init__(self, l2=0.01):
        self.l2 = float(l2)

    def __call__(self, x):
        return 2.0 * self.l2 * nn_ops.l2_loss(x)

    def get_config(self):
        return {"l2": self.l2}


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1=l1, l2=l2)


l1, l2 = L1, L2


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str):
        return {"l1": L1, "l2": L2, "l1_l2": l1_l2, "L1": L1, "L2": L2}[identifier]()
    if isinstance(identifier, dict):
        return {"L1L2": L1L2, "L1": L1, "L2": L2}[identifier["class_name"]](**identifier.get("config", {}))
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
