"""Gradient rules for ``ref/ops/array.py`` (and its sibling families) and the core ops (TF's array_grad.py)."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes

from ref.framework.graph import colocate_with
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor, constant
from ref.framework.tensor_util import constant_value
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, control_flow_ops, linalg_ops, math_ops
from ref.graph_ops.control_flow_v1 import get_output_context
from ref.grad._util import unbroadcast
from ref.types.shapes import dimension_value

for _t in ("Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike", "StopGradient", "OneHot", "Where",
           "BroadcastGradientArgs", "BroadcastArgs", "InvertPermutation", "Unique", "UniqueWithCounts", "UniqueV2",
           "UniqueWithCountsV2", "ListDiff", "DenseBincount", "LowerBound", "UpperBound", "UnravelIndex", "HistogramFixedWidth", "EditDistance",
           "Empty",
           "Placeholder", "Const", "NoOp", "RandomStandardNormal", "TruncatedNormal", "RandomUniform",
           "RandomUniformInt", "RandomShuffle", "Multinomial", "IsVariableInitialized", "VarIsInitializedOp",
           "Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
           "CountUpTo", "ConcatOffset", "Bitcast", "RngReadAndSkip", "RngSkip"):
    NotDifferentiable(_t)


def _m():
    return math_ops


def _a():
    return array_ops


@RegisterGradient("Identity")
def _identity_grad(op, grad):
    return grad


RegisterGradient("PlaceholderWithDefault")(_identity_grad)
RegisterGradient("EnsureShape")(lambda op, grad: grad)
@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    # TF formats the attr's bytes with %s: the message reads "... gradient. b'<message>'"
    message = op.get_attr("message")
    message = message if isinstance(message, bytes) else message.encode()
    return _a().check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. %s"
                               % (message,))


@RegisterGradient("IdentityN")
def _identity_n_grad(op, *grads):
    return list(grads)


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op, grad):
    message = op._get_attr("message")  # TF's attr is bytes, and its message shows them so
    raise LookupError(f"Gradient explicitly disabled. Reason: "
                      f"{message.encode() if isinstance(message, str) else message}")


@RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    """TF's ``_ReshapeGrad``: with one unknown dim (and no zero dim) the target
    shape is a constant with -1 there, else ``shape(x)``."""
    dims = op.inputs[0].shape.as_list() if op.inputs[0].shape.ndims is not None else None
    if dims is not None and None in dims and dims.count(None) == 1 and 0 not in dims:
        return _a().reshape(_dense_no_warning(grad), [-1 if d is None else d for d in dims]), None
    return _reshape_like(grad, op.inputs[0]), None


def _reshape_like(grad, x):
    """TF's ``_ReshapeToInput``: grad (densified) reshaped to ``shape(x)``."""
    return _a().reshape(_dense_no_warning(grad), _a().shape(x))


def _dense(g):
    return convert_to_tensor(g)


def _dense_no_warning(g):
    """IndexedSlices densified without the large/unknown-shape warning (TF's
    ``_IndexedSlicesToTensorNoWarning``, used where the gather gradients expect it)."""
    if not isinstance(g, IndexedSlices):
        return g
    return _a().unsorted_segment_sum(g.values, g.indices, g.dense_shape[0])


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return _reshape_like(grad, op.inputs[0]), None


@RegisterGradient("Squeeze")
def _squeeze_grad(op, grad):
    return _reshape_like(grad, op.inputs[0])


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    return _a().transpose(grad, _a().invert_permutation(op.inputs[1])), None


@RegisterGradient("ConjugateTranspose")
def _conjugate_transpose_grad(op, grad):
    perm = op.inputs[1]
    return _a().transpose(grad, _a().invert_permutation(perm), conjugate=True), None


def _sizes_along(values, axis):
    a = _a()
    sizes = []
    for v in values:
        d = dimension_value(v.shape[axis]) if v.shape.ndims is not None else None
        sizes.append(d if d is not None else a.shape(v)[axis])
    return sizes


