"""The optimised interpreter (``Session.run`` -> ``execute``) against the plain
reference evaluator (``ref.session.interpreter.evaluate``): one row per program,
run step by step in two fresh Sessions on one graph; every fetched value and,
at the end, every variable must agree bit for bit (dtype, shape and bytes)."""

import numpy as np
import pytest

import ref as tf
from ref.session.interpreter import evaluate

RNG = np.random.RandomState(7)
X = RNG.randn(16, 3).astype(np.float32)
Y = (X @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.25).astype(np.float32)


def _linear(optimizer):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = optimizer.minimize(loss)
    return [[tf.global_variables_initializer()]] + [[train, loss]] * 6, {x: X, y: Y}


def linear_regression_gradient_descent():
    return _linear(tf.train.GradientDescentOptimizer(0.05))


def linear_regression_adam():
    return _linear(tf.train.AdamOptimizer(0.1))


def linear_regression_momentum_nesterov():
    return _linear(tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True))


def softmax_cross_entropy_and_gradients():
    logits = tf.Variable(RNG.randn(4, 5).astype(np.float32), name="logits")
    labels = tf.constant(np.eye(5, dtype=np.float32)[[0, 3, 1, 4]])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 3, 1, 4]), logits=logits)
    grads = tf.gradients(loss + tf.reduce_sum(sparse), [logits])
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return [[tf.global_variables_initializer()]] + [[loss, sparse, grads[0], train]] * 3, {}


def seeded_random_ops():
    tf.set_random_seed(1234)
    ops = [tf.random_normal([3, 4]), tf.random_uniform([5], -1.0, 1.0, dtype=tf.float64),
           tf.truncated_normal([2, 2], seed=7), tf.random_uniform([6], 0, 10, dtype=tf.int32),
           tf.random_shuffle(tf.range(8))]
    return [ops, ops, ops[:2]], {}  # successive runs: the generators advance


def seeded_initializers_and_mlp_gradients():
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 3])
    w1 = tf.get_variable("w1", [3, 8], initializer=tf.glorot_uniform_initializer())
    b1 = tf.get_variable("b1", [8], initializer=tf.zeros_initializer())
    w2 = tf.get_variable("w2", [8, 1], initializer=tf.truncated_normal_initializer(stddev=0.3))
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
    out = tf.tanh(tf.matmul(h, w2))
    loss = tf.reduce_sum(tf.square(out - Y[:, :1]))
    grads = tf.gradients(loss, [w1, b1, w2])
    train = tf.train.RMSPropOptimizer(0.01).apply_gradients(zip(grads, [w1, b1, w2]))
    return [[tf.global_variables_initializer()]] + [[loss, train] + grads] * 3, {x: X}


def assign_and_assign_add():
    v = tf.Variable(np.arange(4, dtype=np.int32), name="v")
    add = tf.assign_add(v, tf.constant([1, 1, 1, 1]))
    sub = tf.assign_sub(v, tf.constant([0, 2, 0, 2]))
    reset = tf.assign(v, tf.constant([5, 6, 7, 8]))
    c = tf.Variable(0.5, name="c")
    double = c.assign(c * 2.0)
    return [[v.initializer, c.initializer], [add], [add, sub], [v], [double, double], [reset], [v * 2]], {}


def reductions_and_broadcasting():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.constant([[1.0], [2.0], [-3.0], [0.5], [4.0], [2.0], [1.0], [0.0],
                     [1.0], [2.0], [-3.0], [0.5], [4.0], [2.0], [1.0], [0.0]])
    s = a * b + tf.constant([0.1, 0.2, 0.3])
    outs = [tf.reduce_sum(s), tf.reduce_mean(s, axis=0), tf.reduce_max(s, axis=1, keepdims=True),
            tf.reduce_min(s), tf.reduce_prod(s[:3], axis=1), tf.argmax(s, axis=1), tf.nn.softmax(s),
            tf.nn.log_softmax(s), tf.add_n([s, s, a]), tf.maximum(s, 0.0) / (tf.abs(a) + 1.0)]
    return [outs], {a: X}


def integer_ops():
    i = tf.placeholder(tf.int32, [None])
    outs = [i + 3, i * i, tf.floordiv(i, 3), tf.floormod(i, 3), tf.cast(i, tf.float32) / 2.0,
            tf.range(0, 10, 3), tf.shape(tf.reshape(i, [2, -1])), tf.gather(i * 10, [3, 0, 1]),
            tf.one_hot(tf.abs(i) % 4, 4), tf.unique(i)[0], tf.equal(i, 2), tf.where(i > 0),
            tf.cumsum(i), tf.reduce_sum(i), tf.concat([i, i], 0), tf.stack([i, -i], axis=1)]
    return [outs], {i: np.array([3, -2, 2, 7, 2, 0], np.int32)}


def cond_and_while_loop():
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [])
    v = tf.Variable(1.0, name="v")
    c = tf.cond(p, lambda: x * 2.0 + v, lambda: x - v)
    _, total = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + tf.cast(i, tf.float32) * x),
                             [tf.constant(0), tf.constant(0.0)])
    g = tf.gradients(c + total, [x])
    return [[v.initializer], [c, total, g[0]], [c]], {p: np.array(True), x: np.array(1.5, np.float32)}


