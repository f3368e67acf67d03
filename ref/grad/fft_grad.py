"""Gradients of the Fourier transforms (TF's ``fft_ops``): the DFT is linear, so
``d FFT = N * IFFT(grad)`` and ``d IFFT = FFT(grad) / N`` (N the transform's
size); an ``RFFT``'s gradient is ``IRFFT(grad) * N / 2`` plus the terms of the
bins Hermitian symmetry dropped, an ``IRFFT``'s is ``RFFT(grad) / N`` with the
bins other than DC (and Nyquist for even lengths) doubled. TF registers none
for ``RFFT3D``/``IRFFT3D``."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.tensor_util import constant_value
from ref.grad.registry import RegisterGradient
from ref.graph_ops import array_ops, complex_ops, fft_ops, math_ops


def _size(t, rank):
    return math_ops.reduce_prod(array_ops.shape(t)[-rank:])


def _forward(inverse_fn, rank):
    def rule(op, grad):
        size = math_ops.cast(_size(grad, rank), grad.dtype)
        return inverse_fn(grad) * size
    return rule


def _inverse(forward_fn, rank):
    def rule(op, grad):
        real = dtypes.float32 if grad.dtype == dtypes.complex64 else dtypes.float64
        rsize = math_ops.cast(1. / math_ops.cast(_size(grad, rank), real), grad.dtype)
        return forward_fn(grad) * rsize
    return rule


for _r, _s, _f, _i in ((1, "", fft_ops.fft, fft_ops.ifft), (2, "2D", fft_ops.fft2d, fft_ops.ifft2d),
                       (3, "3D", fft_ops.fft3d, fft_ops.ifft3d)):
    RegisterGradient("FFT" + _s)(_forward(_i, _r))
    RegisterGradient("IFFT" + _s)(_inverse(_f, _r))


def _rfft_grad(rank, irfft_fn):
    def rule(op, grad):
        fft_length = op.inputs[1]
        complex_dtype = grad.dtype
        real_dtype = dtypes.float32 if complex_dtype == dtypes.complex64 else dtypes.float64
        input_shape = array_ops.shape(op.inputs[0])
        is_even = math_ops.cast(1 - (fft_length[-1] % 2), complex_dtype)

        def tile_for_broadcasting(matrix, t):
            expanded = array_ops.reshape(matrix, array_ops.concat(
                [array_ops.ones([array_ops.rank(t) - 2], dtypes.int32), array_ops.shape(matrix)], 0))
            return array_ops.tile(expanded, array_ops.concat([array_ops.shape(t)[:-2], [1, 1]], 0))

        def mask_matrix(length):
            """t[n, m] = exp(-2 pi i n m / length)."""
            a = array_ops.tile(array_ops.expand_dims(math_ops.range(length), 0), (length, 1))
            b = array_ops.transpose(a, [1, 0])
            return math_ops.exp(-2j * np.pi * math_ops.cast(a * b, complex_dtype)
                                / math_ops.cast(length, complex_dtype))

        def ymask(length):
            """1, -1, 1, -1, ... (complex)."""
            return math_ops.cast(1 - 2 * (math_ops.range(length) % 2), complex_dtype)

        y0 = grad[..., 0:1]
        if rank == 1:
            ym = grad[..., -1:]
            extra_terms = y0 + is_even * ym * ymask(input_shape[-1])
        else:
            tiled_mask = tile_for_broadcasting(mask_matrix(input_shape[-2]), y0)
            extra_terms = math_ops.matmul(tiled_mask, complex_ops.conj(y0))
            ym = grad[..., -1:]
            ym_term = math_ops.matmul(tiled_mask, complex_ops.conj(ym))
            inner_dim = input_shape[-1]
            ym_term = array_ops.tile(ym_term, array_ops.concat(
                [array_ops.ones([array_ops.rank(grad) - 1], dtypes.int32), [inner_dim]], 0)) * ymask(inner_dim)
            extra_terms += is_even * ym_term
        input_size = math_ops.cast(_size(op.inputs[0], rank), real_dtype)
        the_irfft = irfft_fn(grad, fft_length)
        return 0.5 * (the_irfft * input_size + complex_ops.real(extra_terms)), None
    return rule


def _irfft_grad(rank, rfft_fn):
    def rule(op, grad):
        fft_length = op.inputs[1]
        static = constant_value(fft_length)
        if static is not None:
            fft_length = static
        real_dtype = grad.dtype
        complex_dtype = dtypes.complex64 if real_dtype == dtypes.float32 else dtypes.complex128
        with name_scope(None, "mod", [fft_length]) as scope:  # TF's math_ops.mod: FloorMod in a "mod" scope
            is_odd = math_ops.floormod(fft_length[-1], 2, name=scope)
        input_last_dimension = array_ops.shape(op.inputs[0])[-1]
        mask = array_ops.concat([[1.0], 2.0 * array_ops.ones([input_last_dimension - 2 + is_odd], real_dtype),
                                 array_ops.ones([1 - is_odd], real_dtype)], 0)
        rsize = math_ops.reciprocal(math_ops.cast(_size(grad, rank), real_dtype))
        the_rfft = rfft_fn(grad, fft_length)
        return the_rfft * math_ops.cast(rsize * mask, complex_dtype), None
    return rule


RegisterGradient("RFFT")(_rfft_grad(1, fft_ops.irfft))
RegisterGradient("IRFFT")(_irfft_grad(1, fft_ops.rfft))
RegisterGradient("RFFT2D")(_rfft_grad(2, fft_ops.irfft2d))
RegisterGradient("IRFFT2D")(_irfft_grad(2, fft_ops.rfft2d))
