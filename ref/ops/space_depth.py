"""Moving blocks of space into depth and back (TF's spacetodepth_op and
depthtospace_op kernels): SpaceToDepth, DepthToSpace.

For NHWC input ``x`` [batch, height, width, depth] and block size ``b``,
SpaceToDepth gives [batch, height / b, width / b, b * b * depth] with
``out[n, i, j, (di * b + dj) * depth + c] = x[n, i * b + di, j * b + dj, c]``;
DepthToSpace is its inverse. NCHW moves the same blocks with the channel
dimension second. Pure data movement: the values are TF's bit for bit.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _dims, _same_dtype, _shape_str

_ATTRS = {"block_size": REQUIRED, "data_format": "NHWC"}
_FORMATS = ("NHWC", "NCHW")


def _check_attrs(attrs, op):
    bs = int(attrs["block_size"])
    if bs < 2:
        raise ValueError(f"Value for attr 'block_size' of {bs} must be at least minimum 2 for '{op}'")
    if attrs.get("data_format", "NHWC") not in _FORMATS:
        raise ValueError(f"data_format {attrs['data_format']!r} is not supported by {op} here "
                         f"(NHWC or NCHW)")
    return bs


def _layout(data_format):
    """(channel axis, height axis, width axis) of a rank-4 tensor."""
    return (1, 2, 3) if data_format == "NCHW" else (3, 1, 2)


def _shape_rule(to_depth):
    def rule(ins, attrs):
        op = attrs.get("_op_name", "SpaceToDepth" if to_depth else "DepthToSpace")
        bs = _check_attrs(attrs, op)
        dims = _dims(ins["input"])
        if dims is None:
            return _same_dtype(ins, attrs, unknown_shape(4))
        if len(dims) != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {len(dims)} for '{op}' with input shapes: "
                             f"{_shape_str(dims)}.")
        c, h, w = _layout(attrs.get("data_format", "NHWC"))
        out = list(dims)
        if to_depth:
            for a in (h, w):
                if dims[a] is not None and dims[a] % bs:
                    raise ValueError(f"Dimension size must be evenly divisible by {bs} but is {dims[a]} for "
                                     f"'{op}' with input shapes: {_shape_str(dims)}.")
                out[a] = None if dims[a] is None else dims[a] // bs
            out[c] = None if dims[c] is None else dims[c] * bs * bs
        else:
            if dims[c] is not None and dims[c] % (bs * bs):
                raise ValueError(f"Dimension size must be evenly divisible by {bs * bs} but is {dims[c]} for "
                                 f"'{op}' with input shapes: {_shape_str(dims)}.")
            for a in (h, w):
                out[a] = None if dims[a] is None else dims[a] * bs
            out[c] = None if dims[c] is None else dims[c] // (bs * bs)
        return _same_dtype(ins, attrs, TensorShape(out))
    return rule


def _check_input(x, bs, data_format, op, to_depth):
    if x.ndim != 4:
        raise invalid_argument(f"input rank should be: 4 instead of: {x.ndim}")
    c, h, w = _layout(data_format)
    if to_depth and (x.shape[h] % bs or x.shape[w] % bs):
        raise invalid_argument(f"Image width {x.shape[w]} and height {x.shape[h]} should be divisible by "
                               f"block_size: {bs}")
    if not to_depth and x.shape[c] % (bs * bs):
        raise invalid_argument(f"Input depth dimension {x.shape[c]} should be divisible by: {bs * bs}")


@register_op("SpaceToDepth", inputs=("input",), attrs=_ATTRS, type_attrs={"T": "input"},
             shape=_shape_rule(True))
def space_to_depth(input, block_size, data_format="NHWC"):
    """Non-overlapping ``block_size`` x ``block_size`` blocks of space moved into depth."""
    x, bs = np.asarray(input), int(block_size)
    _check_input(x, bs, data_format, "SpaceToDepth", True)
    if data_format == "NCHW":
        n, ch, hh, ww = x.shape
        y = x.reshape(n, ch, hh // bs, bs, ww // bs, bs).transpose(0, 3, 5, 1, 2, 4)
        return np.ascontiguousarray(y).reshape(n, bs * bs * ch, hh // bs, ww // bs)
    n, hh, ww, ch = x.shape
    y = x.reshape(n, hh // bs, bs, ww // bs, bs, ch).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(y).reshape(n, hh // bs, ww // bs, bs * bs * ch)


@register_op("DepthToSpace", inputs=("input",), attrs=_ATTRS, type_attrs={"T": "input"},
             shape=_shape_rule(False))
def depth_to_space(input, block_size, data_format="NHWC"):
    """Depth moved into ``block_size`` x ``block_size`` blocks of space (SpaceToDepth's inverse)."""
    x, bs = np.asarray(input), int(block_size)
    _check_input(x, bs, data_format, "DepthToSpace", False)
    if data_format == "NCHW":
        n, ch, hh, ww = x.shape
        oc = ch // (bs * bs)
        y = x.reshape(n, bs, bs, oc, hh, ww).transpose(0, 3, 4, 1, 5, 2)
        return np.ascontiguousarray(y).reshape(n, oc, hh * bs, ww * bs)
    n, hh, ww, ch = x.shape
    oc = ch // (bs * bs)
    y = x.reshape(n, hh, ww, bs, bs, oc).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(y).reshape(n, hh * bs, ww * bs, oc)
