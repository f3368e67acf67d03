"""``tf.keras.metrics`` in graph mode: the metric functions (one value per
sample) and the metric objects.

A metric object named in ``compile`` contributes its function's per-sample
values, which the training loop averages over the epoch's samples; its
history key is the object's ``name``. Used on its own, an object keeps two
float32 resource variables ``total`` and ``count`` (Keras' weighted mean):
``update_state`` returns the op adding the batch, ``result()`` the tensor
``total / count`` (0 when nothing was counted), ``reset_states`` zeroes them.
``AUC`` (ROC, interpolated) keeps Keras' four confusion-count variables and is
used on its own only (``compile`` takes the means).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, control_flow_ops, init_ops, math_ops, state_ops, variables
from ref.keras import backend, losses as losses_mod

__all__ = ["accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "mean_squared_error", "mean_absolute_error", "mse", "mae", "MSE", "MAE",
           "Metric", "Mean", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy",
           "SparseCategoricalAccuracy", "MeanSquaredError", "MeanAbsoluteError", "AUC", "get"]


def accuracy(y_true, y_pred):
    """1 where ``y_true == y_pred`` (``y_pred`` cast to ``y_true``'s dtype), else 0."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.dtype != y_pred.dtype:
        y_pred = math_ops.cast(y_pred, y_true.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """The mean over the last axis of ``y_true == (y_pred > threshold)``."""
    y_pred = convert_to_tensor(y_pred)
    threshold = math_ops.cast(threshold, y_pred.dtype.base_dtype)
    y_pred = math_ops.cast(y_pred > threshold, y_pred.dtype.base_dtype)
    return math_ops.reduce_mean(math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32), axis=-1)


def _sparse_matches(y_true, y_pred):
    """1.0 where the label is the argmax of ``y_pred`` (Keras' ``sparse_categorical_matches``: a label
    column of the predictions' rank is squeezed, and the matches take the labels' shape back)."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    labels_shape = array_ops.shape(y_true)
    reshape = y_true.shape.ndims is not None and y_true.shape.ndims == y_pred.shape.ndims
    if reshape:
        y_true = array_ops.squeeze(y_true, [-1])
    y_pred = math_ops.argmax(y_pred, -1)
    if y_pred.dtype.base_dtype != y_true.dtype.base_dtype:
        y_pred = math_ops.cast(y_pred, y_true.dtype.base_dtype)
    matches = math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)
    return array_ops.reshape(matches, labels_shape) if reshape else matches


def categorical_accuracy(y_true, y_pred):
    """1 where the argmax of ``y_true`` and of ``y_pred`` over the last axis agree."""
    return _sparse_matches(math_ops.argmax(y_true, -1), y_pred)


def sparse_categorical_accuracy(y_true, y_pred):
    """1 where the label (a trailing axis of 1 squeezed) is the argmax of ``y_pred``."""
    return _sparse_matches(y_true, y_pred)


mean_squared_error = mse = MSE = losses_mod.mean_squared_error
mean_absolute_error = mae = MAE = losses_mod.mean_absolute_error


class Metric:
    """A weighted running mean in two variables (``total``, ``count``)."""

    def __init__(self, name=None, dtype=None, **kwargs):
        self.name = name or backend.to_snake_case(type(self).__name__)
        self.dtype = dtypes.as_dtype(dtype or "float32")
        self._vars = None

    def _variables(self):
        if self._vars is None:
            with name_scope(None):
                made = []
                for var_name in ("total", "count"):
                    v = variables.Variable(lambda: init_ops.zeros_initializer()([], dtype=self.dtype), name=var_name,
                                           trainable=False, use_resource=True, collections=[], dtype=self.dtype)
                    backend.track_variable(v)
                    made.append(v)
            self._vars = tuple(made)
        return self._vars

    @property
    def variables(self):
        return list(self._variables())

    weights = variables

    def _values(self, *args):
        return args[0]

    def update_state(self, *args, sample_weight=None):
        """Keras' Reduce: ``total += sum(values [* weights])`` after the sum, then ``count += size`` (or the
        weights' sum) after that; returns the new count's read."""
        total, count = self._variables()
        if True:  # (no name scope: Keras' compile gives ``metrics/<label>``)
            values = convert_to_tensor(self._values(*args))
            values = values if values.dtype.base_dtype == self.dtype else math_ops.cast(values, self.dtype)
            if sample_weight is not None:
                weights = math_ops.cast(sample_weight, self.dtype)
                weights = array_ops.broadcast_to(weights, array_ops.shape(values)) if weights.shape.ndims != \
                    values.shape.ndims else weights
                values = values * weights
            value_sum = math_ops.reduce_sum(values)
            with control_dependencies([value_sum]):
                add_total = apply_op("AssignAddVariableOp", resource=total.handle, value=value_sum)
                with control_dependencies([add_total]):
                    apply_op("ReadVariableOp", resource=total.handle, dtype=self.dtype)
            num = math_ops.cast(array_ops.size(values), self.dtype) if sample_weight is None else \
                math_ops.reduce_sum(weights)
            with control_dependencies([add_total]):
                add_count = apply_op("AssignAddVariableOp", resource=count.handle, value=num)
                with control_dependencies([add_count]):
                    return apply_op("ReadVariableOp", resource=count.handle, dtype=self.dtype)

    def result(self):
        total, count = self._variables()
        return math_ops.div_no_nan(total, count)

    def reset_states(self):
        backend.batch_set_value([(v, np.zeros((), self.dtype.as_numpy_dtype)) for v in self._variables()])

    reset_state = reset_states

    def __call__(self, *args, sample_weight=None):
        update = self.update_state(*args, sample_weight=sample_weight)
        with control_dependencies([update]):
            return control_flow_ops.identity(self.result())

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype.name}


class Mean(Metric):
    """The weighted mean of the values given to ``update_state(values, sample_weight=None)``."""


class MeanMetricWrapper(Metric):
    """The weighted mean of ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self.fn, self._fn_kwargs = fn, kwargs

    def per_sample(self, y_true, y_pred):
        """The function's values (what ``compile`` averages over the epoch)."""
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def _values(self, y_true, y_pred):
        return self.per_sample(y_true, y_pred)

    def update_state(self, y_true, y_pred, sample_weight=None):
        return super().update_state(y_true, y_pred, sample_weight=sample_weight)

    def __call__(self, y_true, y_pred, sample_weight=None):
        return super().__call__(y_true, y_pred, sample_weight=sample_weight)


def _wrapper(cls_name, fn, default_name, params=()):
    def __init__(self, name=default_name, dtype=None, *args, **kwargs):
        values = dict(params)
        values.update(zip([p for p, _ in params], args))
        values.update(kwargs)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)

    doc = f"The mean of ``{fn.__name__}`` (name ``{default_name}``)."
    return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})


