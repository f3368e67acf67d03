"""TF1 counting builders: ``tf.bincount`` / ``tf.math.bincount`` (TF's
``bincount_ops``: the output length computed in the graph, then
``DenseBincount``) and ``tf.unique_with_counts`` (``UniqueWithCounts``)."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops, math_ops
from ref.types import dtypes

__all__ = ["bincount", "unique_with_counts"]


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``(y, idx, count)``: ``unique``'s outputs and how often each ``y[j]`` occurs in ``x``."""
    return apply_op("UniqueWithCounts", x=x, out_idx=dtypes.as_dtype(out_idx), name=name or "UniqueWithCounts")


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32):
    """``output[i]``: how often ``i`` occurs in ``arr`` (the sum of the matching
    ``weights`` when given); length ``max(arr) + 1`` (0 for an empty ``arr``),
    at least ``minlength``, at most ``maxlength`` (larger values skipped)."""
    with name_scope("bincount"):
        arr = convert_to_tensor(arr, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
        if not arr.dtype.is_integer:
            arr = math_ops.cast(arr, dtypes.int32)
        nonempty = array_ops.size(arr) > 0
        output_size = math_ops.cast(nonempty, arr.dtype) * (math_ops.reduce_max(arr) + 1)
        if minlength is not None:
            minlength = convert_to_tensor(minlength, name="minlength", dtype=arr.dtype)
            output_size = math_ops.maximum(minlength, output_size)
        if maxlength is not None:
            maxlength = convert_to_tensor(maxlength, name="maxlength", dtype=arr.dtype)
            output_size = math_ops.minimum(maxlength, output_size)
        if weights is not None:
            weights = array_ops.reshape(weights, [-1])
        arr = array_ops.reshape(arr, [-1])
        if weights is None:  # TF's validate_dense_weights: an empty weights vector of the output dtype
            weights = constant([], dtype=dtype)
        return apply_op("DenseBincount", input=arr, size=output_size, weights=weights, binary_output=False)
