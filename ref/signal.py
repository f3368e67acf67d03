"""``tf.signal``: Fourier transforms (``ref/graph_ops/fft_ops.py``)."""
from ref.graph_ops.fft_ops import *  # noqa: F401,F403
from ref.graph_ops.fft_ops import __all__  # noqa: F401

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.signal", name)
