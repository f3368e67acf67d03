"""tf.signal's Fourier transforms (ref/ops/fft.py, ref/graph_ops/fft_ops.py,
ref/grad/fft_grad.py) against TF 2.21 (tf.compat.v1, TF1 behaviour): the
GraphDefs (fft_length inferred or given, padding, gradients), the values to
FFT rounding, and the gradients' values."""
import numpy as np
import pytest

from ref.graph_ops import fft_ops  # noqa: F401  (the builders under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_RNG = np.random.default_rng(9)
X = _RNG.standard_normal((2, 6, 8)).astype(np.float32)
W = _RNG.standard_normal((2, 6, 5)).astype(np.float32)


def transforms(tf):
    x = tf.placeholder(tf.float32, [2, 6, 8], name="x")
    u = tf.placeholder(tf.float32, [None, None], name="u")
    c = tf.complex(x, x[::-1])
    outs = [tf.signal.fft(c), tf.signal.ifft(c), tf.signal.fft2d(c), tf.signal.ifft2d(c), tf.signal.fft3d(c),
            tf.signal.ifft3d(c), tf.signal.rfft(x), tf.signal.rfft(x, [12]), tf.signal.rfft(x, [5]),
            tf.signal.irfft(tf.signal.rfft(x)), tf.signal.irfft(tf.signal.rfft(x), [7]), tf.signal.rfft2d(x),
            tf.signal.irfft2d(tf.signal.rfft2d(x, [4, 10])), tf.signal.rfft3d(x), tf.signal.rfft(u),
            tf.signal.irfft(tf.complex(u, u)), tf.signal.fftshift(x), tf.signal.ifftshift(x, axes=[1, -1]),
            tf.signal.fftshift(x, axes=1), tf.spectral.rfft(x), tf.fft(c)]
    return outs, {x: X, u: X[0]}


def gradients(tf):
    x = tf.placeholder(tf.float32, [2, 6, 8], name="x")
    c = tf.complex(x, x * 0.5)
    w = tf.constant(W)
    loss = (tf.reduce_sum(tf.abs(tf.signal.fft(c))) + tf.reduce_sum(tf.real(tf.signal.ifft2d(c)) * x)
            + tf.reduce_sum(tf.abs(tf.signal.rfft(x)) * w) + tf.reduce_sum(tf.signal.irfft(tf.signal.rfft2d(x)) ** 2)
            + tf.reduce_sum(tf.abs(tf.signal.rfft2d(x))) + tf.reduce_sum(tf.signal.irfft2d(tf.complex(x, x))))
    return tf.gradients(loss, [x]), {x: X}


@pytest.mark.parametrize("snippet", [transforms, gradients], ids=lambda f: f.__name__)
def test_graph_def_is_tensorflows(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", [transforms, gradients], ids=lambda f: f.__name__)
def test_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4 * max(1.0, np.abs(w).max()))


@pytest.mark.parametrize("op,kw", [
    ("RFFT", dict(input=np.float32([1, 2, 3]), fft_length=np.int32([2, 2]))),
    ("FFT", dict(input=np.complex64(1))),
])
def test_bad_arguments_are_invalid_argument_in_both(op, kw):
    import ref
    from ref.ops import registry
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(ref.errors.InvalidArgumentError):
        registry.call(op, **kw)
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        getattr(tf.raw_ops, op)(**kw)