def sparse_updates_through_embedding_lookup():
    table = tf.Variable(RNG.randn(6, 2).astype(np.float32), name="table")
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids)))
    train = tf.train.AdagradOptimizer(0.1).minimize(loss)
    scatter = tf.scatter_sub(table, tf.constant([1]), tf.constant([[0.5, 0.5]]))
    return ([[tf.global_variables_initializer()], [train, loss], [train, loss], [scatter], [loss]],
            {ids: np.array([1, 4, 1, 0], np.int32)})


def resource_variables_and_control_dependencies():
    w = tf.get_variable("rw", initializer=np.array([1.0, -2.0], np.float32), use_resource=True)
    with tf.control_dependencies([w.assign_add([0.5, 0.5])]):
        read = w.read_value() * 3.0
    loss = tf.reduce_sum(w * w)
    train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
    return [[w.initializer], [read], [train, loss], [read, loss]], {}


def fifo_queue():
    q = tf.FIFOQueue(10, [tf.float32], shapes=[[2]])
    enq = q.enqueue_many([tf.constant(X[:4, :2])])
    deq = q.dequeue_many(3)
    return [[enq], [deq, q.size()], [q.size()]], {}


def fed_intermediate_tensors():
    x = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [2])
    y = x * 3.0
    z = y + 1.0
    return [[z], [z, x]], {y: np.array([10.0, 20.0], np.float32)}


CASES = [linear_regression_gradient_descent, linear_regression_adam, linear_regression_momentum_nesterov,
         softmax_cross_entropy_and_gradients, seeded_random_ops, seeded_initializers_and_mlp_gradients,
         assign_and_assign_add, reductions_and_broadcasting, integer_ops, cond_and_while_loop,
         sparse_updates_through_embedding_lookup, resource_variables_and_control_dependencies, fifo_queue,
         fed_intermediate_tensors]


def reference_run(session, fetches, feeds):
    """``session.run(fetches, feeds)`` for a flat list of Tensors and Operations, through ``evaluate``."""
    tensors = [f for f in fetches if isinstance(f, tf.Tensor)]
    values = iter(evaluate(tensors, feeds, session._state, [f for f in fetches if isinstance(f, tf.Operation)]))
    return [next(values) if isinstance(f, tf.Tensor) else None for f in fetches]


def assert_same_bits(got, want, what):
    if want is None:
        assert got is None, what
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    np.testing.assert_array_equal(got, want, err_msg=what)
    if want.dtype != object:  # -0.0 against 0.0, or two NaNs' payloads
        assert got.tobytes() == want.tobytes(), what


@pytest.mark.parametrize("program", CASES, ids=lambda f: f.__name__)
def test_execute_matches_reference_evaluator(program):
    g = tf.Graph()
    with g.as_default():
        runs, feeds = program()
        fast, plain = tf.Session(graph=g), tf.Session(graph=g)
        for n, fetches in enumerate(runs):
            fetches = [f if isinstance(f, (tf.Tensor, tf.Operation)) else tf.convert_to_tensor(f)
                       for f in fetches]  # a Variable: its value
            want = fast.run(fetches, feeds)
            got = reference_run(plain, fetches, feeds)
            for f, a, b in zip(fetches, got, want):
                assert_same_bits(a, b, f"run {n}, {f.name}")
        variables = tf.global_variables() + tf.local_variables()
        values = [tf.convert_to_tensor(v) for v in variables]
        for v, a, b in zip(variables, reference_run(plain, values, {}), fast.run(values)):
            assert_same_bits(a, b, f"variable {v.name} after the runs")


def test_tables_cover_ten_programs():
    assert len(CASES) >= 10


@pytest.mark.parametrize("build, error", [
    (lambda: [tf.placeholder(tf.float32, [2, None], name="p") + 1.0], tf.errors.InvalidArgumentError),
    (lambda: [tf.Variable(1.0, name="never_set") * 2.0], tf.errors.FailedPreconditionError),
    (lambda: [tf.reshape(tf.constant([1, 2, 3]), tf.placeholder_with_default([2, 2], [2]))],
     tf.errors.InvalidArgumentError),
], ids=["unfed_placeholder", "uninitialized_variable", "bad_reshape"])
def test_same_errors(build, error):
    g = tf.Graph()
    with g.as_default():
        fetches = build()
        with pytest.raises(error) as fast:
            tf.Session(graph=g).run(fetches)
        with pytest.raises(error) as plain:
            reference_run(tf.Session(graph=g), fetches, {})
    assert type(plain.value) is type(fast.value)
    assert str(plain.value) == str(fast.value)


def test_feeding_one_output_of_a_multi_output_op():
    g = tf.Graph()
    with g.as_default():
        a, b = tf.split(tf.constant([1.0, 2.0, 3.0, 4.0]), 2)
        fetches = [a * 10.0, b]
        feed = {a: np.array([7.0, 7.0], np.float32)}
        want = reference_run(tf.Session(graph=g), fetches, feed)
        np.testing.assert_array_equal(want[0], [70.0, 70.0])
        got = tf.Session(graph=g).run(fetches, feed)
    np.testing.assert_array_equal(got[0], want[0])
