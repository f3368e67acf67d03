"""Normalization ops: FusedBatchNorm (V1, V2, V3) and their gradients, LRN and
LRNGrad (TF's ``fused_batch_norm_op.cc``, ``lrn_op.cc``).

FusedBatchNorm views ``x`` as ``[rest, depth]`` (the channel axis last for
NHWC/NDHWC, axis 1 for NCHW/NCDHW) and computes in ``U`` (float32):

* training: ``mean = sum(x) * (1 / rest)``, ``var = sum((x - mean)^2) * (1 / rest)``,
  ``y = (x - mean) * (rsqrt(var + epsilon) * scale) + offset``; the returned
  ``batch_variance`` is Bessel-corrected (``var * rest / (rest - 1)``), and with
  ``exponential_avg_factor = f != 1`` both statistics are running averages
  ``(1 - f) * old + f * new``; ``reserve_space_1/2`` hold the batch mean and
  the uncorrected variance for the gradient;
* inference: the same ``y`` from the given ``mean`` and ``variance``, which
  are returned unchanged.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops import eigen_recip, eigen_reduce, eigen_redux
from ref.ops.registry import invalid_argument, register_op, require_rank
from ref.types.shapes import TensorShape, unknown_shape

_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32)
_U = (dtypes.bfloat16, dtypes.float32)
_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


def _channel_axis(ndim, data_format):
    return 1 if _s(data_format).startswith("NC") else ndim - 1


def _rest_by_depth(x, data_format):
    """x as a float32 [rest, depth] matrix (and the permutation back)."""
    c = _channel_axis(x.ndim, data_format)
    moved = np.moveaxis(x, c, -1)
    return np.ascontiguousarray(moved, dtype=np.float32).reshape(-1, x.shape[c]), moved.shape, c


def _back(m, moved_shape, c, dtype):
    return np.ascontiguousarray(np.moveaxis(m.reshape(moved_shape), -1, c)).astype(dtype, copy=False)


def _f32(v):
    return np.float32(v)


def _sum_rows(m):
    """Column sums of the [rest, depth] float32 ``m`` as TF's forward kernel's
    ``.sum(reduce_dims)``: Eigen's reduction over the leading axis (``ref.ops.eigen_reduce``)."""
    got = eigen_reduce.reduce(m, (0,))
    return np.add.reduce(m, axis=0, dtype=np.float32) if got is None else got


def _redux_sum(m):
    """Column sums of the [rest, depth] float32 ``m`` as TF's gradient kernels' ``redux_sum``
    (``ReduceOuterDimensions``: blocks of rows per thread, ``ref.ops.eigen_redux``)."""
    if m.shape[0] == 0:
        return np.zeros(m.shape[1], np.float32)
    return eigen_redux.reduce_outer_dims(m)


def _check_fbn(x, scale, offset, mean, variance, is_training, exponential_avg_factor, data_format, op):
    if _s(data_format) not in _FORMATS:
        raise invalid_argument(f"{op}: invalid data format {_s(data_format)}")
    if x.ndim not in (4, 5):
        raise invalid_argument(f"{op}: input must be 4 or 5-dimensional, got {list(x.shape)}")
    depth = x.shape[_channel_axis(x.ndim, data_format)]
    for name, v in (("scale", scale), ("offset", offset)):
        if v.ndim != 1 or v.shape[0] != depth:
            raise invalid_argument(f"{op}: {name} must have the same number of elements as the channels of x, "
                                   f"got {v.shape[0] if v.ndim == 1 else list(v.shape)} and {depth}")
    if not is_training or exponential_avg_factor != 1.0:
        for name, v in (("mean", mean), ("variance", variance)):
            if v.ndim != 1 or v.shape[0] != depth:
                raise invalid_argument(f"{op}: {name} must have the same number of elements as the channels "
                                       f"of x, got {v.shape[0] if v.ndim == 1 else list(v.shape)} and {depth}")


