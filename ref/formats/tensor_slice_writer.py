"""Writer for TensorFlow's V1 checkpoint format (``SaverDef.V1``), the inverse
of :mod:`ref.formats.checkpoint_v1` (TF's tensor_slice_writer.h).

One table file holds, under key ``""``, a ``SavedTensorSlices`` whose ``meta``
lists every tensor (name, full shape, dtype, the slices saved) and
``versions.producer = 1`` (TF_CHECKPOINT_VERSION); then, under
``slices.encode_tensor_name_slice(name, slice)``, one ``SavedTensorSlices``
per slice whose ``data.data`` TensorProto carries the values in its typed
repeated field (``float_val``, ``int_val``, ``half_val`` bit patterns,
``scomplex_val`` (re, im) pairs, ``string_val``...). The table is written to a
temporary file renamed onto ``filename``, as TF writes it.
"""
from __future__ import annotations

import os
import uuid

import numpy as np

from ref.types import dtypes
from ref.formats import table
from ref.formats.checkpoint_v1 import _FIELDS
from ref.formats.slices import TensorSlice, encode_tensor_name_slice
from ref import protos

TF_CHECKPOINT_VERSION = 1
TF_CHECKPOINT_VERSION_MIN_CONSUMER = 0

__all__ = ["write_tensor_slices"]


def _fill(proto, value: np.ndarray, dtype: dtypes.DType) -> None:
    flat = np.asarray(value).reshape(-1)
    if dtype == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in flat.tolist())
        return
    field, ftype = _FIELDS[dtype.name]
    if dtype.is_complex:
        pairs = np.empty(2 * flat.size, dtype=ftype)
        pairs[0::2], pairs[1::2] = flat.real, flat.imag
        getattr(proto, field).extend(pairs.tolist())
    elif field == "half_val":
        getattr(proto, field).extend(flat.astype(dtype.np).view(np.uint16).astype(np.int32).tolist())
    else:
        getattr(proto, field).extend(flat.astype(ftype).tolist())


def write_tensor_slices(filename: str, entries) -> None:
    """Writes the V1 checkpoint file ``filename``.

    ``entries``: ``(name, full_shape, TensorSlice or None, value, DType)`` per
    saved tensor (None: the whole tensor).

    Raises:
      ValueError: if a value's shape is not its slice's shape."""
    pb = protos.saved_tensor_slices_pb2
    meta = pb.SavedTensorSlices()
    meta.meta.versions.producer = TF_CHECKPOINT_VERSION
    meta.meta.versions.min_consumer = TF_CHECKPOINT_VERSION_MIN_CONSUMER
    by_name, data = {}, {}
    for name, full_shape, sl, value, dtype in entries:
        full_shape = [int(d) for d in full_shape]
        sl = TensorSlice.full(len(full_shape)) if sl is None else sl
        value = np.asarray(value)
        if tuple(value.shape) != tuple(sl.shape(full_shape)):
            raise ValueError(f"Tensor {name}: value shape {list(value.shape)} is not the shape "
                             f"{list(sl.shape(full_shape))} of slice {sl} of {full_shape}")
        tmeta = by_name.get(name)
        if tmeta is None:
            tmeta = by_name[name] = meta.meta.tensor.add(name=name, type=dtype.as_datatype_enum)
            tmeta.shape.SetInParent()  # a scalar's shape is present and empty, as TF writes it
            for d in full_shape:
                tmeta.shape.dim.add(size=d)
        sl.to_proto(tmeta.slice.add())
        saved = pb.SavedTensorSlices()
        saved.data.name = name
        saved.data.slice.SetInParent()
        sl.to_proto(saved.data.slice)
        _fill(saved.data.data, value, dtype)
        data[encode_tensor_name_slice(name, sl)] = saved.SerializeToString()
    tmp = f"{filename}.tempstate{uuid.uuid4().hex}"
    try:
        with open(tmp, "wb") as f:
            builder = table.TableBuilder(f)
            builder.add(b"", meta.SerializeToString())
            for key in sorted(data):
                builder.add(key, data[key])
            builder.finish()
        os.replace(tmp, filename)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
