"""``tf.keras.losses``: the loss functions (one value per sample, the mean
over the last axis where Keras takes it) and the loss classes (the function's
values weighted by ``sample_weight`` and reduced: ``sum_over_batch_size`` by
default, the sum divided by the number of values). As Keras' backend, a
probability output made by a ``Softmax`` (``Sigmoid``) op is traced back to
its logits, and the cross-entropy taken from them."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, clip_ops, math_ops, nn_ops
from ref.graph_ops.control_flow_ops import cond
from ref.keras import backend

__all__ = ["mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
           "mean_squared_logarithmic_error", "binary_crossentropy", "categorical_crossentropy",
           "sparse_categorical_crossentropy", "hinge", "squared_hinge", "kl_divergence", "poisson", "log_cosh",
           "mse", "mae", "mape", "msle", "MSE", "MAE", "MAPE", "MSLE", "kld", "KLD", "logcosh",
           "Loss", "LossFunctionWrapper", "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
           "MeanSquaredLogarithmicError", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "Hinge", "SquaredHinge", "KLDivergence", "Poisson", "LogCosh",
           "Reduction", "get", "serialize"]


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    return math_ops.cast(y_true, y_pred.dtype.base_dtype), y_pred


def _mean(x):
    return math_ops.reduce_mean(x, axis=-1)


def _eps(dtype):
    return constant(backend.epsilon(), dtype=dtype)


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean(math_ops.squared_difference(y_pred, y_true))


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean(math_ops.abs(y_pred - y_true))


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true), backend.epsilon()))
    return 100.0 * _mean(diff)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    first = math_ops.log(math_ops.maximum(y_pred, backend.epsilon()) + 1.0)
    second = math_ops.log(math_ops.maximum(y_true, backend.epsilon()) + 1.0)
    return _mean(math_ops.squared_difference(first, second))


def _logits(output, op_type):
    """(tensor, from_logits): the input of a ``op_type`` op that made ``output``."""
    if isinstance(output, Tensor) and output.op.type == op_type and len(output.op.inputs) == 1:
        return output.op.inputs[0], True
    return output, False


def _smooth(y_true, y_pred, label_smoothing, categorical):
    if not label_smoothing:
        return y_true
    if categorical:
        n = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype.base_dtype)
        return y_true * (1.0 - label_smoothing) + (label_smoothing / n)
    return y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``mean(-(t log p + (1 - t) log(1 - p)))`` over ``axis`` (p clipped to [eps, 1 - eps], plus eps)."""
    y_true, y_pred = _pair(y_true, y_pred)
    convert_to_tensor(label_smoothing, dtype=y_pred.dtype.base_dtype)  # (Keras converts it first: a Const)
    y_true = _smooth(y_true, y_pred, label_smoothing, False)
    output, traced = _logits(y_pred, "Sigmoid")
    if from_logits or traced:
        bce = nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=output)
    else:
        eps = _eps(output.dtype.base_dtype)
        output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
        bce = y_true * math_ops.log(output + backend.epsilon())
        bce += (1 - y_true) * math_ops.log(1 - output + backend.epsilon())
        bce = -bce
    return math_ops.reduce_mean(bce, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``-sum(t log p)`` over ``axis`` (p normalized and clipped), or from the logits."""
    y_true, y_pred = _pair(y_true, y_pred)
    convert_to_tensor(label_smoothing, dtype=y_pred.dtype.base_dtype)  # (Keras converts it first: a Const)
    y_true = _smooth(y_true, y_pred, label_smoothing, True)
    output, traced = _logits(y_pred, "Softmax")
    if from_logits or traced:
        return nn_ops.softmax_cross_entropy_with_logits_v2(labels=y_true, logits=output, axis=axis)
    output = output / math_ops.reduce_sum(output, axis, True)
    eps = _eps(output.dtype.base_dtype)
    output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
    return -math_ops.reduce_sum(y_true * math_ops.log(output), axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """``-log p[label]`` (p clipped), or the sparse softmax cross-entropy of the logits."""
    y_pred = convert_to_tensor(y_pred)
    target = math_ops.cast(y_true, dtypes.int64)
    output, traced = _logits(y_pred, "Softmax")
    if not (from_logits or traced):
        eps = _eps(output.dtype.base_dtype)
        output = math_ops.log(clip_ops.clip_by_value(output, eps, 1 - eps))
    rank = output.shape.ndims
    if rank is not None and axis % rank != rank - 1:
        axis %= rank
        output = array_ops.transpose(output, list(range(axis)) + list(range(axis + 1, rank)) + [axis])
    output_shape = array_ops.shape(output)
    update = target.shape.ndims is not None and rank is not None and target.shape.ndims != rank - 1
    if update:
        target = array_ops.reshape(target, [-1])
        output = array_ops.reshape(output, [-1, output_shape[-1]])
    res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if update and rank >= 3:
        res = array_ops.reshape(res, output_shape[:-1])
    return res


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    is_binary = math_ops.reduce_all(math_ops.logical_or(math_ops.equal(y_true, 0), math_ops.equal(y_true, 1)))
    y_true = cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)
    return _mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0))


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    is_binary = math_ops.reduce_all(math_ops.logical_or(math_ops.equal(y_true, 0), math_ops.equal(y_true, 1)))
    y_true = cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)
    return _mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred, 0.0)))


def kl_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = clip_ops.clip_by_value(y_true, backend.epsilon(), 1)
    y_pred = clip_ops.clip_by_value(y_pred, backend.epsilon(), 1)
    return math_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean(y_pred - y_true * math_ops.log(y_pred + backend.epsilon()))


def log_cosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return _mean(x + nn_ops.softplus(-2.0 * x) - math_ops.cast(math_ops.log(2.0), x.dtype.base_dtype))


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kl_divergence
logcosh = log_cosh


class Reduction:
    AUTO, NONE, SUM, SUM_OVER_BATCH_SIZE = "auto", "none", "sum", "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


def _squeeze_to(values, ndims):
    """Drops a trailing axis of 1 when ``values`` has one axis more than ``ndims``."""
    if values.shape.ndims is not None and ndims is not None and values.shape.ndims - ndims == 1 and \
            values.shape.as_list()[-1] == 1:
        return array_ops.squeeze(values, [-1])
    return values


def reduce_weighted_loss(weighted, reduction):
    if reduction == Reduction.NONE:
        return weighted
    loss = math_ops.reduce_sum(weighted)
    if reduction == Reduction.SUM_OVER_BATCH_SIZE:  # Keras' _safe_mean: the sum summed again, over the count
        with name_scope("num_elements") as scope:
            count = math_ops.cast(array_ops.size(weighted, name=scope), weighted.dtype.base_dtype)
        loss = math_ops.div_no_nan(math_ops.reduce_sum(loss), count, name="value")
    return loss


def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.SUM_OVER_BATCH_SIZE, name=None):
    """``losses * sample_weight`` reduced (``weighted_loss`` scope)."""
    Reduction.validate(reduction)
    if reduction == Reduction.AUTO:
        reduction = Reduction.SUM_OVER_BATCH_SIZE
    with name_scope(name or "weighted_loss"):
        losses = convert_to_tensor(losses)
        weight = convert_to_tensor(1.0 if sample_weight is None else sample_weight)
        weight = math_ops.cast(weight, losses.dtype.base_dtype)
        weight = _squeeze_to(weight, losses.shape.ndims)
        return reduce_weighted_loss(math_ops.multiply(losses, weight), reduction)


class Loss:
    """A loss object: ``loss(y_true, y_pred, sample_weight=None)`` is the weighted, reduced value."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        self.reduction, self.name = reduction, name

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def __call__(self, y_true, y_pred, sample_weight=None):
        scope = self.name or type(self).__name__
        with name_scope(scope.replace(" ", "_")):
            losses = self.call(y_true, y_pred)
            return compute_weighted_loss(losses, sample_weight, reduction=self.reduction)

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}


