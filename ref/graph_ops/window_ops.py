"""``tf.signal.kaiser_window``, ``kaiser_bessel_derived_window`` and
``vorbis_window``, built from elementary ops as TF's signal/window_ops.py:

* Kaiser: ``w[n] = I0(beta sqrt(1 - (n / h)^2)) / I0(beta)`` for
  ``n = -h .. h``, ``h = (N - 1) / 2``, evaluated as
  ``exp(num - beta) * i0e(num) / i0e(beta)`` (``num = beta sqrt(relu(1 - (n/h)^2))``);
* Kaiser-Bessel derived: ``sqrt(cumsum(k)[:-1] / sum(k))`` of the Kaiser window
  of length ``N // 2 + 1``, mirrored;
* Vorbis: ``w[n] = sin(pi / 2 * sin^2(pi / N * (n + 0.5)))``.
"""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops, nn_ops, special_math_ops
from ref.types import dtypes

__all__ = ["kaiser_window", "kaiser_bessel_derived_window", "vorbis_window"]


def _check_params(window_length, dtype):
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    window_length = convert_to_tensor(window_length, dtype=dtypes.int32)
    window_length.shape.assert_has_rank(0)
    return window_length


def kaiser_window(window_length, beta=12., dtype=dtypes.float32, name=None):
    """The Kaiser window of ``window_length`` points with shape parameter ``beta``."""
    with name_scope(name, "kaiser_window"):
        window_length = _check_params(window_length, dtype)
        if constant_value(window_length) == 1:
            return array_ops.ones([1], dtype=dtype)
        halflen_float = (math_ops.cast(window_length, dtype=dtypes.float32) - 1.0) / 2.0
        arg = math_ops.range(-halflen_float, halflen_float + 0.1, dtype=dtypes.float32)
        arg = math_ops.cast(arg, dtype=dtype)
        beta = math_ops.cast(beta, dtype=dtype)
        one = math_ops.cast(1.0, dtype=dtype)
        halflen_float = math_ops.cast(halflen_float, dtype=dtype)
        num = beta * math_ops.sqrt(nn_ops.relu(one - math_ops.square(arg / halflen_float)))
        window = math_ops.exp(num - beta) * (special_math_ops.bessel_i0e(num) / special_math_ops.bessel_i0e(beta))
    return window


def kaiser_bessel_derived_window(window_length, beta=12., dtype=dtypes.float32, name=None):
    """The Kaiser-Bessel derived window (power complementary) of ``window_length`` points."""
    with name_scope(name, "kaiser_bessel_derived_window"):
        window_length = _check_params(window_length, dtype)
        halflen = window_length // 2
        kaiserw = kaiser_window(halflen + 1, beta, dtype=dtype)
        kaiserw_csum = math_ops.cumsum(kaiserw)
        halfw = math_ops.sqrt(kaiserw_csum[:-1] / kaiserw_csum[-1])
        window = array_ops.concat((halfw, halfw[::-1]), axis=0)
    return window


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """The Vorbis power complementary window of ``window_length`` points."""
    with name_scope(name, "vorbis_window"):
        window_length = _check_params(window_length, dtype)
        arg = math_ops.cast(math_ops.range(window_length), dtype=dtype)
        window = math_ops.sin(np.pi / 2.0 * math_ops.pow(math_ops.sin(
            np.pi / math_ops.cast(window_length, dtype=dtype) * (arg + 0.5)), 2.0))
    return window
