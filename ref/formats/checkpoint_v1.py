"""Reader for TensorFlow's V1 checkpoint format (``SaverDef.V1``).

A V1 checkpoint is one table file per shard (``model.ckpt`` or
``model.ckpt-?????-of-NNNNN``; tensor_slice_reader.cc globs the pattern).
In each file, key ``""`` holds a ``SavedTensorSlices`` whose ``meta`` lists
every tensor with its name, shape, type and the slices this file holds; each
slice is stored under ``slices.encode_tensor_name_slice(name, slice)`` as a
``SavedTensorSlices`` whose ``data.data`` is a ``TensorProto`` with the values
in its typed repeated field (saved_tensor_slice_util.h: ``float_val``,
``int_val`` for the small integer types, ``half_val`` for the bit patterns of
float16, ``scomplex_val`` as (re, im) pairs, ...). A whole tensor is saved as
the full slice.
"""
from __future__ import annotations

import glob as _glob
import os

import numpy as np

from ref.types import dtypes, errors
from ref.formats import table
from ref.formats.slices import TensorSlice, assemble, checked_slice, encode_tensor_name_slice
from ref import protos

# dtype name -> (TensorProto field, NumPy type of the field's values)
_FIELDS = {
    "float32": ("float_val", np.float32), "float64": ("double_val", np.float64),
    "int32": ("int_val", np.int32), "int16": ("int_val", np.int32), "int8": ("int_val", np.int32),
    "uint8": ("int_val", np.int32), "uint16": ("int_val", np.int32),
    "qint8": ("int_val", np.int32), "quint8": ("int_val", np.int32), "qint16": ("int_val", np.int32),
    "quint16": ("int_val", np.int32), "qint32": ("int_val", np.int32),
    "int64": ("int64_val", np.int64), "uint32": ("uint32_val", np.uint32), "uint64": ("uint64_val", np.uint64),
    "bool": ("bool_val", np.bool_),
    "complex64": ("scomplex_val", np.float32), "complex128": ("dcomplex_val", np.float64),
    "float16": ("half_val", np.int32), "bfloat16": ("half_val", np.int32),
}
_QUANTIZED_NP = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16, "quint16": np.uint16, "qint32": np.int32}


def _pb():
    return protos.saved_tensor_slices_pb2


def np_dtype(dtype: dtypes.DType) -> np.dtype:
    if dtype == dtypes.string:
        return np.dtype(object)
    if dtype.name in _QUANTIZED_NP:
        return np.dtype(_QUANTIZED_NP[dtype.name])
    if dtype.np is None:
        raise errors.UnimplementedError(None, None, f"Reading tensors of type {dtype.name} is not supported")
    return dtype.np


def tensor_proto_values(proto, dtype: dtypes.DType, shape) -> np.ndarray:
    """The values of a V1 slice's TensorProto as an array of ``shape``."""
    count = int(np.prod(shape, dtype=np.int64))
    npd = np_dtype(dtype)
    if proto.tensor_content:
        flat = np.frombuffer(proto.tensor_content, dtype=npd.newbyteorder("<") if npd.itemsize > 1 else npd)
        return flat.astype(npd).reshape(shape)
    if dtype == dtypes.string:
        flat = np.empty(len(proto.string_val), dtype=object)
        flat[:] = list(proto.string_val)
    else:
        field, ftype = _FIELDS[dtype.name]
        vals = np.asarray(getattr(proto, field), dtype=ftype)
        if dtype.is_complex:
            flat = (vals[0::2] + 1j * vals[1::2]).astype(npd) if vals.size % 2 == 0 else vals
        elif field == "half_val":
            flat = vals.astype(np.uint16).view(npd)
        else:
            flat = vals.astype(npd)
    if flat.size != count:
        raise ValueError(f"slice holds {flat.size} values, its shape {tuple(shape)} needs {count}")
    return flat.reshape(shape)


