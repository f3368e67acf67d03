"""Builders that public TF1 tutorials run near-verbatim (tests/programs/
test_tf1_user_programs5.py: hunkim's "DeepLearningZeroToAll" labs, MorvanZhou's
Tensorflow-Tutorial) found apart from TF: ``softmax_cross_entropy_with_logits_v2``
with labels whose outer dimensions differ from the logits' but flatten to the
same matrix (``[labels]`` of shape ``[1, 4, 7]`` against ``[4, 7]`` logits; TF
judges only the flattened pair, in the op's shape function); the compat.v1
losses ``softmax_cross_entropy_with_logits``, ``sparse_...`` and ``sigmoid_...``
called by position as old tutorials call them (``(pred, y)``: TF 2.21 reads
``labels, logits`` in that order, no TF1 sentinel argument); and builders whose
positional order or keyword names were not TF 2.21's compat.v1 ones
(``confusion_matrix(..., num_classes, dtype, name, weights)``, ``top_k(...,
sorted, index_type, name)``, ``resize_bilinear/bicubic/nearest_neighbor(...,
align_corners, name, half_pixel_centers)``, ``nn.avg_pool2d(value=...)``,
``create_partitioned_variables(shape=...)``). Each row makes
TF's GraphDef node for node and TF's values; the error rows TF's error kind."""
import numpy as np
import pytest

import ref  # noqa: F401
from ref.graph_ops import nn_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fetched_values, tf_v1

LOGITS = np.random.RandomState(1).randn(4, 7).astype(np.float32)
ONE_HOT = np.eye(7, dtype=np.float32)[[0, 3, 6, 3]]


def _xent(logits, labels):
    def snippet(t):
        return t.nn.softmax_cross_entropy_with_logits_v2(logits=t.constant(logits), labels=t.constant(labels))
    return snippet


def _xent_listed(t):
    labels = t.reshape(t.one_hot(t.constant([[0], [3], [6], [3]]), 7), [-1, 7])
    return t.reduce_mean(t.nn.softmax_cross_entropy_with_logits_v2(logits=t.constant(LOGITS),
                                                                   labels=t.stop_gradient([labels])))


def _xent_listed_unknown(t):
    logits = t.placeholder_with_default(LOGITS, [None, 7])
    labels = t.placeholder_with_default(ONE_HOT, [None, 7])
    return t.nn.softmax_cross_entropy_with_logits(logits=logits, labels=[labels])


def _positional(t):
    logits = t.Variable(LOGITS)
    onehot = t.constant(ONE_HOT)
    soft = t.nn.softmax_cross_entropy_with_logits(onehot, logits)
    sparse = t.nn.sparse_softmax_cross_entropy_with_logits(t.constant([0, 3, 6, 3]), logits, "sparse")
    sig = t.nn.sigmoid_cross_entropy_with_logits(onehot, logits, "sig")
    swapped = t.nn.softmax_cross_entropy_with_logits(logits, onehot)  # labels=logits: stopped, no gradient
    total = t.reduce_sum(soft) + t.reduce_sum(sparse) + t.reduce_sum(sig) + t.reduce_sum(swapped)
    return [soft, sparse, sig, swapped, t.gradients(total, logits)[0]]


IMAGE = np.random.RandomState(2).rand(1, 3, 5, 2).astype(np.float32)


def _positional_orders(t):
    labels, predictions = t.constant([0, 1, 3, 3]), t.constant([0, 2, 3, 1])
    cm = t.confusion_matrix(labels, predictions, 4, t.float32, "cm")
    cm_math = t.math.confusion_matrix(labels, predictions, None, t.int64, "cm2", t.constant([1, 2, 3, 4], t.int64))
    values, indices = t.nn.top_k(t.constant(LOGITS), 3, True, t.int64, "best")
    image = t.constant(IMAGE)
    resized = [t.image.resize_bilinear(image, [4, 6], False, "rb"),
               t.image.resize_bicubic(image, [5, 3], True, "rc"),
               t.image.resize_nearest_neighbor(image, [6, 10], False, "rn", True)]
    pooled = t.nn.avg_pool2d(value=image, ksize=2, strides=1, padding="SAME")
    return [cm, cm_math, values, indices, pooled] + resized


def _partitioned(t):
    parts = t.create_partitioned_variables(shape=[4, 3], slicing=[2, 1], initializer=t.ones_initializer())
    return [t.identity(p) for p in parts]


SNIPPETS = {
    "builders_positional_orders": _positional_orders,
    "create_partitioned_variables_shape": _partitioned,
    "xent_losses_positional": _positional,
    "xent_v2_listed_labels": _xent_listed,
    "xent_listed_unknown_batch": _xent_listed_unknown,
    "xent_v2_3d_logits_2d_labels": _xent(LOGITS.reshape(2, 2, 7), ONE_HOT),
    "xent_v2_broadcast_row": _xent(LOGITS, ONE_HOT[:1]),
}

def _swapped_minimize(t):
    logits = t.matmul(t.constant(ONE_HOT), t.Variable(np.eye(7, dtype=np.float32)))
    cost = t.reduce_mean(t.nn.softmax_cross_entropy_with_logits(logits, t.constant(ONE_HOT)))  # old (logits, labels)
    return t.train.GradientDescentOptimizer(0.1).minimize(cost)


ERRORS = {
    "xent_positional_old_order_minimize": _swapped_minimize,
    "xent_v2_classes_differ": _xent(LOGITS, ONE_HOT[:, :5]),
    "xent_v2_rows_differ": _xent(LOGITS, ONE_HOT[:3]),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_graph_def(name):
    assert_same_graph(SNIPPETS[name])


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_values(name):
    got, want = fetched_values(ref, SNIPPETS[name]), fetched_values(tf_v1(), SNIPPETS[name])
    got, want = (list(v) if isinstance(v, list) else [v] for v in (got, want))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_static_errors(name):
    kinds = []
    for lib in (ref, tf_v1()):
        with pytest.raises(Exception) as err:
            fetched_values(lib, ERRORS[name])
        kinds.append(type(err.value).__name__)
    assert kinds[0] == kinds[1] == "ValueError"


def test_dimension_value_keyword():
    from ref.types.shapes import Dimension, dimension_value
    tf = tf_v1()
    assert [dimension_value(dimension=d) for d in (Dimension(3), Dimension(None), 5)] == \
        [tf.compat.dimension_value(dimension=d) for d in (tf.Dimension(3), tf.Dimension(None), 5)] == [3, None, 5]
