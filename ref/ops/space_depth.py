"""Moving blocks of space into depth and back (TF's spacetodepth_op and
depthtospace_op kernels): SpaceToDepth, DepthToSpace; SpaceToBatchND and
BatchToSpaceND (below).

For NHWC input ``x`` [batch, height, width, depth] and block size ``b``,
SpaceToDepth gives [batch, height / b, width / b, b * b * depth] with
``out[n, i, j, (di * b + dj) * depth + c] = x[n, i * b + di, j * b + dj, c]``;
DepthToSpace is its inverse. Pure data movement: the values are TF's bit for
bit. NCHW graphs build (their shapes are inferred), but running one raises
InvalidArgumentError, as TF's CPU kernels (registered for NHWC only) do.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _dims, _ints, _same_dtype, _shape_str

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
    if data_format != "NHWC":  # TF registers NCHW (and NCHW_VECT_C) kernels for GPUs only
        dt = dtypes.as_dtype(x.dtype).name.upper()
        raise invalid_argument(f"No OpKernel was registered to support Op '{op}' with these attrs: "
                               f"[block_size={bs}, data_format=\"{data_format}\", T=DT_{dt}]")
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
    n, hh, ww, ch = x.shape
    y = x.reshape(n, hh // bs, bs, ww // bs, bs, ch).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(y).reshape(n, hh // bs, ww // bs, bs * bs * ch)


@register_op("DepthToSpace", inputs=("input",), attrs=_ATTRS, type_attrs={"T": "input"},
             shape=_shape_rule(False))
def depth_to_space(input, block_size, data_format="NHWC"):
    """Depth moved into ``block_size`` x ``block_size`` blocks of space (SpaceToDepth's inverse)."""
    x, bs = np.asarray(input), int(block_size)
    _check_input(x, bs, data_format, "DepthToSpace", False)
    n, hh, ww, ch = x.shape
    oc = ch // (bs * bs)
    y = x.reshape(n, hh, ww, bs, bs, oc).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(y).reshape(n, hh * bs, ww * bs, oc)


# ---------------------------------------------------------------------------
# ExtractImagePatches: each window of the image laid out along depth
# ---------------------------------------------------------------------------

def _patch_geometry(n, k, s, r, padding):
    """(out, pad_before) of one spatial dimension, the window ``k`` taps ``r`` apart."""
    ke = (k - 1) * r + 1
    if padding == "VALID":
        return max((n - ke + s) // s, 0), 0
    out = -(-n // s)
    return out, max((out - 1) * s + ke - n, 0) // 2


def _patch_attrs(ksizes, strides, rates, padding, op):
    for what, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if len(v) != 4 or int(v[0]) != 1 or int(v[3]) != 1:
            raise ValueError(f"{op} is only supported on the rows and columns: {what} must be [1, r, c, 1], "
                             f"got {list(v)}")
        if any(int(x) < 1 for x in v):
            raise ValueError(f"{op}: {what} must be positive, got {list(v)}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{op}: padding must be SAME or VALID, got {padding}")


def _patches_shape(ins, attrs):
    op = attrs.get("_op_name", "ExtractImagePatches")
    _patch_attrs(attrs["ksizes"], attrs["strides"], attrs["rates"], attrs["padding"], op)
    dims = _dims(ins["images"])
    if dims is None:
        return _same_dtype(ins, attrs, unknown_shape(4))
    if len(dims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(dims)} for '{op}' with input shapes: "
                         f"{_shape_str(dims)}.")
    k, s, r = attrs["ksizes"], attrs["strides"], attrs["rates"]
    sp = [None if dims[a] is None else _patch_geometry(dims[a], int(k[a]), int(s[a]), int(r[a]), attrs["padding"])[0]
          for a in (1, 2)]
    depth = None if dims[3] is None else int(k[1]) * int(k[2]) * dims[3]
    return _same_dtype(ins, attrs, TensorShape([dims[0]] + sp + [depth]))


@register_op("ExtractImagePatches", inputs=("images",), outputs=("patches",), type_attrs={"T": "images"},
             attrs={"ksizes": REQUIRED, "strides": REQUIRED, "rates": REQUIRED, "padding": REQUIRED},
             shape=_patches_shape)
def extract_image_patches(images, ksizes, strides, rates, padding):
    """``out[b, i, j, (di * kw + dj) * depth + c] = images[b, i * sr + di * rr - top,
    j * sc + dj * rc - left, c]``, zero where that falls in the padding."""
    x = np.asarray(images)
    if x.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional{list(x.shape)}")
    (kh, kw), (sh, sw), (rh, rw) = ksizes[1:3], strides[1:3], rates[1:3]
    oh, top = _patch_geometry(x.shape[1], kh, sh, rh, padding)
    ow, left = _patch_geometry(x.shape[2], kw, sw, rw, padding)
    n, hh, ww, ch = x.shape
    out = np.zeros((n, oh, ow, kh, kw, ch), x.dtype)
    rows, cols = np.arange(oh) * sh - top, np.arange(ow) * sw - left
    for di in range(kh):
        r = rows + di * rh
        rok = (r >= 0) & (r < hh)
        for dj in range(kw):
            c = cols + dj * rw
            cok = (c >= 0) & (c < ww)
            out[:, np.flatnonzero(rok)[:, None], np.flatnonzero(cok)[None, :], di, dj] = \
                x[:, r[rok][:, None], c[cok][None, :]]
    return out.reshape(n, oh, ow, kh * kw * ch)


# ---------------------------------------------------------------------------
# SpaceToBatchND / BatchToSpaceND (TF's spacetobatch_op and batchtospace_op):
# the M spatial dimensions after the batch, padded (cropped), split into
# ``block_shape`` blocks that move into (out of) the batch dimension. The
# convolution builders run a dilated convolution as SpaceToBatchND, a plain
# convolution and BatchToSpaceND, as TF does.
# ---------------------------------------------------------------------------

_INDEX = (dtypes.int32, dtypes.int64)


def _block_and_pairs(block_shape, pairs, what, op):
    """``block_shape`` [M] and ``pairs`` [M, 2] as ints, checked as TF's kernel checks them."""
    block_shape, pairs = np.asarray(block_shape), np.asarray(pairs)
    if block_shape.ndim != 1:
        raise invalid_argument(f"block_shape rank should be 1 instead of {block_shape.ndim}")
    block = [int(b) for b in block_shape]
    if pairs.ndim != 2 or pairs.shape != (len(block), 2):
        raise invalid_argument(f"{what} should have shape [{len(block)}, 2] instead of "
                               f"{_shape_str(pairs.shape)}")
    return block, [(int(a), int(b)) for a, b in pairs]


def _to_batch_rule(ins, attrs, to_batch):
    name, second = ("paddings", "paddings") if to_batch else ("crops", "crops")
    dims = _dims(ins["input"])
    block, pairs = _ints(ins["block_shape"].value), _ints(ins[second].value)
    m = ins["block_shape"].shape.as_list()[0] if ins["block_shape"].shape.ndims == 1 else None
    if dims is None:
        return _same_dtype(ins, attrs, unknown_shape())
    if m is None:
        return _same_dtype(ins, attrs, unknown_shape(len(dims)))
    if len(dims) < m + 1:
        raise ValueError(f"input rank should be >= {m + 1} instead of {len(dims)} for '{attrs.get('_op_name')}'")
    out = [None] * (m + 1) + dims[m + 1:]
    if block is not None:
        prod = int(np.prod(block)) if block else 1
        if dims[0] is not None:
            if not to_batch and dims[0] % prod:
                raise ValueError(f"batch is not divisible by product of block sizes for "
                                 f"'{attrs.get('_op_name')}'")
            out[0] = dims[0] * prod if to_batch else dims[0] // prod
        if pairs is not None:
            for i in range(m):
                d, lo, hi = dims[i + 1], pairs[2 * i], pairs[2 * i + 1]
                if d is None:
                    continue
                if to_batch:
                    padded = d + lo + hi
                    if padded % block[i]:
                        raise ValueError(f"padded_shape[{i}]={padded} is not divisible by block_shape[{i}]="
                                         f"{block[i]} for '{attrs.get('_op_name')}'")
                    out[i + 1] = padded // block[i]
                else:
                    out[i + 1] = d * block[i] - lo - hi
    return _same_dtype(ins, attrs, TensorShape(out))


@register_op("SpaceToBatchND", inputs=("input", "block_shape", "paddings"), outputs=("output",),
             attrs={"Tblock_shape": dtypes.int32, "Tpaddings": dtypes.int32},  # TF defaults (NumPy int64 stays)
             type_attrs={"T": "input", "Tblock_shape": "block_shape", "Tpaddings": "paddings"},
             allowed={"Tblock_shape": _INDEX, "Tpaddings": _INDEX},
             shape=lambda ins, attrs: _to_batch_rule(ins, attrs, True))
def space_to_batch_nd(input, block_shape, paddings, Tblock_shape=dtypes.int32, Tpaddings=dtypes.int32):
    """``input`` [batch] + spatial (M dims) + rest: the spatial dims padded by
    ``paddings`` [M, 2], each split into ``padded / block`` x ``block``, the
    block offsets moved in front of the batch: output [block product * batch,
    padded_1 / block_1, ..., rest]; batch index ``(o_1 * ... ) * batch + b``
    with the first block offset slowest."""
    x = np.asarray(input)
    block, pads = _block_and_pairs(block_shape, paddings, "paddings", "SpaceToBatchND")
    m = len(block)
    if x.ndim < m + 1:
        raise invalid_argument(f"input rank should be >= {m + 1} instead of {x.ndim}")
    if any(b < 1 for b in block) or any(lo < 0 or hi < 0 for lo, hi in pads):
        raise invalid_argument("block_shape must be positive and paddings non-negative")
    padded = np.pad(x, [(0, 0)] + pads + [(0, 0)] * (x.ndim - m - 1))
    for i in range(m):
        if padded.shape[i + 1] % block[i]:
            raise invalid_argument(f"padded_shape[{i}]={padded.shape[i + 1]} is not divisible by "
                                   f"block_shape[{i}]={block[i]}")
    batch, rest = x.shape[0], list(x.shape[m + 1:])
    split = [batch]
    for i in range(m):
        split += [padded.shape[i + 1] // block[i], block[i]]
    y = padded.reshape(split + rest)
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    out = np.transpose(y, order).reshape([batch * int(np.prod(block, dtype=np.int64))] +
                                         [padded.shape[i + 1] // block[i] for i in range(m)] + rest)
    return np.ascontiguousarray(out)


@register_op("BatchToSpaceND", inputs=("input", "block_shape", "crops"), outputs=("output",),
             attrs={"Tblock_shape": dtypes.int32, "Tcrops": dtypes.int32},
             type_attrs={"T": "input", "Tblock_shape": "block_shape", "Tcrops": "crops"},
             allowed={"Tblock_shape": _INDEX, "Tcrops": _INDEX},
             shape=lambda ins, attrs: _to_batch_rule(ins, attrs, False))
def batch_to_space_nd(input, block_shape, crops, Tblock_shape=dtypes.int32, Tcrops=dtypes.int32):
    """The inverse of SpaceToBatchND: the batch split into the block offsets
    and the batch, the offsets interleaved back into the spatial dims, then
    ``crops`` [M, 2] removed from each end."""
    x = np.asarray(input)
    block, crops = _block_and_pairs(block_shape, crops, "crops", "BatchToSpaceND")
    m = len(block)
    if x.ndim < m + 1:
        raise invalid_argument(f"input rank should be >= {m + 1} instead of {x.ndim}")
    prod = int(np.prod(block, dtype=np.int64))
    if any(b < 1 for b in block) or any(lo < 0 or hi < 0 for lo, hi in crops):
        raise invalid_argument("block_shape must be positive and crops non-negative")
    if x.shape[0] % prod:
        raise invalid_argument(f"Input batch dimension ({x.shape[0]}) is not divisible by product of block "
                               f"sizes ({prod})")
    batch, spatial, rest = x.shape[0] // prod, list(x.shape[1:m + 1]), list(x.shape[m + 1:])
    y = x.reshape(block + [batch] + spatial + rest)
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    full = np.transpose(y, order).reshape([batch] + [spatial[i] * block[i] for i in range(m)] + rest)
    for i, (lo, hi) in enumerate(crops):
        if lo + hi > full.shape[i + 1]:
            raise invalid_argument("crops must be non-negative and not exceed the block-expanded size")
    index = (slice(None),) + tuple(slice(lo, full.shape[i + 1] - hi) for i, (lo, hi) in enumerate(crops))
    return np.ascontiguousarray(full[index])
