"""Bitwise kernels on integers (TF's ``bitwise_ops``): ``BitwiseAnd``,
``BitwiseOr``, ``BitwiseXor``, ``Invert`` (``~x``), ``LeftShift``,
``RightShift`` (arithmetic for signed types) and ``PopulationCount`` (set bits
per element, uint8).

Shift amounts outside ``[0, bits - 1]`` are clamped into it, as TF's CPU
functor does, and a left shift works on the unsigned bit pattern, so
``LeftShift(int8(1), 7) == -128`` and ``RightShift(int8(-128), 9) == -1``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import broadcast_rule, register_op, unary_shape

_INT = (dtypes.int32, dtypes.int64, dtypes.int8, dtypes.int16, dtypes.uint8, dtypes.uint16, dtypes.uint32,
        dtypes.uint64)


def _binary(name):
    return register_op(name, inputs=("x", "y"), outputs=("z",), type_attrs={"T": ("x", "y")}, allowed={"T": _INT},
                       shape=broadcast_rule("x", "y"))


@_binary("BitwiseAnd")
def bitwise_and(x, y):
    """z = x & y."""
    return np.asarray(np.bitwise_and(x, y))


@_binary("BitwiseOr")
def bitwise_or(x, y):
    """z = x | y."""
    return np.asarray(np.bitwise_or(x, y))


@_binary("BitwiseXor")
def bitwise_xor(x, y):
    """z = x ^ y."""
    return np.asarray(np.bitwise_xor(x, y))


@register_op("Invert", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _INT}, shape=unary_shape)
def invert(x):
    """y = ~x (every bit flipped)."""
    return np.asarray(np.invert(x))


def _clamped(x, y):
    x, y = np.asarray(x), np.asarray(y)
    bits = x.dtype.itemsize * 8
    return x, np.clip(y.astype(np.int64), 0, bits - 1)


@_binary("LeftShift")
def left_shift(x, y):
    """z = x << clamp(y, 0, bits - 1), on the unsigned bit pattern."""
    x, s = _clamped(x, y)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.kind == "i" else x
    out = np.left_shift(u, s.astype(u.dtype))
    return np.asarray(out).astype(u.dtype, copy=False).view(x.dtype) if x.dtype.kind == "i" else np.asarray(out)


@_binary("RightShift")
def right_shift(x, y):
    """z = x >> clamp(y, 0, bits - 1) (sign-extending for signed types)."""
    x, s = _clamped(x, y)
    return np.asarray(np.right_shift(x, s.astype(x.dtype))).astype(x.dtype, copy=False)


@register_op("PopulationCount", inputs=("x",), outputs=("y",), type_attrs={"T": "x"}, allowed={"T": _INT},
             shape=lambda ins, attrs: [(dtypes.uint8, ins["x"].shape)])
def population_count(x):
    """y = the number of set bits of each element (uint8)."""
    x = np.asarray(x)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.kind == "i" else x
    if hasattr(np, "bitwise_count"):  # NumPy >= 2.0
        return np.asarray(np.bitwise_count(u)).astype(np.uint8)
    as_bytes = np.ascontiguousarray(u).view(np.uint8).reshape(u.shape + (u.dtype.itemsize,))
    return np.unpackbits(as_bytes, axis=-1).sum(axis=-1, dtype=np.uint8)
