"""``tf.compat.v1.train.NewCheckpointReader`` and the checkpoint_utils helpers
``load_checkpoint``, ``list_variables``, ``load_variable``
(TF's API reference, tf.compat.v1.train).

A reader opens a V2 bundle when ``filepattern.index`` exists and otherwise
treats ``filepattern`` as the (glob) pattern of V1 checkpoint files, as TF's
checkpoint_reader.cc does.
"""
from __future__ import annotations

import os

import numpy as np

from ref.types import dtypes, errors
from ref.formats import checkpoint_state as state
from ref.formats.bundle import BundleReader, meta_filename
from ref.formats.checkpoint_v1 import TensorSliceReader
from ref import protos

def _dtype_name(enum: int) -> str:
    """DataType_Name: ``DT_FLOAT``, ``DT_HALF``, ..."""
    try:
        return protos.types_pb2.DataType.Name(enum)
    except ValueError:
        return str(enum)


def _shape_debug_string(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


class CheckpointReader:
    """Reads the tensors of a V2 or V1 checkpoint.

    ``get_tensor`` returns a NumPy array (a NumPy scalar, or ``bytes`` for a
    string, when the tensor is 0-d, as TF's reader does)."""

    def __init__(self, filepattern):
        filepattern = os.fspath(filepattern)
        if isinstance(filepattern, bytes):
            filepattern = filepattern.decode()
        self._filepattern = filepattern
        if os.path.exists(meta_filename(filepattern)):
            self._v2 = BundleReader(filepattern)
            self._v1 = None
            self._vars = {name: (dtype, shape) for name, dtype, shape in self._v2.variables()}
        else:
            self._v2 = None
            self._v1 = TensorSliceReader(filepattern)
            self._vars = {name: (dtype, shape) for name, (dtype, shape, _) in self._v1.tensors.items()}

    def has_tensor(self, tensor_str) -> bool:
        name = tensor_str.decode() if isinstance(tensor_str, bytes) else tensor_str
        if self._v2 is not None:
            return self._v2.contains(name)
        return self._v1.has_tensor(name)

    def get_tensor(self, tensor_str):
        name = tensor_str.decode() if isinstance(tensor_str, bytes) else tensor_str
        if self._v2 is not None:
            if not self._v2.contains(name):
                raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
            value = self._v2.lookup(name)
        else:
            value = self._v1.get_tensor(name)
        return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {name: list(shape) for name, (_, shape) in self._vars.items()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        return {name: dtype for name, (dtype, _) in self._vars.items()}

    def debug_string(self) -> bytes:
        """One line per tensor, ``name (DT_FLOAT) [2,3]``, as TF's reader prints them.

        V2: every non-header entry in key order except the metadata entries of
        partitioned tensors (so their slices appear under their encoded keys).
        V1: every tensor, sorted, with ", N slices" when it has more than one."""
        lines = []
        if self._v2 is not None:
            for key, entry in self._v2.entries():
                if entry.slices:
                    continue
                shape = [d.size for d in entry.shape.dim]
                lines.append(key + f" ({_dtype_name(entry.dtype)}) "
                                   f"{_shape_debug_string(shape)}\n".encode())
        else:
            for name in sorted(self._v1.tensors):
                dtype, shape, stored = self._v1.tensors[name]
                line = f"{name} ({_dtype_name(dtype.as_datatype_enum)}) {_shape_debug_string(shape)}"
                if len(stored) > 1:
                    line += f", {len(stored)} slices"
                lines.append((line + "\n").encode())
        return b"".join(lines)


def NewCheckpointReader(filepattern) -> CheckpointReader:  # noqa: N802 - TF's name
    """A function that returns a CheckPointReader."""
    return CheckpointReader(filepattern)


def checkpoint_filename(ckpt_dir_or_file) -> str:
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return state.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """Returns CheckpointReader for checkpoint found in ckpt_dir_or_file: a
    directory resolves to its latest checkpoint through the ``checkpoint`` file.

    Raises:
      ValueError: if a directory holds no checkpoint.
    """
    filename = checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory "
                         f"{os.fspath(ckpt_dir_or_file)}")
    return NewCheckpointReader(filename)


def list_variables(ckpt_dir_or_file) -> list[tuple[str, list[int]]]:
    """Lists the checkpoint keys and shapes of variables in a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name):
    """Returns the tensor value of the given variable in the checkpoint
    (a trailing ``:0`` is dropped from ``name``)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
