"""``IndexedSlices``: a sparse set of slices of a dense tensor, the gradient of a
gather (TF's ``framework/indexed_slices.py``). Its conversion to a dense Tensor
is registered with the converters in ``op_def_library``.
"""
from __future__ import annotations

from collections import namedtuple


class IndexedSlices:
    """A sparse representation of a set of tensor slices: ``values`` at ``indices``
    of a dense tensor of shape ``dense_shape`` (gradients of gather)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    name = property(lambda self: self._values.name)
    device = property(lambda self: self._values.device)
    op = property(lambda self: self._values.op)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        return (f"IndexedSlices(indices={self._indices}, values={self._values}"
                + (f", dense_shape={self._dense_shape})" if self._dense_shape is not None else ")"))

    def _as_graph_element(self):
        return self._values


IndexedSlicesValue = namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
