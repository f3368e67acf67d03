"""TF1 clipping functions (``tf.clip_by_value``, ``tf.clip_by_norm``,
``tf.clip_by_average_norm``, ``tf.clip_by_global_norm``, ``tf.global_norm``):
TF docs, "Training", "Gradient Clipping".

Each builds the ops TF's ``clip_ops`` builds, in the same order and with the
same names (``clip_by_norm/...``, ``global_norm/L2Loss``,
``clip_by_global_norm/clip_by_global_norm/_0``); the arithmetic and the pure
NumPy forms are documented in :mod:`ref.ops.clip`. ``IndexedSlices`` inputs
are clipped on their ``values`` and returned as ``IndexedSlices`` (except by
``clip_by_average_norm``, which densifies them, as TF does).
"""
from __future__ import annotations

import collections.abc

import numpy as np

from ref.types import dtypes
from ref.framework.graph import colocate_with, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_average_norm", "global_norm", "clip_by_global_norm"]


def _values(t, name):
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t, out):
    """``out`` wrapped as IndexedSlices when ``t`` was one."""
    return IndexedSlices(out, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else out


def _assert_compatible(a, b):
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")


def _all_axes(t):
    """The ``axis`` input that reduces over every dimension (TF: ``range(rank(t))``)."""
    if t.shape.ndims is not None:
        return constant(np.arange(t.shape.ndims, dtype=np.int32))
    return apply_op("Range", start=constant(0), limit=apply_op("Rank", input=t), delta=constant(1))


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips ``t`` to ``[clip_value_min, clip_value_max]``: values below the
    minimum are set to it, values above the maximum to it (TF: ``Minimum`` then
    ``Maximum``, the latter named ``name``)."""
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = _values(t, "t")
        t_min = apply_op("Minimum", x=values, y=clip_value_max)
        _assert_compatible(values, t_min)
        t_max = apply_op("Maximum", x=t_min, y=clip_value_min, name=scope)
        _assert_compatible(values, t_max)
        return _like(t, t_max)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``: ``t`` unchanged when its
    L2-norm (over ``axes``, all by default) is at most ``clip_norm``, else
    scaled to norm ``clip_norm``. A negative ``clip_norm`` counts as 0."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values(t, "t")
        if np.isscalar(clip_norm):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = apply_op("Maximum", x=clip_norm, y=0)
            if clip_norm.dtype.base_dtype != values.dtype.base_dtype:
                clip_norm = apply_op("Cast", x=clip_norm, DstT=values.dtype.base_dtype)
        squares = values * values
        axis = _all_axes(values) if axes is None else axes
        l2sum = apply_op("Sum", input=squares, axis=axis, keep_dims=True)
        pred = l2sum > 0
        l2sum_safe = apply_op("Select", condition=pred, x=l2sum, y=_ones_like(l2sum))
        l2norm = apply_op("Select", condition=pred, x=apply_op("Sqrt", x=l2sum_safe), y=l2sum)
        intermediate = values * clip_norm
        _assert_compatible(values, intermediate)
        clipped = apply_op("Identity", input=intermediate / apply_op("Maximum", x=l2norm, y=clip_norm), name=scope)
        return _like(t, clipped)


def _ones_like(t):
    """TF's ``array_ops.ones_like(t)`` graph (``Fill`` of ``Shape/shape_as_tensor``
    or of ``Shape``), built here: math_ops imports this module, and array_ops is
    kept out of clip_ops' imports."""
    with name_scope(None, "ones_like", [t]) as scope:
        with name_scope(None, "Shape", [t]) as shape_scope:
            if t.shape.is_fully_defined():
                shape = constant(np.array(t.shape.as_list(), np.int32), name="shape_as_tensor")
            else:
                shape = apply_op("Shape", input=t, name=shape_scope)
        out = apply_op("Fill", dims=shape, value=constant(1, dtype=t.dtype.base_dtype), name=scope)
        out.set_shape(t.shape)
        return out


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / l2norm_avg(t)`` when the average L2-norm ``l2norm(t) / n``
    exceeds ``clip_norm``, else ``t``: ``(t * clip_norm) * min(rsqrt(sum(t * t)) *
    n, 1 / clip_norm)``. ``n`` and ``1 / clip_norm`` take ``t``'s dtype (TF
    makes them float32 and fails for float64 ``t``)."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        dtype = t.dtype.base_dtype
        # TF's nodes: size and rank fold to Consts when static, Tensor operators elsewhere
        shape = t.shape
        size = (constant(np.int32(shape.num_elements()), name="Size") if shape.is_fully_defined()
                else apply_op("Size", input=t, out_type=dtypes.int32))
        n_element = apply_op("Cast", x=size, DstT=dtype, name="Cast")
        squares = t * t
        rank = (constant(np.int32(shape.ndims), name="Rank") if shape.ndims is not None
                else apply_op("Rank", input=t))
        axes = apply_op("Range", start=0, limit=rank, delta=1, name="range")
        l2norm_inv = apply_op("Rsqrt", x=apply_op("Sum", input=squares, axis=axes))
        scaled = t * clip_norm
        scale = apply_op("Minimum", x=l2norm_inv * n_element, y=constant(1.0, dtype=dtype) / clip_norm)
        return apply_op("Identity", input=scaled * scale, name=scope)


def _check_sequence(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")


def global_norm(t_list, name=None):
    """``sqrt(sum([l2norm(t)**2 for t in t_list]))`` over the Tensors and
    IndexedSlices (their values) of ``t_list``; None entries are ignored.
    TypeError if ``t_list`` is not a sequence. TF's ops:
    ``Sqrt(Sum(Pack([L2Loss(t), ...])) * 2)``."""
    _check_sequence(t_list)
    t_list = list(t_list)
    with name_scope(name, "global_norm", t_list) as scope:
        values = [None if t is None else _values(t, f"t_{i}") for i, t in enumerate(t_list)]
        halves = []
        for v in values:
            if v is not None:
                with colocate_with(v):
                    halves.append(apply_op("L2Loss", t=v))
        half = apply_op("Sum", input=apply_op("Pack", values=halves, axis=0, name="stack"),
                        axis=constant(np.array([0], np.int32)))
        return apply_op("Sqrt", x=half * constant(2.0, dtype=half.dtype.base_dtype), name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``(list_clipped, global_norm)``: every ``t_list[i] * clip_norm /
    max(global_norm, clip_norm)`` (None entries stay None, IndexedSlices stay
    IndexedSlices), and the global norm used (``use_norm`` if given). An inf or
    NaN norm makes every clipped entry NaN. TypeError if ``t_list`` is not a
    sequence."""
    _check_sequence(t_list)
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        use_norm = convert_to_tensor(use_norm)
        dtype = use_norm.dtype.base_dtype
        scale_for_finite = clip_norm * apply_op("Minimum", x=1.0 / use_norm, y=constant(1.0, dtype=dtype) / clip_norm)
        # use_norm - use_norm is 0, or NaN when the norm is inf or NaN
        scale = scale_for_finite + (use_norm - use_norm)
        values = [None if t is None else _values(t, f"t_{i}") for i, t in enumerate(t_list)]
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            with colocate_with(v):
                s = scale if v.dtype.base_dtype == dtype else apply_op("Cast", x=scale, DstT=v.dtype.base_dtype)
                clipped.append(apply_op("Identity", input=v * s, name=f"{scope}_{i}"))
        return [_like(t, c) if c is not None else None for t, c in zip(t_list, clipped)], use_norm
