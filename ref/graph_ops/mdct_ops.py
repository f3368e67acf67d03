"""``tf.signal.mdct`` / ``inverse_mdct`` (TF's spectral_ops.py graphs): frames
of ``frame_length`` with hop ``frame_length / 2``, windowed (Vorbis by
default; ``1/sqrt(2)`` without a window), folded into half-length frames
``(-rev(c) - d, a - rev(b))`` of the quarters ``a b c d``, then a type-IV DCT.
The inverse unfolds a type-IV DCT (scaled ``0.5 / N`` unless ``norm="ortho"``)
into ``(b', -rev(b'), -rev(a'), -a')``, windows it and overlap-adds with hop N.
"""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.signal_ops import dct, frame, overlap_and_add
from ref.graph_ops.window_ops import vorbis_window
from ref.types import dtypes

__all__ = ["mdct", "inverse_mdct"]


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The MDCT of the innermost dimension of ``signals``: ``[..., frames, frame_length // 2]``."""
    with name_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_length_static = constant_value(frame_length)
        if frame_length_static is not None:
            if frame_length_static % 4 != 0:
                raise ValueError("The frame length must be a multiple of 4.")
            frame_step = convert_to_tensor(int(frame_length_static) // 2, dtype=frame_length.dtype)
        else:
            frame_step = frame_length // 2
        framed_signals = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed_signals *= window_fn(frame_length, dtype=framed_signals.dtype)
        else:
            framed_signals *= 1.0 / np.sqrt(2)
        a, b, c, d = array_ops.split(framed_signals, 4, axis=-1)
        first_half = -array_ops.reverse(c, [-1]) - d
        second_half = a - array_ops.reverse(b, [-1])
        return dct(array_ops.concat((first_half, second_half), axis=-1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """Signals from their MDCTs ``[..., frames, N]`` (perfect reconstruction
    with a power-complementary window, as ``mdct``'s)."""
    with name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(2)
        half_len = math_ops.cast(mdcts.shape[-1], dtype=dtypes.int32)
        if norm is None:
            half_len_float = math_ops.cast(half_len, dtype=mdcts.dtype)
            result_idct4 = (0.5 / half_len_float) * dct(mdcts, type=4)
        elif norm == "ortho":
            result_idct4 = dct(mdcts, type=4, norm="ortho")
        first, second = array_ops.split(result_idct4, 2, axis=-1)
        real_frames = array_ops.concat((second, -array_ops.reverse(second, [-1]),
                                        -array_ops.reverse(first, [-1]), -first), axis=-1)
        if window_fn is not None:
            real_frames *= window_fn(2 * half_len, dtype=mdcts.dtype)
        else:
            real_frames *= 1.0 / np.sqrt(2)
        return overlap_and_add(real_frames, half_len)
