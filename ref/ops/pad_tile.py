"""Padding, tiling and rolling (TF's pad, tile and roll kernels): Pad, PadV2, MirrorPad, MirrorPadGrad, Tile, Roll."""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _INDEX, _dims, _ints, _same_dtype, _shape_str


# ---------------------------------------------------------------------------
# Padding: Pad, PadV2, MirrorPad
# ---------------------------------------------------------------------------

def _pad_shape(ins, attrs, mode=None):
    """TF's PadShapeFn: ``paddings`` a ``[rank, 2]`` matrix (its rows the input's rank,
    whichever is known first), then each known dimension plus its paddings."""
    dims = _dims(ins["input"])
    pads = ins["paddings"].value
    pshape = ins["paddings"].shape
    where = (f" for '{attrs['_op_name']}' with input shapes: "
             f"{_shape_str(ins['input'].shape)}, {_shape_str(pshape)}.")
    if pshape.ndims is not None and pshape.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {pshape.ndims}{where}")
    if pshape.ndims == 2 and pshape[1] is not None and pshape[1] != 2:
        raise ValueError(f"Dimension must be 2 but is {pshape[1]}{where}")
    n = pshape[0] if pshape.ndims == 2 else None
    if n is not None and dims is not None and len(dims) != n:
        raise ValueError(f"Shape must be rank {n} but is rank {len(dims)}{where}")
    if n is None and dims is not None:
        n = len(dims)
    if pads is None:
        return _same_dtype(ins, attrs, unknown_shape(n))
    pads = np.asarray(pads).reshape(-1, 2)
    if dims is not None and len(dims) != len(pads):
        raise ValueError(f"Shape must be rank {len(pads)} but is rank {len(dims)}{where}")
    if (pads < 0).any():
        raise ValueError(f"Paddings must be non-negative{where}")
    dims = [None] * len(pads) if dims is None else dims
    return _same_dtype(ins, attrs, TensorShape([None if d is None else d + int(a) + int(b)
                                                for d, (a, b) in zip(dims, pads)]))


def _check_paddings(x, paddings):
    p = np.asarray(paddings)
    r = np.ndim(x)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] != r:
        raise invalid_argument(f"The first dimension of paddings must be the rank of inputs"
                               f"{_shape_str(p.shape)}, input shape: {_shape_str(np.shape(x))}")
    for a, b in p.tolist():
        if a < 0 or b < 0:
            raise invalid_argument(f"Paddings must be non-negative: {a} {b}")
    return [(int(a), int(b)) for a, b in p.tolist()]


@register_op("Pad", inputs=("input", "paddings"), type_attrs={"T": "input", "Tpaddings": "paddings"},
             allowed={"Tpaddings": _INDEX}, shape=_pad_shape)
def pad(input, paddings):
    """``input`` with ``paddings[i] = [before, after]`` zeros around dimension ``i``."""
    pads = _check_paddings(input, paddings)
    x = np.asarray(input)
    if x.dtype == object:
        return np.pad(x, pads)
    # zeros and one copy (np.pad's general path costs ~8x as much on a small array:
    # a sampled loss's Slice gradients)
    out = np.zeros([d + a + b for d, (a, b) in zip(x.shape, pads)], x.dtype)
    out[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pads))] = x
    return out


@register_op("PadV2", inputs=("input", "paddings", "constant_values"),
             type_attrs={"T": ("input", "constant_values"), "Tpaddings": "paddings"},
             allowed={"Tpaddings": _INDEX}, shape=_pad_shape)
def pad_v2(input, paddings, constant_values):
    """Pad with ``constant_values`` (a scalar) instead of zeros."""
    if np.ndim(constant_values) != 0:
        raise invalid_argument(f"constant_values must be a scalar. Found: {_shape_str(np.shape(constant_values))}")
    return np.pad(input, _check_paddings(input, paddings), constant_values=np.asarray(constant_values).item())


@register_op("MirrorPad", inputs=("input", "paddings"), attrs={"mode": REQUIRED},
             type_attrs={"T": "input", "Tpaddings": "paddings"}, allowed={"Tpaddings": _INDEX},
             shape=_pad_shape)
