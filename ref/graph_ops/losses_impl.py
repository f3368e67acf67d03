"""``tf.losses``: loss functions that weight, reduce and collect their losses
(TF's ``ops/losses/losses_impl.py`` and ``ops/losses/util.py``).

Every loss computes a per-element loss in float32, then
:func:`compute_weighted_loss` multiplies it by ``weights`` (which must
broadcast to it: a scalar, or the same rank with each dimension 1 or equal),
reduces it and adds the result to ``loss_collection`` (``GraphKeys.LOSSES``;
None adds nothing). Reductions:

* ``Reduction.NONE``: the weighted losses, unreduced;
* ``Reduction.SUM``: ``sum(w * l)``;
* ``Reduction.MEAN``: ``sum(w * l) / sum(w)`` over the broadcast weights;
* ``Reduction.SUM_OVER_BATCH_SIZE``: ``sum(w * l) / size(l)``;
* ``Reduction.SUM_BY_NONZERO_WEIGHTS`` (= ``SUM_OVER_NONZERO_WEIGHTS``, the
  default): ``sum(w * l) / count(w != 0)``, the count taken over the weights
  broadcast to the losses.

Divisions are ``div_no_nan``: all-zero weights give a loss of 0, not NaN.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import (
    GraphKeys,
    add_to_collection,
    control_dependencies,
    get_collection,
    get_default_graph,
    name_scope,
)
from ref.framework.op_def_library import convert_to_tensor, constant
from ref.graph_ops import array_ops, math_ops, nn_ops
from ref.graph_ops.weights_broadcast_ops import assert_broadcastable, broadcast_weights
from ref.graph_ops.confusion_matrix import remove_squeezable_dimensions
from ref.graph_ops.control_flow_ops import cond

__all__ = ["Reduction", "absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
           "get_losses", "get_regularization_loss", "get_regularization_losses", "get_total_loss", "hinge_loss",
           "huber_loss", "log_loss", "mean_pairwise_squared_error", "mean_squared_error", "sigmoid_cross_entropy",
           "softmax_cross_entropy", "sparse_softmax_cross_entropy"]


class Reduction:
    """How :func:`compute_weighted_loss` reduces the weighted losses (see the module doc)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


# -- the LOSSES collection (TF's losses/util.py) --------------------------------------

def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection`` (nothing when it is None or empty)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in ``loss_collection`` whose names match ``scope``."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in ``GraphKeys.REGULARIZATION_LOSSES`` matching ``scope``."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (the constant 0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the LOSSES collection (plus the regularization losses)."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


# -- weighting and reduction ---------------------------------------------------------

def _safe_mean(losses, num_present):
    return math_ops.div_no_nan(math_ops.reduce_sum(losses), num_present, name="value")


def _num_elements(losses):
    with name_scope(None, "num_elements", [losses]) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), losses.dtype)