def _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format,
                      is_training, op):
    x0 = np.asarray(x)
    scale, offset = np.asarray(scale, np.float32), np.asarray(offset, np.float32)
    mean, variance = np.asarray(mean, np.float32), np.asarray(variance, np.float32)
    _check_fbn(x0, scale, offset, mean, variance, is_training, exponential_avg_factor, data_format, op)
    m, moved, c = _rest_by_depth(x0, data_format)
    eps, f = _f32(epsilon), _f32(exponential_avg_factor)
    rest = m.shape[0]
    if is_training:
        inv = np.float32(np.float32(1.0) / np.float32(rest)) if rest else np.float32(np.inf)
        batch_mean = _sum_rows(m) * inv
        centered = m - batch_mean
        batch_var = _sum_rows(centered * centered) * inv
        adjust = np.float32(rest) / np.float32(max(rest - 1, 1))
        if f == np.float32(1):
            new_mean, new_var = batch_mean, batch_var * adjust
        else:
            one_minus = np.float32(1) - f
            new_var = one_minus * variance + (f * adjust) * batch_var
            new_mean = one_minus * mean + f * batch_mean
        saved_mean, saved_var = batch_mean, batch_var
    else:
        centered = m - mean
        batch_var = variance
        new_mean, new_var, saved_mean, saved_var = mean, variance, mean, variance
    factor = eigen_recip.rsqrt(batch_var + eps) * scale  # TF's .eval() of [depth]: Eigen's prsqrt packets
    y = centered * factor + offset
    return (_back(y, moved, c, x0.dtype), new_mean.astype(np.float32), new_var.astype(np.float32),
            np.array(saved_mean, np.float32), np.array(saved_var, np.float32))


def _fbn_shape(n_out):
    def rule(ins, attrs):
        x = ins["x"].shape
        name = attrs.get("_op_name")
        if x.ndims is not None and x.ndims not in (4, 5):
            raise ValueError(f"Shape must be rank 4 but is rank {x.ndims} for '{name}' with input shapes: {x}.")
        depth = None
        if x.ndims is not None:
            depth = x[_channel_axis(x.ndims, attrs.get("data_format", "NHWC"))]
        for k in ("scale", "offset"):
            s = ins[k].shape
            if s.ndims is not None and s.ndims != 1:
                raise ValueError(f"Shape must be rank 1 but is rank {s.ndims} for '{name}' ({k}).")
            if s.ndims == 1 and s[0] is not None and depth is not None and s[0] != depth:
                raise ValueError(f"Dimensions must be equal, but are {depth} and {s[0]} for '{name}' "
                                 f"with input shapes: {x}, {ins['scale'].shape}, {ins['offset'].shape}.")
            if depth is None and s.ndims == 1:
                depth = s[0]
        u = ins["scale"].dtype
        outs = [(ins["x"].dtype, x)] + [(u, TensorShape([depth]))] * 4
        return outs + [(u, unknown_shape())] * (n_out - 5)
    return rule


_FBN_ATTRS = {"epsilon": 0.0001, "exponential_avg_factor": 1.0, "data_format": "NHWC", "is_training": True}
_FBN_IN = ("x", "scale", "offset", "mean", "variance")
_FBN_OUT = ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2")


@register_op("FusedBatchNormV3", inputs=_FBN_IN, outputs=_FBN_OUT + ("reserve_space_3",), attrs=dict(_FBN_ATTRS),
             type_attrs={"T": "x", "U": ("scale", "offset", "mean", "variance")}, allowed={"T": _T, "U": _U},
             shape=_fbn_shape(6))
def fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,
                        data_format="NHWC", is_training=True):
    """y = (x - mean) * (rsqrt(variance + epsilon) * scale) + offset per channel,
    with the batch's statistics when training (see the module doc);
    reserve_space_3 is a placeholder scalar 0 on CPU."""
    out = _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format,
                            is_training, "FusedBatchNormV3")
    return out + (np.zeros((), np.float32),)


@register_op("FusedBatchNormV2", inputs=_FBN_IN, outputs=_FBN_OUT, attrs=dict(_FBN_ATTRS),
             type_attrs={"T": "x", "U": ("scale", "offset", "mean", "variance")}, allowed={"T": _T, "U": _U},
             shape=_fbn_shape(5))
def fused_batch_norm_v2(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,
                        data_format="NHWC", is_training=True):
    """FusedBatchNormV3 without reserve_space_3."""
    return _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format,
                             is_training, "FusedBatchNormV2")


@register_op("FusedBatchNorm", inputs=_FBN_IN, outputs=_FBN_OUT, attrs=dict(_FBN_ATTRS),
             type_attrs={"T": ("x", "scale", "offset", "mean", "variance")}, allowed={"T": (dtypes.float32,)},
             shape=_fbn_shape(5))
