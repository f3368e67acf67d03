"""``tf.signal``: Fourier transforms (``ref/graph_ops/fft_ops.py``), framing, windows, STFT, mel
filterbanks, MFCCs and DCTs (``ref/graph_ops/signal_ops.py``)."""
from ref.graph_ops.fft_ops import *  # noqa: F401,F403
from ref.graph_ops.fft_ops import __all__ as _fft_all
from ref.graph_ops.signal_ops import *  # noqa: F401,F403
from ref.graph_ops.signal_ops import __all__ as _signal_all

from ref.graph_ops.window_ops import *  # noqa: F401,F403,E402
from ref.graph_ops.window_ops import __all__ as _window_all  # noqa: E402
from ref.graph_ops.mdct_ops import inverse_mdct, mdct  # noqa: F401,E402

__all__ = list(_fft_all) + list(_signal_all) + list(_window_all) + ["mdct", "inverse_mdct"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.signal", name)