def _num_present(losses, weights, per_batch=False):
    """How many losses have a nonzero weight (per batch row when ``per_batch``)."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtypes.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = broadcast_weights(present, losses)
        if per_batch:
            return math_ops.reduce_sum(present, axis=math_ops.range(1, array_ops.rank(present)), keepdims=True,
                                       name=scope)
        return math_ops.reduce_sum(present, name=scope)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses`` weighted by ``weights`` and reduced by ``reduction``, in the
    dtype of ``losses`` (computed in float32), added to ``loss_collection``."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        get_default_graph()._last_loss_reduction = reduction
        with control_dependencies((assert_broadcastable(weights, losses),)):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = math_ops.cast(losses, dtypes.float32)
            weights = math_ops.cast(weights, dtypes.float32)
            weighted = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted
            else:
                loss = math_ops.reduce_sum(weighted)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = math_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


def _required(**named):
    for arg, value in named.items():
        if value is None:
            raise ValueError(f"Argument `{arg}` must not be None.")


def _float_pair(labels, predictions):
    predictions = math_ops.cast(predictions, dtypes.float32)
    labels = math_ops.cast(labels, dtypes.float32)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return labels, predictions


# -- the losses ------------------------------------------------------------------------

def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``|predictions - labels|``, weighted and reduced."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """``1 - sum(predictions * labels, axis)`` (keepdims) for unit-normalised
    inputs; ``dim`` is the deprecated name of ``axis``."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        radial = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``relu(1 - (2 labels - 1) logits)`` for 0/1 labels."""
    _required(labels=labels, logits=logits)
    with name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        labels, logits = _float_pair(labels, logits)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """With ``e = |predictions - labels|``, ``q = min(e, delta)``:
    ``0.5 q^2 + delta (e - q)`` (quadratic inside ``delta``, linear outside)."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(math_ops.multiply(convert_to_tensor(0.5, dtype=quadratic.dtype),
                                                math_ops.multiply(quadratic, quadratic)),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``-labels log(predictions + eps) - (1 - labels) log(1 - predictions + eps)``."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "log_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = (-math_ops.multiply(labels, math_ops.log(predictions + epsilon))
                  - math_ops.multiply((1 - labels), math_ops.log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES):
    """Per batch row, the mean over pairs of elements of
    ``((p_i - p_j) - (l_i - l_j))^2``, computed as
    ``2 sum(d^2) / (n - 1) - 2 (sum d)^2 / (n (n - 1))`` with ``d = p - l`` and
    ``n`` the row's nonzero-weight count; then weighted per row and summed
    (no ``reduction`` argument, as in TF)."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "mean_pairwise_squared_error", (predictions, labels, weights)):
        weights = math_ops.cast(weights, dtypes.float32)
        labels = math_ops.cast(labels, dtypes.float32)
        with control_dependencies((assert_broadcastable(weights, labels),)):
            predictions = math_ops.cast(predictions, dtypes.float32)
            predictions.shape.assert_is_compatible_with(labels.shape)
            diffs = math_ops.subtract(predictions, labels)
            axis = math_ops.range(1, array_ops.rank(diffs))
            sum_squares = math_ops.reduce_sum(math_ops.square(diffs), axis=axis, keepdims=True)
            n = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * math_ops.div_no_nan(sum_squares, math_ops.maximum(n - 1, 0), name="value")
            sum_diff = math_ops.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * math_ops.div_no_nan(math_ops.square(sum_diff),
                                              math_ops.maximum(math_ops.multiply(n, n - 1), 0), name="value")
            loss = math_ops.reduce_sum(math_ops.multiply(term1 - term2, weights))
            mean_loss = array_ops.where(math_ops.reduce_sum(n) > 0, loss, array_ops.zeros_like(loss), name="value")
            add_loss(mean_loss, loss_collection)
            return mean_loss


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``(predictions - labels)^2``, weighted and reduced."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``sigmoid_cross_entropy_with_logits``; ``label_smoothing`` s moves the
    labels to ``labels (1 - s) + s / 2``."""
    _required(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        labels = math_ops.cast(multi_class_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(labels.shape)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``softmax_cross_entropy_with_logits_v2`` per example (no gradient to the
    labels); ``label_smoothing`` s moves the labels to ``labels (1 - s) + s / num_classes``."""
    _required(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        labels = math_ops.cast(onehot_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(labels.shape)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype)
            smooth_negatives = label_smoothing / num_classes  # TF builds the division first
            labels = labels * (1.0 - label_smoothing) + smooth_negatives
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _squeeze_weights(labels, predictions, weights, expected_rank_diff):
    """TF's ``_remove_squeezable_dimensions`` with weights: weights one rank
    above the labels lose their last dimension."""
    labels, predictions = remove_squeezable_dimensions(labels, predictions, expected_rank_diff=expected_rank_diff)
    weights = convert_to_tensor(weights)
    l_rank, w_shape = labels.shape.ndims, weights.shape
    if l_rank is not None and w_shape.ndims is not None:
        if w_shape.ndims - l_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        return labels, predictions, weights
    diff = array_ops.rank(weights) - array_ops.rank(labels)
    if w_shape.ndims is None or (w_shape.ndims > 0 and w_shape.dims[-1].is_compatible_with(1)):
        w = weights
        weights = cond(math_ops.equal(1, diff), lambda: array_ops.squeeze(w, [-1]), lambda: w)
    return labels, predictions, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``sparse_softmax_cross_entropy_with_logits`` per example; labels (and
    weights) of shape ``[batch, 1]`` are squeezed to ``[batch]`` first."""
    _required(labels=labels, logits=logits)
    with name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        labels, logits, weights = _squeeze_weights(labels, logits, weights, expected_rank_diff=1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)
