"""tf.signal's frame / hann_window / hamming_window / stft /
linear_to_mel_weight_matrix / mfccs / dct / idct (ref/graph_ops/signal_ops.py)
against TF 2.21 (tf.compat.v1, TF1 behaviour): GraphDefs node for node and
values to FFT rounding, for static and unknown shapes; TF's argument errors."""
import numpy as np
import pytest

from ref.graph_ops import signal_ops  # noqa: F401  (the builders under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_RNG = np.random.default_rng(21)
SIG = _RNG.standard_normal((2, 300)).astype(np.float32)
X = _RNG.standard_normal((3, 16)).astype(np.float32)


def framing_and_windows(tf):
    s = tf.placeholder(tf.float32, [2, 300], name="s")
    u = tf.placeholder(tf.float32, [None, None], name="u")
    n = tf.placeholder(tf.int32, [], name="n")
    outs = [tf.signal.frame(s, 64, 32), tf.signal.frame(s, 50, 20, pad_end=True, pad_value=1.5),
            tf.signal.frame(s, 10, 4, axis=0, pad_end=True), tf.signal.frame(u, 16, 8),
            tf.signal.hann_window(16), tf.signal.hann_window(15, periodic=False), tf.signal.hamming_window(31),
            tf.signal.hamming_window(1), tf.signal.hann_window(n, dtype=tf.float64)]
    return outs, {s: SIG, u: SIG, n: 9}


def spectra(tf):
    s = tf.placeholder(tf.float32, [2, 300], name="s")
    spec = tf.signal.stft(s, 64, 32)
    spec2 = tf.signal.stft(s, 50, 25, fft_length=100, window_fn=tf.signal.hamming_window, pad_end=True)
    mel_w = tf.signal.linear_to_mel_weight_matrix(20, 33, 8000, 125.0, 3800.0)
    mel = tf.tensordot(tf.abs(spec), mel_w, 1)
    mfcc = tf.signal.mfccs_from_log_mel_spectrograms(tf.log(mel + 1e-6))
    return [spec, spec2, mel_w, mfcc], {s: SIG}


def dcts(tf):
    x = tf.placeholder(tf.float32, [3, 16], name="x")
    outs = [tf.signal.dct(x, type=t) for t in (1, 2, 3, 4)]
    outs += [tf.signal.dct(x, type=t, norm="ortho") for t in (2, 3, 4)]
    outs += [tf.signal.idct(x, type=t) for t in (1, 2, 3, 4)]
    outs += [tf.signal.dct(x, n=10), tf.signal.dct(x, type=2, n=20), tf.spectral.dct(x)]
    return outs, {x: X}


def reconstruction(tf):
    s = tf.placeholder(tf.float32, [2, 300], name="s")
    u = tf.placeholder(tf.float32, [None, None, None], name="u")
    spec = tf.signal.stft(s, 64, 16)
    outs = [tf.signal.inverse_stft(spec, 64, 16, window_fn=tf.signal.inverse_stft_window_fn(16)),
            tf.signal.inverse_stft(spec, 60, 16, fft_length=64), tf.signal.overlap_and_add(tf.reshape(s, [2, 6, 50]), 20),
            tf.signal.overlap_and_add(tf.reshape(s, [2, 6, 50]), 50), tf.signal.overlap_and_add(u, 7)]
    return outs, {s: SIG, u: SIG.reshape(2, 10, 30)}


SNIPPETS = [framing_and_windows, spectra, dcts, reconstruction]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda f: f.__name__)
def test_graph_def_is_tensorflows(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda f: f.__name__)
def test_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("call", [
    lambda tf: tf.signal.linear_to_mel_weight_matrix(0),
    lambda tf: tf.signal.linear_to_mel_weight_matrix(20, 129, 8000, 3000.0, 2000.0),
    lambda tf: tf.signal.linear_to_mel_weight_matrix(20, 129, 8000, 125.0, 5000.0),
    lambda tf: tf.signal.dct(tf.ones([2, 4]), type=5),
    lambda tf: tf.signal.dct(tf.ones([2, 4]), type=1, norm="ortho"),
    lambda tf: tf.signal.hann_window(4, dtype=tf.int32),
])
def test_argument_errors_are_tfs(call):
    import ref
    for lib in (ref, tf_v1()):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            call(lib)
