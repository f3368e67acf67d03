"""Second-order batch norm: the gradients of ``FusedBatchNormGrad``,
``FusedBatchNormGradV2`` and ``FusedBatchNormGradV3`` (TF's
nn_fused_batch_norm_grad.py).

The first-order gradient is rebuilt from differentiable ops
(:func:`batch_norm_grad`: per channel, with ``xc = x - mean(x)``,
``v = var(x) + epsilon``: ``dx = scale v^-1/2 (dy - mean(dy) - xc mean(dy xc) / v)``,
``dscale = v^-1/2 sum(dy xc)``, ``doffset = sum(dy)`` when training;
``dx = dy scale (pop_var + epsilon)^-1/2``, ``dscale = sum(dy (x - pop_mean))
(pop_var + epsilon)^-1/2``, ``doffset = sum(dy)`` in inference) and
differentiated with respect to ``dy``, ``x`` and ``scale``, seeded with the
incoming gradients of ``dx``, ``dscale`` and ``doffset``.
"""
from __future__ import annotations

from ref.grad.gradients import gradients
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, math_ops
from ref.types import dtypes


def _format(data_format):
    return data_format.decode() if isinstance(data_format, bytes) else data_format


def batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training=True):
    """(grad_x, grad_scale, grad_offset) of batch norm from differentiable ops
    (half-precision inputs computed in float32, grad_x cast back)."""
    data_format = _format(data_format)
    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes.float16, dtypes.bfloat16):
        x = math_ops.cast(x, dtypes.float32)
        grad_y = math_ops.cast(grad_y, dtypes.float32)
    channels_last = data_format in ("NHWC", "NDHWC")
    reduce_axis = {"NHWC": [0, 1, 2], "NDHWC": [0, 1, 2, 3], "NCHW": [0, 2, 3]}.get(data_format, [0, 2, 3, 4])
    ones = [1] * (len(reduce_axis) - 1)
    if is_training:
        keepdims = not channels_last
        if not channels_last:
            scale = array_ops.reshape(scale, [1, array_ops.size(scale)] + ones)
        mean_grad_y = math_ops.reduce_mean(grad_y, reduce_axis, keepdims=keepdims)
        mean_x = math_ops.reduce_mean(x, reduce_axis, keepdims=keepdims)
        var_x = math_ops.reduce_mean(math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), reduce_axis,
                                     keepdims=keepdims)
        grad_y_offset = grad_y - mean_grad_y
        x_offset = x - mean_x
        mean = math_ops.reduce_mean(grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        grad_x = scale * math_ops.rsqrt(var_x + epsilon) * (
            grad_y_offset - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = math_ops.rsqrt(var_x + epsilon) * math_ops.reduce_sum(grad_y * x_offset, axis=reduce_axis,
                                                                           keepdims=keepdims)
        if not channels_last:
            grad_scale = array_ops.squeeze(grad_scale)
        grad_offset = math_ops.reduce_sum(grad_y, axis=reduce_axis)
        return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset
    if not channels_last:
        shape = [1, array_ops.size(pop_mean)] + ones
        pop_mean = array_ops.reshape(pop_mean, shape)
        pop_var = array_ops.reshape(pop_var, shape)
        scale = array_ops.reshape(scale, shape)
    grad_offset = math_ops.reduce_sum(grad_y, axis=reduce_axis)
    var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
    grad_scale = math_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis=reduce_axis)
    grad_x = grad_y * scale * var_rsqrt
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


@RegisterGradient("FusedBatchNormGrad")
@RegisterGradient("FusedBatchNormGradV2")
def _fused_batch_norm_grad_grad(op, *grad):
    """(d grad_y, d x, d scale, None, None): the rebuilt first-order gradient
    differentiated, seeded with the gradients of grad_x, grad_scale, grad_offset."""
    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    outs = batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, op._get_attr("epsilon"), op._get_attr("data_format"),
                           op._get_attr("is_training"))
    seeds = [g if g is not None else array_ops.ones_like(t) for g, t in zip(grad[:3], outs)]
    # only through the rebuilt ops (TF records them on a tape): the op's inputs are constants there
    grad_grad_y, grad_x, grad_scale = gradients(list(outs), [grad_y, x, scale], grad_ys=seeds,
                                                stop_gradients=list(op.inputs[:5]))
    return grad_grad_y, grad_x, grad_scale, None, None


@RegisterGradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad_v3(op, *grad):
    return _fused_batch_norm_grad_grad(op, *grad) + (None,)
