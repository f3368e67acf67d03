"""``tf.metrics`` at k: ``recall_at_k``, ``precision_at_k``, ``average_precision_at_k``
and their ``*_at_top_k`` / ``sparse_*`` forms (TF's ``ops/metrics_impl.py``).

``labels`` are class ids (int64 Tensor or SparseTensor ``[D1, ... DN,
num_labels]``, or ``[D1, ... DN]`` for one label each); ``predictions`` are
logits ``[D1, ... DN, num_classes]`` whose ``top_k`` indices are the
predicted classes (the ``*_at_top_k`` forms take those indices directly).
Per row, with P the predicted set and L the label set:

* ``tp = |P ∩ L|``, ``fp = |P - L|``, ``fn = |L - P|`` (``tf.sets``);
  ``class_id`` keeps only that class in both sets. Totals are float64 local
  variables ``true_positive_at_<k>``, ``false_positive_at_<k>``,
  ``false_negative_at_<k>`` (weighted by ``weights``);
* ``precision = tp / (tp + fp)``, ``recall = tp / (tp + fn)`` (NaN when
  the denominator is 0);
* average precision of a row: ``sum_i P(i) * rel(i) / min(k, |L|)`` with
  ``P(i)`` the precision of the first i predictions and ``rel(i)`` 1 when the
  i-th prediction is a label (labels < 0 do not count, labels >= num_classes
  are replaced by -1); the metric is the weighted mean over rows
  (``total / max``, 0 when no rows).
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import add_to_collections, control_dependencies, name_scope
from ref.framework.sparse_tensor import SparseTensor, SparseTensorValue, convert_to_tensor_or_sparse_tensor
from ref.graph_ops import array_ops, math_ops, sparse_ops, state_ops
from ref.graph_ops.control_flow_ops import cond
from ref.graph_ops.metrics_impl import metric_variable
from ref.graph_ops.normalization_ops import top_k
from ref.graph_ops.sets_impl import set_difference, set_intersection, set_size
from ref.graph_ops.weights_broadcast_ops import assert_broadcastable, broadcast_weights

__all__ = ["average_precision_at_k", "precision_at_k", "precision_at_top_k", "recall_at_k", "recall_at_top_k",
           "sparse_average_precision_at_k", "sparse_precision_at_k"]


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _maybe_expand_labels(labels, predictions):
    """``labels`` given a trailing dimension of 1 when it has one rank less than ``predictions``."""
    with name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return cond(math_ops.equal(array_ops.rank(predictions), array_ops.size(labels.dense_shape) + 1),
                        lambda: sparse_ops.sparse_reshape(labels, array_ops.concat((labels.dense_shape, (1,)), 0),
                                                          name=scope),
                        lambda: labels)
        labels_rank = labels.shape.ndims
        predictions_rank = predictions.shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            if predictions_rank == labels_rank:
                return labels
            if predictions_rank == labels_rank + 1:
                return array_ops.expand_dims(labels, -1, name=scope)
            raise ValueError(f"Unexpected labels shape {labels.shape} for predictions shape {predictions.shape}. "
                             "Predictions rank should be the same rank as labels rank or labels rank plus one .")
        return cond(math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
                    lambda: array_ops.expand_dims(labels, -1, name=scope), lambda: labels)


def _last_dim_collapsed(ids_shape):
    """``ids_shape`` with its last dim set to 1, built as TF builds it:
    ``math_ops.reduced_shape(ids_shape, reshape(size(ids_shape) - 1, [1]))``, whose
    axes are never a constant TF can read, so always its DynamicStitch of
    ``range(rank)`` and the wrapped axes over ``ids_shape`` and ones."""
    axes = array_ops.reshape(array_ops.size(ids_shape) - 1, [1])
    rank = array_ops.size(ids_shape, out_type=axes.dtype)
    axes = (axes + rank) % rank
    axes_shape = array_ops.shape(axes)
    indices = [math_ops.range(rank), axes]
    return array_ops.dynamic_stitch(indices, [ids_shape, array_ops.ones(axes_shape, dtype=ids_shape.dtype)])


def _select_class_id(ids, selected_id):
    """The entries of ``ids`` equal to ``selected_id``, as a SparseTensor of ``ids``' shape."""
    ids = convert_to_tensor_or_sparse_tensor(ids)
    if isinstance(ids, SparseTensor):
        return sparse_ops.sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    filled_shape = _last_dim_collapsed(ids_shape)
    filled = array_ops.fill(filled_shape, math_ops.cast(selected_id, dtypes.int64))
    result = set_intersection(filled, ids)
    return SparseTensor(result.indices, result.values, ids_shape)


def _maybe_select_class_id(labels, predictions_idx, selected_id=None):
    if selected_id is None:
        return labels, predictions_idx
    return _select_class_id(labels, selected_id), _select_class_id(predictions_idx, selected_id)


def _weighted(counts, weights):
    counts = math_ops.cast(counts, dtypes.float64)
    if weights is None:
        return counts
    with control_dependencies((assert_broadcastable(weights, counts),)):
        return math_ops.multiply(counts, math_ops.cast(weights, dtypes.float64))


