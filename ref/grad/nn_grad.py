"""Gradient rules for ``ref/ops/nn.py`` (TF's nn_grad.py formulas)."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op
import numpy as np
from ref.framework.tensor_util import constant_value
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import math_ops, array_ops, nn_ops, math_special

NotDifferentiable("InTopKV2")
# integer permutations: TF registers no rule, and its gradients() never asks for one (int outputs)
NotDifferentiable("DataFormatDimMap")
NotDifferentiable("DataFormatVecPermute")


def _m():
    return math_ops


def _a():
    return array_ops


@RegisterGradient("Relu")
def _relu_grad(op, grad):
    return apply_op("ReluGrad", gradients=grad, features=op.outputs[0])


@RegisterGradient("Relu6")
def _relu6_grad(op, grad):
    return apply_op("Relu6Grad", gradients=grad, features=op.outputs[0])  # TF: the output (same mask)


@RegisterGradient("Elu")
def _elu_grad(op, grad):
    return apply_op("EluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("Selu")
def _selu_grad(op, grad):
    return apply_op("SeluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("Softplus")
def _softplus_grad(op, grad):
    return grad * _m().sigmoid(op.inputs[0])


@RegisterGradient("Softsign")
def _softsign_grad(op, grad):
    return apply_op("SoftsignGrad", gradients=grad, features=op.inputs[0])


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return apply_op("LeakyReluGrad", gradients=grad, features=op.inputs[0], alpha=op._get_attr("alpha"))


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op, grad):
    x = op.inputs[1]
    return apply_op("ReluGrad", gradients=grad, features=x), _a().zeros_like(x)


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op, grad):
    x = op.inputs[1]
    return apply_op("Relu6Grad", gradients=grad, features=x), _a().zeros_like(x)


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    x = op.inputs[1]
    return apply_op("LeakyReluGrad", gradients=grad, features=x, alpha=op._get_attr("alpha")), _a().zeros_like(x)


@RegisterGradient("EluGrad")
def _elu_grad_grad(op, grad):
    elu_x = op.inputs[1]
    m, a = _m(), _a()
    return (apply_op("EluGrad", gradients=grad, outputs=elu_x),
            a.where_v2(m.less(elu_x, m.cast(0, elu_x.dtype)), m.multiply(grad, op.inputs[0]), a.zeros_like(elu_x)))


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op, grad):
    selu_x = op.inputs[1]
    m, a = _m(), _a()
    return (apply_op("SeluGrad", gradients=grad, outputs=selu_x),
            a.where_v2(m.less(selu_x, m.cast(0, selu_x.dtype)), m.multiply(grad, op.inputs[0]),
                       a.zeros_like(selu_x)))


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    dy, x = op.inputs
    m = _m()
    ddy = apply_op("SoftplusGrad", gradients=grad, features=x)
    d2x = m.realdiv(m.multiply(grad, dy), m.add(m.add(m.exp(m.negative(x)), m.cast(2.0, x.dtype)), m.exp(x)))
    return ddy, d2x


@RegisterGradient("Softmax")
def _softmax_grad(op, grad):
    m = _m()
    y = op.outputs[0]
    s = m.reduce_sum(grad * y, -1, keepdims=True)
    return (grad - s) * y


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    m = _m()
    softmax = m.exp(op.outputs[0])
    return grad - m.reduce_sum(grad, -1, keepdims=True) * softmax


def _broadcast_mul(vec, mat):
    """vec[:, None] * mat."""
    return _a().expand_dims(vec, -1) * mat


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy_grad(op, grad_loss, grad_grad):
    m, a = _m(), _a()
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    if grad_grad is not None and not _is_zeros(grad_grad):
        softmax = _nn().softmax(logits)
        grad = m.add(grad, m.multiply(m.subtract(grad_grad, a.squeeze(
            m.matmul(a.expand_dims(grad_grad, 1), a.expand_dims(softmax, 2)), axis=1)), softmax))
    return grad, _broadcast_mul(grad_loss, m.negative(_nn().log_softmax(logits)))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy_grad(op, grad_loss, grad_grad):
    m, a = _m(), _a()
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    if grad_grad is not None and not _is_zeros(grad_grad):
        softmax = _nn().softmax(logits)
        grad = m.add(grad, m.multiply(m.subtract(grad_grad, a.squeeze(
            m.matmul(a.expand_dims(grad_grad, 1), a.expand_dims(softmax, 2)), axis=1)), softmax))
    return grad, None


def _is_zeros(t):
    """TF's _IsZero: a ZerosLike/Zeros op, or a value known to be all zeros (the
    zeros gradients() builds for an unused output), so the first-order gradient
    builds no second-order terms (no BatchMatMulV2)."""
    if t.op.type in ("ZerosLike", "Zeros"):
        return True
    value = constant_value(t)
    return value is not None and bool((np.asarray(value) == 0).all())


def _nn():
    return nn_ops


@RegisterGradient("BiasAdd")
def _bias_add_grad(op, grad):
    fmt = op._get_attr("data_format")
    return grad, apply_op("BiasAddGrad", out_backprop=grad, data_format=fmt)


@RegisterGradient("BiasAddV1")
def _bias_add_v1_grad(op, grad):
    m = _m()
    rank = op.inputs[0].shape.ndims
    return grad, m.reduce_sum(grad, list(range(rank - 1)))


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op, received_grad):
    """Broadcasts the bias gradient's gradient back over the input (TF's form)."""
    a = _a()
    fmt = op._get_attr("data_format")
    x = op.inputs[0]
    shape = a.shape(x)
    rank = x.shape.ndims
    bias_shape = a.shape(received_grad)
    if fmt in ("NCHW", b"NCHW") and rank and rank > 2:
        expanded = a.concat([a.ones_like(shape[:1]), bias_shape, a.ones_like(shape[2:])], 0)
        tile_mults = a.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded = a.concat([a.ones_like(shape[:-1]), bias_shape], 0)
        tile_mults = a.concat([shape[:-1], [1]], 0)
    return a.tile(a.reshape(received_grad, expanded), tile_mults)


@RegisterGradient("L2Loss")
def _l2_loss_grad(op, grad):
    return op.inputs[0] * grad


@RegisterGradient("CTCLoss")
def _ctc_loss_grad(op, grad_loss, _):
    """grad_loss[:, None] * the op's ``gradient`` output, behind a
    PreventGradient: the fused kernel has no second derivative (TF's
    _CTCLossGrad)."""
    grad = array_ops.prevent_gradient(
        op.outputs[1], message="Currently there is no way to take the second  derivative of ctc_loss due to the "
        "fused implementation's interaction  with tf.gradients()")
    return [_broadcast_mul(grad_loss, grad), None, None, None]


NotDifferentiable("CTCGreedyDecoder")
NotDifferentiable("CTCBeamSearchDecoder")


@RegisterGradient("IsotonicRegression")
def _isotonic_regression_grad(op, grad_output, grad_segments):
    """TF's rule: each row's incoming gradient averaged over each of its segments (the
    fit is the segment's mean, so d fit / d x spreads evenly over the segment); the
    segments are discrete and get none. Rows are split as TF splits them (a static count)."""
    from_segments = op.outputs[1]
    a, m = _a(), _m()
    rows = []
    for g_i, s_i in zip(a.split(grad_output, grad_output.shape[0]), a.split(from_segments, from_segments.shape[0])):
        means = math_special.unsorted_segment_mean(g_i, s_i, num_segments=m.reduce_max(s_i) + 1)
        rows.append(a.reshape(a.gather(means, s_i), [-1]))
    return a.stack(rows, axis=0)


@RegisterGradient("ApproxTopK")
def _approx_top_k_grad(op, grad, _):
    """TF's form: the gradient scattered (ScatterNd) to the input positions the
    indices name, with iotas for the other dimensions (static shapes)."""
    a = _a()
    idx_shape = op.outputs[1].shape
    lifted_idx_shape = idx_shape.as_list() + [1]
    flat_shape_len = int(np.prod(idx_shape.as_list()))
    rank = idx_shape.ndims
    reduction_dim = op._get_attr("reduction_dimension")
    if reduction_dim < 0:
        reduction_dim += rank

    def lifted(d):
        if d == reduction_dim:
            return a.reshape(op.outputs[1], lifted_idx_shape)
        iota_shape = [1] * (rank + 1)
        iota_shape[d] = idx_shape[d]
        iota = a.reshape(_m().range(idx_shape[d]), iota_shape)
        return a.broadcast_to(iota, lifted_idx_shape)

    lifted_idx = a.concat([lifted(d) for d in range(rank)], axis=rank)
    flat_idx = a.reshape(lifted_idx, [flat_shape_len, rank])
    flat_grad = a.reshape(grad, [flat_shape_len])
    return a.scatter_nd(flat_idx, flat_grad, op.inputs[0].shape)
