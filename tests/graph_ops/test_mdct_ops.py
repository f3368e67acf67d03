"""``tf.signal.mdct`` / ``inverse_mdct`` against TF 2.21's ``tf.compat.v1``:
values (Vorbis, Kaiser-Bessel-derived and no window, ``norm="ortho"``,
``pad_end``, batches, a frame length only known at run time) and GraphDefs;
TF's ValueError for a frame length that is not a multiple of 4."""
import numpy as np
import pytest

import ref
from ref.graph_ops import mdct_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph

SIG = np.random.default_rng(3).normal(size=(2, 64)).astype(np.float32)
ROWS = [
    ("mdct", lambda tf: tf.signal.mdct(tf.constant(SIG), 16)),
    ("mdct-ortho-kbd-pad", lambda tf: tf.signal.mdct(tf.constant(SIG[0]), 8, pad_end=True, norm="ortho",
                                                     window_fn=tf.signal.kaiser_bessel_derived_window)),
    ("mdct-no-window-f64", lambda tf: tf.signal.mdct(tf.constant(SIG.astype(np.float64)), 12, window_fn=None)),
    ("mdct-dynamic-length", lambda tf: tf.signal.mdct(tf.constant(SIG), tf.placeholder_with_default(8, []))),
    ("inverse", lambda tf: tf.signal.inverse_mdct(tf.signal.mdct(tf.constant(SIG), 16))),
    ("inverse-ortho-no-window", lambda tf: tf.signal.inverse_mdct(
        tf.constant(SIG.reshape(2, 8, 8)), window_fn=None, norm="ortho")),
]


def _run(tf, build):
    with tf.Graph().as_default():
        out = build(tf)
        with tf.Session() as sess:
            return sess.run(out)


@pytest.mark.parametrize("rid,build", ROWS, ids=[r[0] for r in ROWS])
def test_values_are_tensorflows(rid, build):
    real = pytest.importorskip("tensorflow")
    got, want = _run(ref, build), _run(real.compat.v1, build)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("rid,build", ROWS, ids=[r[0] for r in ROWS])
def test_graph_def_is_tensorflows(rid, build):
    assert_same_graph(build)


def test_frame_length_not_multiple_of_4_as_tensorflow():
    real = pytest.importorskip("tensorflow")
    for tf in (real.compat.v1, ref):
        with tf.Graph().as_default(), pytest.raises(ValueError, match="multiple of 4"):
            tf.signal.mdct(tf.constant(SIG), 10)
