"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs (TF's
``ops/metrics_impl.py``).

Each metric keeps its running totals in local variables created with
:func:`metric_variable` (collections ``LOCAL_VARIABLES`` and
``METRIC_VARIABLES``, not trainable, zero-initialised: run
``tf.local_variables_initializer()`` first). ``update_op`` adds one batch to
the totals and returns the metric over everything seen so far; ``value``
reads it without updating. ``metrics_collections`` / ``updates_collections``
receive the value / the update op.

Arithmetic follows TF exactly: means are ``div_no_nan(total, max(count, 0))``;
``precision = tp / (tp + fp)`` (0 when empty); the ``*_at_thresholds``
metrics divide by ``epsilon + tp + fp`` with ``epsilon = 1e-7``; ``auc``
evaluates the confusion counts at ``num_thresholds`` thresholds
``[-1e-7, 1/(n-1), ..., (n-2)/(n-1), 1 + 1e-7]`` and sums the curve with
``summation_method`` (``trapezoidal``, ``careful_interpolation`` for PR,
``minoring``, ``majoring``); recall and precision there are
``(tp + 1e-6) / (tp + fn + 1e-6)`` and ``(tp + 1e-6) / (tp + fp + 1e-6)``.

The ``*_at_k`` / ``*_at_top_k`` family lives in :mod:`ref.graph_ops.metrics_at_k`.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import GraphKeys, add_to_collections, control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, math_ops, state_ops
from ref.graph_ops.weights_broadcast_ops import broadcast_weights
from ref.graph_ops.confusion_matrix import confusion_matrix, remove_squeezable_dimensions
from ref.graph_ops.control_flow_ops import cond, identity
from ref.graph_ops.variable_scope import variable_scope
from ref.graph_ops.variables import Variable
from ref.platform import tf_logging as logging

__all__ = ["accuracy", "auc", "false_negatives", "false_negatives_at_thresholds", "false_positives",
           "false_positives_at_thresholds", "mean", "mean_absolute_error", "mean_cosine_distance", "mean_iou",
           "mean_per_class_accuracy", "mean_relative_error", "mean_squared_error", "mean_tensor",
           "percentage_below", "precision", "precision_at_thresholds", "recall", "recall_at_thresholds",
           "root_mean_squared_error", "sensitivity_at_specificity", "specificity_at_sensitivity",
           "true_negatives", "true_negatives_at_thresholds", "true_positives", "true_positives_at_thresholds",
           "metric_variable"]


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialised, non-trainable local variable in ``METRIC_VARIABLES``."""
    return Variable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def _publish(collections, tensor):
    if collections:
        add_to_collections(collections, tensor)
    return tensor


def _align(predictions, labels, weights):
    """TF's ``_remove_squeezable_dimensions`` for metrics: squeeze a trailing 1
    off labels or predictions, then give ``weights`` the predictions' rank by
    squeezing or adding one trailing dimension."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank = weights.shape.ndims
    if w_rank == 0:
        return predictions, labels, weights
    p_rank = predictions.shape.ndims
    if p_rank is not None and w_rank is not None:
        if w_rank - p_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif p_rank - w_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
        return predictions, labels, weights
    w = weights
    diff = array_ops.rank(w) - array_ops.rank(predictions)
    squeezable = w_rank is None or w.shape.dims[-1].is_compatible_with(1)

    def adjust():
        return cond(math_ops.equal(diff, 1), (lambda: array_ops.squeeze(w, [-1])) if squeezable else (lambda: w),
                    lambda: cond(math_ops.equal(diff, -1), lambda: array_ops.expand_dims(w, [-1]), lambda: w))
    weights = cond(math_ops.equal(array_ops.rank(w), 0), lambda: w, adjust)
    return predictions, labels, weights


# -- means ----------------------------------------------------------------------------

