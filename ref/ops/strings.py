"""String kernels: the hash buckets (``StringToHashBucket``, ``...Fast``,
``...Strong``) that vocabulary tables use for out-of-vocabulary keys, and
``AsString``.

* ``StringToHashBucketFast``: farmhash ``Fingerprint64(s) mod num_buckets``;
* ``StringToHashBucket``: TensorFlow's own ``Hash64`` (MurmurHash64A, seed
  0xDECAFCAFFE) ``mod num_buckets``;
* ``StringToHashBucketStrong``: ``SipHash-2-4(key, s) mod num_buckets``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops import farmhash
from ref.ops.registry import REQUIRED, invalid_argument, register_op


def _dtype_of(x) -> dtypes.DType:
    x = np.asarray(x)
    return dtypes.string if x.dtype == object or x.dtype.kind in "SU" else dtypes.as_dtype(x.dtype)


def _text(v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def _bytes(v):
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def _same_shape(ins, attrs):
    return [(dtypes.int64, ins["input"].shape)]


@register_op("StringToHashBucket", inputs=("string_tensor",), outputs=("output",),
             attrs={"num_buckets": REQUIRED}, shape=lambda ins, attrs: [(dtypes.int64, ins["string_tensor"].shape)])
def string_to_hash_bucket(string_tensor, num_buckets):
    """output = Hash64(string_tensor) mod num_buckets (TF's own MurmurHash64A; int64)."""
    if num_buckets < 1:
        raise invalid_argument(f"num_buckets must be >= 1, got {num_buckets}")
    x = np.asarray(string_tensor, dtype=object)
    out = np.array([farmhash.tf_hash64(_bytes(s)) % num_buckets for s in x.reshape(-1)], dtype=np.int64)
    return out.reshape(x.shape)


@register_op("StringToHashBucketFast", inputs=("input",), outputs=("output",), attrs={"num_buckets": REQUIRED},
             shape=_same_shape)
def string_to_hash_bucket_fast(input, num_buckets):
    """output = Fingerprint64(input) mod num_buckets (farmhash; int64)."""
    if num_buckets < 1:
        raise invalid_argument(f"num_buckets must be >= 1, got {num_buckets}")
    x = np.asarray(input, dtype=object)
    out = np.array([farmhash.fingerprint64(_bytes(s)) % num_buckets for s in x.reshape(-1)], dtype=np.int64)
    return out.reshape(x.shape)


def _siphash24(k0, k1, data):
    """SipHash-2-4 of ``data`` with the 128-bit key (k0, k1), as an unsigned int."""
    M = farmhash.M

    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & M
    v0, v1, v2, v3 = k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, \
        k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, n):
        for _ in range(n):
            v0 = (v0 + v1) & M; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)  # noqa: E702
            v2 = (v2 + v3) & M; v3 = rotl(v3, 16); v3 ^= v2  # noqa: E702
            v0 = (v0 + v3) & M; v3 = rotl(v3, 21); v3 ^= v0  # noqa: E702
            v2 = (v2 + v1) & M; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)  # noqa: E702
        return v0, v1, v2, v3
    n = len(data)
    tail = data[n - n % 8:] + bytes(7 - n % 8) + bytes([n & 0xff])
    blocks = data[:n - n % 8] + tail
    for i in range(0, len(blocks), 8):
        m = int.from_bytes(blocks[i:i + 8], "little")
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v2 ^= 0xff
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


@register_op("StringToHashBucketStrong", inputs=("input",), outputs=("output",),
             attrs={"num_buckets": REQUIRED, "key": REQUIRED}, shape=_same_shape)
def string_to_hash_bucket_strong(input, num_buckets, key):
    """output = SipHash-2-4(key, input) mod num_buckets (int64)."""
    if num_buckets < 1:
        raise invalid_argument(f"num_buckets must be >= 1, got {num_buckets}")
    if len(key) != 2:
        raise invalid_argument(f"Key must have 2 elements, got {len(key)}")
    k0, k1 = (int(k) & farmhash.M for k in key)
    x = np.asarray(input, dtype=object)
    out = np.array([_siphash24(k0, k1, _bytes(s)) % num_buckets for s in x.reshape(-1)], dtype=np.int64)
    return out.reshape(x.shape)


@register_op("AsString", inputs=("input",), outputs=("output",),
             attrs={"precision": -1, "scientific": False, "shortest": False, "width": -1, "fill": ""},
             shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    """Each element formatted as text: C's ``%d`` for integers, ``%f`` (``%e``
    with ``scientific``, ``%g`` with ``shortest``; ``precision`` digits) for
    floats, ``true``/``false`` for bools, padded to ``width`` with ``fill``
    (a space or ``0``)."""
    x = np.asarray(input)
    if fill not in ("", " ", "0"):
        raise invalid_argument(f"Fill argument not supported: \"{fill}\"")
    if scientific and shortest:
        raise invalid_argument("Cannot select both scientific and shortest notation")
    spec = "%" + ("0" if fill == "0" else "") + (str(width) if width > -1 else "")
    if x.dtype.kind == "f":
        spec += (f".{precision}" if precision > -1 else "") + ("e" if scientific else "g" if shortest else "f")
    elif x.dtype.kind in "iu":
        spec += "d"
    elif x.dtype.kind == "b":
        spec += "s"
    elif x.dtype == object:
        spec += "s"
    else:
        raise invalid_argument(f"Value for attr 'T' of {_dtype_of(x).name} is not in the list of allowed values")
    out = np.empty(x.shape, dtype=object)
    for ix, v in np.ndenumerate(x):
        if x.dtype.kind == "b":
            v = "true" if v else "false"
        elif x.dtype == object:
            v = _text(v)
        elif x.dtype.kind == "f":
            v = float(v)
        else:
            v = int(v)
        s = spec % v
        if x.dtype.kind == "f" and s.lstrip("-").lower() in ("inf", "nan"):
            s = s.lower()
        out[ix] = s.encode()
    return out
