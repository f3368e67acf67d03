"""``tf.signal.kaiser_window`` / ``kaiser_bessel_derived_window`` /
``vorbis_window`` against TF 2.21's ``tf.compat.v1``: values (lengths 1, odd,
even, a length tensor; float32 and float64; several betas) and GraphDefs;
TF's ValueError for an integer dtype."""
import numpy as np
import pytest

import ref
from ref.graph_ops import window_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph

ROWS = [
    ("kaiser-1", lambda tf: tf.signal.kaiser_window(1)),
    ("kaiser-odd", lambda tf: tf.signal.kaiser_window(9, beta=5.0)),
    ("kaiser-even-f64", lambda tf: tf.signal.kaiser_window(16, dtype=tf.float64)),
    ("kaiser-tensor-length", lambda tf: tf.signal.kaiser_window(tf.constant(7), beta=0.5, name="k")),
    ("kbd-even", lambda tf: tf.signal.kaiser_bessel_derived_window(12)),
    ("kbd-f64", lambda tf: tf.signal.kaiser_bessel_derived_window(10, beta=4.0, dtype=tf.float64)),
    ("vorbis", lambda tf: tf.signal.vorbis_window(8)),
    ("vorbis-f64", lambda tf: tf.signal.vorbis_window(tf.constant(5), dtype=tf.float64)),
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
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, atol=4 * np.finfo(want.dtype).eps)


@pytest.mark.parametrize("rid,build", ROWS, ids=[r[0] for r in ROWS])
def test_graph_def_is_tensorflows(rid, build):
    assert_same_graph(build)


def test_integer_dtype_is_a_value_error_as_tensorflow():
    real = pytest.importorskip("tensorflow")
    for tf in (real.compat.v1, ref):
        with tf.Graph().as_default(), pytest.raises(ValueError, match="dtype must be a floating point type"):
            tf.signal.vorbis_window(4, dtype=tf.int32)
