"""``tf.spectral`` (TF 1.x): the Fourier transforms under their old namespace."""
from ref.graph_ops.fft_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d  # noqa: F401,E501

from ref.graph_ops.signal_ops import dct, idct  # noqa: F401,E402

__all__ = ["dct", "idct", "fft", "fft2d", "fft3d", "ifft", "ifft2d", "ifft3d", "irfft", "irfft2d", "irfft3d", "rfft", "rfft2d",
           "rfft3d"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.spectral", name)
