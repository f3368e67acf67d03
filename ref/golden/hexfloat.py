"""Exact text forms of array values for the JSON manifest.

Every float is written twice, both exact:

* ``hex``: C99 hexadecimal floating point (Python's ``float.hex``), e.g.
  ``"0x1.99999a0000000p-4"`` for ``float32(0.1)``; ``strtod``/``strtof``,
  Java's ``Double.parseDouble``, Go's ``strconv.ParseFloat`` and Python's
  ``float.fromhex`` read it back exactly (a float16/bfloat16/float32 value is
  exactly representable as a double). Non-finite values are ``"inf"``,
  ``"-inf"`` and ``"nan"``.
* ``bits``: the value's bit pattern as lower-case hex digits of the dtype's width
  (``"3dcccccd"``), for languages without hex-float parsing and to keep NaN
  payloads and the sign of zero.

Integers and booleans are written as JSON numbers / booleans.
"""
from __future__ import annotations

import numpy as np
from ref.types import dtypes

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def is_float(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype.name == "bfloat16"


def to_hex(a) -> list:
    """Flat list (C order) of ``float.hex`` strings of a float array."""
    a = np.asarray(a)
    return [float(x).hex() for x in a.astype(np.float64).reshape(-1)]


def to_bits(a) -> list:
    """Flat list of the raw bit patterns of a float array, as fixed-width hex."""
    a = np.ascontiguousarray(a)
    width = a.dtype.itemsize * 2
    return [format(int(x), f"0{width}x") for x in a.view(_UINT[a.dtype.itemsize]).reshape(-1)]


def from_hex(strings, dtype, shape) -> np.ndarray:
    """Inverse of :func:`to_hex` (the values must be exact in ``dtype``)."""
    return np.array([float.fromhex(s) for s in strings], np.float64).astype(np.dtype(dtype)).reshape(shape)


def from_bits(strings, dtype, shape) -> np.ndarray:
    """Inverse of :func:`to_bits`."""
    dtype = np.dtype(dtype)
    u = np.array([int(s, 16) for s in strings], dtype=_UINT[dtype.itemsize])
    return u.view(dtype).reshape(shape)


def describe(a) -> dict:
    """The manifest entry for one array: dtype, shape and its values in exact text."""
    a = np.asarray(a)
    entry = {"dtype": a.dtype.name, "shape": list(a.shape)}
    if is_float(a.dtype):
        entry["hex"] = to_hex(a)
        entry["bits"] = to_bits(a)
    elif a.dtype.kind in "iub":
        entry["values"] = a.reshape(-1).tolist()
    else:
        entry["values"] = [str(x) for x in a.reshape(-1)]
    return entry


def array_from_entry(entry) -> np.ndarray:
    """An array back from a :func:`describe` entry (bit-exact for floats)."""
    dtype = np.dtype(_dtype(entry["dtype"]))
    if "bits" in entry:
        return from_bits(entry["bits"], dtype, entry["shape"])
    return np.array(entry["values"], dtype=dtype).reshape(entry["shape"])


def _dtype(name):
    if name == "bfloat16":
        return dtypes.bfloat16.as_numpy_dtype
    return name
