"""Gradient rules for ``ref/ops/conv.py``, ``pooling.py``, ``normalization.py``,
``top_k.py`` and ``candidate_sampling.py`` (TF's ``nn_grad.py`` formulas: the backprop ops, and the
gradients of the backprop ops in terms of the forward ops)."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops
from ref.types import dtypes

for _sampler in ("UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
                 "FixedUnigramCandidateSampler", "AllCandidateSampler", "ComputeAccidentalHits"):
    NotDifferentiable(_sampler)  # as TF: samples and hit positions carry no gradient


def _conv_attrs(op, depthwise=False):
    names = ("strides", "padding", "explicit_paddings", "data_format", "dilations")
    out = {k: op._get_attr(k) for k in names}
    if not depthwise:
        out["use_cudnn_on_gpu"] = op._get_attr("use_cudnn_on_gpu")
    return out


@RegisterGradient("Conv2D")
def _conv2d_grad(op, grad):
    a = _conv_attrs(op)
    shape_0, shape_1 = array_ops.shape_n([op.inputs[0], op.inputs[1]])
    return (apply_op("Conv2DBackpropInput", input_sizes=shape_0, filter=op.inputs[1], out_backprop=grad, **a),
            apply_op("Conv2DBackpropFilter", input=op.inputs[0], filter_sizes=shape_1, out_backprop=grad, **a))


@RegisterGradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op, grad):
    a = _conv_attrs(op)
    return (None,
            apply_op("Conv2DBackpropFilter", input=grad, filter_sizes=array_ops.shape(op.inputs[1]),
                     out_backprop=op.inputs[2], **a),
            apply_op("Conv2D", input=grad, filter=op.inputs[1], **a))


@RegisterGradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op, grad):
    a = _conv_attrs(op)
    return (apply_op("Conv2DBackpropInput", input_sizes=array_ops.shape(op.inputs[0]), filter=grad,
                     out_backprop=op.inputs[2], **a),
            None,
            apply_op("Conv2D", input=op.inputs[0], filter=grad, **a))


@RegisterGradient("DepthwiseConv2dNative")
def _depthwise_conv2d_native_grad(op, grad):
    a = _conv_attrs(op, depthwise=True)
    return (apply_op("DepthwiseConv2dNativeBackpropInput", input_sizes=array_ops.shape(op.inputs[0]),
                     filter=op.inputs[1], out_backprop=grad, **a),
            apply_op("DepthwiseConv2dNativeBackpropFilter", input=op.inputs[0],
                     filter_sizes=array_ops.shape(op.inputs[1]), out_backprop=grad, **a))


@RegisterGradient("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input_grad(op, grad):
    a = _conv_attrs(op, depthwise=True)
    return (None,
            apply_op("DepthwiseConv2dNativeBackpropFilter", input=grad, filter_sizes=array_ops.shape(op.inputs[1]),
                     out_backprop=op.inputs[2], **a),
            apply_op("DepthwiseConv2dNative", input=grad, filter=op.inputs[1], **a))


@RegisterGradient("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter_grad(op, grad):
    a = _conv_attrs(op, depthwise=True)
    return (apply_op("DepthwiseConv2dNativeBackpropInput", input_sizes=array_ops.shape(op.inputs[0]), filter=grad,
                     out_backprop=op.inputs[2], **a),
            None,
            apply_op("DepthwiseConv2dNative", input=op.inputs[0], filter=grad, **a))


def _pool_attrs(op, explicit=True):
    out = {k: op._get_attr(k) for k in ("ksize", "strides", "padding", "data_format")}
    if explicit:
        out["explicit_paddings"] = op._get_attr("explicit_paddings")
    return out


@RegisterGradient("MaxPool")
def _max_pool_grad(op, grad):
    return apply_op("MaxPoolGrad", orig_input=op.inputs[0], orig_output=op.outputs[0], grad=grad,
                    **_pool_attrs(op))


@RegisterGradient("MaxPoolV2")
def _max_pool_v2_grad(op, grad):
    return (apply_op("MaxPoolGradV2", orig_input=op.inputs[0], orig_output=op.outputs[0], grad=grad,
                     ksize=op.inputs[1], strides=op.inputs[2], padding=op._get_attr("padding"),
                     data_format=op._get_attr("data_format")), None, None)


@RegisterGradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
            apply_op("MaxPoolGradGrad", orig_input=op.inputs[0], orig_output=op.inputs[1], grad=grad,
                     **_pool_attrs(op)))


@RegisterGradient("MaxPoolGradV2")
def _max_pool_grad_v2_grad(op, grad):
    """Zeros for the pooled input and output; MaxPoolGradGradV2 of ``grad`` (TF's rule)."""
    return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
            apply_op("MaxPoolGradGradV2", orig_input=op.inputs[0], orig_output=op.inputs[1], grad=grad,
                     ksize=op.inputs[3], strides=op.inputs[4], padding=op._get_attr("padding"),
                     data_format=op._get_attr("data_format")), None, None)


@RegisterGradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
            apply_op("MaxPoolGrad", orig_input=op.inputs[0], orig_output=op.inputs[1], grad=grad,
                     **_pool_attrs(op)))


@RegisterGradient("AvgPool")
def _avg_pool_grad(op, grad):
    return apply_op("AvgPoolGrad", orig_input_shape=array_ops.shape(op.inputs[0]), grad=grad,
                    **_pool_attrs(op, explicit=False))


@RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return (array_ops.stop_gradient(op.inputs[0]),
            apply_op("AvgPool", value=grad, **_pool_attrs(op, explicit=False)))


def _fused_batch_norm_grad_rule(grad_op, with_reserve_3):
    def rule(op, *grads):
        is_training = op._get_attr("is_training")
        args = dict(y_backprop=grads[0], x=op.inputs[0], scale=op.inputs[1], epsilon=op._get_attr("epsilon"),
                    data_format=op._get_attr("data_format"), is_training=is_training)
        fmt = args["data_format"]
        fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
        channels_first = not is_training and fmt in ("NCHW", "NCDHW")
        if is_training:
            args.update(reserve_space_1=op.outputs[3], reserve_space_2=op.outputs[4])
        else:  # the population statistics the forward op normalised with
            args.update(reserve_space_1=op.inputs[3], reserve_space_2=op.inputs[4])
            if channels_first:  # TF differentiates the inference form channels-last, then transposes back
                to_last = [0, 2, 3, 1] if fmt == "NCHW" else [0, 2, 3, 4, 1]
                args.update(x=array_ops.transpose(args["x"], to_last),
                            y_backprop=array_ops.transpose(args["y_backprop"], to_last))
            args["data_format"] = "NHWC" if fmt in ("NCHW", "NHWC") else "NDHWC"
        if with_reserve_3:
            args["reserve_space_3"] = op.outputs[5]
        dx, dscale, doffset, _, _ = apply_op(grad_op, **args)
        if channels_first:
            dx = array_ops.transpose(dx, [0, 3, 1, 2] if fmt == "NCHW" else [0, 4, 1, 2, 3])
        return dx, dscale, doffset, None, None
    return rule


RegisterGradient("FusedBatchNormV3")(_fused_batch_norm_grad_rule("FusedBatchNormGradV3", True))
RegisterGradient("FusedBatchNormV2")(_fused_batch_norm_grad_rule("FusedBatchNormGradV2", False))
RegisterGradient("FusedBatchNorm")(_fused_batch_norm_grad_rule("FusedBatchNormGrad", False))


@RegisterGradient("LRN")
def _lrn_grad(op, grad):
    return apply_op("LRNGrad", input_grads=grad, input_image=op.inputs[0], output_image=op.outputs[0],
                    **{k: op._get_attr(k) for k in ("depth_radius", "bias", "alpha", "beta")})


@RegisterGradient("TopK")
@RegisterGradient("TopKV2")
def _top_k_grad(op, grad, _):
    """Scatters the values' gradient to the selected positions (TF's rule:
    a flat ScatterNd over [rows * last_dim])."""
    a, m = array_ops, math_ops
    in_shape = a.shape(op.inputs[0])
    ind_shape = a.shape(op.outputs[1])
    ind_lastdim = a.gather(m.cast(ind_shape, "int64"), a.size(ind_shape) - 1)
    ind_2d = a.reshape(op.outputs[1], a.stack([-1, ind_lastdim]))
    in_lastdim = a.gather(m.cast(in_shape, "int64"), a.size(in_shape) - 1)
    outerdim = a.shape(ind_2d)[0]
    # flat index = row * in_lastdim + column, the row offsets a range in int64 cast to int32
    ind = a.reshape(ind_2d + m.cast(a.expand_dims(m.range(0, m.cast(outerdim, "int64") * in_lastdim, in_lastdim),
                                                  -1), "int32"), [-1])
    dx = a.reshape(a.scatter_nd(a.expand_dims(ind, -1), a.reshape(grad, [-1]), [m.reduce_prod(in_shape)]),
                   in_shape)
    return (dx, a.zeros([], dtype="int32")) if len(op.inputs) == 2 else dx


def _argmax_attrs(op):
    return {k: op._get_attr(k) for k in ("ksize", "strides", "padding", "include_batch_in_index")}


@RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op, grad, _):
    return apply_op("MaxPoolGradWithArgmax", input=op.inputs[0], grad=grad, argmax=op.outputs[1],
                    **_argmax_attrs(op))


@RegisterGradient("MaxPoolGradWithArgmax")
def _max_pool_grad_with_argmax_grad(op, grad):
    return (array_ops.zeros_like(op.inputs[0]),
            apply_op("MaxPoolGradGradWithArgmax", input=op.inputs[0], grad=grad, argmax=op.inputs[2],
                     **_argmax_attrs(op)), None)


@RegisterGradient("MaxPoolGradGradWithArgmax")
def _max_pool_grad_grad_with_argmax_grad(op, grad):
    return (array_ops.zeros_like(op.inputs[0]),
            apply_op("MaxPoolGradWithArgmax", input=op.inputs[0], grad=grad, argmax=op.inputs[2],
                     **_argmax_attrs(op)), None)


def _block_data_format(op, name):
    data_format = op._get_attr("data_format")
    if data_format == "NCHW_VECT_C":
        raise ValueError(f"Cannot compute {name} gradient with NCHW_VECT_C. NCHW_VECT_C requires qint8 data type.")
    return data_format


@RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    """SpaceToDepth only moves values: its adjoint is DepthToSpace with the same block size."""
    return apply_op("DepthToSpace", input=grad, block_size=op._get_attr("block_size"),
                    data_format=_block_data_format(op, "SpaceToDepth"))


@RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op, grad):
    """DepthToSpace's adjoint is SpaceToDepth with the same block size."""
    return apply_op("SpaceToDepth", input=grad, block_size=op._get_attr("block_size"),
                    data_format=_block_data_format(op, "DepthToSpace"))


@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op, grad):
    """SpaceToBatchND only moves values: its adjoint is BatchToSpaceND with the
    paddings as crops; none for the block shape and paddings."""
    return [apply_op("BatchToSpaceND", input=grad, block_shape=op.inputs[1], crops=op.inputs[2]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op, grad):
    """BatchToSpaceND's adjoint is SpaceToBatchND with the crops as paddings."""
    return [apply_op("SpaceToBatchND", input=grad, block_shape=op.inputs[1], paddings=op.inputs[2]), None, None]


def _attrs3d(op, *names):
    return {n: op._get_attr(n) for n in names}


@RegisterGradient("Conv3D")
def _conv3d_grad(op, grad):
    """Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on the inputs' shapes (one ShapeN)."""
    shape_0, shape_1 = array_ops.shape_n([op.inputs[0], op.inputs[1]])
    kw = _attrs3d(op, "dilations", "strides", "padding", "data_format")
    return [apply_op("Conv3DBackpropInputV2", input_sizes=shape_0, filter=op.inputs[1], out_backprop=grad, **kw),
            apply_op("Conv3DBackpropFilterV2", input=op.inputs[0], filter_sizes=shape_1, out_backprop=grad, **kw)]


@RegisterGradient("Conv3DBackpropInputV2")
def _conv3d_backprop_input_grad(op, grad):
    """conv3d_transpose's gradient: none for the sizes; the filter's is Conv3DBackpropFilterV2
    with ``grad`` as the input, ``out_backprop``'s a Conv3D of ``grad`` (TF's)."""
    kw = _attrs3d(op, "dilations", "strides", "padding", "data_format")
    return [None,
            apply_op("Conv3DBackpropFilterV2", input=grad, filter_sizes=array_ops.shape(op.inputs[1]),
                     out_backprop=op.inputs[2], **kw),
            apply_op("Conv3D", input=grad, filter=op.inputs[1], **kw)]


@RegisterGradient("Conv3DBackpropFilterV2")
def _conv3d_backprop_filter_grad(op, grad):
    """The input's gradient is Conv3DBackpropInputV2 of ``grad`` as the filter, ``out_backprop``'s
    a Conv3D of the input with ``grad``; none for the sizes (TF's)."""
    kw = _attrs3d(op, "dilations", "strides", "padding", "data_format")
    return [apply_op("Conv3DBackpropInputV2", input_sizes=array_ops.shape(op.inputs[0]), filter=grad,
                     out_backprop=op.inputs[2], **kw),
            None,
            apply_op("Conv3D", input=op.inputs[0], filter=grad, **kw)]


@RegisterGradient("MaxPool3D")
def _max_pool3d_grad(op, grad):
    """MaxPool3DGrad: the gradient goes to the windows' maxima."""
    return apply_op("MaxPool3DGrad", orig_input=op.inputs[0], orig_output=op.outputs[0], grad=grad,
                    **_attrs3d(op, "ksize", "strides", "padding", "data_format"))


@RegisterGradient("MaxPool3DGrad")
def _max_pool3d_grad_grad(op, grad):
    """Zeros for the pooled input and output; MaxPool3DGradGrad of ``grad`` (TF's rule)."""
    return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
            apply_op("MaxPool3DGradGrad", orig_input=op.inputs[0], orig_output=op.inputs[1], grad=grad,
                     **_attrs3d(op, "ksize", "strides", "padding", "data_format")))