@RegisterGradient("ConcatV2")
def _concat_grad(op, grad):
    values, axis_t = op.inputs[:-1], op.inputs[-1]
    if len(values) == 1:
        return [grad, None]
    if not isinstance(grad, IndexedSlices):
        if axis_t.op.type == "Const" and get_output_context(grad.op) is not get_output_context(axis_t.op):
            # TF copies a constant axis into the gradient's context rather than
            # reading it through an Enter (a loop body's concat: ``concat_grad/Const``).
            axis_t = constant(constant_value(axis_t), dtype=axis_t.dtype)
        return _concat_dense_grad(values, axis_t, grad) + [None]
    axis = constant_value(axis_t)
    if axis is None:
        raise ValueError(f"Concat gradient of '{op.name}' needs a statically known axis")
    rank = values[0].shape.ndims
    if int(axis) < 0 and rank is None:  # TF's _ConcatGradHelper
        raise ValueError("Can only compute IndexedSlices gradient with negative concat_dim when first value rank "
                         "is known.")
    axis = int(axis) % rank if rank else int(axis)
    return list(_a().split(_dense(grad), _sizes_along(values, axis), axis)) + [None]


def _concat_dense_grad(values, axis_t, grad):
    """TF's graph: ConcatOffset of the inputs' shapes (constants when known), one Slice each."""
    a = _a()
    axis = axis_t % a.rank(values[0])
    sizes = []
    for v in values:  # TF's _ExtractInputShapes: stops at the first shape not known statically
        sizes.append(a.shape(v))
        if sizes[-1].op.type != "Const":
            sizes = a.shape_n(values)
            break
    if len(sizes) > 16:
        sizes = a.squeeze(a.slice(a.stack(sizes, axis=1), [axis, 0], [1, -1]))
        # TF's shape refiner evaluates the small constant graph of the slice's begin
        # (a FloorMod of constants) and so knows this [len(values)] shape, which split
        # needs; ref's graph-time folding does not fold FloorMod: the same fact, set.
        sizes.set_shape([len(values)])
        return list(a.split(grad, sizes, axis))
    offsets = apply_op("ConcatOffset", concat_dim=axis, shape=list(sizes))
    return [a.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]


@RegisterGradient("Concat")
def _concat_v1_grad(op, grad):
    axis_t, values = op.inputs[0], op.inputs[1:]
    axis = int(constant_value(axis_t))
    rank = values[0].shape.ndims
    axis = axis % rank if rank else axis
    return [None] + list(_a().split(grad, _sizes_along(values, axis), axis))


def _fill_none(grads, outputs):
    return [g if g is not None else _a().zeros_like(t) for g, t in zip(grads, outputs)]


@RegisterGradient("Split")
def _split_grad(op, *grads):
    return None, _a().concat(_fill_none(grads, op.outputs), op.inputs[0])


@RegisterGradient("SplitV")
def _split_v_grad(op, *grads):
    return _a().concat(_fill_none(grads, op.outputs), op.inputs[2]), None, None


@RegisterGradient("Pack")
def _pack_grad(op, grad):
    return list(_a().unstack(grad, num=op._get_attr("N"), axis=op._get_attr("axis")))


@RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    return _a().stack(_fill_none(grads, op.outputs), axis=op._get_attr("axis"))


@RegisterGradient("Slice")
def _slice_grad(op, grad):
    """Pad ``grad`` back to the input: before = begin, after = shape(x) -
    shape(y) - begin, each reshaped to ``stack([rank, 1])`` (TF's
    ``_SliceGrad``, node for node)."""
    a = _a()
    x, begin = op.inputs[0], op.inputs[1]
    input_rank = a.rank(x)
    index_dtype = begin.dtype.base_dtype
    slice_size = a.shape(op.outputs[0], out_type=index_dtype)
    shape = a.stack([input_rank, 1])
    before_pad = a.reshape(begin, shape)
    after_pad = a.reshape(a.shape(x, out_type=index_dtype) - slice_size - begin, shape)
    paddings = a.concat([before_pad, after_pad], 1)
    return a.pad(grad, paddings), None, None


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op, grad):
    """TF's graph: the input's shape (``Shape``, a Const when static), then
    each of shape/begin/end/strides passed as its constant value when known
    (new constants under ``StridedSliceGrad/``)."""
    begin = op.inputs[1]

    def folded(t):
        c = constant_value(t)
        return t if c is None else c

    shape = _a().shape(op.inputs[0], out_type=begin.dtype)
    return (apply_op("StridedSliceGrad", shape=folded(shape), begin=folded(begin), end=folded(op.inputs[2]),
                     strides=folded(op.inputs[3]), dy=grad,
                     **{k: op._get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                                    "shrink_axis_mask")}),
            None, None, None)


