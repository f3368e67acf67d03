"""What a ``Saver`` saves of one object (TF's ``training/saving/saveable_object.py``):
``SaveSpec`` (one tensor, its checkpoint key and slice) and ``SaveableObject``
(an object's specs and how it restores them).

They sit with the graph so that the builders that own saveable state (mutable
lookup tables, dataset iterators) define their saveables where they live; the
variable kinds and the Saver's name handling are in
``ref.checkpoint.saveable_object_util``.
"""
from __future__ import annotations

from ref.types import dtypes

__all__ = ["SaveSpec", "SaveableObject"]


class SaveSpec:
    """One tensor to save: its value tensor, checkpoint key ``name`` and slice
    spec (``""`` for a whole tensor, else ``"full shape  offset,len:..."``)."""

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        self.dtype = dtypes.as_dtype(dtype or tensor.dtype).base_dtype
        self.device = device if device is not None else getattr(tensor, "device", "")

    @property
    def tensor(self):
        return self._tensor() if callable(self._tensor) else self._tensor


class SaveableObject:
    """Something the Saver saves: ``op`` (the variable), its ``specs``, its ``name``.
    ``restore(tensors, shapes)`` returns the op that assigns the restored tensors."""

    def __init__(self, op, specs, name):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self):
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        raise NotImplementedError
