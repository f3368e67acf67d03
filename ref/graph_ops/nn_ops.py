"""TF1 ``tf.nn`` functions built on the ops of :mod:`ref.ops.nn` (and math and
array ops) with ``ref.framework.op_def_library.apply_op``: activations, softmax, the
cross-entropy losses, bias_add, l2_loss/l2_normalize, moments, in_top_k,
zero_fraction and dropout, with ``tensorflow.compat.v1``'s signatures and
TF's composite formulas (e.g. ``sigmoid_cross_entropy_with_logits`` is
``max(x, 0) - x * z + log1p(exp(-|x|))`` built from ops).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ref.types import dtypes
from ref.graph_ops import math_ops as _m, array_ops
from ref.framework.graph import Tensor, name_scope, control_dependencies
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.types import errors
from ref.framework.random_seed import get_seed
from ref.graph_ops.random_ops import random_uniform as _random_uniform
from ref.graph_ops import stateless_random_ops as _stateless
from ref.graph_ops import complex_ops as _complex
from ref.types.shapes import TensorShape
from ref.graph_ops.check_ops import assert_equal as _assert_equal
from ref.graph_ops.control_flow_ops import cond as _cond

__all__ = [
    "relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu", "softmax", "log_softmax", "bias_add",
    "l2_loss", "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits", "l2_normalize", "moments", "in_top_k", "zero_fraction", "dropout",
    "xw_plus_b", "crelu", "log_poisson_loss", "swish", "silu",
]


def _a():
    return array_ops


def _activation(op_type, fname, doc):
    def fn(features, name=None):
        return apply_op(op_type, features=features, name=name)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    return fn


relu = _activation("Relu", "relu", "max(features, 0) (``Relu``).")
relu6 = _activation("Relu6", "relu6", "min(max(features, 0), 6) (``Relu6``).")
elu = _activation("Elu", "elu", "exp(x) - 1 where x < 0, else x (``Elu``).")
selu = _activation("Selu", "selu", "scale * (alpha * (exp(x) - 1) where x < 0, else x) (``Selu``).")
softplus = _activation("Softplus", "softplus", "log(exp(x) + 1) (``Softplus``).")
softsign = _activation("Softsign", "softsign", "x / (|x| + 1) (``Softsign``).")


def leaky_relu(features, alpha=0.2, name=None):
    """x where x > 0, else alpha * x (``LeakyRelu``)."""
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = _m.cast(features, dtypes.float32)
        return apply_op("LeakyRelu", features=features, alpha=float(alpha), name=scope)


def _axis_arg(axis, dim):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    return -1 if axis is None else axis


def _swap_axis(x, dim_index, last_index, name=None):
    """``x`` with dimensions ``dim_index`` and ``last_index`` swapped, the
    permutation built in the graph as TF builds it (range, concat)."""
    perm = array_ops.concat([_m.range(dim_index), [last_index], _m.range(dim_index + 1, last_index), [dim_index]], 0)
    return array_ops.transpose(x, perm, name=name)


def _wrap_2d(inputs, compute, dim, name):
    """TF's ``_wrap_2d_function``: ``compute(x, name=None)`` on the last dimension;
    another ``dim`` (a Python int or a tensor) is swapped to the end and back (each
    output of a tuple alike). A ``dim`` known to be out of range raises
    InvalidArgumentError at once, one known only at run time fails in the transpose."""
    inputs = convert_to_tensor(inputs)
    shape = inputs.shape
    n = shape.ndims
    if not isinstance(dim, Tensor) and (dim == -1 or (n is not None and dim == n - 1)):
        return compute(inputs, name=name)
    if n is None:
        raise ValueError(f"an op over axis {dim} needs the rank of {inputs.name}")
    dim_val = constant_value(dim) if isinstance(dim, Tensor) else dim
    if dim_val is not None and not -n <= dim_val < n:
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-n}, {n}) where {n} is the number of dimensions in the "
                        f"input. Received: dim={dim_val}")
    ndims = array_ops.rank(inputs)
    if not isinstance(dim, Tensor):
        if dim < 0:
            dim += ndims
    else:
        dim = array_ops.where(_m.less(dim, 0), dim + ndims, dim)
    input_rank = array_ops.rank(inputs)
    dim_axis = dim % n
    swapped = _swap_axis(inputs, dim_axis, _m.subtract(input_rank, 1))

    def fix(output):
        output = _swap_axis(output, dim_axis, _m.subtract(input_rank, 1), name=name)
        output.set_shape(shape)
        return output

    outputs = compute(swapped)
    return tuple(fix(o) for o in outputs) if isinstance(outputs, tuple) else fix(outputs)


def _softmax(op_type, logits, dim, name):
    return _wrap_2d(logits, lambda x, name=None: apply_op(op_type, logits=x, name=name), dim, name)


_ISOTONIC_OUTPUT = {dtypes.float32: dtypes.float32, dtypes.float16: dtypes.float16,
                    dtypes.bfloat16: dtypes.bfloat16, dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32}


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """TF2's ``tf.nn.isotonic_regression`` (not in tf.compat.v1.nn, so not in ``__all__``): for each vector along ``axis``, the y minimising
    sum((x - y)^2) subject to y_1 >= y_2 >= ... (y_1 <= y_2 <= ... when not
    ``decreasing``), and the int32 segments (0, 1, ...) of its constant pieces
    (``IsotonicRegression``; float32, float16 and bfloat16 stay as they are, int8/int16
    give float32, anything else float64). Returns ``(output, segments)``."""
    inputs = convert_to_tensor(inputs)
    out_dtype = _ISOTONIC_OUTPUT.get(inputs.dtype.base_dtype, dtypes.float64)

    def compute(matrix, name=None):
        if decreasing:
            return tuple(apply_op("IsotonicRegression", input=matrix, output_dtype=out_dtype, name=name))
        output, segments = apply_op("IsotonicRegression", input=_m.negative(matrix), output_dtype=out_dtype,
                                    name=name)
        return _m.negative(output), segments

    return _wrap_2d(inputs, compute, axis, None)


def softmax(logits, axis=None, name=None, dim=None):
    """exp(x) / sum(exp(x)) along ``axis`` (last by default) (``Softmax``;
    other axes are transposed to the end and back, as TF does)."""
    return _softmax("Softmax", logits, _axis_arg(axis, dim), name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """x - log(sum(exp(x))) along ``axis`` (``LogSoftmax``)."""
    return _softmax("LogSoftmax", logits, _axis_arg(axis, dim), name)


def bias_add(value, bias, data_format=None, name=None):
    """value + bias along the channel axis (``BiasAdd``; data_format NHWC/NCHW)."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("data_format must be of the form `N...C` or `NC...`")
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype.base_dtype, name="bias")
        return apply_op("BiasAdd", value=value, bias=bias, data_format=data_format or "NHWC", name=scope)


