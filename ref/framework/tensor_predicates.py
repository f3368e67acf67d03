"""``tf.is_tensor`` and ``tf.get_static_value``."""
from __future__ import annotations

from ref.framework.indexed_slices import IndexedSlices
from ref.framework.sparse_tensor import SparseTensor
from ref.framework.tensor import Tensor
from ref.framework.tensor_util import constant_value


def is_tensor(x) -> bool:
    """True for graph values -- a Tensor, an IndexedSlices, a SparseTensor, a
    variable (anything with ``_as_graph_element``, or marked ``is_tensor_like``)
    -- and False for Python and NumPy values, which a builder would still have
    to convert."""
    return (isinstance(x, (Tensor, IndexedSlices, SparseTensor)) or hasattr(x, "_as_graph_element")
            or bool(getattr(x, "is_tensor_like", False)))


def get_static_value(tensor, partial=False):
    """The tensor's value as a NumPy array when it is known while the graph is
    built (``constant_value``: constants and what folds from them), else None.
    ``partial`` is TF's argument; ref folds whole values only."""
    del partial
    return constant_value(tensor)
