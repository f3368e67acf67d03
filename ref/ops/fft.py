"""Fast Fourier transforms over the innermost 1, 2 or 3 dimensions (TF's
``spectral_ops``): ``FFT``/``IFFT`` (and ``2D``/``3D``) of complex input,
``RFFT``/``IRFFT`` (and ``2D``/``3D``) between real signals and their
non-redundant half spectra, cropped or zero-padded to ``fft_length``.

``FFT(x)[k] = sum_n x[n] exp(-2 pi i k n / N)``; ``IFFT`` uses ``exp(+...)`` and
divides by ``N``. ``RFFT`` keeps ``fft_length // 2 + 1`` bins of the innermost
dimension; ``IRFFT`` reads that many and returns ``fft_length`` real samples
(the imaginary parts of the DC and Nyquist bins are ignored, as a real
signal's are zero). NumPy's pocketfft computes them in the input's precision;
TF's CPU kernels use another FFT library, so the two agree to rounding.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_C = (dtypes.complex64, dtypes.complex128)
_R = (dtypes.float32, dtypes.float64)
_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _check_rank(x, rank, op):
    if x.ndim < rank:
        raise invalid_argument(f"{op}: input must have rank at least {rank} but got: {x.ndim}")


def _complex_fft(name, rank, inverse):
    fn = np.fft.ifftn if inverse else np.fft.fftn

    @register_op(name, inputs=("input",), outputs=("output",), type_attrs={"Tcomplex": "input"},
                 allowed={"Tcomplex": _C},
                 shape=lambda ins, attrs: [(ins["input"].dtype, _at_least(ins["input"].shape, rank, name, attrs))])
    def kernel(input):  # noqa: A002 - TF's name
        x = np.asarray(input)
        _check_rank(x, rank, name)
        if x.size == 0:
            return np.zeros(x.shape, x.dtype)
        return np.asarray(fn(x, axes=tuple(range(-rank, 0)))).astype(x.dtype, copy=False)

    kernel.__name__ = kernel.__qualname__ = name.lower()
    kernel.__doc__ = f"output = the {'inverse ' if inverse else ''}{rank}-D DFT of the innermost dimensions."
    return kernel


def _at_least(shape, rank, name, attrs):
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.ndims} for "
                         f"'{attrs.get('_op_name', name)}' (op: '{name}') with input shapes: {shape}.")
    return shape


for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    _complex_fft("FFT" + _suffix, _rank, False)
    _complex_fft("IFFT" + _suffix, _rank, True)


def _lengths(fft_length, rank, op):
    n = np.asarray(fft_length)
    if n.shape != (rank,):
        raise invalid_argument(f"{op}: fft_length must be a vector of {rank} elements, got shape {list(n.shape)}")
    n = [int(v) for v in n]
    if any(v < 0 for v in n):
        raise invalid_argument(f"{op}: fft_length must be non-negative, got {n}")
    return n


def _fit(x, shape, rank):
    """``x`` cropped or zero-padded in its innermost ``rank`` dimensions to ``shape``."""
    lead = x.ndim - rank
    crop = tuple(slice(None) for _ in range(lead)) + tuple(slice(0, min(d, s)) for d, s in zip(x.shape[lead:], shape))
    x = x[crop]
    pad = [(0, 0)] * lead + [(0, s - d) for d, s in zip(x.shape[lead:], shape)]
    return np.pad(x, pad) if any(p[1] for p in pad) else x


def _rfft_shape(rank, inverse):
    def shape(ins, attrs):
        s = ins["input"].shape
        out_dtype = dtypes.as_dtype(attrs.get("Treal" if inverse else "Tcomplex", _R[0] if inverse else _C[0]))
        if s.ndims is None:
            return [(out_dtype, unknown_shape())]
        dims = s.as_list()
        n = ins["fft_length"].value
        tail = [None] * rank
        if n is not None:
            n = [int(v) for v in np.asarray(n).reshape(-1)]
            tail = n[:-1] + [n[-1] if inverse else n[-1] // 2 + 1]
        return [(out_dtype, TensorShape(dims[:-rank] + tail))]
    return shape


def _real_fft(name, rank):
    @register_op(name, inputs=("input", "fft_length"), outputs=("output",), attrs={"Tcomplex": dtypes.complex64},
                 type_attrs={"Treal": "input"}, allowed={"Treal": _R},
                 input_types={"fft_length": dtypes.int32}, shape=_rfft_shape(rank, False))
    def kernel(input, fft_length, Tcomplex=dtypes.complex64):  # noqa: A002,N803 - TF's names
        x = np.asarray(input)
        _check_rank(x, rank, name)
        n = _lengths(fft_length, rank, name)
        out_dtype = np.dtype(dtypes.as_dtype(Tcomplex).as_numpy_dtype)
        x = _fit(x, n, rank)
        out_shape = x.shape[:-1] + (n[-1] // 2 + 1,)
        if x.size == 0 or 0 in out_shape:
            return np.zeros(out_shape, out_dtype)
        return np.asarray(np.fft.rfftn(x, axes=tuple(range(-rank, 0)))).astype(out_dtype, copy=False)

    kernel.__name__ = kernel.__qualname__ = name.lower()
    kernel.__doc__ = f"output = the {rank}-D DFT of a real signal, fft_length // 2 + 1 bins innermost."
    return kernel


def _inverse_real_fft(name, rank):
    @register_op(name, inputs=("input", "fft_length"), outputs=("output",), attrs={"Treal": dtypes.float32},
                 type_attrs={"Tcomplex": "input"}, allowed={"Tcomplex": _C},
                 input_types={"fft_length": dtypes.int32}, shape=_rfft_shape(rank, True))
    def kernel(input, fft_length, Treal=dtypes.float32):  # noqa: A002,N803 - TF's names
        x = np.asarray(input)
        _check_rank(x, rank, name)
        n = _lengths(fft_length, rank, name)
        out_dtype = np.dtype(dtypes.as_dtype(Treal).as_numpy_dtype)
        half = n[:-1] + [n[-1] // 2 + 1]
        x = _fit(x, half, rank)
        out_shape = x.shape[:-rank] + tuple(n)
        if 0 in out_shape or x.size == 0:
            return np.zeros(out_shape, out_dtype)
        return np.asarray(np.fft.irfftn(x, s=n, axes=tuple(range(-rank, 0)))).astype(out_dtype, copy=False)

    kernel.__name__ = kernel.__qualname__ = name.lower()
    kernel.__doc__ = f"output = the inverse {rank}-D DFT of a half spectrum: fft_length real samples innermost."
    return kernel


for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    _real_fft("RFFT" + _suffix, _rank)
    _inverse_real_fft("IRFFT" + _suffix, _rank)
