"""``tf.signal.fft`` ... ``irfft3d`` (TF1's ``tf.fft``, ``tf.spectral.*``) and
``fftshift``/``ifftshift``, building TF's ``fft_ops`` graphs: the complex
transforms are the raw ops; the real ones infer ``fft_length`` from the input's
innermost dimensions (a ``Const`` when they are static, ``Shape`` slices
otherwise) and zero-pad the input up to it first."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value, constant_value_as_shape
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.math_special import roll

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d",
           "irfft3d", "fftshift", "ifftshift"]


def _raw(op_type, fname):
    def fn(input, name=None):  # noqa: A002 - TF's name
        return apply_op(op_type, input=input, name=name)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"The {'inverse ' if op_type.startswith('I') else ''}DFT over the innermost dimensions ({op_type})."
    return fn


fft, ifft = _raw("FFT", "fft"), _raw("IFFT", "ifft")
fft2d, ifft2d = _raw("FFT2D", "fft2d"), _raw("IFFT2D", "ifft2d")
fft3d, ifft3d = _raw("FFT3D", "fft3d"), _raw("IFFT3D", "ifft3d")


def _fft_length_for_rfft(x, rank):
    dims = x.shape[-rank:]
    if not dims.is_fully_defined():
        return array_ops.shape(x)[-rank:]
    return convert_to_tensor(dims.as_list(), dtypes.int32)


def _fft_length_for_irfft(x, rank):
    dims = x.shape[-rank:]
    if not dims.is_fully_defined():
        lengths = array_ops.unstack(array_ops.shape(x)[-rank:])
        lengths[-1] = math_ops.maximum(0, 2 * (lengths[-1] - 1))
        return array_ops.stack(lengths)
    lengths = dims.as_list()
    if lengths:
        lengths[-1] = max(0, 2 * (lengths[-1] - 1))
    return convert_to_tensor(lengths, dtypes.int32)


def _maybe_pad(x, rank, fft_length, is_reverse=False):
    """``x`` zero-padded in its innermost ``rank`` dimensions up to ``fft_length``
    (its last one to ``fft_length // 2 + 1`` for an inverse transform)."""
    fft_shape = constant_value_as_shape(fft_length)
    if x.shape.ndims is not None and any(d == 0 for d in x.shape.as_list()):
        return x
    if fft_shape.is_fully_defined() and x.shape.ndims is not None:
        input_fft_shape = x.shape[-fft_shape.ndims:]
        if input_fft_shape.is_fully_defined():
            want = fft_shape.as_list()
            if is_reverse:
                want[-1] = want[-1] // 2 + 1
            paddings = [[0, max(f - i, 0)] for f, i in zip(want, input_fft_shape.as_list())]
            if any(p > 0 for _, p in paddings):
                outer = [[0, 0]] * max(x.shape.ndims - fft_shape.ndims, 0)
                return array_ops.pad(x, outer + paddings)
            return x
    input_rank = array_ops.rank(x)
    input_fft_shape = array_ops.shape(x)[-rank:]
    outer_dims = math_ops.maximum(0, input_rank - rank)
    outer_paddings = array_ops.zeros([outer_dims], fft_length.dtype)
    if is_reverse:
        fft_length = array_ops.concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    fft_paddings = math_ops.maximum(0, fft_length - input_fft_shape)
    paddings = array_ops.concat([outer_paddings, fft_paddings], 0)
    paddings = array_ops.stack([array_ops.zeros_like(paddings), paddings], axis=1)
    return array_ops.pad(x, paddings)


def _rfft_builder(op_type, rank, default_name):
    def fn(input_tensor, fft_length=None, name=None):
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            x = convert_to_tensor(input_tensor, dtype_hint=dtypes.float32)
            if x.dtype not in (dtypes.float32, dtypes.float64):
                raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
            complex_dtype = dtypes.complex64 if x.dtype == dtypes.float32 else dtypes.complex128
            x.shape.with_rank_at_least(rank)
            if fft_length is None:
                fft_length = _fft_length_for_rfft(x, rank)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            x = _maybe_pad(x, rank, fft_length)
            static = constant_value(fft_length)
            if static is not None:
                fft_length = static
            return apply_op(op_type, input=x, fft_length=fft_length, Tcomplex=complex_dtype, name=scope)

    fn.__name__ = fn.__qualname__ = default_name
    fn.__doc__ = f"The {rank}-D DFT of a real signal: fft_length // 2 + 1 bins innermost ({op_type})."
    return fn


def _irfft_builder(op_type, rank, default_name):
    def fn(input_tensor, fft_length=None, name=None):
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            x = convert_to_tensor(input_tensor, dtype_hint=dtypes.complex64)
            x.shape.with_rank_at_least(rank)
            if x.dtype not in (dtypes.complex64, dtypes.complex128):
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}")
            real_dtype = dtypes.float32 if x.dtype == dtypes.complex64 else dtypes.float64
            if fft_length is None:
                fft_length = _fft_length_for_irfft(x, rank)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            x = _maybe_pad(x, rank, fft_length, is_reverse=True)
            static = constant_value(fft_length)
            if static is not None:
                fft_length = static
            return apply_op(op_type, input=x, fft_length=fft_length, Treal=real_dtype, name=scope)

    fn.__name__ = fn.__qualname__ = default_name
    fn.__doc__ = f"The inverse {rank}-D DFT of a half spectrum: fft_length real samples innermost ({op_type})."
    return fn


rfft, irfft = _rfft_builder("RFFT", 1, "rfft"), _irfft_builder("IRFFT", 1, "irfft")
rfft2d, irfft2d = _rfft_builder("RFFT2D", 2, "rfft2d"), _irfft_builder("IRFFT2D", 2, "irfft2d")
rfft3d, irfft3d = _rfft_builder("RFFT3D", 3, "rfft3d"), _irfft_builder("IRFFT3D", 3, "irfft3d")


def _shift(x, axes, name, default_name, sign):
    with name_scope(name, default_name) as scope:
        x = convert_to_tensor(x)
        if axes is None:
            axes = tuple(range(x.shape.ndims))
            shift = array_ops.shape(x) // 2
        elif isinstance(axes, int):
            shift = array_ops.shape(x)[axes] // 2
        else:
            rank = array_ops.rank(x)
            axes = array_ops.where(math_ops.less(axes, 0), axes + rank, axes)
            shift = array_ops.gather(array_ops.shape(x), axes) // 2
        if sign < 0:
            shift = -shift
        return roll(x, shift, axes, scope)


def fftshift(x, axes=None, name=None):
    """``x`` rolled so that the zero-frequency bin is at the centre of ``axes``."""
    return _shift(x, axes, name, "fftshift", 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, name, "ifftshift", -1)
