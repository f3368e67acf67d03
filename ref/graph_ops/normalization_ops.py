"""TF1 ``tf.nn`` normalization and selection builders: ``batch_normalization``
(TF's composite of ops), ``fused_batch_norm`` (``FusedBatchNormV3``),
``local_response_normalization``/``lrn`` (``LRN``) and ``top_k``
(``TopKV2``), with ``tensorflow.compat.v1``'s signatures."""
from __future__ import annotations

from ref.types import dtypes
from ref.graph_ops import array_ops, math_ops as _m
from ref.framework.graph import apply_op, constant, convert_to_tensor, name_scope

__all__ = ["batch_normalization", "fused_batch_norm", "local_response_normalization", "lrn", "top_k"]


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, built as TF does:
    inv = rsqrt(variance + epsilon) * scale; x * inv + (offset - mean * inv)."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x, name="x")
        inv = _m.rsqrt(_m.add(variance, variance_epsilon))
        if scale is not None:
            inv = _m.multiply(inv, scale)
        shift = _m.subtract(offset, _m.multiply(mean, inv)) if offset is not None else \
            _m.negative(_m.multiply(mean, inv))
        return _m.add(_m.multiply(x, _m.cast(inv, x.dtype)), _m.cast(shift, x.dtype))


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """(y, running_mean, running_var) of ``FusedBatchNormV3``. ``epsilon`` is
    raised to at least 1.001e-5 (cuDNN's floor, applied by TF on every device);
    ``mean``/``variance`` are required when not training or when
    ``exponential_avg_factor != 1``."""
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(f"Both `mean` and `variance` must be a 1D tensor when is_training is False or "
                         f"exponential_avg_factor != 1.0. Received: mean {mean!r} and variance {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    if offset is None:
        offset = array_ops.zeros_like(scale)
    if mean is None:
        mean = constant([], dtypes.float32)
    if variance is None:
        variance = constant([], dtypes.float32)
    epsilon = max(float(epsilon), 1.001e-5)
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


def top_k(input, k=1, sorted=True, name=None, index_type=dtypes.int32):
    """(values, indices) of the k largest entries of the last dimension
    (``TopKV2``; equal values: the lower index first)."""
    return apply_op("TopKV2", input=input, k=convert_to_tensor(k, dtype=dtypes.int32) if isinstance(k, int) else k,
                    sorted=sorted, index_type=dtypes.as_dtype(index_type), name=name)
