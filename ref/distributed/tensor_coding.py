"""``RecvTensorResponse`` on the wire straight from and into the arrays' own buffers.

TensorFlow's workers encode a ``RecvTensorResponse`` by hand
(``grpc_tensor_coding.cc``): the TensorProto's header fields, then
``tensor_content`` taken from the tensor's buffer, so a large tensor is not
copied into a protobuf message first. This module does the same in Python:

* :func:`encode_recv_tensor_response` writes the message as one ``bytes``: the
  small header (``dtype``, ``tensor_shape``) is a serialized protobuf, and the
  array's buffer joins it through a ``memoryview`` (one copy, into the message
  gRPC sends); :func:`encode_recv_tensor_response_parts` gives the same message as
  buffers, the array's own among them, for a socket to send with no copy at all
  (ref's tensor channel);
* :func:`decode_recv_tensor_response` reads the message gRPC received without
  protobuf copying the content: the array is ``np.frombuffer`` over the received
  bytes (read-only; the interpreter copies before writing, and variable updates
  never donate a buffer that is not writeable).

Field numbers are TensorFlow's (``worker.proto`` ``RecvTensorResponse``:
tensor 1, is_dead 2, send_start_micros 3, transport_options 4, require_ack 5;
``tensor.proto`` ``TensorProto``: dtype 1, tensor_shape 2, version_number 3,
tensor_content 4). A message with anything else in its TensorProto (a
``string_val``, a ``float_val`` splat, as a TensorFlow worker may write for
strings or scalars) is decoded with protobuf and ``make_ndarray``.
"""
from __future__ import annotations

import sys

import numpy as np

from ref.types import dtypes
from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.protos import tensor_pb2, tensor_shape_pb2, worker_pb2

__all__ = ["encode_recv_tensor_response", "encode_recv_tensor_response_parts", "decode_recv_tensor_response"]

_LITTLE = sys.byteorder == "little"


def _varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _read_varint(buf, pos):
    result, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(buf, start, end):
    """``(field number, wire type, value or (offset, length))`` for each field of ``buf[start:end]``."""
    pos = start
    while pos < end:
        tag, pos = _read_varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _read_varint(buf, pos)
        elif wire == 1:
            value, pos = (pos, 8), pos + 8
        elif wire == 2:
            n, pos = _read_varint(buf, pos)
            value, pos = (pos, n), pos + n
        elif wire == 5:
            value, pos = (pos, 4), pos + 4
        else:
            raise ValueError(f"RecvTensorResponse: unsupported wire type {wire} (field {number})")
        yield number, wire, value


def _raw_content(value, dtype):
    """The array whose buffer can be ``tensor_content`` as is, or None (strings, odd dtypes)."""
    if dtype == dtypes.string or dtype == dtypes.resource or dtype == dtypes.variant or not _LITTLE:
        return None
    arr = np.asarray(value)
    if arr.dtype != dtype.np:
        try:
            arr = arr.astype(dtype.np)
        except (TypeError, ValueError):
            return None
    if arr.dtype.hasobject:
        return None
    return arr if arr.flags.c_contiguous else np.ascontiguousarray(arr).reshape(arr.shape)


def encode_recv_tensor_response(value, dtype, is_dead=False, send_start_micros=0):
    """The serialized ``RecvTensorResponse`` for ``value`` (an array of ``dtype``)."""
    return b"".join(encode_recv_tensor_response_parts(value, dtype, is_dead, send_start_micros))


def encode_recv_tensor_response_parts(value, dtype, is_dead=False, send_start_micros=0):
    """The serialized ``RecvTensorResponse`` for ``value`` as a list of buffers whose
    concatenation is the message: the array's own buffer (a ``memoryview``) is one of them,
    so a socket can send it without the message ever being copied together. The
    memoryview refers to the array: a variable read being sent is not updated in place
    until the caller drops the list."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    tail = (b"\x10\x01" if is_dead else b"") + (b"\x18" + _varint(send_start_micros) if send_start_micros else b"")
    arr = None if is_dead else _raw_content(value, dtype)
    if arr is None:
        if is_dead:
            tensor = tensor_pb2.TensorProto(dtype=int(dtype.as_datatype_enum))
        else:
            tensor = make_tensor_proto(value, dtype=dtype)
        body = tensor.SerializeToString()
        return [b"".join((b"\x0a", _varint(len(body)), body, tail))]
    header = tensor_pb2.TensorProto(dtype=int(dtype.as_datatype_enum))
    for d in arr.shape:
        header.tensor_shape.dim.add().size = int(d)
    head = header.SerializeToString()
    n = arr.nbytes
    content_tag = b"\x22" + _varint(n) if n else b""
    size = len(head) + len(content_tag) + n
    first = b"".join((b"\x0a", _varint(size), head, content_tag))
    if not n:
        return [first + tail]
    content = memoryview(arr).cast("B")
    return [first, content, tail] if tail else [first, content]


def decode_recv_tensor_response(data):
    """``(value, dtype, is_dead, send_start_micros)`` of a serialized ``RecvTensorResponse``.

    ``value`` is a read-only view over ``data`` when the tensor came as
    ``tensor_content``; None when the tensor is dead.
    """
    if isinstance(data, worker_pb2.RecvTensorResponse):  # a decoded message (a caller in this process)
        data = data.SerializeToString()
    buf = memoryview(data).cast("B")
    tensor_at, is_dead, start_micros = None, False, 0
    for number, wire, value in _fields(buf, 0, len(buf)):
        if number == 1 and wire == 2:
            tensor_at = value
        elif number == 2 and wire == 0:
            is_dead = bool(value)
        elif number == 3 and wire == 0:
            start_micros = value
    if tensor_at is None:
        raise ValueError("RecvTensorResponse without a tensor")
    off, length = tensor_at
    dtype_enum, shape, content, simple = 0, [], None, True
    for number, wire, value in _fields(buf, off, off + length):
        if number == 1 and wire == 0:
            dtype_enum = value
        elif number == 2 and wire == 2:
            proto = tensor_shape_pb2.TensorShapeProto.FromString(bytes(buf[value[0]:value[0] + value[1]]))
            if proto.unknown_rank:
                simple = False
            shape = [d.size for d in proto.dim]
        elif number == 3:
            continue
        elif number == 4 and wire == 2:
            content = value
        else:
            simple = False
    dtype = dtypes.as_dtype(dtype_enum)
    if is_dead:
        return None, dtype, True, start_micros
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if simple and dtype != dtypes.string and _LITTLE and (content is not None or n == 0):
        npd = np.dtype(dtype.np)
        start, size = content if content is not None else (0, 0)
        if size != n * npd.itemsize:
            raise ValueError(f"RecvTensorResponse: a {dtype.name} tensor of shape {shape} needs "
                             f"{n * npd.itemsize} bytes, has {size}")
        arr = np.frombuffer(data, dtype=npd, count=n, offset=start) if n else np.zeros(0, npd)
        return arr.reshape(shape), dtype, False, start_micros
    tensor = tensor_pb2.TensorProto.FromString(bytes(buf[off:off + length]))
    return make_ndarray(tensor), dtype, False, start_micros
