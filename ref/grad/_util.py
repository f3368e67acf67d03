"""Helpers shared by the gradient rules: ``unbroadcast``, reduced shapes, and the
variable behind a resource handle."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.op_def_library import apply_op
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops


def _ops():
    return array_ops, math_ops


def unbroadcast(grad, x):
    """Sums ``grad`` over the dimensions along which ``x`` was broadcast, and
    reshapes it to ``x``'s shape -- the one helper every broadcasting op uses
    (TF's BroadcastGradientArgs + reduce_sum + reshape)."""
    array_ops, math_ops = _ops()
    xs, gs = x.shape, grad.shape
    if xs.is_fully_defined() and gs.is_fully_defined():
        if xs.as_list() == gs.as_list():
            return grad
        xl, gl = xs.as_list(), gs.as_list()
        lead = len(gl) - len(xl)
        axes = list(range(lead)) + [lead + i for i, d in enumerate(xl) if d == 1 and gl[lead + i] != 1]
        summed = math_ops.reduce_sum(grad, axes) if axes else grad
        return array_ops.reshape(summed, xl)
    sx = array_ops.shape(x)
    sg = array_ops.shape(grad)
    rx, _ = _broadcast_gradient_args(sx, sg)
    return array_ops.reshape(math_ops.reduce_sum(grad, rx), sx)


def _broadcast_gradient_args(s0, s1):
    return apply_op("BroadcastGradientArgs", s0=s0, s1=s1)


def _gradient_reduction_axes(xs, ys):
    """Axes along which x and y were statically broadcast (TF's
    ``_InferGradientReductionAxes``), or (None, None) when it depends on data."""
    if xs.ndims is None or ys.ndims is None:
        return None, None
    xl, yl = xs.as_list(), ys.as_list()
    rank = max(len(xl), len(yl))
    x_axes, y_axes = [], []
    for axis in range(rank):
        xd = 1 if axis < rank - len(xl) else xl[axis - (rank - len(xl))]
        yd = 1 if axis < rank - len(yl) else yl[axis - (rank - len(yl))]
        if xd == 1 and yd != 1:
            x_axes.append(axis)
        elif yd == 1 and xd != 1:
            y_axes.append(axis)
        elif xd is None or yd is None:
            return None, None
    return x_axes, y_axes


def reduce_gradient_args(x, y, gx, gy):
    """Sums each raw gradient over the axes its input was broadcast along and
    reshapes it to the input's shape, building TF's graph
    (``SmartBroadcastGradientArgs`` + ``_ReduceGradientArg``)."""
    if gx is None and gy is None:
        return gx, gy
    array_ops, math_ops = _ops()
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    x_axes, y_axes = _gradient_reduction_axes(x.shape, y.shape)
    if x_axes is None or y_axes is None:
        x_axes, y_axes = _broadcast_gradient_args(sx, sy)
        x_must, y_must = True, True
    else:
        x_must = bool(x_axes) or x.shape.ndims < y.shape.ndims
        y_must = bool(y_axes) or y.shape.ndims < x.shape.ndims
    out = []
    for g, shape, axes, must in ((gx, sx, x_axes, x_must), (gy, sy, y_axes, y_must)):
        if g is not None and must:
            g = array_ops.reshape(math_ops.reduce_sum(g, axes, keepdims=True), shape)
        out.append(g)
    return tuple(out)


def shapes_equal_and_known(x, y, grad):
    """TF's ``_ShapesFullySpecifiedAndEqual``: the fast path of Add/Sub/Mul
    (never for an IndexedSlices gradient, which the slow path densifies)."""
    if not hasattr(grad, "shape"):
        return False
    xs = x.shape
    return (xs.is_fully_defined() and y.shape.is_fully_defined() and grad.shape.is_fully_defined()
            and xs.as_list() == y.shape.as_list() == grad.shape.as_list())


def binary_grads(op, gx, gy):
    """Unbroadcast a binary op's two raw gradients to its inputs' shapes."""
    x, y = op.inputs
    return reduce_gradient_args(x, y, gx, gy)


def reduction_axes(op):
    """The reduction axes of a Sum/Mean/Max/Min/Prod op as a Python list, or None."""
    x = op.inputs[0]
    axes = constant_value(op.inputs[1])
    if axes is None or x.shape.ndims is None:
        return None
    rank = x.shape.ndims
    return sorted({int(a) % rank for a in np.asarray(axes).reshape(-1)}) if rank else []


def kept_dims_shape(op):
    """Shape of the reduction's output with the reduced dims kept as 1 (a tensor)."""
    array_ops, math_ops = _ops()
    x = op.inputs[0]
    axes = reduction_axes(op)
    if axes is not None:
        dims = x.shape.as_list()
        if all(d is not None for d in dims):
            return np.array([1 if i in axes else d for i, d in enumerate(dims)], np.int32)
        sx = array_ops.shape(x)
        return array_ops.stack([1 if i in axes else sx[i] for i in range(len(dims))])
    # Dynamic axes: TF's reduced_shape via dynamic_stitch.
    sx = array_ops.shape(x)
    rank = array_ops.size(sx)
    axes_t = math_ops.floormod(math_ops.add(op.inputs[1], rank), rank)
    return array_ops.dynamic_stitch([math_ops.range(rank), axes_t],
                                    [sx, array_ops.fill(array_ops.shape(axes_t), 1)])


def var_handle_op(t):
    """The VarHandleOp behind resource tensor ``t`` (through Identity and function
    captures), or None."""
    while t.dtype.base_dtype == dtypes.resource:
        if t.op.type == "VarHandleOp":
            return t.op
        if t.op.type == "Identity":
            t = t.op.inputs[0]
            continue
        outer = next((o for o, ph in getattr(t.graph, "captures", ()) if ph is t), None)
        if outer is None:
            return None
        t = outer
    return None