def _xw_plus_b(x, weights, biases, name, add):
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return add(_m.matmul(x, weights), biases, name=scope)


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases, the add a ``BiasAdd``."""
    return _xw_plus_b(x, weights, biases, name, bias_add)


def xw_plus_b_v1(x, weights, biases, name=None):
    """As :func:`xw_plus_b`, the add a ``BiasAddV1``."""
    return _xw_plus_b(x, weights, biases, name,
                      lambda v, b, name: apply_op("BiasAddV1", value=v, bias=b, name=name))


def crelu(features, name=None, axis=-1):
    """relu(concat([features, -features], axis)): the positive and the negative part."""
    with name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        both = array_ops.concat([features, -features], axis, name=scope)
        return relu(both)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2 (``L2Loss``)."""
    return apply_op("L2Loss", t=t, name=name)


def _flatten_outer_dims(x):
    """x reshaped to [-1, last dim], built as TF builds it (Rank, Slice of Shape, concat)."""
    a = _a()
    rank = a.rank(x)
    last = a.slice(a.shape(x), [_m.subtract(rank, 1)], [1])
    out = a.reshape(x, a.concat([[-1], last], 0))
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    if dims is not None and None not in dims[:-1]:
        out.set_shape([int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]])
    return out


def _move_dim_to_end(x, axis, rank):
    return _a().transpose(x, _a().concat([_m.range(axis), _m.range(axis + 1, rank), [axis]], 0))


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """-sum(labels * log_softmax(logits)) along ``axis`` per example
    (``SoftmaxCrossEntropyWithLogits`` on the inputs flattened to 2-D and the
    cost reshaped back, as TF builds it); gradients flow into labels too."""
    axis = _axis_arg(axis, dim)
    a = _a()
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        to_float32 = logits.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16)
        precise = _m.cast(logits, dtypes.float32) if to_float32 else logits
        labels = _m.cast(labels, precise.dtype)
        input_rank = a.rank(precise)
        shape = logits.shape
        if axis != -1:
            precise = _move_dim_to_end(precise, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)
        input_shape = a.shape(precise)
        precise = _flatten_outer_dims(precise)
        labels = _flatten_outer_dims(labels)
        cost, _ = apply_op("SoftmaxCrossEntropyWithLogits", features=precise, labels=labels, name=scope)
        cost = a.reshape(cost, a.slice(input_shape, [0], [_m.subtract(input_rank, 1)]))
        if shape.ndims is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return _m.cast(cost, logits.dtype.base_dtype) if to_float32 else cost


