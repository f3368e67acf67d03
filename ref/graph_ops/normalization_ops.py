"""TF1 ``tf.nn`` normalization and selection builders: ``batch_normalization``
(TF's composite of ops), ``fused_batch_norm`` (``FusedBatchNormV3``),
``local_response_normalization``/``lrn`` (``LRN``) and ``top_k``
(``TopKV2``), with ``tensorflow.compat.v1``'s signatures."""
from __future__ import annotations

from ref.types import dtypes
from ref.graph_ops import array_ops, math_ops as _m
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.types.shapes import dimension_value

__all__ = ["batch_normalization", "fused_batch_norm", "local_response_normalization", "lrn", "top_k",
           "approx_max_k", "approx_min_k",
           "sufficient_statistics", "normalize_moments", "weighted_moments", "batch_norm_with_global_normalization"]


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, built as TF does:
    inv = rsqrt(variance + epsilon) * scale; x * inv + (offset - mean * inv)."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x, name="x")
        inv = _m.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        scaled = x * _m.cast(inv, x.dtype)
        return scaled + _m.cast(offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """(y, running_mean, running_var) of ``FusedBatchNormV3``. ``epsilon`` is
    passed as given (TF 1.x raised it to cuDNN's floor 1.001e-5; TF 2.x's
    ``tf.compat.v1`` and its CPU kernel use it unchanged); ``mean``/``variance``
    are required when not training or when ``exponential_avg_factor != 1``."""
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(f"Both `mean` and `variance` must be a 1D tensor when is_training is False or "
                         f"exponential_avg_factor != 1.0. Received: mean {mean!r} and variance {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    if offset is None:
        offset = array_ops.zeros_like(scale)
    else:
        offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant([], dtypes.float32)
    if variance is None:
        variance = constant([], dtypes.float32)
    epsilon = float(epsilon)
    y, running_mean, running_var, _, _, _ = apply_op(
        "FusedBatchNormV3", x=x, scale=scale, offset=offset, mean=mean, variance=variance, epsilon=epsilon,
        exponential_avg_factor=float(exponential_avg_factor), data_format=data_format,
        is_training=bool(is_training), name=name)
    return y, running_mean, running_var


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """input / (bias + alpha * sum of squares over 2 * depth_radius + 1
    neighbouring channels) ** beta (``LRN``)."""
    return apply_op("LRN", input=input, depth_radius=int(depth_radius), bias=float(bias), alpha=float(alpha),
                    beta=float(beta), name=name)


lrn = local_response_normalization


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):
    """(values, indices) of the k largest entries of the last dimension
    (``TopKV2``; equal values: the lower index first)."""
    # k converted by the op (``TopKV2/k``, int32 for a Python int), as TF's wrapper.
    return apply_op("TopKV2", input=input, k=k, sorted=sorted, index_type=dtypes.as_dtype(index_type), name=name)


def _approx_top_k(is_max_k):
    def builder(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                aggregate_to_topk=True, name=None):
        return apply_op("ApproxTopK", input=operand, k=k, reduction_dimension=reduction_dimension,
                        recall_target=recall_target, is_max_k=is_max_k,
                        reduction_input_size_override=reduction_input_size_override,
                        aggregate_to_topk=aggregate_to_topk, name=name)
    builder.__name__ = builder.__qualname__ = "approx_max_k" if is_max_k else "approx_min_k"
    builder.__doc__ = (f"(values, indices) of the k {'largest' if is_max_k else 'smallest'} entries along "
                       f"``reduction_dimension`` (``ApproxTopK``; TF's CPU kernel is exact and serves "
                       f"only the max along the last dimension).")
    return builder


approx_max_k = _approx_top_k(True)
approx_min_k = _approx_top_k(False)


def _keep(keepdims, keep_dims):
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    value = keepdims if keepdims is not None else keep_dims
    return bool(value) if value is not None else False


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum(x - shift), sum((x - shift) ** 2), shift) over ``axes``
    (the count a constant when those dimensions are known)."""
    axes = list(set(axes))  # TF: the set's iteration order (ascending for small non-negative axes)
    keepdims = _keep(keepdims, keep_dims)
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        shape = x.shape
        if shape.ndims is not None and all(dimension_value(shape[d]) is not None for d in axes):
            n = 1
            for d in axes:
                n *= dimension_value(shape[d])
            counts = constant(n, dtype=x.dtype.base_dtype)
        else:
            rank = array_ops.rank(x)  # TF: negative axes made positive with the rank (a Const when known)
            axes_pos = [a + rank if a < 0 else a for a in axes]
            dims = array_ops.gather(_m.cast(array_ops.shape(x), x.dtype.base_dtype), axes_pos)
            counts = _m.reduce_prod(dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss, v_ss = _m.subtract(x, shift), _m.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, _m.square(x)
        m_ss = _m.reduce_sum(m_ss, axes, keepdims=keepdims, name="mean_ss")
        v_ss = _m.reduce_sum(v_ss, axes, keepdims=keepdims, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics: mean = mean_ss / counts
    (+ shift), variance = variance_ss / counts - (mean_ss / counts) ** 2."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = _m.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = _m.multiply(mean_ss, divisor, name="shifted_mean")
            mean = _m.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = _m.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = _m.subtract(_m.multiply(variance_ss, divisor), _m.square(shifted_mean), name="variance")
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over ``axes`` with each element counted
    ``frequency_weights`` times (broadcast against x; 0 where the weights sum to 0)."""
    keepdims = _keep(keepdims, keep_dims)
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        w = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype.base_dtype == dtypes.float16
        if needs_cast:
            x = _m.cast(x, dtypes.float32)
        if w.dtype.base_dtype != x.dtype.base_dtype:
            w = _m.cast(w, x.dtype.base_dtype)
        # TF writes ``w * x`` and ``w + zeros_like(x)``: ops named "mul" and "add"
        weighted_input_sum = _m.reduce_sum(w * x, axes, name="weighted_input_sum", keepdims=True)
        broadcasted_weights = w + array_ops.zeros_like(x)
        sum_of_weights = _m.reduce_sum(broadcasted_weights, axes, name="sum_of_weights", keepdims=True)
        weighted_mean = _m.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = _m.reduce_sum(w * _m.squared_difference(x, weighted_mean), axes,
                                        name="weighted_distsq", keepdims=True)
        weighted_variance = _m.div_no_nan(weighted_distsq, sum_of_weights)
        if not keepdims:
            weighted_mean = array_ops.squeeze(weighted_mean, axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axes)
        if needs_cast:
            weighted_mean = _m.cast(weighted_mean, dtypes.float16)
            weighted_variance = _m.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None, mean=None,
                                         variance=None):
    """batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, epsilon)."""
    def pick(new, old, what):
        if new is not None and old is not None:
            raise ValueError(f"Cannot specify both '{what[0]}' and '{what[1]}'")
        return new if new is not None else old
    t = pick(input, t, ("input", "t"))
    m = pick(mean, m, ("mean", "m"))
    v = pick(variance, v, ("variance", "v"))
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon, name)