@RegisterGradient("TensorStridedSliceUpdate")
def _tensor_strided_slice_update_grad(op, grad):
    """d input: grad with the slice zeroed; d value: grad's slice, summed over
    the axes ``value`` was broadcast along (TF's rule)."""
    a, m = _a(), _m()
    begin, end, strides = op.inputs[1:4]
    masks = {k: op._get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask")}
    dy = a.strided_slice(grad, begin, end, strides, **masks)
    dx = a.tensor_strided_slice_update(grad, begin, end, strides, a.zeros_like(dy), **masks)
    slice_shape = a.shape(dy, out_type=begin.dtype)
    value_shape = a.shape(op.inputs[4], out_type=begin.dtype)
    _, axes = apply_op("BroadcastGradientArgs", s0=slice_shape, s1=value_shape)
    dy = a.reshape(m.reduce_sum(dy, axis=axes, keepdims=True), value_shape)
    return dx, None, None, None, dy


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    return (None, None, None, None,
            apply_op("StridedSlice", input=grad, begin=op.inputs[1], end=op.inputs[2], strides=op.inputs[3],
                     **{k: op._get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                                    "shrink_axis_mask")}))


def _batch_indices(params_shape, indices, batch_dims):
    """``indices`` offset by their batch position, counted in rows of the
    flattened batch dimensions (TF's ``_GetBatchIndices``)."""
    a, m = _a(), _m()
    dt = indices.dtype.base_dtype
    shape = m.cast(params_shape, dt)
    accum = a.ones((), dtype=dt)
    for dim in range(batch_dims, 0, -1):
        dim_value = shape[dim - 1]
        accum = accum * shape[dim]
        dim_indices = m.range(a.zeros((), dtype=dt), dim_value, a.ones((), dtype=dt))
        dim_indices = dim_indices * accum
        dim_shape = a.concat([a.tile([1], [dim - 1]), [dim_value], a.tile([1], [a.rank(indices) - dim])], axis=0)
        indices = indices + a.reshape(dim_indices, dim_shape)
    return indices


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    """The gathered rows summed back per index, the batch dimensions flattened
    into the segment ids (TF's ``_BatchGatherGrad``)."""
    a, m = _a(), _m()
    indices_size = a.expand_dims(a.size(indices), 0)
    if batch_dims:
        values_shape = a.shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = apply_op("Prod", input=outer_shape, axis=[0], keep_dims=False)
        flat_values_shape = a.concat([[-1], inner_shape], 0)
        gather_dim_size = gather_dim_size * batch_size
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = a.reshape(_dense_no_warning(values), flat_values_shape)
    params_grad = a.unsorted_segment_sum(values, a.reshape(indices, indices_size), gather_dim_size)
    if batch_dims:
        params_grad = a.reshape(params_grad, a.concat([outer_shape, flat_values_shape], 0))
    return params_grad