def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of every value seen: ``total / count`` in float32."""
    with variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _align(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count = state_ops.assign_add(count, num_values)
        value = _publish(metrics_collections, math_ops.div_no_nan(total, math_ops.maximum(count, 0), name="value"))
        update_op = math_ops.div_no_nan(update_total, math_ops.maximum(update_count, 0), name="update_op")
        return value, _publish(updates_collections, update_op)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The element-wise (weighted) mean over batches of same-shaped ``values``."""
    with variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _align(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total = state_ops.assign_add(total, values)
        with control_dependencies([values]):
            update_count = state_ops.assign_add(count, num_values)
        value = _publish(metrics_collections, math_ops.div_no_nan(total, math_ops.maximum(count, 0), name="value"))
        update_op = math_ops.div_no_nan(update_total, math_ops.maximum(update_count, 0), name="update_op")
        return value, _publish(updates_collections, update_op)


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How often ``predictions == labels`` (weighted): :func:`mean` of the matches."""
    predictions, labels, weights = _align(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    """:func:`mean` of ``|predictions - labels|``."""
    predictions, labels, weights = _align(predictions, labels, weights)
    return mean(math_ops.abs(predictions - labels), weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    """:func:`mean` of ``(labels - predictions)^2``."""
    predictions, labels, weights = _align(predictions, labels, weights)
    return mean(math_ops.squared_difference(labels, predictions), weights, metrics_collections,
                updates_collections, name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                            name=None):
    """``sqrt`` of :func:`mean_squared_error`."""
    predictions, labels, weights = _align(predictions, labels, weights)
    mse, update_mse = mean_squared_error(labels, predictions, weights, None, None, name or "root_mean_squared_error")
    return (_publish(metrics_collections, math_ops.sqrt(mse)),
            _publish(updates_collections, math_ops.sqrt(update_mse)))


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """``1 -`` the mean of ``sum(predictions * labels, dim)`` (unit-normalised inputs)."""
    predictions, labels, weights = _align(predictions, labels, weights)
    radial = math_ops.reduce_sum(math_ops.multiply(predictions, labels), axis=[dim], keepdims=True)
    value, update_op = mean(radial, weights, None, None, name or "mean_cosine_distance")
    return (_publish(metrics_collections, math_ops.subtract(1.0, value)),
            _publish(updates_collections, math_ops.subtract(1.0, update_op)))


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """:func:`mean` of ``|labels - predictions| / normalizer`` (0 where the normalizer is 0)."""
    predictions, labels, weights = _align(predictions, labels, weights)
    predictions, normalizer = remove_squeezable_dimensions(predictions, normalizer)
    predictions.shape.assert_is_compatible_with(normalizer.shape)
    relative = array_ops.where(math_ops.equal(normalizer, 0.0), array_ops.zeros_like(labels),
                               math_ops.divide(math_ops.abs(labels - predictions), normalizer))
    return mean(relative, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None,
                     name=None):
    """The fraction of ``values`` below ``threshold``."""
    below = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


# -- per class ------------------------------------------------------------------------

def mean_per_class_accuracy(labels, predictions, num_classes, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The mean over classes of (weighted) correct / total per true class."""
    with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = math_ops.cast(labels, dtypes.int64)
        predictions = convert_to_tensor(predictions)
        if labels.shape.ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        if predictions.shape.ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        predictions.shape.assert_is_compatible_with(labels.shape)
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights.shape.ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total = state_ops.scatter_add(total, labels, ones)
        update_count = state_ops.scatter_add(count, labels, is_correct)
        per_class = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
        value = _publish(metrics_collections, math_ops.reduce_mean(per_class, name="mean_accuracy"))
        update_op = math_ops.div_no_nan(update_count, math_ops.maximum(update_total, 0), name="update_op")
        return value, _publish(updates_collections, update_op)


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """Mean intersection-over-union: per class ``cm[i, i] / (row_i + col_i - cm[i, i])``
    of the running float64 confusion matrix, averaged over classes that occur.
    ``update_op`` returns the updated confusion matrix, as in TF."""
    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        predictions.shape.assert_is_compatible_with(labels.shape)
        total_cm = metric_variable([num_classes, num_classes], dtypes.float64, name="total_confusion_matrix")
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        num_classes_t = math_ops.cast(num_classes, dtypes.int64)  # before the reshapes, as TF
        if predictions.shape.ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        if labels.shape.ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights.shape.ndims > 1:
                weights = array_ops.reshape(weights, [-1])
        current = confusion_matrix(labels, predictions, num_classes_t, weights=weights, dtype=dtypes.float64)
        update_op = state_ops.assign_add(total_cm, current)
        sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = math_ops.cast(apply_op("DiagPart", input=total_cm), dtypes.float32)  # array_ops.diag_part
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denominator, 0), dtypes.float32))
        denominator = array_ops.where(math_ops.greater(denominator, 0), denominator,
                                      array_ops.ones_like(denominator))
        iou = math_ops.divide(cm_diag, denominator)
        value = array_ops.where(math_ops.greater(num_valid, 0),
                                math_ops.reduce_sum(iou, name="mean_iou") / num_valid, 0.0)
        return _publish(metrics_collections, value), _publish(updates_collections, update_op)


