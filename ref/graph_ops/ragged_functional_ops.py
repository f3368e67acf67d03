"""``tf.ragged.map_flat_values``: apply an op to the flat values of RaggedTensor
arguments, keeping their row partitions (TF's ``ragged_functional_ops``)."""
from __future__ import annotations

from ref.types import nest
from ref.graph_ops.ragged_tensor import RaggedTensor

__all__ = ["map_flat_values"]


def map_flat_values(op, *args, **kwargs):
    """``op`` called with every RaggedTensor in ``args``/``kwargs`` (any nesting)
    replaced by its flat values; the result takes the row partitions of the
    ragged arguments (which must agree: same ragged rank and row-splits dtype;
    ValueError otherwise). Without ragged arguments: ``op``'s result as is."""
    partitions = []

    def flat(x):
        if isinstance(x, RaggedTensor):
            partitions.append(x)
            return x.flat_values
        return x

    args = nest.map_structure(flat, args) if args else args
    kwargs = nest.map_structure(flat, kwargs) if kwargs else kwargs
    if not partitions:
        return op(*args, **kwargs)
    first = partitions[0]
    for other in partitions[1:]:
        if other.ragged_rank != first.ragged_rank:
            raise ValueError("Input RaggedTensors have mismatched ragged_rank")
        if other.row_splits.dtype != first.row_splits.dtype:
            raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                             "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes.")
    return first.with_flat_values(op(*args, **kwargs))