def fused_batch_norm(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,
                     data_format="NHWC", is_training=True):
    """FusedBatchNormV3 for float32 only, without reserve_space_3."""
    return _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format,
                             is_training, "FusedBatchNorm")


def _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon, data_format,
                           is_training, op):
    x0, dy0 = np.asarray(x), np.asarray(y_backprop)
    if x0.shape != dy0.shape:
        raise invalid_argument(f"{op}: x and y_backprop must have same shape, but x has shape "
                               f"{list(x0.shape)} and y_backprop has shape {list(dy0.shape)}")
    if x0.ndim not in (4, 5):
        raise invalid_argument(f"{op}: input must be 4 or 5-dimensional, got {list(x0.shape)}")
    scale = np.asarray(scale, np.float32)
    mean, var = np.asarray(reserve_space_1, np.float32), np.asarray(reserve_space_2, np.float32)
    xm, moved, c = _rest_by_depth(x0, data_format)
    dy, _, _ = _rest_by_depth(dy0, data_format)
    depth = xm.shape[1]
    for name, v in (("scale", scale), ("reserve_space_1", mean), ("reserve_space_2", var)):
        if v.shape != (depth,):
            raise invalid_argument(f"{op}: {name} must have {depth} elements, got shape {list(v.shape)}")
    eps = _f32(epsilon)
    coef0 = eigen_recip.rsqrt(var + eps)  # Eigen's prsqrt over [depth] (see the module's docstring)
    centered = xm - mean
    sums = _redux_sum
    offset_backprop = sums(dy)
    if is_training:  # TF: sum(dy * (centered * coef0)); inference: sum(dy * centered) * coef0
        scale_backprop = sums(dy * (centered * coef0))
    else:
        scale_backprop = sums(dy * centered) * coef0
    if is_training:
        rest = xm.shape[0]
        dy_mean = offset_backprop * np.float32(np.float32(1) / np.float32(rest))
        dyx_mean = sums(dy * centered) / np.float32(rest)
        coef1 = scale * coef0
        coef2 = coef0 * coef0 * dyx_mean
        dx = coef1 * ((dy - dy_mean) - centered * coef2)
    else:
        dx = dy * (scale * coef0)
    return (_back(dx, moved, c, x0.dtype), scale_backprop, offset_backprop, np.zeros((0,), np.float32),
            np.zeros((0,), np.float32))


def _fbn_grad_shape(n_out):
    def rule(ins, attrs):
        x = ins["x"].shape
        require_rank(ins, attrs, y_backprop=(4, 5), x=(4, 5))
        depth = None
        if x.ndims is not None:
            depth = x[_channel_axis(x.ndims, attrs.get("data_format", "NHWC"))]
        u = ins["reserve_space_1"].dtype
        return ([(ins["x"].dtype, x.merge_with(ins["y_backprop"].shape))] + [(u, TensorShape([depth]))] * 2
                + [(u, TensorShape([0]))] * (n_out - 3))
    return rule


_FBN_GRAD_ATTRS = {"epsilon": 0.0001, "data_format": "NHWC", "is_training": True}


@register_op("FusedBatchNormGradV3",
             inputs=("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3"),
             outputs=("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4", "reserve_space_5"),
             attrs=dict(_FBN_GRAD_ATTRS), type_attrs={"T": ("y_backprop", "x"),
                                                     "U": ("reserve_space_1", "reserve_space_2", "reserve_space_3")},
             allowed={"T": _T, "U": (dtypes.float32,)}, shape=_fbn_grad_shape(5))
def fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
                             epsilon=0.0001, data_format="NHWC", is_training=True):
    """Training (mean, var = reserve_space_1/2, the batch's; c0 = rsqrt(var + epsilon)):
    offset_backprop = sum(dy), scale_backprop = sum(dy * (x - mean) * c0),
    x_backprop = scale * c0 * ((dy - mean(dy)) - (x - mean) * c0^2 * mean(dy * (x - mean))).
    Inference (the population statistics): x_backprop = dy * scale * c0."""
    return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon, data_format,
                                  is_training, "FusedBatchNormGradV3")


@register_op("FusedBatchNormGradV2", inputs=("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2"),
             outputs=("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"),
             attrs=dict(_FBN_GRAD_ATTRS), type_attrs={"T": ("y_backprop", "x"),
                                                     "U": ("reserve_space_1", "reserve_space_2")},
             allowed={"T": _T, "U": (dtypes.float32,)}, shape=_fbn_grad_shape(5))