def mirror_pad(input, paddings, mode):
    """Pad by mirroring: REFLECT omits the edge (``[1,2,3] -> 3,2|1,2,3|2,1``),
    SYMMETRIC repeats it (``2,1|1,2,3|3,2``)."""
    mode = mode.decode() if isinstance(mode, bytes) else mode
    pads = _check_paddings(input, paddings)
    offset = 1 if mode == "REFLECT" else 0
    for d, (a, b) in zip(np.shape(input), pads):
        if a > d - offset or b > d - offset:
            word = "less than" if offset else "no greater than"
            raise invalid_argument(f"paddings must be {word} the dimension size: {a}, {b} not {word} {d}")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise invalid_argument(f"mode must be either REFLECT or SYMMETRIC, got {mode}")
    return np.pad(input, pads, mode=mode.lower())


def _mirror_pad_grad_shape(ins, attrs):
    dims = _dims(ins["input"])
    pads = ins["paddings"].value
    if dims is None or pads is None:
        n = None if dims is None else len(dims)
        return _same_dtype(ins, attrs, unknown_shape(n if pads is None else np.shape(pads)[0]))
    pads = np.asarray(pads).reshape(-1, 2)
    if len(pads) != len(dims):
        raise ValueError(f"Shape must be [{len(dims)},2] but is {_shape_str(pads.shape)} for paddings of "
                         f"'{attrs['_op_name']}'")
    out = [None if d is None else d - int(a) - int(b) for d, (a, b) in zip(dims, pads)]
    if any(o is not None and o < 0 for o in out):
        raise ValueError(f"Paddings must be no greater than the dimension size for '{attrs['_op_name']}'")
    return _same_dtype(ins, attrs, TensorShape(out))


@register_op("MirrorPadGrad", inputs=("input", "paddings"), attrs={"mode": REQUIRED},
             type_attrs={"T": "input", "Tpaddings": "paddings"}, allowed={"Tpaddings": _INDEX},
             shape=_mirror_pad_grad_shape)
def mirror_pad_grad(input, paddings, mode):
    """MirrorPad's gradient: the padded tensor folded back, each mirrored
    element added onto the element it copies (REFLECT skips the edge)."""
    mode = mode.decode() if isinstance(mode, bytes) else mode
    pads = _check_paddings(input, paddings)
    offset = 1 if mode == "REFLECT" else 0
    g = np.asarray(input)
    for axis, (a, b) in enumerate(pads):
        n = g.shape[axis] - a - b
        if a > n - offset or b > n - offset or n < 0:
            word = "less than" if offset else "no greater than"
            raise invalid_argument(f"paddings must be {word} the output dimension size: {a}, {b} not {word} "
                                   f"{max(n, 0)}")
        idx = np.concatenate([np.arange(a)[::-1] + offset, np.arange(n), n - 1 - offset - np.arange(b)])
        moved = np.moveaxis(g, axis, 0)
        out = np.zeros((n,) + moved.shape[1:], g.dtype)
        np.add.at(out, idx.astype(np.int64), moved)
        g = np.moveaxis(out, 0, axis)
    return np.ascontiguousarray(g)


# ---------------------------------------------------------------------------
# Tiling: Tile
# ---------------------------------------------------------------------------

def _tile_shape(ins, attrs):
    dims, mult = _dims(ins["input"]), _ints(ins["multiples"].value)
    if dims is None:
        n = ins["multiples"].shape[0] if ins["multiples"].shape.ndims == 1 else None
        return _same_dtype(ins, attrs, unknown_shape(n if mult is None else len(mult)))
    mshape = ins["multiples"].shape
    if mult is None and mshape.ndims == 1 and mshape[0] is not None and mshape[0] != len(dims):
        # TF's TileShapeFn: multiples as a shape of its length, of the input's rank
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {mshape[0]} for '{attrs['_op_name']}' (op: "
                         f"'Tile') with input shapes: {_shape_str(dims)}, {_shape_str(mshape)}.")
    if mult is None:
        return _same_dtype(ins, attrs, unknown_shape(len(dims)))
    if len(mult) != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {len(mult)} for '{attrs['_op_name']}' (op: "
                         f"'Tile') with input shapes: {_shape_str(dims)}, {_shape_str(ins['multiples'].shape)}.")
    return _same_dtype(ins, attrs, TensorShape([None if d is None else d * m for d, m in zip(dims, mult)]))


