"""GraphDef identity rows from the third sweep of ref's TF1 builders: the
builders the second sweep left different (``tf.hessians``' while loop over a
TensorArray) and the families it covered thinly (tf.image, tf.data, feature
columns, distributions, schedules, RNN cells, metrics, losses, layers, tf.nn,
optimizers' slots and sparse paths), built the way users call them on
placeholders of known and unknown shapes, with ``tf.gradients`` of a scalar of
their float outputs, under ref and under TF 2.21's ``tf.compat.v1`` (TF1
behaviour). Each row is one builder (or gradient rule) the sweep found
different and that now builds TF's graph (``_graphdef.py``: names, op types,
attrs, data inputs in order, control inputs as a set, creation order).
"""
import numpy as np
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fed_values, tf_v1


def _x(tf, shape=(None, 3), name="x", dtype=None):
    return tf.placeholder(dtype or tf.float32, None if shape is None else list(shape), name=name)


def _grad(tf, y, xs):
    return tf.gradients(tf.reduce_sum(y), xs)


# -- tf.hessians: TF's while_loop writing one row per element of x into a TensorArray --

def hessians_known(tf):
    x = _x(tf, [3])
    tf.hessians(tf.reduce_sum(x * x * x), x)


def hessians_unknown_two_xs(tf):
    x = _x(tf, [None, 2])
    w = _x(tf, [2], "w")
    tf.hessians(tf.reduce_sum(tf.sin(x) * w * w), [x, w])


ROWS = {
    "hessians_known": hessians_known, "hessians_unknown_two_xs": hessians_unknown_two_xs,
}


@pytest.mark.parametrize("snippet", ROWS.values(), ids=list(ROWS))
def test_graph_is_tensorflows(snippet):
    assert_same_graph(snippet)


# -- values of what ref now builds differently ------------------------------------------

def _hessian_unknown_size(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.placeholder(tf.float32, [2], name="w")
    h = tf.hessians(tf.reduce_sum(tf.sin(x) * w * w), [x, w])
    return h, {x: np.array([[0.5, -1.0], [2.0, 0.25]], np.float32), w: np.array([1.5, -0.5], np.float32)}


@pytest.mark.parametrize("snippet", [_hessian_unknown_size], ids=["hessians_unknown_size"])
def test_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