@RegisterGradient("GatherV2")
def _gather_v2_grad(op, grad):
    """Axis 0: IndexedSlices(grad rows, indices, shape(params)). Another axis or
    batch dimensions: the gathered axis moved after the batch dimensions, the
    rows segment-summed per (batch, index), moved back (TF's ``_GatherV2Grad``)."""
    a, m = _a(), _m()
    params, indices, axis = op.inputs
    with colocate_with(params.op):
        params_shape = a.shape(params)
    indices_size = a.expand_dims(a.size(indices), 0)
    axis_static = constant_value(axis)
    batch_dims = int(op._get_attr("batch_dims"))
    if batch_dims < 0:
        if indices.shape.ndims is None:
            raise ValueError(
                f"Currently, it is unsupported to take the gradient of tf.gather when batch_dims < 0 and the rank "
                f"of the indices is unknown. Please pass a positive batch_dims or use tf.ensure_shape to update the "
                f"shape of indices when calling tf.gather. Got batch_dims={batch_dims} and indices={indices}")
        batch_dims += indices.shape.ndims
    if axis_static is not None and int(axis_static) == 0:
        values_shape = a.concat([indices_size, params_shape[1:]], 0)
        values = a.reshape(_dense_no_warning(grad), values_shape)
        return IndexedSlices(values, a.reshape(indices, indices_size), params_shape), None, None
    outer_shape = params_shape[:axis]
    values_shape = a.concat([outer_shape, [-1], params_shape[axis:][1:]], 0)
    values_dims = a.size(values_shape)
    axis_dims = a.size(outer_shape)
    outer_batches = m.range(batch_dims)
    batch_axes = m.range(batch_dims, axis_dims)
    inner_axes = m.range(axis_dims + 1, values_dims)
    values = a.reshape(_dense_no_warning(grad), values_shape)
    transpose_dims = a.concat([outer_batches, [axis_dims], batch_axes, inner_axes], 0)
    values_transpose = a.transpose(values, transpose_dims)
    params_shape_transpose = a.gather(params_shape, transpose_dims)
    params_grad = _batch_gather_grad(params_shape_transpose, values_transpose, indices, batch_dims,
                                     params_shape[axis])
    invert = a.concat([outer_batches, batch_axes + 1, [batch_dims], inner_axes], 0)
    params_grad = a.transpose(params_grad, invert)
    return a.reshape(params_grad, a.shape(params)), None, None


@RegisterGradient("Gather")
def _gather_grad(op, grad):
    a = _a()
    params, indices = op.inputs
    with colocate_with(params.op):
        shape = constant(np.array(params.shape.as_list(), np.int32)) if params.shape.is_fully_defined() \
            else a.shape(params, out_type="int32")
    values = a.reshape(_dense_no_warning(grad), a.concat([[-1], a.shape(params)[1:]], 0))
    return IndexedSlices(values, a.reshape(indices, [-1]), shape), None


@RegisterGradient("GatherNd")
def _gather_nd_grad(op, grad):
    params, indices = op.inputs
    a = _a()
    ref_shape = a.shape(params, out_type=indices.dtype)
    if indices.shape.ndims == 2 and indices.shape.dims[-1].value == 1:  # whole rows: IndexedSlices, as TF
        return IndexedSlices(grad, a.squeeze(indices, axis=-1), ref_shape), None
    return a.scatter_nd(indices, grad, ref_shape, bad_indices_policy=op._get_attr("bad_indices_policy")), None


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    indices = op.inputs[0]
    return None, _a().gather_nd(grad, indices), None


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    """updates: grad gathered at the indices; tensor: grad with those entries
    zeroed (TF scatters into ``identity(grad)``, after the gather)."""
    a = _a()
    indices = op.inputs[1]
    updates_grad = a.gather_nd(grad, indices)
    tensor_grad = a.tensor_scatter_nd_update(control_flow_ops.identity(grad), indices, a.zeros_like(op.inputs[2], dtype=grad.dtype))
    return tensor_grad, None, updates_grad


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op, *grads):
    """The partitions' gradients stitched back in the data's order: the positions
    ``0..n-1`` (shaped as the partition ids) partitioned alike give each
    partition's positions (TF's _DynamicPartitionGrads)."""
    a, m = _a(), _m()
    data, partitions = op.inputs[0], op.inputs[1]
    prefix_shape = a.shape(partitions)
    positions = a.reshape(m.range(m.reduce_prod(prefix_shape)), prefix_shape)
    parts = a.dynamic_partition(positions, partitions, op.get_attr("num_partitions"))
    stitched = a.parallel_dynamic_stitch(parts, list(grads))
    return a.reshape(stitched, a.shape(data)), None


