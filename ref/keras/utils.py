"""``tf.keras.utils``: ``to_categorical`` (NumPy, as Keras)."""
from __future__ import annotations

import numpy as np

__all__ = ["to_categorical"]


def to_categorical(y, num_classes=None, dtype="float32"):
    """One-hot rows of the integer class vector ``y`` (a trailing axis of 1 is
    dropped first); ``num_classes`` defaults to ``max(y) + 1``."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))
