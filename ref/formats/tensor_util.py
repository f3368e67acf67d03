"""NumPy arrays <-> ``TensorProto`` (TF's ``make_tensor_proto`` / ``make_ndarray``).

Numeric arrays are written to ``tensor_content`` (raw little-endian bytes),
scalars to the typed ``*_val`` field, strings to ``string_val``; reading
accepts every form TensorFlow writes, including a single ``*_val`` broadcast
over the shape.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref import protos

# DType -> the TensorProto repeated field holding its values
_VAL_FIELD = {
    dtypes.float32: "float_val", dtypes.float64: "double_val", dtypes.int32: "int_val",
    dtypes.int16: "int_val", dtypes.int8: "int_val", dtypes.uint8: "int_val", dtypes.uint16: "int_val",
    dtypes.int64: "int64_val", dtypes.uint32: "uint32_val", dtypes.uint64: "uint64_val",
    dtypes.bool: "bool_val", dtypes.string: "string_val", dtypes.complex64: "scomplex_val",
    dtypes.complex128: "dcomplex_val", dtypes.float16: "half_val", dtypes.bfloat16: "half_val",
}


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto holding ``values`` (converted to ``dtype``). With ``shape``: one
    value fills it, fewer values are padded with the last (TF's rule), more raise
    ValueError; ``verify_shape`` demands the exact shape, ``allow_broadcast`` the
    exact shape or one value (TypeError otherwise)."""
    if verify_shape and allow_broadcast:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer and not isinstance(values, np.ndarray):
            for v in np.asarray(values, dtype=object).reshape(-1):
                if isinstance(v, float) and not float(v).is_integer():
                    raise TypeError(f"Expected {dtype.name}, but got {v} of type 'float'.")
        arr = np.asarray(values, dtype=object if dtype == dtypes.string else dtype.np)
    else:
        arr = np.asarray(values)
        if arr.dtype.kind in "SUO":
            arr = arr.astype(object)
        dtype = dtypes.string if arr.dtype == object else dtypes.as_dtype(arr.dtype)
    if shape is not None:
        shape = [int(d) for d in shape]
        n = math.prod(shape)
        if arr.shape != tuple(shape):
            if verify_shape or (allow_broadcast and arr.size != 1):
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
            if arr.size > n and arr.size != 1:
                raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
            flat = arr.reshape(-1)
            if 1 < flat.size < n:  # TF writes the values given; a reader repeats the last
                return _given_values_proto(flat, dtype, shape)
            arr = np.broadcast_to(flat.reshape(()), shape) if flat.size == 1 else flat.reshape(shape)
    proto = protos.tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=TensorShape(arr.shape).as_proto())
    if _is_splat(arr):  # one value; TF spreads the last value over the shape
        _append_values(proto, arr.reshape(-1)[:1], dtype)
    elif dtype in (dtypes.string, dtypes.bool) or dtype.is_complex or (  # not TF's tensor_content types
            arr.size == 1 and dtype in _VAL_FIELD and dtype not in (dtypes.float16, dtypes.bfloat16)):
        _append_values(proto, arr.reshape(-1), dtype)
    else:
        proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    return proto


def _append_values(proto, flat, dtype):
    if dtype.is_complex:
        getattr(proto, _VAL_FIELD[dtype]).extend(x for v in flat for x in (v.real.item(), v.imag.item()))
    elif dtype in (dtypes.float16, dtypes.bfloat16):
        proto.half_val.extend(int(v) for v in np.ascontiguousarray(flat).view(np.uint16))
    elif dtype == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in flat)
    else:
        getattr(proto, _VAL_FIELD[dtype]).extend(v.item() for v in flat)


def _given_values_proto(flat, dtype, shape):
    """TF's proto for ``constant(values, shape=shape)`` given fewer values than the
    shape holds: those values in the typed field, the shape as asked."""
    proto = protos.tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=TensorShape(shape).as_proto())
    _append_values(proto, flat, dtype)
    return proto