@RegisterGradient("ScatterNdNonAliasingAdd")
def _scatter_nd_non_aliasing_add_grad(op, grad):
    return grad, None, _a().gather_nd(grad, op.inputs[1])


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    """TF passes the tensor's gradient through an Identity (made after the gather)."""
    updates_grad = _a().gather_nd(grad, op.inputs[1])
    return control_flow_ops.identity(grad), None, updates_grad


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    updates_grad = _a().gather_nd(grad, op.inputs[1])
    return control_flow_ops.identity(grad), None, -updates_grad


@RegisterGradient("TensorScatterMin")
@RegisterGradient("TensorScatterMax")
def _tensor_scatter_min_or_max_grad(op, grad):
    """The gradient goes to whichever of tensor and updates gave the output,
    split evenly between ties (TF's rule)."""
    a, m = _a(), _m()
    x, indices, y = op.inputs
    z = op.outputs[0]
    x_on = m.cast(m.equal(x, z), grad.dtype)
    y_on = m.cast(m.equal(y, a.gather_nd(z, indices)), grad.dtype)
    on = x_on + a.scatter_nd(indices, y_on, a.shape(x, out_type=indices.dtype))
    return grad * x_on / on, None, a.gather_nd(grad / on, indices) * y_on


@RegisterGradient("Tile")
def _tile_grad(op, grad):
    """Sums ``grad`` over the tiled copies: reshaped to [m0, d0, m1, d1, ...]
    (multiples interleaved with the input's dims), reduced over the even axes."""
    a, m = _a(), _m()
    x, multiples = op.inputs
    input_shape = a.shape(x, out_type=multiples.dtype)
    split_shape = a.reshape(a.transpose(a.stack([multiples, input_shape])), [-1])
    axes = m.range(0, a.size(split_shape), 2)
    if isinstance(grad, IndexedSlices):  # rows of the tiled copies summed into the input's rows
        input_shape_0 = m.cast(input_shape[0], grad.indices.dtype)
        grad = a.unsorted_segment_sum(grad.values, m.mod(grad.indices, input_shape_0), input_shape_0)
        split_shape = a.concat([[1], split_shape[1:]], axis=0)
    input_grad = m.reduce_sum(a.reshape(grad, split_shape), axes)
    input_grad.set_shape(x.shape)
    return input_grad, None


def _pad_grad(op, grad):
    """The unpadded window of ``grad``: begins at the first column of the paddings,
    spans ``shape(x)`` (TF's graph: Slice of the paddings to ``[rank(x), 1]``)."""
    a = _a()
    x = op.inputs[0]
    pad_before = a.slice(op.inputs[1], [0, 0], a.stack([a.rank(x), 1]))
    begin = a.reshape(pad_before, [-1])
    x_grad = a.slice(grad, begin, a.shape(x, out_type=begin.dtype))
    return (x_grad, None, None) if len(op.inputs) == 3 else (x_grad, None)


RegisterGradient("Pad")(_pad_grad)
RegisterGradient("PadV2")(_pad_grad)


@RegisterGradient("Fill")
def _fill_grad(op, grad):
    return None, _m().reduce_sum(grad)


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    """Sums ``grad`` over the broadcast axes (BroadcastGradientArgs of the target
    shape -- a new constant when it is known -- and the input's shape)."""
    a, m = _a(), _m()
    x, broadcast_shape = op.inputs
    shape_dtype = broadcast_shape.dtype
    x_shape = a.shape(x, out_type=shape_dtype)
    static = constant_value(broadcast_shape)
    if static is not None and np.all(np.asarray(static) >= 0):
        broadcast_shape = constant(np.asarray(static).tolist(), dtype=shape_dtype)
    _, axes = apply_op("BroadcastGradientArgs", s0=broadcast_shape, s1=x_shape)
    return a.reshape(m.reduce_sum(grad, axis=axes, keepdims=True), x_shape), None


