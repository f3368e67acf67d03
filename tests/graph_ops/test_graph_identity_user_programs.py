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
``adjustment``; ``tf.tensordot`` of tensors whose shapes are known only in
part (TF computes the free dimensions with ``tf.shape``); ``tf.nn.conv1d``
/ ``tf.layers.conv1d`` (the Conv2D takes the scope's name), ``tf.einsum``
(``einsum/Einsum``), ``cosine_decay_restarts`` (op for op as TF's
expression). Also: the values those graphs compute, against TF."""
import contextlib
import re

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


def batch_norm_training_tensor_unfused(tf):
    flag = tf.placeholder_with_default(False, [], name="is_training")
    x = tf.placeholder(tf.float32, [4, 3, 5], name="x")
    y = tf.layers.batch_normalization(x, training=flag, name="last")
    z = tf.layers.batch_normalization(x, axis=1, training=flag, center=False, name="middle")
    return [y, z] + tf.get_collection(tf.GraphKeys.UPDATE_OPS)


def _adjustment(tf):
    return lambda shape: (tf.random_uniform(shape[-1:], 0.9, 1.1, seed=3), tf.random_uniform(shape[-1:], -0.1, 0.1,
                                                                                            seed=4))


def batch_renorm(tf, training=True):
    x = tf.placeholder(tf.float32, [8, 6], name="x")
    flag = tf.placeholder_with_default(False, [], name="flag") if training is None else training
    y = tf.layers.batch_normalization(x, training=flag, renorm=True, renorm_clipping={"rmax": 2.0, "dmax": 1.0},
                                      renorm_momentum=0.8, name="renorm")
    z = tf.layers.batch_normalization(x, training=flag, renorm=True, scale=False, name="renorm_plain")
    # (inference on the moving statistics: built, not fetched -- in a run with
    # the updates it would read them before or after, in no fixed order)
    tf.layers.batch_normalization(x, training=False, renorm=True, name="renorm", reuse=True)
    return [y, z] + tf.get_collection(tf.GraphKeys.UPDATE_OPS)


def ghost_and_adjusted_batch_norm(tf, training=True):
    x = tf.placeholder(tf.float32, [8, 2, 3], name="x")
    flag = tf.placeholder_with_default(False, [], name="flag") if training is None else training
    y = tf.layers.batch_normalization(x, training=flag, virtual_batch_size=4, name="ghost")
    z = tf.layers.batch_normalization(x, axis=1, training=flag, adjustment=_adjustment(tf), name="adjusted")
    return [y, z] + tf.get_collection(tf.GraphKeys.UPDATE_OPS)


def tensordot_of_unknown_batch(tf):
    x = tf.placeholder(tf.float32, [None, 4, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    v = tf.Variable(tf.ones([2]), name="v")
    y = tf.tensordot(tf.tanh(tf.tensordot(x, w, axes=1)), v, axes=[[2], [0]])
    z = tf.tensordot(x, w, [[-1], [0]], name="named")[0, 0]
    return [y, z] + tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(z), [x, w, v])


def conv1d_einsum_and_sgdr(tf):
    x = tf.placeholder(tf.float32, [None, 7, 3], name="x")
    y = tf.layers.conv1d(x, 4, 3, padding="same", name="ngram")
    z = tf.nn.conv1d(x, tf.ones([2, 3, 4]), 1, "VALID") + tf.nn.conv1d(x, tf.ones([2, 3, 4]), 1, "VALID", name="c")
    e = [tf.einsum("btd,da->bta", y, tf.ones([4, 2])), tf.einsum("ij,jk->ik", tf.ones([2, 2]), tf.ones([2, 2]),
                                                                name="mm")]
    step = tf.train.get_or_create_global_step()
    rates = [tf.train.cosine_decay_restarts(0.1, step, 4, t_mul=2.0, m_mul=0.8, alpha=0.1),
             tf.train.cosine_decay_restarts(0.1, step, 3, t_mul=1.0)]
    return [y, z] + e + rates


ROWS = [
    pytest.param(scoped_regularizers, id="scoped_regularizers"),
    pytest.param(loss_weights_of_unknown_rank, id="loss_weights_of_unknown_rank"),
    pytest.param(scan_with_initializer_over_dynamic_length, id="scan_with_initializer_over_dynamic_length"),
    pytest.param(batch_norm_training_tensor_unfused, id="batch_norm_training_tensor_unfused"),
    pytest.param(tensordot_of_unknown_batch, id="tensordot_of_unknown_batch"),
    pytest.param(conv1d_einsum_and_sgdr, id="conv1d_einsum_and_sgdr"),
    pytest.param(batch_renorm, id="batch_renorm"),
    pytest.param(lambda tf: batch_renorm(tf, None), id="batch_renorm_training_tensor"),
    pytest.param(ghost_and_adjusted_batch_norm, id="ghost_and_adjusted_batch_norm"),
    pytest.param(lambda tf: ghost_and_adjusted_batch_norm(tf, None), id="ghost_and_adjusted_training_tensor"),
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
            fetched += sess.run(lib.global_variables())  # the moving statistics after the updates
            collected = sess.run(lib.get_collection(lib.GraphKeys.REGULARIZATION_LOSSES))
            return fetched, collected


_X86 = np.random.RandomState(0).randn(8, 6).astype(np.float32) * 3 + 1
_X823 = np.random.RandomState(1).randn(8, 2, 3).astype(np.float32)

VALUE_ROWS = [
    pytest.param(scoped_regularizers, {}, id="scoped_regularizers"),
    pytest.param(loss_weights_of_unknown_rank,
                 {"labels:0": np.eye(3, dtype=np.float32)[[0, 2]], "logits:0": np.arange(6, dtype=np.float32).reshape(2, 3),
                  "weights:0": np.array([0.5, 2.0], np.float32), "Placeholder:0": np.ones([2, 1], np.float32)},
                 id="loss_weights_of_unknown_rank"),
    pytest.param(scan_with_initializer_over_dynamic_length, {"x:0": np.array([1.0, 2.0, 3.0], np.float32)},
                 id="scan_with_initializer_over_dynamic_length"),
    pytest.param(tensordot_of_unknown_batch, {"x:0": _X823.reshape(4, 4, 3)},
                 id="tensordot_of_unknown_batch"),
    pytest.param(lambda tf: batch_renorm(tf, None), {"x:0": _X86, "flag:0": True}, id="batch_renorm_training"),
    pytest.param(lambda tf: batch_renorm(tf, None), {"x:0": _X86}, id="batch_renorm_inference"),
    pytest.param(lambda tf: ghost_and_adjusted_batch_norm(tf, None), {"x:0": _X823, "flag:0": True},
                 id="ghost_and_adjusted_training"),
    pytest.param(lambda tf: ghost_and_adjusted_batch_norm(tf, None), {"x:0": _X823},
                 id="ghost_and_adjusted_inference"),
]


@pytest.mark.parametrize("snippet,feeds", VALUE_ROWS)
def test_same_values_as_tf(snippet, feeds):
    """The outputs, the variables after one run and the fetched
    REGULARIZATION_LOSSES entries (a lazy tensor fetches its first copy)
    equal TF's."""
    with tf1_behaviour():
        want = _values(tf_v1(), snippet, feeds)
    got = _values(ref, snippet, feeds)
    assert len(got[0]) == len(want[0])
    for g, w in zip(got[0] + got[1], want[0] + want[1]):
        if w is None:  # a fetched Operation (the layers' UPDATE_OPS entries are Operations in TF)
            assert g is None
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert len(got[1]) == len(want[1])


@pytest.mark.parametrize("kwargs,message", [
    (dict(renorm=True, renorm_clipping={"rmax": 2.0, "r_max": 3.0}), "invalid keys for `renorm_clipping`"),
    (dict(virtual_batch_size=0), "`virtual_batch_size` must be a positive integer"),
    (dict(virtual_batch_size=2, axis=0), "axis cannot include 0"),
    (dict(virtual_batch_size=2, adjustment=lambda shape: (1.0, 0.0)), "adjustment cannot be specified"),
])
def test_batch_norm_option_errors_as_tf(kwargs, message):
    """Option combinations TF's layer refuses: ValueError, in ref as in TF."""
    for lib, ctx in ((ref, None), (tf_v1(), tf1_behaviour())):
        with (ctx or contextlib.nullcontext()), lib.Graph().as_default():
            x = lib.placeholder(lib.float32, [4, 2, 2, 3])
            with pytest.raises(ValueError, match=re.escape(message)):
                lib.layers.batch_normalization(x, training=True, **kwargs)