@register_op("Tile", inputs=("input", "multiples"), type_attrs={"T": "input", "Tmultiples": "multiples"},
             allowed={"Tmultiples": _INDEX}, shape=_tile_shape)
def tile(input, multiples):
    """``input`` repeated ``multiples[i]`` times along dimension ``i``."""
    mult = _ints(multiples)
    if len(mult) != np.ndim(input):
        raise invalid_argument(f"Expected multiples argument to be a vector of length {np.ndim(input)} but "
                               f"got length {len(mult)}")
    for i, m in enumerate(mult):
        if m < 0:
            raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {m}")
    if not mult:
        return np.array(input)
    x = np.asarray(input)
    if all(m == 1 or d == 1 for d, m in zip(x.shape, mult)):  # a broadcast: one copy, no repeats
        out = np.empty([d * m for d, m in zip(x.shape, mult)], x.dtype)
        out[...] = x
        return out
    return np.tile(x, mult)


# ---------------------------------------------------------------------------
# Roll (TF's manip_ops)
# ---------------------------------------------------------------------------

def _roll_shape(ins, attrs):
    """TF's shape function: input rank >= 1, shift and axis rank <= 1, shift and axis shapes merge."""
    name = attrs["_op_name"]
    x, shift, axis = ins["input"].shape, ins["shift"].shape, ins["axis"].shape
    if x.ndims is not None and x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims} for '{name}'")
    for s in (shift, axis):
        if s.ndims is not None and s.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {s.ndims} for '{name}'")
    if shift.ndims is not None and axis.ndims is not None:
        if shift.ndims != axis.ndims:
            raise ValueError(f"Shapes must be equal rank, but are {shift.ndims} and {axis.ndims} for '{name}'")
        if shift.ndims == 1 and None not in (shift.as_list()[0], axis.as_list()[0]) and \
                shift.as_list()[0] != axis.as_list()[0]:
            raise ValueError(f"Dimension 0 in both shapes must be equal, but are {shift.as_list()[0]} and "
                             f"{axis.as_list()[0]}. Shapes are {shift.as_list()} and {axis.as_list()}. for '{name}'")
    return [(ins["input"].dtype, ins["input"].shape)]


@register_op("Roll", inputs=("input", "shift", "axis"), outputs=("output",),
             type_attrs={"T": "input", "Tshift": "shift", "Taxis": "axis"},
             allowed={"Tshift": _INDEX, "Taxis": _INDEX}, shape=_roll_shape)
def roll(input, shift, axis):  # noqa: A002 - TF's name
    """``output`` is ``input`` with the elements along ``axis[i]`` moved
    ``shift[i]`` places forward (backward when negative), wrapping around; an
    axis named twice moves by the sum of its shifts."""
    x = np.asarray(input)
    shift, axis = np.asarray(shift), np.asarray(axis)
    if x.ndim < 1:
        raise invalid_argument("input must be 1-D or higher")
    if shift.ndim > 1:
        raise invalid_argument(f"shift must be a scalar or a 1-D vector. Found: {_shape_str(shift.shape)}")
    if axis.ndim > 1:
        raise invalid_argument(f"axis must be a scalar or a 1-D vector. Found: {_shape_str(axis.shape)}")
    if shift.shape != axis.shape:
        raise invalid_argument("shift and axis must have the same size")
    totals = [0] * x.ndim
    for s, a in zip(shift.reshape(-1).tolist(), axis.reshape(-1).tolist()):
        ax = a + x.ndim if a < 0 else a
        if not 0 <= ax < x.ndim:
            raise invalid_argument(f"axis {a} is out of range")
        totals[ax] += s
    axes = [d for d in range(x.ndim) if x.shape[d] and totals[d] % x.shape[d]]
    if not axes:
        return x.copy()
    return np.roll(x, [totals[d] for d in axes], axis=axes)
