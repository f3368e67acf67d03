"""``tf.signal``'s framing, windows, short-time Fourier transform, mel
filterbank, MFCCs and DCTs, built from ``ref``'s ops as TF's ``tf.signal``
modules build them (``shape_ops``, ``window_ops``, ``spectral_ops``,
``mel_ops``, ``mfcc_ops``, ``dct_ops``):

* ``frame``: overlapping windows of ``frame_length`` samples every
  ``frame_step``, gathered as subframes of ``gcd(frame_length, frame_step)``;
* ``hann_window``/``hamming_window``: ``a - b cos(2 pi n / N)`` (a = 0.5/0.54,
  b = 0.5/0.46; N = length, or length - 1 when not ``periodic``);
* ``stft``: ``rfft(frame(x) * window, [fft_length])``, ``fft_length`` the
  smallest power of two >= ``frame_length`` by default;
* ``linear_to_mel_weight_matrix``: triangular filters evenly spaced on the mel
  scale ``mel = 1127 ln(1 + f / 700)``;
* ``mfccs_from_log_mel_spectrograms``: ``dct(x, type=2) / sqrt(2 N)``;
* ``dct``/``idct`` types I-IV through a ``2N``-point real FFT (Makhoul);
* ``overlap_and_add``: frames summed back at ``frame_step`` apart;
  ``inverse_stft``: ``overlap_and_add(irfft(stfts) * window)`` with
  ``inverse_stft_window_fn``'s window (the forward one over the sum of its
  overlapping squares) for perfect reconstruction.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, complex_ops, control_flow_ops, fft_ops, math_extras, math_ops
from ref.graph_ops.normalization_layer import smart_cond

__all__ = ["frame", "hann_window", "hamming_window", "stft", "linear_to_mel_weight_matrix",
           "mfccs_from_log_mel_spectrograms", "dct", "idct", "overlap_and_add", "inverse_stft",
           "inverse_stft_window_fn"]


def _gcd(a, b):
    with name_scope(None, "gcd", [a, b]):
        a, b = convert_to_tensor(a), convert_to_tensor(b)
        a.shape.assert_has_rank(0)
        b.shape.assert_has_rank(0)
        if not a.dtype.is_integer or not b.dtype.is_integer:
            raise ValueError(f"a and b must be integer types. Got: {a.dtype}, {b.dtype}")
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return convert_to_tensor(math.gcd(int(ca), int(cb)))

        def body(x, y):
            with name_scope(None, "mod", [x, y]) as scope:
                return [y, math_ops.floormod(x, y, name=scope)]
        a, b = control_flow_ops.while_loop(lambda _, y: math_ops.greater(y, array_ops.zeros_like(y)), body, [a, b],
                                           back_prop=False)
        return a


def _infer_frame_shape(signal, frame_length, frame_step, pad_end, axis):
    frame_length, frame_step, axis = (constant_value(t) for t in (frame_length, frame_step, axis))
    if signal.shape.ndims is None:
        return None
    if axis is None:
        return [None] * (signal.shape.ndims + 1)
    dims = signal.shape.as_list()
    axis = int(axis)
    frame_axis = dims[axis]
    outer, inner = dims[:axis], dims[axis:][1:]
    num_frames = None
    if dims and frame_axis is not None:
        if frame_step is not None and pad_end:
            num_frames = max(0, -(-frame_axis // int(frame_step)))
        elif frame_step is not None and frame_length is not None:
            num_frames = max(0, (frame_axis - int(frame_length) + int(frame_step)) // int(frame_step))
    return outer + [num_frames, None if frame_length is None else int(frame_length)] + inner


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """``signal``'s ``axis`` cut into frames of ``frame_length`` samples, one every
    ``frame_step`` (the last ones padded with ``pad_value`` when ``pad_end``):
    ``[..., frames, frame_length, ...]``."""
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = convert_to_tensor(signal, name="signal")
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        axis = convert_to_tensor(axis, name="axis")
        signal.shape.with_rank_at_least(1)
        frame_length.shape.assert_has_rank(0)
        frame_step.shape.assert_has_rank(0)
        axis.shape.assert_has_rank(0)
        result_shape = _infer_frame_shape(signal, frame_length, frame_step, pad_end, axis)

        def maybe_constant(val):
            static = constant_value(val)
            return (static, True) if static is not None else (val, False)

        signal_shape, shape_static = maybe_constant(array_ops.shape(signal))
        axis, axis_static = maybe_constant(axis)
        if shape_static and axis_static:
            axis = range(len(signal_shape))[int(axis)]
            outer_dimensions, length_samples, inner_dimensions = np.split(signal_shape, [axis, axis + 1])
            length_samples = length_samples.item()
        else:
            signal_rank = array_ops.rank(signal)
            axis = math_ops.range(signal_rank)[axis]
            outer_dimensions, length_samples, inner_dimensions = array_ops.split(
                signal_shape, [axis, 1, signal_rank - 1 - axis])
            length_samples = array_ops.reshape(length_samples, [])
        num_outer_dimensions = array_ops.size(outer_dimensions)
        num_inner_dimensions = array_ops.size(inner_dimensions)
        if pad_end:
            pad_value = convert_to_tensor(pad_value, signal.dtype)
            pad_value.shape.assert_has_rank(0)
            num_frames = -(-length_samples // frame_step)
            pad_samples = math_ops.maximum(0, frame_length + frame_step * (num_frames - 1) - length_samples)
            paddings = array_ops.concat([array_ops.zeros([num_outer_dimensions, 2], dtype=pad_samples.dtype),
                                         convert_to_tensor([[0, pad_samples]]),
                                         array_ops.zeros([num_inner_dimensions, 2], dtype=pad_samples.dtype)], 0)
            signal = array_ops.pad(signal, paddings, constant_values=pad_value)
            signal_shape = array_ops.shape(signal)
            length_samples = signal_shape[axis]
        else:
            num_frames = math_ops.maximum(constant(0, dtype=frame_length.dtype),
                                          1 + (length_samples - frame_length) // frame_step)
        subframe_length, _ = maybe_constant(_gcd(frame_length, frame_step))
        subframes_per_frame = frame_length // subframe_length
        subframes_per_hop = frame_step // subframe_length
        num_subframes = length_samples // subframe_length
        slice_shape = array_ops.concat([outer_dimensions, [num_subframes * subframe_length], inner_dimensions], 0)
        subframe_shape = array_ops.concat([outer_dimensions, [num_subframes, subframe_length], inner_dimensions], 0)
        subframes = array_ops.reshape(array_ops.strided_slice(signal, array_ops.zeros_like(signal_shape), slice_shape),
                                      subframe_shape)
        frame_selector = array_ops.reshape(math_ops.range(num_frames, dtype=frame_length.dtype) * subframes_per_hop,
                                           [num_frames, 1])
        subframe_selector = array_ops.reshape(math_ops.range(subframes_per_frame, dtype=frame_length.dtype),
                                              [1, subframes_per_frame])
        selector = frame_selector + subframe_selector
        outer_dimensions = convert_to_tensor(outer_dimensions)
        inner_dimensions = convert_to_tensor(inner_dimensions, dtype=outer_dimensions.dtype)
        mid_dimensions = convert_to_tensor([num_frames, frame_length], dtype=outer_dimensions.dtype)
        frames = array_ops.reshape(array_ops.gather(subframes, selector, axis=axis),
                                   array_ops.concat([outer_dimensions, mid_dimensions, inner_dimensions], 0))
        if result_shape:
            frames.set_shape(result_shape)
        return frames


def _raised_cosine_window(name, default_name, window_length, periodic, dtype, a, b):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with name_scope(name, default_name, [window_length, periodic]):
        window_length = convert_to_tensor(window_length, dtype=dtypes.int32, name="window_length")
        window_length.shape.assert_has_rank(0)
        window_length_const = constant_value(window_length)
        if window_length_const == 1:
            return array_ops.ones([1], dtype=dtype)
        periodic = math_ops.cast(convert_to_tensor(periodic, dtype=dtypes.bool, name="periodic"), dtypes.int32)
        periodic.shape.assert_has_rank(0)
        with name_scope(None, "mod", [window_length]) as scope:  # TF's math_ops.mod
            remainder = math_ops.floormod(window_length, 2, name=scope)
        even = 1 - remainder
        n = math_ops.cast(window_length + periodic * even - 1, dtype=dtype)
        count = math_ops.cast(math_ops.range(window_length), dtype)
        cos_arg = constant(2 * np.pi, dtype=dtype) * count / n
        if window_length_const is not None:
            return math_ops.cast(a - b * math_ops.cos(cos_arg), dtype=dtype)
        return control_flow_ops.cond(math_ops.equal(window_length, 1),
                                     lambda: array_ops.ones([window_length], dtype=dtype),
                                     lambda: math_ops.cast(a - b * math_ops.cos(cos_arg), dtype=dtype))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """``0.5 - 0.5 cos(2 pi n / N)``, n < window_length."""
    return _raised_cosine_window(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """``0.54 - 0.46 cos(2 pi n / N)``, n < window_length."""
    return _raised_cosine_window(name, "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


def _enclosing_power_of_two(value):
    static = constant_value(value)
    if static is not None:
        return constant(int(2 ** np.ceil(np.log(static) / np.log(2.0))), value.dtype)
    return math_ops.cast(math_ops.pow(2.0, math_ops.ceil(math_ops.log(math_ops.cast(value, dtypes.float32))
                                                         / math_ops.log(2.0))), value.dtype)


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform: ``rfft`` of each windowed frame,
    ``[..., frames, fft_length // 2 + 1]``."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = convert_to_tensor(fft_length, name="fft_length")
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        return fft_ops.rfft(framed, [fft_length])


_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz):
    with name_scope(None, "hertz_to_mel", [frequencies_hertz]):
        frequencies_hertz = convert_to_tensor(frequencies_hertz)
        return _MEL_HIGH_FREQUENCY_Q * math_ops.log(1.0 + (frequencies_hertz / _MEL_BREAK_FREQUENCY_HERTZ))


def _validate_mel(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype):
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f" % (lower_edge_hertz, upper_edge_hertz))
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                             f"Got {upper_edge_hertz} for sample_rate: {sample_rate}")
    if not dtypes.as_dtype(dtype).is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=dtypes.float32, name=None):
    """``[num_spectrogram_bins, num_mel_bins]`` triangular mel filters: a linear
    spectrogram times it is a mel spectrogram."""
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, Tensor):
            static = constant_value(sample_rate)
            if static is not None:
                sample_rate = static
        _validate_mel(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
        sample_rate = math_ops.cast(sample_rate, dtype, name="sample_rate")
        lower_edge_hertz = convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
        upper_edge_hertz = convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
        zero = convert_to_tensor(0.0, dtype)
        bands_to_zero = 1
        nyquist_hertz = sample_rate / 2.0
        linear_frequencies = math_extras.linspace(zero, nyquist_hertz, num_spectrogram_bins)[bands_to_zero:]
        spectrogram_bins_mel = array_ops.expand_dims(_hertz_to_mel(linear_frequencies), 1)
        band_edges_mel = frame(math_extras.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz),
                                                    num_mel_bins + 2), frame_length=3, frame_step=1)
        lower_edge_mel, center_mel, upper_edge_mel = tuple(
            array_ops.reshape(t, [1, num_mel_bins]) for t in array_ops.split(band_edges_mel, 3, axis=1))
        lower_slopes = (spectrogram_bins_mel - lower_edge_mel) / (center_mel - lower_edge_mel)
        upper_slopes = (upper_edge_mel - spectrogram_bins_mel) / (upper_edge_mel - center_mel)
        mel_weights_matrix = math_ops.maximum(zero, math_ops.minimum(lower_slopes, upper_slopes))
        return array_ops.pad(mel_weights_matrix, [[bands_to_zero, 0], [0, 0]], name=scope)


def _validate_dct(input_tensor, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = input_tensor.shape.as_list()[-1] if input_tensor.shape.ndims else None
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _dct_internal(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    with name_scope(name, "dct", [input]):
        input = convert_to_tensor(input)
        zero = convert_to_tensor(0.0, dtype=input.dtype)
        last = input.shape.as_list()[-1] if input.shape.ndims else None
        seq_len = last or array_ops.shape(input)[-1]
        if n is not None:
            def truncate_input():
                return input[..., 0:n]

            def pad_input():
                rank = input.shape.ndims
                padding = [[0, 0] for _ in range(rank)]
                padding[rank - 1][1] = n - seq_len
                return array_ops.pad(input, paddings=convert_to_tensor(padding, dtype=dtypes.int32))
            input = smart_cond(n <= seq_len, truncate_input, pad_input)
        last = input.shape.as_list()[-1] if input.shape.ndims else None
        axis_dim = last or array_ops.shape(input)[-1]
        axis_dim_float = math_ops.cast(axis_dim, input.dtype)
        if type == 1:
            dct1_input = array_ops.concat([input, input[..., -2:0:-1]], axis=-1)
            return complex_ops.real(fft_ops.rfft(dct1_input))
        if type == 2:
            scale = 2.0 * math_ops.exp(complex_ops.complex(
                zero, -math_ops.range(axis_dim_float) * math.pi * 0.5 / axis_dim_float))
            dct2 = complex_ops.real(fft_ops.rfft(input, fft_length=[2 * axis_dim])[..., :axis_dim] * scale)
            if norm == "ortho":
                n1 = 0.5 * math_ops.rsqrt(axis_dim_float)
                n2 = n1 * math.sqrt(2.0)
                weights = array_ops.pad(array_ops.expand_dims(n1, 0), [[0, axis_dim - 1]], constant_values=n2)
                dct2 *= weights
            return dct2
        if type == 3:
            if norm == "ortho":
                n1 = math_ops.sqrt(axis_dim_float)
                n2 = n1 * math.sqrt(0.5)
                weights = array_ops.pad(array_ops.expand_dims(n1, 0), [[0, axis_dim - 1]], constant_values=n2)
                input *= weights
            else:
                input *= axis_dim_float
            scale = 2.0 * math_ops.exp(complex_ops.complex(
                zero, math_ops.range(axis_dim_float) * math.pi * 0.5 / axis_dim_float))
            return complex_ops.real(fft_ops.irfft(scale * complex_ops.complex(input, zero),
                                                  fft_length=[2 * axis_dim]))[..., :axis_dim]
        dct2 = _dct_internal(input, type=2, n=2 * axis_dim, axis=axis, norm=None)
        dct4 = dct2[..., 1::2]
        if norm == "ortho":
            dct4 *= math.sqrt(0.5) * math_ops.rsqrt(axis_dim_float)
        return dct4


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The discrete cosine transform (types I-IV) of ``input``'s last dimension."""
    _validate_dct(input, type, n, axis, norm)
    return _dct_internal(input, type, n, axis, norm, name)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The inverse DCT: a DCT of the inverse type (II <-> III); ``1 / (2 N)`` scaling
    is left to the caller unless ``norm='ortho'``."""
    _validate_dct(input, type, n, axis, norm)
    return _dct_internal(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm, name=name)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormally scaled type-II DCT of log mel spectrograms."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        log_mel_spectrograms = convert_to_tensor(log_mel_spectrograms)
        last = log_mel_spectrograms.shape.as_list()[-1] if log_mel_spectrograms.shape.ndims else None
        if last is not None:
            num_mel_bins = last
            if num_mel_bins == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {log_mel_spectrograms}")
        else:
            num_mel_bins = array_ops.shape(log_mel_spectrograms)[-1]
        dct2 = dct(log_mel_spectrograms, type=2)
        return dct2 * math_ops.rsqrt(math_ops.cast(num_mel_bins, dct2.dtype) * 2.0)


def overlap_and_add(signal, frame_step, name=None):
    """``[..., frames, frame_length]`` frames added back into ``[..., output_length]``
    samples, frame ``i`` starting at ``i * frame_step``."""
    with name_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(2)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if not frame_step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
        frame_step_static = constant_value(frame_step)
        frame_step_is_static = frame_step_static is not None
        frame_step = frame_step_static if frame_step_is_static else frame_step
        signal_shape = array_ops.shape(signal)
        signal_shape_static = constant_value(signal_shape)
        if signal_shape_static is not None:
            signal_shape = signal_shape_static
        outer_dimensions = signal_shape[:-2]
        outer_rank = array_ops.size(outer_dimensions)
        outer_rank_static = constant_value(outer_rank)
        if outer_rank_static is not None:
            outer_rank = outer_rank_static

        def full_shape(inner_shape):
            return array_ops.concat([outer_dimensions, inner_shape], 0)

        frame_length = signal_shape[-1]
        frames = signal_shape[-2]
        output_length = frame_length + frame_step * (frames - 1)
        last = signal.shape.as_list()[-1] if signal.shape.ndims else None
        if frame_step_is_static and signal.shape.ndims is not None and frame_step == last:
            return array_ops.reshape(signal, full_shape([output_length]), name="fast_path")
        segments = -(-frame_length // frame_step)
        paddings = [[0, segments], [0, segments * frame_step - frame_length]]
        outer_paddings = array_ops.zeros([outer_rank, 2], dtypes.int32)
        paddings = array_ops.concat([outer_paddings, paddings], 0)
        signal = array_ops.pad(signal, paddings)
        signal = array_ops.reshape(signal, full_shape([frames + segments, segments, frame_step]))
        perm = array_ops.concat([math_ops.range(outer_rank), outer_rank + np.array([1, 0, 2])], 0)
        perm_static = constant_value(perm)
        perm = perm_static if perm_static is not None else perm
        signal = array_ops.transpose(signal, perm)
        signal = array_ops.reshape(signal, full_shape([(frames + segments) * segments, frame_step]))
        signal = signal[..., :(frames + segments - 1) * segments, :]
        signal = array_ops.reshape(signal, full_shape([segments, (frames + segments - 1), frame_step]))
        signal = math_ops.reduce_sum(signal, -3)
        signal = array_ops.reshape(signal, full_shape([(frames + segments - 1) * frame_step]))
        return signal[..., :output_length]


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for :func:`inverse_stft` that undoes ``forward_window_fn``:
    the forward window divided by the sum of its squares at each overlap."""
    def inner(frame_length, dtype):
        with name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            frame_step_ = convert_to_tensor(frame_step, name="frame_step")
            frame_step_.shape.assert_has_rank(0)
            frame_length = convert_to_tensor(frame_length, name="frame_length")
            frame_length.shape.assert_has_rank(0)
            forward_window = forward_window_fn(frame_length, dtype=dtype)
            denom = math_ops.square(forward_window)
            overlaps = -(-frame_length // frame_step_)
            denom = array_ops.pad(denom, [(0, overlaps * frame_step_ - frame_length)])
            denom = array_ops.reshape(denom, [overlaps, frame_step_])
            denom = math_ops.reduce_sum(denom, 0, keepdims=True)
            denom = array_ops.tile(denom, [overlaps, 1])
            denom = array_ops.reshape(denom, [overlaps * frame_step_])
            denom = denom[:frame_length]
            return array_ops.where(math_ops.equal(denom, 0.0), array_ops.zeros_like(forward_window),
                                   forward_window / denom)
    return inner


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """Signals back from their STFTs: ``overlap_and_add`` of windowed ``irfft`` frames."""
    with name_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = convert_to_tensor(fft_length, name="fft_length")
            fft_length.shape.assert_has_rank(0)
        real_frames = fft_ops.irfft(stfts, [fft_length])
        frame_length_static = constant_value(frame_length)
        last = real_frames.shape.as_list()[-1] if real_frames.shape.ndims else None
        if frame_length_static is None or real_frames.shape.ndims is None or last is None:
            real_frames = real_frames[..., :frame_length]
            real_frames_rank = array_ops.rank(real_frames)
            real_frames_shape = array_ops.shape(real_frames)
            paddings = array_ops.concat(
                [array_ops.zeros([real_frames_rank - 1, 2], dtype=frame_length.dtype),
                 [[0, math_ops.maximum(0, frame_length - real_frames_shape[-1])]]], 0)
            real_frames = array_ops.pad(real_frames, paddings)
        elif last > frame_length_static:
            real_frames = real_frames[..., :frame_length_static]
        elif last < frame_length_static:
            real_frames = array_ops.pad(real_frames, [[0, 0]] * (real_frames.shape.ndims - 1)
                                        + [[0, int(frame_length_static) - last]])
        if frame_length_static is not None and real_frames.shape.ndims is not None:
            real_frames.set_shape([None] * (real_frames.shape.ndims - 1) + [int(frame_length_static)])
        if window_fn is not None:
            real = dtypes.float32 if stfts.dtype == dtypes.complex64 else dtypes.float64
            real_frames *= window_fn(frame_length, dtype=real)
        return overlap_and_add(real_frames, frame_step)