# -- counts -----------------------------------------------------------------------------

def _count_condition(values, weights, metrics_collections, updates_collections):
    check_ops.assert_type(values, dtypes.bool)  # TF's NoOp "assert_type/statically_determined_correct_type"
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:  # TF: weighted under a check that weights are a scalar or of values' rank
        with control_dependencies((check_ops.assert_rank_in(weights, (0, array_ops.rank(values))),)):
            values = math_ops.multiply(values, math_ops.cast(weights, dtypes.float32))
    value = _publish(metrics_collections, identity(count))
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    return value, _publish(updates_collections, update_op)


def _counter(default_name, label_value, prediction_value):
    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _align(math_ops.cast(predictions, dtypes.bool),
                                                  math_ops.cast(labels, dtypes.bool), weights)
            hit = math_ops.logical_and(math_ops.equal(labels, label_value),
                                       math_ops.equal(predictions, prediction_value))
            return _count_condition(hit, weights, metrics_collections, updates_collections)
    metric.__name__ = default_name
    metric.__doc__ = (f"The (weighted) number of elements with label {label_value} and prediction "
                      f"{prediction_value} (both cast to bool).")
    return metric


true_positives = _counter("true_positives", True, True)
false_positives = _counter("false_positives", False, True)
true_negatives = _counter("true_negatives", False, False)
false_negatives = _counter("false_negatives", True, False)


def _ratio(default_name, other_count, doc):
    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _align(math_ops.cast(predictions, dtypes.bool),
                                                  math_ops.cast(labels, dtypes.bool), weights)
            tp, tp_update = true_positives(labels, predictions, weights)
            other, other_update = other_count(labels, predictions, weights)

            def compute(t, o, name):
                return array_ops.where(math_ops.greater(t + o, 0), math_ops.divide(t, t + o), 0.0, name)
            return (_publish(metrics_collections, compute(tp, other, "value")),
                    _publish(updates_collections, compute(tp_update, other_update, "update_op")))
    metric.__name__ = default_name
    metric.__doc__ = doc
    return metric


precision = _ratio("precision", false_positives, "``tp / (tp + fp)`` over everything seen (0 when both are 0).")
recall = _ratio("recall", false_negatives, "``tp / (tp + fn)`` over everything seen (0 when both are 0).")


# -- at thresholds ------------------------------------------------------------------------