def _gather_drop_negatives(params, ids, zero_clipped_indices=None, is_positive=None):
    """``params[ids]`` with zeros where an id is negative (TF's
    ``_GatherDropNegatives``: gather at ``max(ids, 0)``, then select on
    ``ids >= 0`` broadcast to the gathered shape); also the clipped indices and
    the mask, which a second call may reuse."""
    a, m = _a(), _m()
    if zero_clipped_indices is None:
        zero_clipped_indices = m.maximum(ids, a.zeros_like(ids))
    gathered = a.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = m.greater_equal(ids, 0)
        is_positive_shape = a.shape(is_positive)
        broadcastable = a.concat([is_positive_shape, a.ones([a.rank(gathered) - a.rank(is_positive)],
                                                             dtype=is_positive_shape.dtype)], axis=0)
        is_positive = a.reshape(is_positive, broadcastable)
        is_positive = is_positive & a.ones_like(gathered, dtype=dtypes.bool)
    return a.where_v2(is_positive, gathered, a.zeros_like(gathered)), zero_clipped_indices, is_positive


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    """Each row gets its segment's gradient; rows with a negative id (dropped) get 0."""
    return _gather_drop_negatives(grad, op.inputs[1])[0], None, None


@RegisterGradient("SegmentSum")
def _segment_sum_grad(op, grad):
    return _a().gather(grad, op.inputs[1]), None


@RegisterGradient("DynamicStitch")
@RegisterGradient("ParallelDynamicStitch")
def _dynamic_stitch_grad(op, grad):
    n = op._get_attr("N")
    indices = op.inputs[:n]
    return [None] * n + [_a().gather(grad, i) for i in indices]


@RegisterGradient("ReverseV2")
def _reverse_v2_grad(op, grad):
    return _a().reverse(grad, op.inputs[1]), None


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    return (apply_op("ReverseSequence", input=grad, seq_lengths=op.inputs[1], seq_dim=op._get_attr("seq_dim"),
                     batch_dim=op._get_attr("batch_dim")), None)


@RegisterGradient("Reverse")
def _reverse_grad(op, grad):
    return apply_op("Reverse", tensor=grad, dims=op.inputs[1]), None


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(op, grad):
    return apply_op("MatrixDiagPart", input=grad)


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op, grad):
    return apply_op("MatrixDiag", diagonal=grad)


@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op, grad):
    """d diagonal = the band ``k`` of ``grad``."""
    return linalg_ops.matrix_diag_part(grad, k=op.inputs[1], align=op._get_attr("align")), None, None, None, None


@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op, grad):
    """d input = ``grad`` placed on the band ``k`` (a matrix_diag of the input's
    static size, else set into zeros like the input)."""
    matrix_shape = op.inputs[0].shape[-2:]
    align = op._get_attr("align")
    if matrix_shape.is_fully_defined():
        rows, cols = matrix_shape.as_list()
        return linalg_ops.matrix_diag(grad, k=op.inputs[1], num_rows=rows, num_cols=cols, align=align), None, None
    return linalg_ops.matrix_set_diag(array_ops.zeros_like(op.inputs[0]), grad, k=op.inputs[1], align=align), \
        None, None


@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op, grad):
    """d input = ``grad`` with the band zeroed; d diagonal = the band of ``grad``.
    The zeros' shape is the diagonal's, computed from ``grad`` when not static."""
    m = _m()
    align = op._get_attr("align")
    diag_shape = op.inputs[1].shape
    if not diag_shape.is_fully_defined():
        grad_shape = array_ops.shape(grad)
        batch_shape, matrix_shape = grad_shape[:-2], grad_shape[-2:]
        diag_index = array_ops.reshape(op.inputs[2], [-1])
        d_lower, d_upper = diag_index[0], diag_index[-1]
        y_offset = control_flow_ops.cond(m.less(d_upper, 0), lambda: d_upper, lambda: 0)
        x_offset = control_flow_ops.cond(m.greater(d_lower, 0), lambda: -d_lower, lambda: 0)
        max_diag_len = m.minimum(matrix_shape[0] + y_offset, matrix_shape[1] + x_offset)
        postfix = control_flow_ops.cond(m.equal(d_lower, d_upper), lambda: convert_to_tensor([max_diag_len]),
                                        lambda: convert_to_tensor([d_upper - d_lower + 1, max_diag_len]))
        diag_shape = array_ops.concat([batch_shape, postfix], 0)
    else:
        diag_shape = diag_shape.as_list()
    grad_input = linalg_ops.matrix_set_diag(grad, array_ops.zeros(diag_shape, dtype=grad.dtype), k=op.inputs[2],
                                            align=align)
    grad_diag = linalg_ops.matrix_diag_part(grad, k=op.inputs[2], align=align)
    return grad_input, grad_diag, None


