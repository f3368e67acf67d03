"""GraphDef identity with TensorFlow (``_graphdef.py``) for builders TF1 scripts
reach that ``ref`` lacked before: ``tf.math.cumulative_logsumexp`` and its
gradient, ``tf.histogram_fixed_width_bins``, ``tf.fingerprint``, ``tf.linalg.expm``
(and its gradient through the while loop), ``tf.linalg.sqrtm`` and its gradient,
``tf.math.approx_max_k`` / ``approx_min_k`` and their gradient."""
import pytest

from ref.graph_ops import math_extras as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def cumulative_logsumexp_and_gradient(tf):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    y = tf.math.cumulative_logsumexp(x, axis=1, exclusive=True) + tf.math.cumulative_logsumexp(x, reverse=True)
    tf.gradients(y, [x])


def histogram_bins_and_fingerprint(tf):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    tf.histogram_fixed_width_bins(x, [-1.0, 2.0], nbins=7)
    tf.histogram_fixed_width_bins(x, tf.constant([0.0, 1.0]), name="bins")
    tf.fingerprint(x)
    tf.fingerprint(tf.constant(["a", "b"]), name="fp")


def matrix_exponentials(tf):
    tf.linalg.expm(tf.placeholder(tf.float32, [2, 3, 3], name="a"))
    tf.linalg.expm(tf.placeholder(tf.float64, [None, 2, 2], name="b"), name="e64")


def matrix_exponential_gradient(tf):
    a = tf.placeholder(tf.float32, [3, 3], name="a")
    tf.gradients(tf.linalg.expm(a), [a])


def matrix_square_root_and_gradient(tf):
    a = tf.placeholder(tf.float64, [2, 3, 3], name="a")
    tf.gradients(tf.linalg.sqrtm(a) + tf.matrix_square_root(a, name="r"), [a])


def approx_top_k_and_gradient(tf):
    x = tf.placeholder(tf.float32, [2, 3, 6], name="x")
    v, i = tf.math.approx_max_k(x, 2)
    w, _ = tf.nn.approx_min_k(x, 1, reduction_dimension=1, recall_target=0.9, name="mink")
    tf.gradients([v, w], [x])


CASES = [
    (approx_top_k_and_gradient, None),
    (matrix_exponentials, None),
    (matrix_exponential_gradient, None),
    (matrix_square_root_and_gradient, None),
    (histogram_bins_and_fingerprint, None),
    (cumulative_logsumexp_and_gradient, None),
]


@pytest.mark.parametrize("snippet", [
    pytest.param(f, id=f.__name__, marks=[pytest.mark.xfail(reason=why, strict=True)] if why else [])
    for f, why in CASES])
def test_graph_def_is_tensorflows(snippet):
    assert_same_graph(snippet)
