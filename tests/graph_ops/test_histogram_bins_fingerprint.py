"""``tf.histogram_fixed_width_bins`` and ``tf.fingerprint`` run in a Session,
against TF 2.21's ``tf.compat.v1`` graphs on the same inputs: bin indices
(edges, outliers, float64, ``nbins`` as a tensor) and the InvalidArgumentError
of ``nbins <= 0``; fingerprints of numbers and strings."""
import numpy as np
import pytest

import ref
from ref.graph_ops import counting_ops as _under_test  # noqa: F401

X = np.float32([[-2.0, -1.0, 0.0, 0.3], [1.0, 1.999, 2.0, 5.0]])
ROWS = [
    ("float32", lambda tf: tf.histogram_fixed_width_bins(tf.constant(X), [-1.0, 2.0], nbins=7)),
    ("float64-default-nbins", lambda tf: tf.histogram_fixed_width_bins(tf.constant(X.astype(np.float64) * 3),
                                                                        tf.constant([0.0, 10.0], tf.float64))),
    ("nbins-tensor", lambda tf: tf.histogram_fixed_width_bins(tf.constant(X[0]), [0.0, 1.0],
                                                               nbins=tf.constant(3), dtype=tf.int64)),
    ("fingerprint-numbers", lambda tf: tf.fingerprint(tf.constant(X))),
    ("fingerprint-strings", lambda tf: tf.fingerprint(tf.constant([["a", "b"], ["", "cd"]]))),
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
    np.testing.assert_array_equal(got, want)


def test_nonpositive_nbins_fails_as_tensorflow():
    real = pytest.importorskip("tensorflow")
    for tf, err in ((real.compat.v1, real.errors.InvalidArgumentError), (ref, ref.errors.InvalidArgumentError)):
        with pytest.raises(err, match="must > 0"):
            _run(tf, lambda tf: tf.histogram_fixed_width_bins(tf.constant(X), [0.0, 1.0],
                                                              nbins=tf.placeholder_with_default(0, [])))