def _is_splat(arr) -> bool:
    """A zero-stride view of one value (what ``make_ndarray`` returns for a
    single ``*_val`` spread over a shape): it is written back as that value."""
    return arr.size > 1 and all(st == 0 for st, d in zip(arr.strides, arr.shape) if d > 1)


def _unpack_strings(content: bytes, n: int) -> list:
    """The ``n`` strings TF packs into ``tensor_content``: their lengths as
    varints, then their bytes one after the other."""
    lengths, pos = [], 0
    for _ in range(n):
        value = shift = 0
        while True:
            if pos >= len(content) or shift > 28:
                raise ValueError(f"DT_STRING tensor_content too short for {n} strings")
            byte = content[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        lengths.append(value)
    if pos + sum(lengths) != len(content):
        raise ValueError(f"DT_STRING tensor_content of {len(content)} bytes does not hold {n} strings "
                         f"of lengths {lengths}")
    out = []
    for length in lengths:
        out.append(bytes(content[pos:pos + length]))
        pos += length
    return out


def make_ndarray(tensor):
    """The NumPy array a TensorProto holds.

    A single ``*_val`` spread over a larger shape (a "splat", e.g. the
    ``zeros`` TF writes as one ``float_val``) comes back as a read-only
    zero-stride view of that one value (``np.broadcast_to``): it costs one
    element however large its shape, and kernels expand it only when they
    compute with it. Every allocation is bounded by what the proto holds.

    Raises:
      ValueError: a negative dimension, or ``tensor_content`` whose size does
        not match the shape.
    """
    dtype = dtypes.as_dtype(tensor.dtype)
    shape = [d.size for d in tensor.tensor_shape.dim]
    if any(d < 0 for d in shape):
        raise ValueError(f"TensorProto has a negative dimension: shape {shape}")
    n = math.prod(shape)
    if dtype == dtypes.string:
        strings = _unpack_strings(tensor.tensor_content, n) if tensor.tensor_content else list(tensor.string_val)
        vals = np.empty(len(strings), dtype=object)
        vals[:] = strings
    elif tensor.tensor_content:
        npd = dtype.np.newbyteorder("<")
        if len(tensor.tensor_content) != n * npd.itemsize:
            raise ValueError(f"TensorProto of {dtype.name} and shape {shape} needs {n * npd.itemsize} bytes "
                             f"of tensor_content, has {len(tensor.tensor_content)}")
        return np.frombuffer(tensor.tensor_content, dtype=npd).astype(dtype.np).reshape(shape)
    elif dtype in (dtypes.float16, dtypes.bfloat16):
        vals = np.array(list(tensor.half_val), dtype=np.uint16).view(dtype.np)
    elif dtype.is_complex:
        flat = np.array(list(getattr(tensor, _VAL_FIELD[dtype])), dtype=dtype.real_dtype.np)
        vals = flat[0::2] + 1j * flat[1::2]
    else:
        vals = np.array(list(getattr(tensor, _VAL_FIELD[dtype])), dtype=dtype.np)
    vals = vals.astype(dtype.np) if dtype != dtypes.string else vals
    if vals.size == n:
        return vals.reshape(shape)
    if vals.size > n:
        raise ValueError(f"TensorProto of shape {shape} holds {vals.size} values, more than its {n} elements")
    if vals.size == 0:
        fill = np.array(b"", dtype=object) if dtype == dtypes.string else np.zeros((), dtype=vals.dtype)
        return np.broadcast_to(fill, shape)
    if vals.size == 1:
        return np.broadcast_to(vals.reshape(()), shape)
    out = np.empty(n, dtype=vals.dtype)
    out[:vals.size] = vals
    out[vals.size:] = vals[-1]  # TF repeats the last value
    return out.reshape(shape)


MakeNdarray = make_ndarray  # TF's older spelling (tensor_util.MakeNdarray)
