"""The non-fused path of ``tf.layers.batch_normalization`` as TF 2.x's TF1
layer (Keras's ``BatchNormalization.call``) builds it, with its three
extensions:

* ``renorm`` (Batch Renormalization, Ioffe 2017): the batch moments are
  corrected by ``r = stddev / renorm_stddev`` and ``d = (mean - renorm_mean) /
  renorm_stddev`` (clipped to ``renorm_clipping``'s rmin/rmax/dmax, constants
  under ``stop_gradient``), i.e. the output is ``x_hat * (r * gamma) + (d *
  gamma + beta)``; ``renorm_mean`` / ``renorm_stddev`` are moving averages
  with ``renorm_momentum``, read before their update; the inference moving
  statistics keep ``moving_stddev`` (of ``sqrt(var + epsilon)``) and set
  ``moving_variance = relu(moving_stddev ** 2 - epsilon)``.
* ``virtual_batch_size`` (ghost batch norm): the batch is reshaped to
  ``[virtual_batch_size, -1, ...]`` and each sub-batch is normalized by its
  own moments (the parameters have shape ``[1, 1, ..., depth]``); the moving
  statistics move towards the mean of the sub-batches' moments.
* ``adjustment``: ``adjustment(tf.shape(inputs))`` gives a scale and bias
  composed with gamma/beta while training.

With a ``training`` tensor, the batch or moving statistics and each moving
average's update sit in a ``tf.cond`` on it (the update in the true branch).
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import Tensor, colocate_with, control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, control_flow_ops, math_ops, nn_ops, normalization_ops, state_ops

__all__ = []


def smart_cond(pred, true_fn, false_fn):
    """A Python bool (or a constant tensor) picks a branch; other tensors build tf.cond."""
    if isinstance(pred, Tensor):
        value = constant_value(pred)
        if value is None:
            return control_flow_ops.cond(pred, true_fn, false_fn)
        pred = bool(value)
    return true_fn() if pred else false_fn()


def assign_moving_average(variable, value, momentum):
    """assign_sub(variable, (variable - value) * (1 - momentum)) named AssignMovingAvg."""
    with name_scope(None, "AssignMovingAvg", [variable, value]) as scope, colocate_with(variable):
        decay = convert_to_tensor(1.0 - momentum, name="decay")
        if decay.dtype.base_dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
        return state_ops.assign_sub(variable, delta, name=scope)


def branch_value(result):
    """A cond branch's value of an update: TF's assign on a resource variable
    returns an unread variable, which the branch reads once more after the
    update (``ReadVariableOp`` in the branch's scope); other results unchanged."""
    op = result.op
    if op.type == "ReadVariableOp" and op.control_inputs:
        with control_dependencies(op.control_inputs):
            return apply_op("ReadVariableOp", resource=op.inputs[0], dtype=result.dtype.base_dtype)
    return result


def assign_new_value(variable, value):
    with name_scope(None, "AssignNewValue", [variable, value]) as scope, colocate_with(variable):
        return state_ops.assign(variable, value, name=scope)


def _compose(scale, offset, then_scale, then_offset):
    if then_scale is not None:
        scale = scale * then_scale
        offset = offset * then_scale
    if then_offset is not None:
        offset = offset + then_offset
    return scale, offset


def _renorm_correction(mean, variance, training, v, epsilon, clipping, renorm_momentum):
    """(r, d, mean, variance) of batch renormalization; the renorm moving
    averages are updated (when training) before mean/variance are read."""
    stddev = math_ops.sqrt(variance + epsilon)
    renorm_stddev = math_ops.maximum(v["renorm_stddev"], math_ops.sqrt(epsilon))
    r = stddev / renorm_stddev
    d = (mean - v["renorm_mean"]) / renorm_stddev
    with control_dependencies([r, d]):
        mean = control_flow_ops.identity(mean)
        stddev = control_flow_ops.identity(stddev)
    rmin, rmax, dmax = (clipping.get(k) for k in ("rmin", "rmax", "dmax"))
    if rmin is not None:
        r = math_ops.maximum(r, rmin)
    if rmax is not None:
        r = math_ops.minimum(r, rmax)
    if dmax is not None:
        d = math_ops.maximum(d, -dmax)
        d = math_ops.minimum(d, dmax)
    r = smart_cond(training, lambda: r, lambda: array_ops.ones_like_v2(r))
    d = smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

    def update(var, value):
        value = control_flow_ops.identity(value)
        return smart_cond(training, lambda: assign_moving_average(var, value, renorm_momentum),
                          lambda: control_flow_ops.identity(var))

    new_mean = update(v["renorm_mean"], mean)
    new_stddev = update(v["renorm_stddev"], stddev)
    with control_dependencies([new_mean, new_stddev]):
        return r, d, control_flow_ops.identity(mean), control_flow_ops.identity(variance)


def unfused(inputs, v, axis, epsilon, momentum, training, training_value, virtual_batch_size=None,
            adjustment=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99):
    """(outputs, updates). ``v``: the layer's variables by name (gamma and
    beta may be None; renorm adds moving_stddev, renorm_mean, renorm_stddev);
    ``axis`` the normalized axis of ``inputs``; ``training_value`` the static
    value of ``training`` (None for a tensor)."""
    gamma, beta = v.get("gamma"), v.get("beta")
    if virtual_batch_size is not None:
        # TF1 behaviour: [virtual_batch_size, -1, ...] whether training or not.
        original_shape = array_ops.shape(inputs)
        original_shape = array_ops.concat([constant([-1]), original_shape[1:]], axis=0)
        expanded_shape = array_ops.concat([constant([virtual_batch_size, -1]), original_shape[1:]], axis=0)
        inputs = array_ops.reshape(inputs, expanded_shape)
        axis += 1
    inputs_dtype = inputs.dtype.base_dtype
    if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
        inputs = math_ops.cast(inputs, dtypes.float32)
    input_shape = inputs.shape
    ndims = input_shape.ndims
    reduction_axes = [i for i in range(ndims) if i != axis]
    if virtual_batch_size is not None:
        del reduction_axes[1]
    broadcast_shape = [1] * ndims
    broadcast_shape[axis] = input_shape.dims[axis].value

    def bcast(t):
        if t is not None and t.shape.ndims != ndims and reduction_axes != list(range(ndims - 1)):
            return array_ops.reshape(t, broadcast_shape)
        return t

    scale, offset = bcast(gamma), bcast(beta)
    updates = []
    if training_value is False:
        mean, variance = v["moving_mean"], v["moving_variance"]
    else:
        if adjustment:
            adj_scale, adj_bias = adjustment(array_ops.shape(inputs))
            adj_scale = smart_cond(training, lambda: adj_scale, lambda: array_ops.ones_like_v2(adj_scale))
            adj_bias = smart_cond(training, lambda: adj_bias, lambda: array_ops.zeros_like(adj_bias))
            scale, offset = _compose(adj_scale, adj_bias, scale, offset)
        param_dtype = v["moving_mean"].dtype.base_dtype
        batch_inputs = inputs if inputs.dtype.base_dtype == param_dtype else math_ops.cast(inputs, param_dtype)
        mean, variance = nn_ops.moments(batch_inputs, reduction_axes, keep_dims=virtual_batch_size is not None)
        moving_mean, moving_variance = v["moving_mean"], v["moving_variance"]
        batch_mean, batch_var = mean, variance
        mean = smart_cond(training, lambda: batch_mean, lambda: convert_to_tensor(moving_mean))
        variance = smart_cond(training, lambda: batch_var, lambda: convert_to_tensor(moving_variance))
        if virtual_batch_size is not None:
            new_mean = math_ops.reduce_mean(mean, axis=1, keepdims=True)
            new_variance = math_ops.reduce_mean(variance, axis=1, keepdims=True)
        else:
            new_mean, new_variance = mean, variance
        if renorm:
            r, d, new_mean, new_variance = _renorm_correction(new_mean, new_variance, training, v, epsilon,
                                                              renorm_clipping or {}, renorm_momentum)
            r = bcast(array_ops.stop_gradient(r, name="renorm_r"))
            d = bcast(array_ops.stop_gradient(d, name="renorm_d"))
            scale, offset = _compose(r, d, scale, offset)

        def variance_true():
            if not renorm:
                return assign_moving_average(moving_variance, new_variance, momentum)
            # epsilon inside the moving stddev, as in the training path
            stddev = assign_moving_average(v["moving_stddev"], math_ops.sqrt(new_variance + epsilon), momentum)
            return assign_new_value(moving_variance, nn_ops.relu(stddev * stddev - epsilon))

        in_cond = branch_value if training_value is None else (lambda result: result)
        updates.append(smart_cond(training,
                                  lambda: in_cond(assign_moving_average(moving_mean, new_mean, momentum)),
                                  lambda: moving_mean))
        updates.append(smart_cond(training, lambda: in_cond(variance_true()), lambda: moving_variance))
    mean = math_ops.cast(mean, inputs.dtype)
    variance = math_ops.cast(variance, inputs.dtype)
    if offset is not None:
        offset = math_ops.cast(offset, inputs.dtype)
    if scale is not None:
        scale = math_ops.cast(scale, inputs.dtype)
    outputs = normalization_ops.batch_normalization(inputs, bcast(mean), bcast(variance), offset, scale, epsilon)
    if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
        outputs = math_ops.cast(outputs, inputs_dtype)
    outputs.set_shape(input_shape)
    if virtual_batch_size is not None:
        outputs = array_ops.reshape(outputs, original_shape)
    return outputs, updates