class LossFunctionWrapper(Loss):
    """A loss function as a :class:`Loss` (the prediction's trailing axis of 1 squeezed against the labels)."""

    def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true, y_pred):
        y_pred = convert_to_tensor(y_pred)
        y_true = convert_to_tensor(y_true)
        rt, rp = y_true.shape.ndims, y_pred.shape.ndims
        if rt is not None and rp is not None and (rp - rt != 1 or y_pred.shape.as_list()[-1] == 1):
            if rp - rt == 1 and y_pred.shape.as_list()[-1] == 1:
                y_pred = array_ops.squeeze(y_pred, [-1])
            elif rt - rp == 1 and y_true.shape.as_list()[-1] == 1:
                y_true = array_ops.squeeze(y_true, [-1])
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return dict(super().get_config(), **self._fn_kwargs)


def _loss_class(cls_name, fn, default_name, params=()):
    def __init__(self, *args, reduction=Reduction.AUTO, name=default_name, **kwargs):
        values = dict(params)
        values.update(zip([p for p, _ in params], args))
        values.update(kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **values)

    doc = f"``{fn.__name__}`` as a :class:`Loss` (name ``{default_name}``)."
    return type(cls_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc})


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _loss_class("MeanAbsolutePercentageError", mean_absolute_percentage_error,
                                          "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _loss_class("MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
                                          "mean_squared_logarithmic_error")
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
                                 (("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)))
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy,
                                      "categorical_crossentropy",
                                      (("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)))
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
                                            "sparse_categorical_crossentropy", (("from_logits", False),))
Hinge = _loss_class("Hinge", hinge, "hinge")
SquaredHinge = _loss_class("SquaredHinge", squared_hinge, "squared_hinge")
KLDivergence = _loss_class("KLDivergence", kl_divergence, "kl_divergence")
Poisson = _loss_class("Poisson", poisson, "poisson")
LogCosh = _loss_class("LogCosh", log_cosh, "log_cosh")

_BY_NAME = {name: globals()[name] for name in __all__ if name[0].islower() and name not in ("get", "serialize")}


def get(identifier):
    """A loss function by name (``"mse"``, ``"categorical_crossentropy"``, ...), or the callable itself."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: '{identifier}'. Please ensure you are using a "
                             f"`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


def serialize(loss):
    return getattr(loss, "__name__", type(loss).__name__)
