"""Sparse serialization kernels: ``SerializeSparse``, ``SerializeManySparse``,
``DeserializeSparse``, ``DeserializeManySparse``.

TF's string form: three serialized ``TensorProto`` messages (indices, values,
dense_shape) per sparse tensor, every tensor's data in ``tensor_content`` as
TF's ``AsProtoTensorContent`` writes it, so strings made by TensorFlow
deserialize here and the other way round.
"""
from __future__ import annotations

import numpy as np

from ref import protos
from ref.types import dtypes
from ref.formats import tensor_util
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.ops.sparse import _check_bounds, _check_triple, _dim, _shape_str
from ref.types.shapes import TensorShape


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _to_proto(array: np.ndarray, dtype) -> bytes:
    """A serialized TensorProto with all of ``array`` in ``tensor_content``, as
    TF's ``Tensor::AsProtoTensorContent`` writes it (strings: the varint
    lengths, then the bytes)."""
    dtype = dtypes.as_dtype(dtype)
    proto = protos.tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum,
                                          tensor_shape=TensorShape(array.shape).as_proto())
    if dtype == dtypes.string:
        items = [x if isinstance(x, bytes) else str(x).encode() for x in array.reshape(-1)]
        proto.tensor_content = b"".join(_varint(len(x)) for x in items) + b"".join(items)
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype=dtype.np.newbyteorder("<")).tobytes()
    return proto.SerializeToString()


def _from_proto(serialized: bytes, what: str):
    """(array, DataType enum) of a serialized TensorProto (any of TF's encodings)
    or of a :class:`TensorVariant`."""
    if isinstance(serialized, TensorVariant):
        return serialized.value, serialized.dtype.as_datatype_enum
    proto = protos.tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(serialized)
    except Exception:
        raise invalid_argument(f"Could not parse serialized proto ({what})") from None
    if proto.dtype == dtypes.string.as_datatype_enum and proto.tensor_content:
        shape = [d.size for d in proto.tensor_shape.dim]
        buf, pos, lengths = proto.tensor_content, 0, []
        for _ in range(int(np.prod(shape, dtype=np.int64))):
            n = shift = 0
            while True:
                b = buf[pos]
                pos += 1
                n |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            lengths.append(n)
        out = np.empty(len(lengths), dtype=object)
        for i, n in enumerate(lengths):
            out[i] = bytes(buf[pos:pos + n])
            pos += n
        return out.reshape(shape), proto.dtype
    return tensor_util.make_ndarray(proto), proto.dtype


class TensorVariant:
    """A tensor held in a ``variant`` scalar (TF's ``Tensor`` in a ``Variant``):
    the form ``out_type=variant`` gives each of the three components."""

    __slots__ = ("value", "dtype")
    is_variant = True

    def __init__(self, value, dtype):
        self.value, self.dtype = value, dtypes.as_dtype(dtype)

    def __repr__(self):
        return f"<Tensor<type: {self.dtype.name} shape: {list(np.shape(self.value))}> variant>"


def _serialize_one(indices, values, shape, dtype, variant=False) -> np.ndarray:
    parts = [(np.asarray(indices, np.int64), dtypes.int64), (values, dtype), (np.asarray(shape, np.int64),
                                                                             dtypes.int64)]
    out = np.empty(3, dtype=object)
    for k, (a, t) in enumerate(parts):
        out[k] = TensorVariant(a, t) if variant else _to_proto(a, t)
    return out


def _values_dtype(values):
    return dtypes.string if values.dtype == object or values.dtype.kind in "SU" else dtypes.as_dtype(values.dtype)


def _serialize_shape(many):
    def rule(ins, attrs):
        out = attrs.get("out_type", dtypes.string)
        if out not in (dtypes.string, dtypes.variant):
            raise TypeError(f"Value for attr 'out_type' of {out.name} is not in the list of allowed values: "
                            f"string, variant")
        return [(out, TensorShape([_dim(ins["sparse_indices"], 0), 3] if many else [3]))]
    return rule


@register_op("SerializeSparse", inputs=("sparse_indices", "sparse_values", "sparse_shape"),
             outputs=("serialized_sparse",), attrs={"out_type": dtypes.string}, type_attrs={"T": "sparse_values"},
             shape=_serialize_shape(False))
def serialize_sparse(sparse_indices, sparse_values, sparse_shape, out_type=dtypes.string):
    """A ``[3]`` string vector: the serialized TensorProtos of indices, values
    and dense_shape."""
    idx, vals, shape = np.asarray(sparse_indices), np.asarray(sparse_values), np.asarray(sparse_shape)
    _check_triple(idx, vals, shape)
    return _serialize_one(idx, vals, shape, _values_dtype(vals), out_type == dtypes.variant)


@register_op("SerializeManySparse", inputs=("sparse_indices", "sparse_values", "sparse_shape"),
             outputs=("serialized_sparse",), attrs={"out_type": dtypes.string}, type_attrs={"T": "sparse_values"},
             shape=lambda ins, attrs: [(attrs.get("out_type", dtypes.string), TensorShape([None, 3]))])