class TensorSliceReader:
    """Reads the V1 checkpoint files matching ``filepattern``.

    ``tensors`` maps each name to ``(DType, shape, [(TensorSlice, file index)])``."""

    def __init__(self, filepattern: str):
        self.filepattern = str(filepattern)
        # a file of that exact name is the checkpoint, whatever glob characters
        # its name holds; otherwise the name is a pattern (sharded V1 saves)
        self.files = [self.filepattern] if os.path.isfile(self.filepattern) else sorted(_glob.glob(self.filepattern))
        if not self.files:
            raise errors.NotFoundError(
                None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                            f"files for {self.filepattern}")
        pb = _pb()
        self._tables = []
        self.tensors: dict[str, tuple[dtypes.DType, tuple[int, ...], list]] = {}
        for i, path in enumerate(self.files):
            t = table.Table.open(path)
            self._tables.append(t)
            value = t.get(b"")
            if value is None:
                raise errors.DataLossError(None, None, f"Unable to read V1 checkpoint {path}: no metadata entry")
            sts = self._parse(pb.SavedTensorSlices, value, path)
            for meta in sts.meta.tensor:
                try:
                    dtype = dtypes.as_dtype(meta.type)
                except (TypeError, ValueError, KeyError):
                    raise errors.DataLossError(None, None, f"Tensor {meta.name} in {path} has an invalid "
                                                           f"type {meta.type}") from None
                shape = tuple(d.size for d in meta.shape.dim)
                if any(d < 0 for d in shape) or meta.shape.unknown_rank:
                    raise errors.DataLossError(None, None, f"Tensor {meta.name} in {path} has an invalid "
                                                           f"shape {shape}")
                known = self.tensors.get(meta.name)
                if known is None:
                    known = self.tensors[meta.name] = (dtype, shape, [])
                elif known[:2] != (dtype, shape):
                    raise errors.DataLossError(
                        None, None, f"Tensor {meta.name} in {path} has type {dtype.name} and shape {shape}, "
                                    f"another file says {known[0].name} {known[1]}")
                for sp in meta.slice:
                    try:
                        known[2].append((checked_slice(sp, shape), i))
                    except ValueError as e:
                        raise errors.DataLossError(None, None, f"Tensor {meta.name} in {path}: invalid "
                                                               f"slice: {e}") from None

    @staticmethod
    def _parse(cls, value: bytes, path: str):
        msg = cls()
        try:
            msg.ParseFromString(value)
        except Exception:  # protobuf's DecodeError
            raise errors.DataLossError(None, None, f"Unable to parse SavedTensorSlices in {path}") from None
        return msg

    def has_tensor(self, name: str) -> bool:
        return name in self.tensors

    def _load(self, name: str, dtype, shape, sl: TensorSlice, file_index: int) -> np.ndarray:
        path = self.files[file_index]
        value = self._tables[file_index].get(encode_tensor_name_slice(name, sl))
        if value is None:
            raise errors.DataLossError(None, None, f"Slice {sl} of tensor {name} is missing from {path}")
        saved = self._parse(_pb().SavedTensorSlices, value, path).data
        try:
            return tensor_proto_values(saved.data, dtype, sl.shape(shape))
        except ValueError as e:
            raise errors.DataLossError(None, None, f"Bad data for tensor {name} in {path}: {e}") from None

    def get_tensor(self, name: str) -> np.ndarray:
        """Tensor ``name`` whole; a missing name is TF's CheckpointReader NotFoundError."""
        if name not in self.tensors:
            raise errors.NotFoundError(None, None, f"{name} not found in checkpoint file")
        return self.get_slice(name, None)

    def get_slice(self, name: str, slice_spec) -> np.ndarray:
        """Tensor ``name`` (or its part ``slice_spec``), assembled from its slices."""
        if name not in self.tensors:
            raise errors.NotFoundError(None, None, f'Tensor name "{name}" not found in checkpoint files '
                                                   f"{self.filepattern}")
        dtype, shape, stored = self.tensors[name]
        want = TensorSlice.full(len(shape)) if slice_spec is None else (
            TensorSlice.parse(slice_spec) if isinstance(slice_spec, str) else slice_spec)
        where = dict(stored)
        try:
            return assemble(shape, np_dtype(dtype), want, list(where),
                            lambda sl: self._load(name, dtype, shape, sl, where[sl]))
        except ValueError as e:
            raise errors.NotFoundError(None, None, f"Tensor {name}: {e}") from None