def _confusion_at_thresholds(labels, predictions, thresholds, weights=None, includes=None):
    """Running tp/fn/tn/fp counts, one per threshold: a prediction counts as
    positive at threshold t when ``prediction > t``."""
    all_includes = ("tp", "fn", "tn", "fp")
    includes = all_includes if includes is None else includes
    for key in includes:
        if key not in all_includes:
            raise ValueError(f"Invalid key: {key}")
    predictions = convert_to_tensor(predictions)
    in_range = [check_ops.assert_greater_equal(predictions, math_ops.cast(0.0, predictions.dtype),
                                               message="predictions must be in [0, 1]"),
                check_ops.assert_less_equal(predictions, math_ops.cast(1.0, predictions.dtype),
                                            message="predictions must be in [0, 1]")]
    with control_dependencies(in_range):
        predictions, labels, weights = _align(math_ops.cast(predictions, dtypes.float32),
                                              math_ops.cast(labels, dtypes.bool), weights)
    n = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtypes.bool), [1, -1])
    num_predictions = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(array_ops.expand_dims(convert_to_tensor(list(thresholds), dtypes.float32), [1]),
                                  array_ops.stack([1, num_predictions]))
    pred_is_pos = math_ops.greater(array_ops.tile(array_ops.transpose(predictions_2d), [n, 1]), thresh_tiled)
    # TF builds each negation only where a count it includes reads it
    pred_is_neg = math_ops.logical_not(pred_is_pos) if "fn" in includes or "tn" in includes else None
    label_is_pos = array_ops.tile(labels_2d, [n, 1])
    label_is_neg = math_ops.logical_not(label_is_pos) if "fp" in includes or "tn" in includes else None
    weights_tiled = None
    if weights is not None:
        weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [n, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    cases = {"tp": ("true_positives", label_is_pos, pred_is_pos),
             "fn": ("false_negatives", label_is_pos, pred_is_neg),
             "tn": ("true_negatives", label_is_neg, pred_is_neg),
             "fp": ("false_positives", label_is_neg, pred_is_pos)}
    values, update_ops = {}, {}
    for key in all_includes:
        if key not in includes:
            continue
        var_name, label_mask, pred_mask = cases[key]
        var = metric_variable([n], dtypes.float32, name=var_name)
        hit = math_ops.cast(math_ops.logical_and(label_mask, pred_mask), dtypes.float32)
        if weights_tiled is not None:
            hit *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, math_ops.reduce_sum(hit, 1))
        values[key] = var
    return values, update_ops


def _count_at_thresholds(default_name, key):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None,
               name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_at_thresholds(labels, predictions, thresholds, weights, includes=(key,))
            return (_publish(metrics_collections, identity(values[key])),
                    _publish(updates_collections, update_ops[key]))
    metric.__name__ = f"{default_name}_at_thresholds"
    metric.__doc__ = f"The (weighted) {default_name.replace('_', ' ')} at each threshold (prediction > threshold)."
    return metric


true_positives_at_thresholds = _count_at_thresholds("true_positives", "tp")
false_positives_at_thresholds = _count_at_thresholds("false_positives", "fp")
true_negatives_at_thresholds = _count_at_thresholds("true_negatives", "tn")
false_negatives_at_thresholds = _count_at_thresholds("false_negatives", "fn")


def _ratio_at_thresholds(default_name, other):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None,
               name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_at_thresholds(labels, predictions, thresholds, weights,
                                                          includes=("tp", other))
            prefix = default_name.split("_")[0] + "_"

            def compute(tp, o, name):
                return math_ops.divide(tp, 1e-7 + tp + o, name=prefix + name)
            return (_publish(metrics_collections, compute(values["tp"], values[other], "value")),
                    _publish(updates_collections, compute(update_ops["tp"], update_ops[other], "update_op")))
    metric.__name__ = default_name
    metric.__doc__ = f"``tp / (1e-7 + tp + {other})`` at each threshold."
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp")
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn")


