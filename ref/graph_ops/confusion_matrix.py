"""``tf.confusion_matrix`` and the rank alignment of labels and predictions that
losses and metrics share (TF's ``ops/confusion_matrix.py``)."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import array_ops, check_ops, math_ops
from ref.graph_ops.control_flow_ops import cond, with_dependencies

__all__ = ["confusion_matrix", "remove_squeezable_dimensions"]


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """``(labels, predictions)`` with the last size-1 dimension squeezed from the
    one whose rank exceeds the expected ``rank(predictions) - rank(labels)`` by one
    (decided statically when both ranks are known, else at run time)."""
    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        p_shape, l_shape = predictions.shape, labels.shape
        p_rank, l_rank = p_shape.ndims, l_shape.ndims
        if l_rank is not None and p_rank is not None:
            diff = p_rank - l_rank
            if diff == expected_rank_diff + 1 and p_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif diff == expected_rank_diff - 1 and l_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if p_rank is None or p_shape.dims[-1].is_compatible_with(1):
            p = predictions
            predictions = cond(math_ops.equal(expected_rank_diff + 1, diff),
                               lambda: array_ops.squeeze(p, [-1]), lambda: p)
        if l_rank is None or l_shape.dims[-1].is_compatible_with(1):
            lab = labels
            labels = cond(math_ops.equal(expected_rank_diff - 1, diff),
                          lambda: array_ops.squeeze(lab, [-1]), lambda: lab)
        return labels, predictions


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None):
    """The ``[num_classes, num_classes]`` matrix counting (or summing ``weights``
    over) each ``(label, prediction)`` pair: rows are labels, columns predictions.

    ``num_classes`` defaults to ``max(labels, predictions) + 1``. Negative or
    out-of-range classes fail at run time (InvalidArgumentError), as in TF.
    """
    with name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = remove_squeezable_dimensions(convert_to_tensor(labels, name="labels"),
                                                           convert_to_tensor(predictions, name="predictions"))
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = with_dependencies([check_ops.assert_non_negative(
            labels, message="`labels` contains negative values")], labels)
        predictions = with_dependencies([check_ops.assert_non_negative(
            predictions, message="`predictions` contains negative values")], predictions)
        if num_classes is None:
            num_classes = math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
        else:
            n = math_ops.cast(num_classes, dtypes.int64)
            labels = with_dependencies([check_ops.assert_less(labels, n, message="`labels` out of bound")], labels)
            predictions = with_dependencies([check_ops.assert_less(
                predictions, n, message="`predictions` out of bound")], predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        return array_ops.scatter_nd(indices=indices, updates=values, shape=math_ops.cast(shape, dtypes.int64))