def _ensure_xent_args(name, labels, logits):
    """TF 2.21's check: both given (its compat.v1 losses take labels, logits by
    position, TF1's sentinel first argument is gone)."""
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {name}"
                         f"Received: labels={labels} and logits={logits}")


def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1's form of :func:`softmax_cross_entropy_with_logits_v2`: labels are
    wrapped in stop_gradient."""
    _ensure_xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = _a().stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=_axis_arg(axis, dim),
                                                name=scope)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """-log_softmax(logits)[labels] per example (``SparseSoftmaxCrossEntropyWithLogits``);
    labels must have rank(logits) - 1 (ValueError naming both shapes)."""
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    a = _a()
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        half = logits.dtype.base_dtype == dtypes.float16  # TF computes in float32 and casts back
        precise = _m.cast(logits, dtypes.float32) if half else logits
        rl, rg = labels.shape.ndims, logits.shape.ndims
        labels_shape = a.shape(labels)
        static = labels.shape.is_fully_defined() and rg is not None and logits.shape[:-1].is_fully_defined()
        if rg == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
        if rl is not None and rg is not None and rl != rg - 1:
            raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                             f"labels.shape={labels.shape} of rank {rl} and logits.shape={logits.shape} of rank {rg}")
        if static and labels.shape.as_list() != logits.shape[:-1].as_list():
            raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. "
                             f"Received: labels.shape={labels.shape} and logits.shape={logits.shape}")
        if rg == 2:
            cost, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=precise, labels=labels, name=name)
            return _m.cast(cost, dtypes.float16) if half else cost
        checks = [] if static else [_assert_equal(a.shape(labels), a.shape(logits)[:-1])]
        with control_dependencies(checks):
            num_classes = a.shape(logits)[a.rank(logits) - 1]
            flat_logits = a.reshape(precise, [-1, num_classes])
            flat_labels = a.reshape(labels, [-1])
            cost, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=flat_logits, labels=flat_labels,
                               name=name)
            cost = a.reshape(cost, labels_shape)
            cost.set_shape(labels.shape)
            return _m.cast(cost, dtypes.float16) if half else cost


def sparse_softmax_cross_entropy_with_logits_v2(labels, logits, name=None):
    """TF2's signature of :func:`sparse_softmax_cross_entropy_with_logits` (TF's
    ``nn_ops`` keeps both; tf.compat.v1 exports the first)."""
    return sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name=name)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x, labels z, built
    from ops as TF does (``where(x >= 0, ...)``, ``Log1p(Exp(...))``)."""
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype_hint=logits.dtype.base_dtype, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(f"logits and labels must have the same shape ({logits.shape} vs {labels.shape})")
        zeros = _a().zeros_like(logits, dtype=logits.dtype)
        cond = _m.greater_equal(logits, zeros)
        relu_logits = apply_op("Select", condition=cond, x=logits, y=zeros)
        neg_abs_logits = apply_op("Select", condition=cond, x=_m.negative(logits), y=logits)
        return _m.add(relu_logits - logits * labels, _m.log1p(_m.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + max(-x, 0)) for
    logits x, labels z, pos_weight q (TF's stable form)."""
    if targets is not None:
        if labels is not None:
            raise ValueError("Cannot specify both 'labels' and 'targets'")
        labels = targets
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype_hint=logits.dtype.base_dtype, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(f"logits and labels must have the same shape ({logits.shape} vs {labels.shape})")
        # operators, as TF: a Python pos_weight takes the labels' dtype
        log_weight = 1 + (pos_weight - 1) * labels
        linear = (1 - labels) * logits  # built before the softplus term: TF's argument order
        return _m.add(linear, log_weight * (_m.log1p(_m.exp(-_m.abs(logits))) + relu(-logits)), name=scope)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x * rsqrt(max(sum(x ** 2, axis), epsilon))."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:  # |x|^2 = real^2 + imag^2; both parts scaled by its rsqrt
            re, im = _complex.real(x), _complex.imag(x)
            square_sum = _complex.real(_m.reduce_sum(_m.add(_m.square(re), _m.square(im)), axis, keepdims=True))
            x_inv_norm = _m.rsqrt(_m.maximum(square_sum, epsilon))
            return _complex.complex(_m.multiply(re, x_inv_norm), _m.multiply(im, x_inv_norm), name=scope)
        square_sum = _m.reduce_sum(_m.square(x), axis, keepdims=True)
        x_inv_norm = _m.rsqrt(_m.maximum(square_sum, epsilon))
        return _m.multiply(x, x_inv_norm, name=scope)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over ``axes``: mean = reduce_mean(x), variance =
    reduce_mean(squared_difference(x, stop_gradient(mean))); float16 is
    computed in float32."""
    if keep_dims is not None:
        keepdims = keep_dims
    keepdims = bool(keepdims)
    with name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x, name="x")
        y = _m.cast(x, dtypes.float32) if x.dtype.base_dtype == dtypes.float16 else x
        mean = _m.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = _m.reduce_mean(_m.squared_difference(y, _a().stop_gradient(mean)), axes, keepdims=True,
                                  name="variance")
        if not keepdims:
            mean = _a().squeeze(mean, axes)
            variance = _a().squeeze(variance, axes)
        if x.dtype.base_dtype == dtypes.float16:
            return _m.cast(mean, dtypes.float16), _m.cast(variance, dtypes.float16)
        return mean, variance


def in_top_k(predictions, targets, k, name=None):
    """Whether targets[i] is among the top k predictions[i] (``InTopKV2``)."""
    with name_scope(name, "in_top_k"):
        # TF's wrapper opens the scope, then passes ``name`` on to the op: the
        # op is ``in_top_k/InTopKV2`` (or ``name/name``), its inputs converted under it.
        return apply_op("InTopKV2", predictions=predictions, targets=targets, k=k, name=name)


def _count_nonzero(x, dtype):
    """TF's nn_impl helper: a ``count_nonzero`` scope, NotEqual to ``zeros([])``,
    cast to ``dtype``, summed as ``nonzero_count``."""
    with name_scope("count_nonzero", values=[x]):
        zero = array_ops.zeros([], dtype=x.dtype.base_dtype)
        return _m.reduce_sum(_m.cast(_m.not_equal(x, zero), dtype), name="nonzero_count")


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` as float32 (nan when empty): TF's
    graph -- the count under a ``cond`` on ``size <= int32.max`` (an int32
    count cast to int64, else an int64 count), size - count, cast both to
    float32, divide."""
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        num_nonzero = _cond(_m.less_equal(size, dtypes.int32.max),
                            true_fn=lambda: _m.cast(_count_nonzero(value, dtypes.int32), dtypes.int64),
                            false_fn=lambda: _count_nonzero(value, dtypes.int64))
        with name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            fraction = _m.truediv(_m.cast(num_zero, dtypes.float32), _m.cast(size, dtypes.float32))
        return apply_op("Identity", input=fraction, name="fraction")


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Each element of x zeroed with probability ``rate``, the others scaled by
    1 / (1 - rate) -- TF's ``dropout_v2`` graph, node for node: ``Mul`` by the
    Python scale (or ``RealDiv`` by ``1 - rate``), a ``random_uniform`` of
    ``noise_shape`` (default x's shape), ``GreaterEqual``, ``SelectV2``."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
        try:
            rate = 1 - keep_prob  # TF computes it before its name scope ("sub" for a tensor)
        except TypeError:
            raise ValueError(f"`keep_prob` must be a floating point number or Tensor. Received: "
                             f"keep_prob={keep_prob}") from None
    if rate is None:
        raise ValueError("Either 'rate' or 'keep_prob' must be given")
    return dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


def dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
    """TF2's ``tf.nn.dropout(x, rate, noise_shape, seed)``: the mask from ``random_uniform``."""
    return _dropout(x, rate, noise_shape, lambda shape, dtype: _random_uniform(shape, dtype=dtype, seed=seed),
                    name, "dropout")


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """``tf.nn.experimental.stateless_dropout``: the mask from ``stateless_random_uniform``
    with ``seed`` (shape [2]) and ``rng_alg``, so equal seeds give equal masks."""
    from_seed = _stateless.stateless_random_uniform
    alg = "auto_select" if rng_alg is None else rng_alg
    return _dropout(x, rate, noise_shape, lambda shape, dtype: from_seed(shape, seed=seed, dtype=dtype, alg=alg),
                    name, "stateless_dropout")


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """``tf.nn.experimental.general_dropout``: the mask from ``uniform_sampler(shape, dtype)``."""
    return _dropout(x, rate, noise_shape, uniform_sampler, name, "general_dropout")


def _dropout(x, rate, noise_shape, uniform_sampler, name, default_name):
    with name_scope(name, default_name, [x]) as scope:
        is_number = isinstance(rate, numbers.Real) and not isinstance(rate, Tensor)
        if is_number and not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        dtype = x.dtype.base_dtype
        if not dtype.is_floating:
            raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. "
                             f"Got a {dtype.name} tensor instead.")
        if is_number and rate == 0:
            return x
        if is_number:
            scale = convert_to_tensor(1 / (1 - rate), dtype=dtype)
            ret = apply_op("Mul", x=x, y=scale)
        elif not isinstance(rate, Tensor):
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        else:
            rate.shape.assert_has_rank(0)
            if rate.dtype != x.dtype:
                if not rate.dtype.is_compatible_with(x.dtype):
                    raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={x.dtype} "
                                     f"and rate.dtype={rate.dtype}")
                rate = apply_op("Cast", x=rate, DstT=dtype, name="rate")
            ret = apply_op("RealDiv", x=x, y=apply_op("Sub", x=constant(1, dtype=dtype), y=rate))
        shape = _a().shape(x) if noise_shape is None else _noise_shape(x, noise_shape)
        random_tensor = uniform_sampler(shape=shape, dtype=dtype)
        keep_mask = _m.greater_equal(random_tensor, rate)
        ret = apply_op("SelectV2", condition=keep_mask, t=ret, e=constant(0, dtype=dtype))
        ret.set_shape(x.shape)
        return ret


def _noise_shape(x, noise_shape):
    """``noise_shape`` with its unknown dims filled from x's static shape (TF's ``_get_noise_shape``)."""
    try:
        given = TensorShape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.ndims is not None and given.ndims == x.shape.ndims:
        return TensorShape([d if n is None and d is not None else n
                            for d, n in zip(x.shape.as_list(), given.as_list())])
    return given


# -- TF2 spellings (TF's nn_ops/nn_impl keep both) and nn_impl's composites ---------

def softmax_v2(logits, axis=None, name=None):
    """TF2's ``tf.nn.softmax(logits, axis)``."""
    return softmax(logits, axis=axis, name=name)


def log_softmax_v2(logits, axis=None, name=None):
    """TF2's ``tf.nn.log_softmax(logits, axis)``."""
    return log_softmax(logits, axis=axis, name=name)


def moments_v2(x, axes, shift=None, keepdims=False, name=None):
    """TF2's ``tf.nn.moments(x, axes, shift, keepdims)``."""
    return moments(x, axes, shift=shift, name=name, keep_dims=keepdims)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets, plus (``compute_full_loss``) Stirling's
    approximation of log(targets!) -- targets * log(targets) - targets +
    0.5 * log(2 pi targets) -- where targets > 1 (TF's ``nn_impl.log_poisson_loss``)."""
    with name_scope(name, "log_poisson_loss", [targets, log_input]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        try:
            targets.shape.assert_is_compatible_with(log_input.shape)
        except ValueError:
            raise ValueError(f"`log_input` and `targets` must have the same shape, received "
                             f"({log_input.shape} vs {targets.shape}).") from None
        result = _m.exp(log_input) - log_input * targets  # TF's operators: sub, mul, add
        if compute_full_loss:
            point_five = constant(0.5, dtype=targets.dtype)
            two_pi = constant(2 * math.pi, dtype=targets.dtype)
            stirling = targets * _m.log(targets) - targets + point_five * _m.log(two_pi * targets)
            zeros = _a().zeros_like(targets, dtype=targets.dtype)
            ones = _a().ones_like(targets, dtype=targets.dtype)
            small = _m.logical_and(targets >= zeros, targets <= ones)
            result = result + _a().where(small, zeros, stirling)
        return result


def swish(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (``tf.nn.swish``/``silu``). TF wraps it in a
    custom gradient (IdentityN in the graph); here the same derivative comes from the ops."""
    with name_scope(name, "swish", [features]):
        features = convert_to_tensor(features, name="features")
        beta = _m.cast(convert_to_tensor(beta, name="beta"), features.dtype)
        return _m.multiply(features, _m.sigmoid(_m.multiply(beta, features)))


silu = swish


def gelu(features, approximate=False, name=None):
    """0.5 x erfc(-x / sqrt(2)) (accurate for negative x), or with ``approximate`` 0.5 x (1 + tanh(sqrt(2 / pi)
    (x + 0.044715 x^3))) (TF's ``nn_ops.gelu``)."""
    with name_scope(name, "Gelu", [features]):
        features = convert_to_tensor(features, name="features")
        if not features.dtype.is_floating:
            raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype="
                             f"{features.dtype}")
        half = _m.multiply(0.5, features)
        if approximate:
            coeff = _m.cast(0.044715, features.dtype)
            inner = _m.multiply(0.7978845608028654, _m.add(features, _m.multiply(coeff, _m.pow(features, 3))))
            return _m.multiply(half, _m.add(1.0, _m.tanh(inner)))
        return _m.multiply(half, _m.erfc(_m.multiply(_m.negative(features),
                                                     _m.cast(0.7071067811865476, features.dtype))))