def _thresholds(num_thresholds, top=1.0 + 1e-7):
    kepsilon = 1e-7
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + inner + [top]


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """The area under the ROC (``curve="ROC"``) or precision-recall (``"PR"``)
    curve, from confusion counts at ``num_thresholds`` thresholds (or the given
    sorted ``thresholds`` plus the two ends)."""
    with variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
            thresholds = [0.0 - 1e-7] + thresholds + [1.0 + 1e-7]
        else:
            thresholds = _thresholds(num_thresholds)
        values, update_ops = _confusion_at_thresholds(labels, predictions, thresholds, weights)
        n = num_thresholds
        epsilon = 1.0e-6

        def interpolate_pr_auc(tp, fp, fn):
            dtp = tp[:n - 1] - tp[1:]
            p = tp + fp
            prec_slope = math_ops.div_no_nan(dtp, math_ops.maximum(p[:n - 1] - p[1:], 0), name="prec_slope")
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = array_ops.where(
                math_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                math_ops.div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0), name="recall_relative_ratio"),
                array_ops.ones_like(p[1:]))
            return math_ops.reduce_sum(
                math_ops.div_no_nan(prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                                    math_ops.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
                name="interpolate_pr_auc")

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR":
                if summation_method == "trapezoidal":
                    logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; please switch to "
                                    "\"careful_interpolation\" instead.")
                elif summation_method == "careful_interpolation":
                    return interpolate_pr_auc(tp, fp, fn)
            rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.divide(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.divide(tp + epsilon, tp + fp + epsilon)
            if summation_method not in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
                raise ValueError(f"Invalid summation_method: {summation_method} summation_method should be "
                                 "'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'.")
            widths = x[:n - 1] - x[1:]  # TF builds the widths before the heights
            if summation_method == "minoring":
                heights = math_ops.minimum(y[:n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[:n - 1], y[1:])
            else:
                heights = (y[:n - 1] + y[1:]) / 2.
            return math_ops.reduce_sum(math_ops.multiply(widths, heights), name=name)

        value = _publish(metrics_collections, compute_auc(values["tp"], values["fn"], values["tn"], values["fp"],
                                                          "value"))
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"], "update_op")
        return value, _publish(updates_collections, update_op)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The sensitivity (recall) at the threshold whose specificity is closest to ``specificity``."""
    if specificity < 0 or specificity > 1:
        raise ValueError(f"`specificity` must be in the range [0, 1]. Currently, `specificity` got {specificity}.")
    with variable_scope(name, "sensitivity_at_specificity", (predictions, labels, weights)):
        kepsilon = 1e-7
        values, update_ops = _confusion_at_thresholds(labels, predictions, _thresholds(num_thresholds), weights)

        def compute(tp, tn, fp, fn, name):
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            index = math_ops.cast(math_ops.argmin(math_ops.abs(specificities - specificity), 0), dtypes.int32)
            return math_ops.divide(tp[index], tp[index] + fn[index] + kepsilon, name)
        value = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op")
        return _publish(metrics_collections, value), _publish(updates_collections, update_op)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The specificity at the (last) threshold whose sensitivity is closest to ``sensitivity``."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}.")
    with variable_scope(name, "specificity_at_sensitivity", (predictions, labels, weights)):
        kepsilon = 1e-7
        values, update_ops = _confusion_at_thresholds(labels, predictions,
                                                      _thresholds(num_thresholds, top=1.0 - kepsilon), weights)

        def compute(tp, tn, fp, fn, name):
            sensitivities = math_ops.divide(tp, tp + fn + kepsilon)
            # TF builds |sensitivities - sensitivity| twice: for the minimum, then for the equality
            min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
            at_min = math_ops.equal(math_ops.abs(sensitivities - sensitivity), min_val)
            at_min = math_ops.cumsum(math_ops.cast(at_min, dtypes.int64))
            index = math_ops.cast(math_ops.argmax(at_min, 0), dtypes.int32)
            return math_ops.divide(tn[index], tn[index] + fp[index] + kepsilon, name)
        value = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op")
        return _publish(metrics_collections, value), _publish(updates_collections, update_op)