def serialize_many_sparse(sparse_indices, sparse_values, sparse_shape, out_type=dtypes.string):
    """``[N, 3]`` strings: row ``n`` serializes the rank R-1 sparse tensor of
    the entries whose first index is ``n`` (N = dense_shape[0]; R >= 2)."""
    idx, vals, shape = np.asarray(sparse_indices), np.asarray(sparse_values), np.asarray(sparse_shape)
    _check_triple(idx, vals, shape)
    if shape.shape[0] < 2:
        raise invalid_argument(f"Rank of input SparseTensor should be > 1, but saw rank: {shape.shape[0]}")
    _check_bounds(idx, shape)
    n = int(shape[0])
    out = np.empty((n, 3), dtype=object)
    order = np.argsort(idx[:, 0], kind="stable")
    idx, vals = idx[order], vals[order]
    for b in range(n):
        rows = idx[:, 0] == b
        out[b] = _serialize_one(idx[rows, 1:], vals[rows], shape[1:], _values_dtype(vals),
                                out_type == dtypes.variant)
    return out


def _deserialize(serialized, dtype):
    """(indices, values, shape) combining a ``[..., 3]`` array of serialized
    sparse tensors into one whose leading dims are the array's."""
    ser = np.asarray(serialized, dtype=object)
    if ser.ndim < 1 or ser.shape[-1] != 3:
        raise invalid_argument(f"Serialized sparse should have 3 as the last dimension {_shape_str(ser.shape)}")
    batch = ser.shape[:-1]
    flat = ser.reshape(-1, 3)
    np_dtype = dtypes.as_dtype(dtype).np
    parts, rank, max_shape = [], None, None
    for n in range(flat.shape[0]):
        idx, _ = _from_proto(flat[n, 0], f"serialized_sparse[{n}, 0]")
        vals, vtype = _from_proto(flat[n, 1], f"serialized_sparse[{n}, 1]")
        shape, _ = _from_proto(flat[n, 2], f"serialized_sparse[{n}, 2]")
        want = dtypes.as_dtype(dtype)
        if vtype != want.as_datatype_enum:
            raise invalid_argument(f"Requested SparseTensor of type {want.name} but SparseTensor[{n}].values.dtype() "
                                   f"== {dtypes.as_dtype(vtype).name}")
        if idx.ndim != 2 or shape.ndim != 1 or idx.shape[1] != shape.shape[0]:
            raise invalid_argument(f"Expected serialized_sparse[{n}] to hold a matrix of indices and a shape vector "
                                   f"of matching rank; got {_shape_str(idx.shape)} and {_shape_str(shape.shape)}")
        if rank is None:
            rank, max_shape = shape.shape[0], shape.astype(np.int64).copy()
        elif shape.shape[0] != rank:
            raise invalid_argument(f"Inconsistent shape across SparseTensors: rank prior to SparseTensor[{n}] was: "
                                   f"{rank} but rank of SparseTensor[{n}] is: {shape.shape[0]}")
        else:
            max_shape = np.maximum(max_shape, shape)
        prefix = np.tile(np.array(np.unravel_index(n, batch), np.int64).reshape(1, -1), (idx.shape[0], 1))
        parts.append((np.concatenate([prefix, idx.astype(np.int64)], axis=1), vals.astype(np_dtype, copy=False)))
    if rank is None:
        raise invalid_argument("Serialized sparse should have at least 1 element: got none")
    out_idx = np.concatenate([p[0] for p in parts]).reshape(-1, len(batch) + rank)
    out_val = np.concatenate([p[1] for p in parts])
    return out_idx, out_val, np.concatenate([np.array(batch, np.int64), max_shape]).astype(np.int64)


@register_op("DeserializeSparse", inputs=("serialized_sparse",),
             outputs=("sparse_indices", "sparse_values", "sparse_shape"), attrs={"dtype": REQUIRED},
             type_attrs={"Tserialized": "serialized_sparse"}, shape=lambda ins, attrs: _deserialize_shape(ins, attrs))
def deserialize_sparse(serialized_sparse, dtype):
    """The sparse tensors of a ``[d0, ..., dk, 3]`` string array (from
    SerializeSparse) combined into one of rank k+1+R: entry ``[i0..ik, j..]``
    is entry ``[j..]`` of the tensor at ``[i0..ik]``; dense_shape is
    ``[d0..dk]`` then the elementwise maximum of the serialized shapes (all
    of rank R). A ``[3]`` input gives back the one tensor."""
    return _deserialize(serialized_sparse, dtype)


def _deserialize_shape(ins, attrs):
    s = ins["serialized_sparse"].shape
    if s.ndims == 0:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs['_op_name']}' (op: "
                         f"'DeserializeSparse') with input shapes: [].")
    return [(dtypes.int64, TensorShape([None, None])), (attrs["dtype"], TensorShape([None])),
            (dtypes.int64, TensorShape([None]))]


@register_op("DeserializeManySparse", inputs=("serialized_sparse",),
             outputs=("sparse_indices", "sparse_values", "sparse_shape"), attrs={"dtype": REQUIRED},
             shape=lambda ins, attrs: [(dtypes.int64, TensorShape([None, None])), (attrs["dtype"], TensorShape([None])),
                                       (dtypes.int64, TensorShape([None]))])
def deserialize_many_sparse(serialized_sparse, dtype):
    """DeserializeSparse of an ``[N, 3]`` minibatch: rank R+1, ``dense_shape[0] = N``."""
    ser = np.asarray(serialized_sparse, dtype=object)
    if ser.ndim != 2 or ser.shape[1] != 3:
        raise invalid_argument(f"Serialized sparse should be a matrix with 3 columns: {_shape_str(ser.shape)}")
    return _deserialize(ser, dtype)