Accuracy = _wrapper("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper("BinaryAccuracy", binary_accuracy, "binary_accuracy", (("threshold", 0.5),))
CategoricalAccuracy = _wrapper("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                     "sparse_categorical_accuracy")
MeanSquaredError = _wrapper("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error")

class AUC(Metric):
    """The area under the ROC curve (``curve="ROC"``, trapezoids between ``num_thresholds`` points).

    Thresholds: ``-eps``, ``i / (num_thresholds - 1)`` for ``i = 1 .. num_thresholds - 2``, ``1 + eps``
    (eps = 1e-7); four float32 variables of that length count the (weighted) true/false positives/negatives
    of ``y_pred > threshold`` against ``y_true`` (cast to bool). Only ROC with interpolation is built.
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, **kwargs):
        super().__init__(name=name or "auc", dtype=dtype)
        if curve != "ROC" or summation_method != "interpolation" or thresholds is not None:
            raise NotImplementedError("ref.keras AUC: only curve='ROC' with summation_method='interpolation'")
        if num_thresholds <= 1:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                             f"num_thresholds={num_thresholds}")
        self.num_thresholds = num_thresholds
        eps = 1e-7
        self.thresholds = [0.0 - eps] + [(i + 1) * 1.0 / (num_thresholds - 1)
                                         for i in range(num_thresholds - 2)] + [1.0 + eps]

    def _variables(self):
        if self._vars is None:
            with name_scope(None):
                made = []
                for var_name in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
                    v = variables.Variable(np.zeros((self.num_thresholds,), np.float32), name=var_name,
                                           trainable=False, use_resource=True, collections=[])
                    backend.track_variable(v)
                    made.append(v)
            self._vars = tuple(made)
        return self._vars

    def update_state(self, y_true, y_pred, sample_weight=None):
        tp, tn, fp, fn = self._variables()
        with name_scope(self.name):
            y_true = array_ops.reshape(math_ops.cast(y_true, dtypes.bool), [1, -1])
            y_pred = array_ops.reshape(math_ops.cast(y_pred, dtypes.float32), [1, -1])
            above = y_pred > array_ops.reshape(convert_to_tensor(np.float32(self.thresholds)), [-1, 1])
            weights = None if sample_weight is None else \
                array_ops.reshape(math_ops.cast(sample_weight, dtypes.float32), [1, -1])
            updates = []
            for var, truth, pred in ((tp, True, True), (tn, False, False), (fp, False, True), (fn, True, False)):
                t = y_true if truth else math_ops.logical_not(y_true)
                p = above if pred else math_ops.logical_not(above)
                hits = math_ops.cast(math_ops.logical_and(t, p), dtypes.float32)
                if weights is not None:
                    hits = hits * weights
                updates.append(state_ops.assign_add(var, math_ops.reduce_sum(hits, axis=1)))
            return control_flow_ops.group(*updates)

    def result(self):
        tp, tn, fp, fn = (v.read_value() for v in self._variables())
        tpr = math_ops.div_no_nan(tp, tp + fn)
        fpr = math_ops.div_no_nan(fp, fp + tn)
        n = self.num_thresholds
        return math_ops.reduce_sum((fpr[:n - 1] - fpr[1:]) * (tpr[:n - 1] + tpr[1:]) / 2.0)

    def reset_states(self):
        backend.batch_set_value([(v, np.zeros((self.num_thresholds,), np.float32)) for v in self._variables()])

    reset_state = reset_states


_BY_NAME = {"accuracy": accuracy, "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
            "sparse_categorical_accuracy": sparse_categorical_accuracy}


def get(identifier):
    """A metric function by name (``"binary_accuracy"``, ``"mse"``, ...), or the callable itself."""
    if callable(identifier):
        return identifier
    if identifier in _BY_NAME:
        return _BY_NAME[identifier]
    return losses_mod.get(identifier)
