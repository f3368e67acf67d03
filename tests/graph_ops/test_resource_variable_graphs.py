"""GraphDef identity with TF for the TF1 builders on resource variables (the
variables Keras makes): the handle's ``debug_name``, colocation with the
handle op, ``assign_add`` / ``assign_sub`` (TF drops their ``name``), ``cast``
of a same-dtype variable (unread), ``fused_batch_norm``'s offset read, and
``embedding_lookup`` colocation. One snippet per row, built under ref and
under TF 2.21's ``tf.compat.v1`` and compared node for node
(``_graphdef.py``)."""
import numpy as np
import pytest

from ref.graph_ops import resource_variable_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def _rv(tf, name="v", shape=(3,)):
    return tf.Variable(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), name=name, use_resource=True)


def resource_variable_creation(tf):
    _rv(tf)
    tf.get_variable("w", [2, 3], use_resource=True)
    with tf.name_scope("outer"):
        tf.Variable(lambda: tf.zeros([2]), name="lazy", use_resource=True)


def resource_assign_add_sub(tf):
    v = _rv(tf)
    with tf.name_scope("AssignMovingAvg"):
        tf.assign_sub(v, tf.ones([3]), name="ignored")
    tf.assign_add(v, tf.ones([3]), name="also_ignored")
    tf.assign(v, tf.zeros([3]), name="kept")


def resource_colocation_and_cast(tf):
    v = _rv(tf)
    with tf.colocate_with(v):
        y = tf.identity(tf.ones([3]))
    tf.cast(v, tf.float32) * y
    tf.cast(v, tf.float64)


def resource_fused_batch_norm(tf):
    x = tf.placeholder(tf.float32, [2, 4, 4, 3], name="x")
    scale, offset = _rv(tf, "scale"), _rv(tf, "offset")
    mean, var = _rv(tf, "mean"), _rv(tf, "var")
    tf.nn.fused_batch_norm(x, scale, offset, mean=mean, variance=var, is_training=False)
    tf.nn.fused_batch_norm(x, scale, offset)


def resource_embedding_lookup(tf):
    params = _rv(tf, "emb", (5, 2))
    tf.nn.embedding_lookup(params, tf.constant([0, 3, 3]))


ROWS = [resource_variable_creation, resource_assign_add_sub, resource_colocation_and_cast,
        resource_fused_batch_norm, resource_embedding_lookup]


@pytest.mark.parametrize("snippet", ROWS, ids=[f.__name__ for f in ROWS])
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)