def _sparse_true_positive_at_k(labels, predictions_idx, class_id=None, weights=None, name=None):
    """Per row: |predicted ∩ labels| (float64, times ``weights``)."""
    with name_scope(name, "true_positives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        return _weighted(set_size(set_intersection(predictions_idx, labels)), weights)


def _sparse_false_negative_at_k(labels, predictions_idx, class_id=None, weights=None):
    """Per row: |labels - predicted|."""
    with name_scope(None, "false_negatives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        return _weighted(set_size(set_difference(predictions_idx, labels, aminusb=False)), weights)


def _sparse_false_positive_at_k(labels, predictions_idx, class_id=None, weights=None):
    """Per row: |predicted - labels|."""
    with name_scope(None, "false_positives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        return _weighted(set_size(set_difference(predictions_idx, labels, aminusb=True)), weights)


def _streaming(count_fn, prefix):
    def streaming(labels, predictions_idx, k=None, class_id=None, weights=None, name=None):
        with name_scope(name, _at_k_name(prefix, k, class_id=class_id), (predictions_idx, labels, weights)) as scope:
            counts = count_fn(labels=labels, predictions_idx=predictions_idx, class_id=class_id, weights=weights)
            batch_total = math_ops.cast(math_ops.reduce_sum(counts), dtypes.float64)
            var = metric_variable([], dtypes.float64, name=scope)
            return var, state_ops.assign_add(var, batch_total, name="update")
    return streaming


_streaming_true_positive = _streaming(_sparse_true_positive_at_k, "true_positive")
_streaming_false_negative = _streaming(_sparse_false_negative_at_k, "false_negative")
_streaming_false_positive = _streaming(_sparse_false_positive_at_k, "false_positive")


def _ratio_at_top_k(default_name, other, labels, predictions_idx, k, class_id, weights, metrics_collections,
                    updates_collections, name):
    with name_scope(name, _at_k_name(default_name, k, class_id=class_id),
                    (predictions_idx, labels, weights)) as scope:
        labels = _maybe_expand_labels(labels, predictions_idx)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_true_positive(labels, top_k_idx, k=k, class_id=class_id, weights=weights)
        o, o_update = other(labels, top_k_idx, k=k, class_id=class_id, weights=weights)
        metric = math_ops.divide(tp, math_ops.add(tp, o), name=scope)
        if metrics_collections:
            add_to_collections(metrics_collections, metric)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, o_update), name="update")
        if updates_collections:
            add_to_collections(updates_collections, update)
        return metric, update


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """Recall@k of the top-k class indices ``predictions_idx`` ``[D1, ... DN, k]``:
    ``tp / (tp + fn)`` over every row seen (``k`` only names the scope)."""
    return _ratio_at_top_k("recall", _streaming_false_negative, labels, predictions_idx, k, class_id, weights,
                           metrics_collections, updates_collections, name)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """Precision@k of the top-k class indices ``predictions_idx``: ``tp / (tp + fp)``."""
    return _ratio_at_top_k("precision", _streaming_false_positive, labels, predictions_idx, k, class_id, weights,
                           metrics_collections, updates_collections, name)


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """Recall@k of the logits ``predictions``: :func:`recall_at_top_k` of ``top_k(predictions, k)``."""
    with name_scope(name, _at_k_name("recall", k, class_id=class_id), (predictions, labels, weights)) as scope:
        _, top_k_idx = top_k(predictions, k)
        return recall_at_top_k(labels=labels, predictions_idx=top_k_idx, k=k, class_id=class_id, weights=weights,
                               metrics_collections=metrics_collections, updates_collections=updates_collections,
                               name=scope)


def precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """Precision@k of the logits ``predictions``: :func:`precision_at_top_k` of ``top_k(predictions, k)``."""
    with name_scope(name, _at_k_name("precision", k, class_id=class_id), (predictions, labels, weights)) as scope:
        _, top_k_idx = top_k(predictions, k)
        return precision_at_top_k(labels=labels, predictions_idx=top_k_idx, k=k, class_id=class_id,
                                  weights=weights, metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=scope)


def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """Deprecated alias of :func:`precision_at_k`."""
    return precision_at_k(labels=labels, predictions=predictions, k=k, class_id=class_id, weights=weights,
                          metrics_collections=metrics_collections, updates_collections=updates_collections,
                          name=name)


# -- average precision -------------------------------------------------------------------

def _expand_and_tile(tensor, multiple, dim=0, name=None):
    """``tensor`` with a new dimension ``dim`` of size ``multiple`` (copies)."""
    if multiple < 1:
        raise ValueError(f"Invalid argument multiple={multiple} for expand_and_tile  call. `multiple` must be an "
                         "integer > 0")
    with name_scope(name, "expand_and_tile", (tensor, multiple, dim)) as scope:
        tensor = convert_to_tensor_or_sparse_tensor(tensor)
        if isinstance(tensor, SparseTensor):
            if dim < 0:
                expand_dims = array_ops.reshape(array_ops.size(tensor.dense_shape) + dim, [1])
            else:
                expand_dims = [dim]
            expanded_shape = array_ops.concat((array_ops.slice(tensor.dense_shape, [0], expand_dims), [1],
                                               array_ops.slice(tensor.dense_shape, expand_dims, [-1])), 0,
                                              name="expanded_shape")
            expanded = sparse_ops.sparse_reshape(tensor, shape=expanded_shape, name="expand")
            if multiple == 1:
                return expanded
            return sparse_ops.sparse_concat(dim - 1 if dim < 0 else dim, [expanded] * multiple, name=scope)
        expanded = array_ops.expand_dims(tensor, dim if dim >= 0 else dim - 1, name="expand")
        if multiple == 1:
            return expanded
        ones = array_ops.ones_like(array_ops.shape(tensor))
        multiples = array_ops.concat((ones[:dim], (multiple,), ones[dim:]), 0, name="multiples")
        return array_ops.tile(expanded, multiples, name=scope)


def _num_relevant(labels, k):
    """Per row: min(k, number of labels) (dense labels < 0 do not count)."""
    if k < 1:
        raise ValueError(f"Invalid k={k}")
    with name_scope(None, "num_relevant", (labels,)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(set_size(labels), k, name=scope)
        num_labels = math_ops.reduce_sum(array_ops.where_v2(math_ops.greater_equal(labels, 0),
                                                            array_ops.ones_like(labels),
                                                            array_ops.zeros_like(labels)), axis=-1)
        return math_ops.minimum(num_labels, k, name=scope)


def _sparse_average_precision_at_top_k(labels, predictions_idx):
    """Per row: sum_i precision@i * rel(i) / min(k, |labels|) (float64)."""
    with name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.ndims == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = predictions_idx.shape.as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set. Currently, it is None.")
        labels = _maybe_expand_labels(labels, predictions_idx)
        predictions_idx_per_k = array_ops.expand_dims(predictions_idx, -1, name="predictions_idx_per_k")
        labels_per_k = _expand_and_tile(labels, multiple=k, dim=-1, name="labels_per_k")
        relevant_per_k = _sparse_true_positive_at_k(labels_per_k, predictions_idx_per_k, name="relevant_per_k")
        tp_per_k = math_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = math_ops.cumsum(array_ops.ones_like(relevant_per_k), axis=-1, name="retrieved_per_k")
        precision_per_k = math_ops.divide(math_ops.cast(tp_per_k, dtypes.float64),
                                          math_ops.cast(retrieved_per_k, dtypes.float64), name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(precision_per_k, math_ops.cast(relevant_per_k, dtypes.float64),
                                                     name="relevant_precision_per_k")
        precision_sum = math_ops.reduce_sum(relevant_precision_per_k, axis=(-1,), name="precision_sum")
        num_relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.divide(precision_sum, num_relevant_items, name=scope)


def _streaming_sparse_average_precision_at_top_k(labels, predictions_idx, weights=None, metrics_collections=None,
                                                 updates_collections=None, name=None):
    with name_scope(name, "average_precision_at_top_k", (predictions_idx, labels, weights)) as scope:
        average_precision = _sparse_average_precision_at_top_k(predictions_idx=predictions_idx, labels=labels)
        if weights is not None:
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float64), average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        with name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = math_ops.cast(array_ops.size(average_precision, name="batch_max"), dtypes.float64)
            else:
                batch_max = math_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = math_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        metric = math_ops.div_no_nan(total_var, max_var, name="mean")
        if metrics_collections:
            add_to_collections(metrics_collections, metric)
        update = math_ops.div_no_nan(total_update, max_update, name=scope)
        if updates_collections:
            add_to_collections(updates_collections, update)
        return metric, update


def _clean_out_of_range_indices(labels, num_classes):
    """``labels`` with every value >= ``num_classes`` replaced by -1."""
    is_sparse = isinstance(labels, (SparseTensor, SparseTensorValue))

    def clean(values):
        return array_ops.where_v2(math_ops.greater_equal(values, num_classes), -1 * array_ops.ones_like(values),
                                  values)

    def clean_labels():
        if is_sparse:
            return type(labels)(indices=labels.indices, values=clean(labels.values), dense_shape=labels.dense_shape)
        return clean(labels)

    max_labels = math_ops.reduce_max(labels.values if is_sparse else labels)
    return cond(math_ops.greater_equal(max_labels, num_classes), clean_labels, lambda: labels)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None, updates_collections=None,
                           name=None):
    """Mean average precision@k of the logits ``predictions`` over every row seen."""
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with name_scope(name, _at_k_name("average_precision", k), (predictions, labels, weights)) as scope:
        _, predictions_idx = top_k(predictions, k)
        labels = _clean_out_of_range_indices(labels,
                                             math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        return _streaming_sparse_average_precision_at_top_k(
            labels=labels, predictions_idx=predictions_idx, weights=weights,
            metrics_collections=metrics_collections, updates_collections=updates_collections, name=scope)


def sparse_average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """Deprecated alias of :func:`average_precision_at_k`."""
    return average_precision_at_k(labels=labels, predictions=predictions, k=k, weights=weights,
                                  metrics_collections=metrics_collections, updates_collections=updates_collections,
                                  name=name)