def fused_batch_norm_grad_v2(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon=0.0001,
                             data_format="NHWC", is_training=True):
    """FusedBatchNormGradV3 without reserve_space_3."""
    return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon, data_format,
                                  is_training, "FusedBatchNormGradV2")


@register_op("FusedBatchNormGrad", inputs=("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2"),
             outputs=("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"),
             attrs=dict(_FBN_GRAD_ATTRS),
             type_attrs={"T": ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2")},
             allowed={"T": (dtypes.float32,)}, shape=_fbn_grad_shape(5))
def fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon=0.0001,
                          data_format="NHWC", is_training=True):
    """FusedBatchNormGradV3 for float32, without reserve_space_3."""
    return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon, data_format,
                                  is_training, "FusedBatchNormGrad")


# ---------------------------------------------------------------------------
# Local response normalization
# ---------------------------------------------------------------------------

_LRN_ATTRS = {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}
_LRN_T = (dtypes.float16, dtypes.bfloat16, dtypes.float32)


def _rank4(name):
    def rule(ins, attrs):
        require_rank(ins, attrs, **{name: 4})
        s = ins[name].shape
        return [(ins[name].dtype, s if s.ndims is not None else unknown_shape(4))]
    return rule


def _window_sum(sq, r):
    """s[..., d] = sum of sq[..., d - r : d + r + 1] (clipped to the depth)."""
    depth = sq.shape[-1]
    c = np.concatenate([np.zeros(sq.shape[:-1] + (1,), sq.dtype), np.cumsum(sq, axis=-1, dtype=np.float64)],
                       axis=-1)
    hi = np.minimum(np.arange(depth) + r + 1, depth)
    lo = np.maximum(np.arange(depth) - r, 0)
    return c[..., hi] - c[..., lo]


def _lrn_norm(x, depth_radius, bias, alpha):
    x64 = x.astype(np.float64)
    return np.float64(np.float32(bias)) + np.float64(np.float32(alpha)) * _window_sum(x64 * x64, depth_radius)


@register_op("LRN", inputs=("input",), attrs=dict(_LRN_ATTRS), type_attrs={"T": "input"}, allowed={"T": _LRN_T},
             shape=_rank4("input"))
def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    """sqr_sum[a, b, c, d] = sum(input[a, b, c, d - depth_radius : d + depth_radius + 1] ** 2),
    output = input / (bias + alpha * sqr_sum) ** beta (computed in float64, rounded once)."""
    x = np.asarray(input)
    if x.ndim != 4:
        raise invalid_argument(f"LRN: input must be 4-dimensional, got {list(x.shape)}")
    norm = _lrn_norm(x, depth_radius, bias, alpha)
    return (x.astype(np.float64) * norm ** -np.float64(np.float32(beta))).astype(x.dtype)


@register_op("LRNGrad", inputs=("input_grads", "input_image", "output_image"), outputs=("output",),
             attrs=dict(_LRN_ATTRS), type_attrs={"T": ("input_grads", "input_image", "output_image")},
             allowed={"T": _LRN_T}, shape=_rank4("input_grads"))
def lrn_grad(input_grads, input_image, output_image, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    """With N[j] = bias + alpha * sqr_sum[j]:
    output[i] = dy[i] * N[i] ** -beta
    - 2 * alpha * beta * x[i] * sum_{|j - i| <= depth_radius} dy[j] * x[j] * N[j] ** (-beta - 1)."""
    dy, x = np.asarray(input_grads), np.asarray(input_image)
    if dy.ndim != 4 or dy.shape != x.shape or np.shape(output_image) != x.shape:
        raise invalid_argument(f"LRNGrad: input_grads, input_image and output_image must be 4-D of the same "
                               f"shape, got {list(dy.shape)}, {list(x.shape)} and {list(np.shape(output_image))}")
    b = np.float64(np.float32(beta))
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    norm = _lrn_norm(x, depth_radius, bias, alpha)
    t = dy64 * x64 * norm ** (-b - 1)
    out = dy64 * norm ** -b - 2 * np.float64(np.float32(alpha)) * b * x64 * _window_sum(t, depth_radius)
    return out.astype(dy.dtype)