@RegisterGradient("MaxPool3DGradGrad")
def _max_pool3d_grad_grad_grad(op, grad):
    """Zeros for the pooled input and output; MaxPool3DGrad of ``grad`` (TF's rule)."""
    return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
            apply_op("MaxPool3DGrad", orig_input=op.inputs[0], orig_output=op.inputs[1], grad=grad,
                     **_attrs3d(op, "ksize", "strides", "padding", "data_format")))


@RegisterGradient("AvgPool3D")
def _avg_pool3d_grad(op, grad):
    """AvgPool3DGrad: each window's gradient shared out over its elements."""
    return apply_op("AvgPool3DGrad", orig_input_shape=array_ops.shape(op.inputs[0]), grad=grad,
                    **_attrs3d(op, "ksize", "strides", "padding", "data_format"))


@RegisterGradient("AvgPool3DGrad")
def _avg_pool3d_grad_grad(op, grad):
    """AvgPool3DGrad is linear in its gradient: its adjoint is AvgPool3D."""
    return (array_ops.stop_gradient(op.inputs[0]),
            apply_op("AvgPool3D", input=grad, **_attrs3d(op, "ksize", "strides", "padding", "data_format")))


@RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op, grad):
    """TF's construction: the patches of an image of 1-based pixel indices (0 in
    the padding) name, for each patch entry, the pixel it copied; the gradient
    entries are summed per pixel with UnsortedSegmentSum (padding's -1 dropped)."""
    input_bhwc = array_ops.shape(op.inputs[0], out_type=dtypes.int64)
    batch_size, rows_in, cols_in, channels = array_ops.unstack(input_bhwc)
    output_bhwc = array_ops.shape(op.outputs[0], out_type=dtypes.int64)
    rows_out, cols_out = array_ops.unstack(output_bhwc[1:3])
    _, ksize_r, ksize_c, _ = op._get_attr("ksizes")
    input_indices_num = rows_in * cols_in
    input_idx = array_ops.reshape(math_ops.range(1, input_indices_num + 1, dtype=dtypes.float32),
                                  (1, rows_in, cols_in, 1))
    input_idx_patched = apply_op("ExtractImagePatches", images=input_idx, ksizes=op._get_attr("ksizes"),
                                 strides=op._get_attr("strides"), rates=op._get_attr("rates"),
                                 padding=op._get_attr("padding"))
    input_idx_patched = math_ops.cast(input_idx_patched, dtypes.int64)
    grad_expanded = array_ops.transpose(
        array_ops.reshape(grad, (batch_size, rows_out, cols_out, ksize_r, ksize_c, channels)), (1, 2, 3, 4, 0, 5))
    grad_flat = array_ops.reshape(grad_expanded, (-1, batch_size * channels))
    segment_ids = array_ops.reshape(input_idx_patched, [-1]) - 1
    grad_out = array_ops.unsorted_segment_sum(grad_flat, segment_ids, num_segments=input_indices_num)
    grad_out = array_ops.reshape(grad_out, (rows_in, cols_in, batch_size, channels))
    return [array_ops.transpose(grad_out, (2, 0, 1, 3))]


@RegisterGradient("Dilation2D")
def _dilation2d_grad(op, grad):
    """Dilation2DBackpropInput and Dilation2DBackpropFilter: the gradient goes to the winning taps."""
    kw = {n: op._get_attr(n) for n in ("strides", "rates", "padding")}
    return [apply_op("Dilation2DBackpropInput", input=op.inputs[0], filter=op.inputs[1], out_backprop=grad, **kw),
            apply_op("Dilation2DBackpropFilter", input=op.inputs[0], filter=op.inputs[1], out_backprop=grad, **kw)]


@RegisterGradient("NthElement")
def _nth_element_grad(op, grad):
    """TF's rule: the gradient goes to every input entry equal to the selected value, split evenly
    among the ties: dx = (x == y[..., None]) / count(x == y) * grad[..., None]; none for ``n``."""
    a, m = array_ops, math_ops
    indicators = m.cast(m.equal(a.expand_dims(op.outputs[0], -1), op.inputs[0]), grad.dtype)
    num_selected = a.expand_dims(m.reduce_sum(indicators, -1), -1)
    return [m.divide(indicators, num_selected) * a.expand_dims(grad, -1), None]
