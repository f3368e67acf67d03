"""GraphDef identity with TensorFlow (``_graphdef.py``) for the builders the
third program set (``tests/programs/test_tf1_user_programs.py``) found
building a graph other than TF's: ``get_variable(regularizer=...)`` (TF 2.x
checks the regularizer once in the caller's name scope and collects a lazy
tensor whose every use builds a new copy in ``<var>/Regularizer/``), the
loss weights' run-time broadcast check (``has_valid_nonscalar_shape`` /
``has_invalid_dims`` with a set difference), ``tf.scan`` with an
initializer over a length known only at run time, and
``tf.layers.batch_normalization`` with a tensor ``training`` (the moving
average updates inside ``tf.cond``), ``renorm``, ``virtual_batch_size`` and
``adjustment``. Also: the values those graphs compute, against TF."""
import numpy as np
import pytest

from ref.graph_ops import variable_scope as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1

import ref


def scoped_regularizers(tf):
    with tf.variable_scope("net", regularizer=lambda w: 0.5 * tf.nn.l2_loss(w)):
        w = tf.get_variable("w", [3, 2])
        tf.get_variable("b", [2], regularizer=None)
        tf.get_variable("v", [2], regularizer=lambda v: tf.reduce_sum(tf.abs(v), name="l1"))
        tf.get_variable("n", [2], regularizer=lambda v: None)
    total = tf.losses.get_regularization_loss()
    summed = tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    first = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)[0]
    return [total, summed, first * 2.0, tf.matmul(tf.ones([1, 3]), w) + first]


def loss_weights_of_unknown_rank(tf):
    labels = tf.placeholder(tf.float32, [None, 3], name="labels")
    logits = tf.placeholder(tf.float32, [None, 3], name="logits")
    weights = tf.placeholder(tf.float32, None, name="weights")
    return [tf.losses.softmax_cross_entropy(labels, logits, weights=weights),
            tf.losses.mean_squared_error(labels, logits, weights=tf.placeholder(tf.float32, [None, 1]))]


def scan_with_initializer_over_dynamic_length(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    return [tf.scan(lambda a, v: a + v, x, initializer=tf.constant(0.0)),
            tf.scan(lambda a, v: a * v, x, reverse=True),
            tf.scan(lambda a, v: a - v, x, initializer=1.0, reverse=True)]


ROWS = [
    pytest.param(scoped_regularizers, id="scoped_regularizers"),
    pytest.param(loss_weights_of_unknown_rank, id="loss_weights_of_unknown_rank"),
    pytest.param(scan_with_initializer_over_dynamic_length, id="scan_with_initializer_over_dynamic_length"),
]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)


def _values(lib, snippet, feeds):
    with lib.Graph().as_default():
        lib.set_random_seed(1)
        outputs = snippet(lib)
        graph = lib.get_default_graph()
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            feed = {graph.get_tensor_by_name(k): v for k, v in feeds.items()}
            fetched = sess.run(outputs, feed_dict=feed)
            collected = sess.run(lib.get_collection(lib.GraphKeys.REGULARIZATION_LOSSES))
            return fetched, collected


VALUE_ROWS = [
    pytest.param(scoped_regularizers, {}, id="scoped_regularizers"),
    pytest.param(loss_weights_of_unknown_rank,
                 {"labels:0": np.eye(3, dtype=np.float32)[[0, 2]], "logits:0": np.arange(6, dtype=np.float32).reshape(2, 3),
                  "weights:0": np.array([0.5, 2.0], np.float32), "Placeholder:0": np.ones([2, 1], np.float32)},
                 id="loss_weights_of_unknown_rank"),
    pytest.param(scan_with_initializer_over_dynamic_length, {"x:0": np.array([1.0, 2.0, 3.0], np.float32)},
                 id="scan_with_initializer_over_dynamic_length"),
]


@pytest.mark.parametrize("snippet,feeds", VALUE_ROWS)
def test_same_values_as_tf(snippet, feeds):
    """The outputs and the fetched REGULARIZATION_LOSSES entries (a lazy
    tensor fetches its first copy) equal TF's."""
    with tf1_behaviour():
        want = _values(tf_v1(), snippet, feeds)
    got = _values(ref, snippet, feeds)
    for g, w in zip(got[0] + got[1], want[0] + want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert len(got[1]) == len(want[1])
