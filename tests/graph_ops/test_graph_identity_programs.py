"""Graph identity for the constructs in which the TF1 program corpus
(tests/programs/test_tf1_corpus.py) found ref building a different GraphDef
than TF 2.21 ``tf.compat.v1``: one row per bug class, each small."""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the builders these tests cover)
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1


def _scalar_feed_regression(tf):
    """A "float" placeholder of unknown rank: reduce_sum is still a scalar
    (TF's _may_reduce_to_scalar), so the gradients fold shapes; Pow's gradient."""
    X, Y = tf.placeholder("float"), tf.placeholder("float")
    W = tf.Variable(0.5, name="weight")
    cost = tf.reduce_sum(tf.pow(X * W - Y, 2)) / 20
    tf.train.GradientDescentOptimizer(0.01).minimize(cost)


def _unknown_rank_reductions(tf):
    x = tf.placeholder(tf.float32)
    for r in (tf.reduce_sum, tf.reduce_mean, tf.reduce_max):
        tf.gradients(r(x * 2.0), x)
    tf.gradients(tf.reduce_sum(x, axis=1), x)


def _unknown_rank_prod(tf):
    x = tf.placeholder(tf.float32)
    tf.gradients(tf.reduce_prod(x * 2.0), x)


def _reshape_grad_one_unknown_dim(tf):
    x = tf.placeholder(tf.float32, [None, 6])
    tf.gradients(tf.reshape(x, [-1, 2, 3]), x)
    y = tf.placeholder(tf.float32, [None, None])
    tf.gradients(tf.reshape(y, [-1]), y)


def _large_zeros(tf):
    tf.zeros([40, 40])
    tf.ones([50, 30], dtype=tf.int32)


def _static_rnn_lstm(tf):
    cell = tf.nn.rnn_cell.BasicLSTMCell(4, forget_bias=0.0)
    inputs = [tf.placeholder(tf.float32, [2, 3]) for _ in range(2)]
    outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    tf.gradients(tf.add_n(outputs), tf.trainable_variables())


def _unused_output_static_shape(tf):
    logits = tf.placeholder(tf.float32, [4, 5])
    labels = tf.constant([0, 1, 2, 3])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    tf.gradients(loss, logits)


def _nce(tf):
    tf.set_random_seed(1)
    w = tf.Variable(tf.truncated_normal([10, 3]))
    b = tf.Variable(tf.zeros([10]))
    x = tf.placeholder(tf.float32, [4, 3])
    labels = tf.placeholder(tf.int32, [4, 1])
    loss = tf.reduce_mean(tf.nn.nce_loss(w, b, labels, x, num_sampled=3, num_classes=10))
    tf.gradients(loss, [w, b, x])


def _slice_grad(tf):
    x = tf.placeholder(tf.float32, [5, 4])
    y = tf.placeholder(tf.float32, [None, 4])
    tf.gradients(tf.slice(x, [1, 0], [2, -1]), x)
    tf.gradients(tf.slice(y, tf.stack([tf.shape(y)[0] - 1, 0]), [-1, 2]), y)


def _input_producer_and_moving_average(tf):
    """string_input_producer's run-time non-empty Assert (its list(type) attr
    T); ExponentialMovingAverage with num_updates (operators: add, sub_1,
    mul); the guarded initial value of an average rebuilds the variable's
    RefSwitch as a Switch."""
    tf.train.string_input_producer(["a", "b"], shuffle=False)
    step = tf.train.get_or_create_global_step()
    v = tf.Variable(tf.zeros([2]), name="v")
    tf.train.ExponentialMovingAverage(0.9, num_updates=step).apply([v])
    tf.Assert(tf.constant(True), ["message", tf.constant(1)])


def _one_shot_iterator_seed(tf):
    """A one-shot iterator uses up one op seed: the initializer after it draws
    TF's numbers (its dataset_factory is compared without TF's hash)."""
    tf.set_random_seed(3)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6.0, dtype=np.float32)).batch(2)
    x = ds.make_one_shot_iterator().get_next()
    tf.Variable(tf.random_uniform([2]), name="after") * x


ROWS = {
    "input_producer_and_moving_average": _input_producer_and_moving_average,
    "scalar_feed_regression": _scalar_feed_regression,
    "unknown_rank_reductions": _unknown_rank_reductions,
    "unknown_rank_prod": _unknown_rank_prod,
    "reshape_grad_one_unknown_dim": _reshape_grad_one_unknown_dim,
    "large_zeros": _large_zeros,
    "static_rnn_lstm": _static_rnn_lstm,
    "unused_output_static_shape": _unused_output_static_shape,
    "nce_loss": _nce,
    "slice_grad": _slice_grad,
}


@pytest.mark.parametrize("snippet", [ROWS[k] for k in sorted(ROWS)], ids=sorted(ROWS))
def test_same_graph(snippet):
    assert_same_graph(snippet)


def _static_shapes(lib):
    """Static shapes of reductions of an unknown-rank tensor and of slices
    whose size is a stack of folded shape elements."""
    import contextlib

    import ref

    ctx = contextlib.nullcontext() if lib is ref else tf1_behaviour()
    with ctx, lib.Graph().as_default():
        x = lib.placeholder("float")
        y = lib.placeholder(lib.float32, [6, 3])
        labels = lib.placeholder(lib.int64, [4])
        out = [lib.reduce_sum(x), lib.reduce_mean(x, keepdims=True), lib.reduce_max(x, axis=0),
               lib.slice(y, [0, 0], lib.stack([lib.shape(labels)[0], -1])),
               lib.slice(y, lib.stack([lib.shape(labels)[0], 0]), [-1, -1]),
               lib.reshape(y, lib.stack([lib.shape(labels)[0] - 1, -1]))]
        return [t.shape.as_list() if t.shape.ndims is not None else None for t in out]


def test_static_shapes_as_tf():
    import ref

    assert _static_shapes(ref) == _static_shapes(tf_v1())
    assert _static_shapes(ref)[:1] + _static_shapes(ref)[3:5] == [[], [4, 3], [2, 3]]


def test_one_shot_iterator_seed_and_colocation():
    """Every node as TF, the factory function named ``_make_dataset_<hash>`` (see the docstring)."""
    import ref
    from _graphdef import differences, graph_def

    got, want = graph_def(ref, _one_shot_iterator_seed), graph_def(tf_v1(), _one_shot_iterator_seed)
    assert differences(got, want) == []


def test_scalar_feed_regression_runs():
    """The tutorial's first step used to fail (integer division by zero in the
    Sum gradient); one step against the formula."""
    import ref as tf

    with tf.Graph().as_default():
        X, Y = tf.placeholder("float"), tf.placeholder("float")
        W = tf.Variable(0.5)
        cost = tf.reduce_sum(tf.pow(X * W - Y, 2)) / 20
        step = tf.train.GradientDescentOptimizer(0.01).minimize(cost)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(step, {X: 3.0, Y: 1.0})
            w = s.run(W)
    np.testing.assert_allclose(w, np.float32(0.5 - 0.01 * 2 * (3.0 * 0.5 - 1.0) * 3.0 / 20), rtol=1e-6)
