"""TF1 counting and searching builders: ``tf.bincount`` / ``tf.math.bincount``
(TF's ``bincount_ops``: the output length computed in the graph, then
``DenseBincount``), ``tf.unique_with_counts`` (``UniqueWithCounts``),
``tf.searchsorted`` (rows of ``LowerBound``/``UpperBound``, as TF's
``array_ops``), ``tf.unravel_index``, ``tf.histogram_fixed_width`` and
``tf.histogram_fixed_width_bins`` (TF's histogram_ops: scaled, floored and
clipped in the graph), ``tf.fingerprint`` (``Fingerprint``)."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops, clip_ops, math_ops
from ref.graph_ops.control_flow_ops import with_dependencies
from ref.graph_ops.logging_ops import Assert
from ref.graph_ops.math_special import shape_internal
from ref.types import dtypes

__all__ = ["bincount", "unique_with_counts", "searchsorted", "unravel_index", "histogram_fixed_width",
           "histogram_fixed_width_bins", "fingerprint"]


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


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each of ``values``, its insertion position in the matching innermost
    row of ``sorted_sequence`` (``side="left"``: before equal elements,
    ``"right"``: after them)."""
    sequence_size = shape_internal(sorted_sequence)[-1]
    values_size = shape_internal(values)[-1]
    sorted_2d = array_ops.reshape(sorted_sequence, [-1, sequence_size])
    values_2d = array_ops.reshape(values, [-1, values_size])
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    op = "UpperBound" if side == "right" else "LowerBound"
    output = apply_op(op, sorted_inputs=sorted_2d, values=values_2d, out_type=dtypes.as_dtype(out_type), name=name)
    return array_ops.reshape(output, shape_internal(values))


def unravel_index(indices, dims, name=None):
    """The coordinates of flat (row-major) ``indices`` in an array of shape ``dims`` (``UnravelIndex``)."""
    return apply_op("UnravelIndex", indices=indices, dims=dims, name=name or "UnravelIndex")


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts of ``values`` in ``nbins`` equal-width bins over ``value_range``
    (values outside fall in the first or last bin)."""
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        return apply_op("HistogramFixedWidth", values=values, value_range=value_range, nbins=nbins,
                        dtype=dtypes.as_dtype(dtype), name=scope)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin index (int32, ``values``' shape) of each of ``values`` among
    ``nbins`` equal-width bins over ``value_range``: floor(nbins * (v - lo) / (hi - lo))
    clipped to [0, nbins - 1]; ``dtype`` is accepted and unused, as in TF."""
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        values = array_ops.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        check = Assert(math_ops.greater(nbins, 0), [f"nbins {nbins} must > 0"])
        nbins = with_dependencies([check], nbins)
        nbins_float = math_ops.cast(nbins, values.dtype)
        scaled_values = math_ops.truediv(values - value_range[0], value_range[1] - value_range[0],
                                         name="scaled_values")
        indices = math_ops.floor(nbins_float * scaled_values, name="indices")
        indices = math_ops.cast(clip_ops.clip_by_value(indices, 0, nbins_float - 1), dtypes.int32)
        return array_ops.reshape(indices, shape)


def fingerprint(data, method="farmhash64", name=None):
    """An 8-byte (uint8) fingerprint of each row ``data[i]`` (``Fingerprint``):
    farmhash64 of the row's bytes, stable across platforms and releases."""
    return apply_op("Fingerprint", data=data, method=method, name=name or "Fingerprint")