def _segment_min_or_max_grad(op, grad):
    """TF's form: the gradient goes to the selected entries, split equally among
    ties; rows with a negative id (dropped) get 0 (``_UnsortedSegmentMinOrMaxGrad``)."""
    a, m = _a(), _m()
    data, ids, num = op.inputs
    gathered_out, zero_clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = m.logical_and(m.equal(data, gathered_out), is_positive)
    num_selected = a.unsorted_segment_sum(m.cast(is_selected, grad.dtype), ids, num)
    weighted = m.divide(grad, num_selected)
    gathered = _gather_drop_negatives(weighted, None, zero_clipped, is_positive)[0]
    return a.where_v2(is_selected, gathered, a.zeros_like(gathered)), None, None


RegisterGradient("UnsortedSegmentMax")(_segment_min_or_max_grad)
RegisterGradient("UnsortedSegmentMin")(_segment_min_or_max_grad)


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    """The mirrored copies summed back onto the elements they copy (``MirrorPadGrad``)."""
    return apply_op("MirrorPadGrad", input=grad, paddings=op.inputs[1], mode=op._get_attr("mode")), None


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    """MirrorPadGrad is linear; its adjoint is MirrorPad itself."""
    return apply_op("MirrorPad", input=grad, paddings=op.inputs[1], mode=op._get_attr("mode")), None


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, grad):
    """TF's zero-aware form: d prod / d x_i = prod of the other elements of the
    segment (no division when x_i == 0; zero when a segment has two zeros); rows
    with a negative id get 0, the mask broadcast over the data's trailing
    dimensions (``_GatherDropNegatives``)."""
    a, m = _a(), _m()
    data, ids, num = op.inputs
    is_zero = m.equal(data, 0)
    num_zeros = apply_op("UnsortedSegmentSum", data=m.cast(is_zero, dtypes.int32), segment_ids=ids, num_segments=num)
    grad = a.where_v2(m.greater(num_zeros, 1), a.zeros_like(grad), grad)
    non_zero_data = a.where_v2(is_zero, a.ones_like(data), data)
    non_zero_prod = apply_op("UnsortedSegmentProd", data=non_zero_data, segment_ids=ids, num_segments=num)
    clipped = m.maximum(ids, a.zeros_like(ids))
    gathered_prod = a.gather(op.outputs[0], clipped)
    gathered_non_zero_prod = a.gather(non_zero_prod, clipped)
    prod_divided_by_el = gathered_prod / data  # inf/nan where data is 0: the where below drops them
    partial = a.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, ids, clipped)[0]
    return gathered_grad * partial, None, None


# Fake quantization: straight through (V2, V3), or through the range only (V4), as TF.
RegisterGradient("QuantizeAndDequantizeV2")(lambda op, grad: [grad, None, None])
RegisterGradient("QuantizeAndDequantizeV3")(lambda op, grad: [grad, None, None, None])


@RegisterGradient("QuantizeAndDequantizeV4")
def _quantize_and_dequantize_v4_grad(op, grad):
    """input_backprop = grad where input_min <= input <= input_max (QuantizeAndDequantizeV4Grad)."""
    return list(apply_op("QuantizeAndDequantizeV4Grad", gradients=grad, input=op.inputs[0],
                         input_min=op.inputs[1], input_max=op.inputs[2], axis=op._get_attr("axis")))


RegisterGradient("QuantizeAndDequantizeV4Grad")(_quantize_and_dequantize_v4_grad)
