"""GraphDef identity with TensorFlow (``_graphdef.py``) for builders TF1 scripts
reach that ``ref`` lacked before: ``tf.math.cumulative_logsumexp`` and its
gradient, ``tf.histogram_fixed_width_bins``, ``tf.fingerprint``."""
import pytest

from ref.graph_ops import math_extras as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def cumulative_logsumexp_and_gradient(tf):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    y = tf.math.cumulative_logsumexp(x, axis=1, exclusive=True) + tf.math.cumulative_logsumexp(x, reverse=True)
    tf.gradients(y, [x])


CASES = [
    (cumulative_logsumexp_and_gradient, None),
]


@pytest.mark.parametrize("snippet", [
    pytest.param(f, id=f.__name__, marks=[pytest.mark.xfail(reason=why, strict=True)] if why else [])
    for f, why in CASES])
def test_graph_def_is_tensorflows(snippet):
    assert_same_graph(snippet)
