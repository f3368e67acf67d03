"""Gradient clipping on NumPy arrays (TF 1.x docs, "Training" and
TF docs, "Training" (Korean edition), "Gradient Clipping"): the pure forms of
``tf.clip_by_value``, ``tf.clip_by_norm``, ``tf.clip_by_average_norm``,
``tf.global_norm`` and ``tf.clip_by_global_norm``.

TensorFlow builds these from ordinary ops, not from one kernel each, so there
is nothing to register: each function below applies the kernels of
``ref.ops.math`` / ``ref.ops.reduction`` / ``ref.ops.nn`` in the order TF's ``clip_ops`` builds them
(the graph functions in ``ref.graph_ops.clip_ops`` build the same ops), in the
input's dtype:

* clip_by_value:   ``max(min(t, clip_value_max), clip_value_min)``
* clip_by_norm:    ``(t * clip_norm) / max(l2norm, clip_norm)`` with
  ``l2norm = sqrt(sum(t * t, axes))`` (0 where the sum is 0); a negative
  ``clip_norm`` counts as 0.
* clip_by_average_norm: ``(t * clip_norm) * min(rsqrt(sum(t * t)) * n,
  1 / clip_norm)``, ``n`` the number of elements.
* global_norm:     ``sqrt(sum(l2_loss(t) for t) * 2)``, ``l2_loss(t) = sum(t * t * 0.5)``.
* clip_by_global_norm: ``t * (clip_norm * min(1 / use_norm, 1 / clip_norm))``
  plus ``(use_norm - use_norm)``, which makes every output NaN when the norm
  is inf or NaN.
"""
from __future__ import annotations

import numpy as np

from ref.ops import math as _m, nn as _nn, reduction as _r
import collections.abc

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_average_norm", "global_norm", "clip_by_global_norm"]


def _as(value, dtype):
    return np.asarray(value, dtype=dtype)


def clip_by_value(t, clip_value_min, clip_value_max):
    """``t`` with values below ``clip_value_min`` set to it and values above
    ``clip_value_max`` set to it (TF: ``Maximum(Minimum(t, max), min)``)."""
    t = np.asarray(t)
    out = _m.maximum(_m.minimum(t, _as(clip_value_max, t.dtype)), _as(clip_value_min, t.dtype))
    if out.shape != t.shape:
        raise ValueError(f"Shapes {t.shape} and {out.shape} are incompatible")
    return out


def _axes(t, axes):
    return np.arange(t.ndim, dtype=np.int32) if axes is None else np.asarray(axes, np.int32)


def clip_by_norm(t, clip_norm, axes=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``, the norm over ``axes`` (all
    by default). TF's order: ``(t * clip_norm) / max(l2norm, clip_norm)``."""
    t = np.asarray(t)
    clip_norm = _as(max(clip_norm, 0) if np.isscalar(clip_norm) else _m.maximum(clip_norm, 0), t.dtype)
    l2sum = _r.sum(_m.mul(t, t), _axes(t, axes), keep_dims=True)
    pred = l2sum > 0
    l2norm = np.where(pred, _m.sqrt(np.where(pred, l2sum, _as(1, t.dtype))), l2sum)
    return _m.real_div(_m.mul(t, clip_norm), _m.maximum(l2norm, clip_norm))


def clip_by_average_norm(t, clip_norm):
    """``t * clip_norm / l2norm_avg(t)`` when the average norm ``l2norm(t) / n``
    exceeds ``clip_norm``: ``(t * clip_norm) * min(rsqrt(sum(t * t)) * n, 1 / clip_norm)``.
    (TF computes ``n`` and ``1 / clip_norm`` in float32 and so fails for float64;
    here they take ``t``'s dtype.)"""
    t = np.asarray(t)
    clip_norm = _as(clip_norm, t.dtype)
    n = _as(t.size, t.dtype)
    l2norm_inv = _m.rsqrt(_r.sum(_m.mul(t, t), _axes(t, None)))
    scale = _m.minimum(_m.mul(l2norm_inv, n), _m.real_div(_as(1.0, t.dtype), clip_norm))
    return _m.mul(_m.mul(t, clip_norm), scale)


def _check_sequence(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")


def global_norm(t_list):
    """``sqrt(sum([l2norm(t)**2 for t in t_list]))``, None entries skipped; TF's
    order: ``sqrt(sum(stack([l2_loss(t) for t])) * 2)``."""
    _check_sequence(t_list)
    halves = [_nn.l2_loss(np.asarray(t)) for t in t_list if t is not None]
    dtypes = {h.dtype for h in halves}
    if len(dtypes) != 1:
        raise TypeError(f"global_norm needs tensors of one float dtype, got {sorted(map(str, dtypes))}")
    half = _r.sum(np.stack(halves), np.asarray([0], np.int32))
    return _m.sqrt(_m.mul(half, _as(2.0, half.dtype)))


def clip_by_global_norm(t_list, clip_norm, use_norm=None):
    """``(list_clipped, global_norm)``: ``t_list[i] * clip_norm / max(global_norm,
    clip_norm)``, None entries kept as None. TF's order: ``scale = clip_norm *
    min(1 / use_norm, 1 / clip_norm) + (use_norm - use_norm)``; each ``t * scale``
    (scale cast to t's dtype)."""
    _check_sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list)
    use_norm = np.asarray(use_norm)
    dt = use_norm.dtype
    clip = _as(clip_norm, dt)
    scale = _m.mul(clip, _m.minimum(_m.real_div(_as(1.0, dt), use_norm), _m.real_div(_as(1.0, dt), clip)))
    with np.errstate(invalid="ignore"):  # inf - inf is the NaN wanted here
        scale = _m.add_v2(scale, _m.sub(use_norm, use_norm))
    clipped = [None if t is None else _m.mul(np.asarray(t), _as(scale, np.asarray(t).dtype)) for t in t_list]
    return clipped, use_norm
