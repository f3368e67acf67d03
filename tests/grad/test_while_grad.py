"""Higher derivatives through while_loop, compared with tensorflow.compat.v1's
tf.gradients of tf.gradients on the same programs (float64).

By default (TF compat.v1 with v2 behaviour disabled) a loop is TF 1.x's
dataflow loop and TF's ``_ExitGrad`` refuses to differentiate a gradient loop:
TypeError "Second-order gradient for while loops not supported.", which ref
raises too. After ``tf.enable_control_flow_v2()`` (fixture ``v2_loops``) the
loop is the functional ``While`` and higher derivatives work in both."""
import contextlib
import os

import numpy as np
import pytest

import ref
from ref.grad import control_grad as _under_test  # noqa: F401  (the module these tests cover)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
X0 = np.array([0.3, -0.7, 1.1])
A0 = np.array([0.9, 0.4, -0.5])


def _loop(tf, x, a, n=3):
    """y_{i+1} = sin(y_i) * a + x * y_i, from y_0 = x (x is loop variable and capture)."""
    i0 = tf.constant(0)
    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.sin(y) * a + x * y), [i0, x])
    return y


def _p_second_wrt_x(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(_loop(tf, x, a)), [x])
    return tf.gradients(tf.reduce_sum(g * g), [x])


def _p_mixed_x_then_a(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(_loop(tf, x, a)), [x])
    return tf.gradients(g, [a])


def _p_second_wrt_capture(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(tf.square(_loop(tf, x, a))), [a])
    return tf.gradients(tf.reduce_sum(g * tf.cos(a)), [a, x])


def _p_third_order(tf, x, a):
    (g,) = tf.gradients(tf.reduce_sum(_loop(tf, x, a, n=2)), [x])
    (h,) = tf.gradients(tf.reduce_sum(g), [x])
    return tf.gradients(tf.reduce_sum(h), [x])


def _p_max_iterations(tf, x, a):
    _, y = tf.while_loop(lambda i, y: i < 10, lambda i, y: (i + 1, tf.tanh(y * a) + x), [tf.constant(0), x],
                         maximum_iterations=4)
    (g,) = tf.gradients(tf.reduce_sum(y), [x])
    return tf.gradients(tf.reduce_sum(tf.exp(g)), [x, a])


def _p_zero_trips(tf, x, a):
    _, y = tf.while_loop(lambda i, y: i < 0, lambda i, y: (i + 1, y * y * a), [tf.constant(0), x])
    (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
    return tf.gradients(tf.reduce_sum(g * x), [x, a])


PROGRAMS = {name[3:]: fn for name, fn in globals().items() if name.startswith("_p_")}


@pytest.fixture
def v2_loops():
    """``tf.enable_control_flow_v2()`` for one test, the previous mode restored after."""
    was = ref.control_flow_v2_enabled()
    ref.enable_control_flow_v2()
    yield
    if not was:
        ref.disable_control_flow_v2()


def _run(tf, program):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        a = tf.placeholder(tf.float64, [3])
        grads = program(tf, x, a)
        with tf.Session() as s:
            return [None if g is None else s.run(g, {x: X0, a: A0}) for g in grads]


def _raised(tf, program):
    try:
        _run(tf, program)
    except Exception as e:  # noqa: BLE001 -- compared with TF's
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_higher_derivatives_through_tf1_loops_raise_as_in_tensorflow(name):
    """TF 1.x loops (the default): TF raises TypeError differentiating the
    gradient loop's Exit ("Second-order gradient for while loops not
    supported."); with maximum_iterations, list loop variables and a body
    returning a tuple, TF's loop builder already refuses the structure."""
    pytest.importorskip("tensorflow")
    from tests.graph_ops._graphdef import tf1_behaviour, tf_v1

    with tf1_behaviour():
        want = _raised(tf_v1(), PROGRAMS[name])
    assert want is not None and want[0] == "TypeError"
    assert _raised(ref, PROGRAMS[name]) == want


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_higher_derivatives_through_while_match_tensorflow(name, v2_loops):
    tf = pytest.importorskip("tensorflow").compat.v1
    expected = _run(tf, PROGRAMS[name])
    actual = _run(ref, PROGRAMS[name])
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert (a is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)


def test_while_gradient_is_built_from_while_ops(v2_loops):
    """The gradient graph contains no special gradient op: only While (and ordinary ops)."""
    with ref.Graph().as_default() as g:
        x = ref.placeholder(ref.float64, [3])
        (gx,) = ref.gradients(ref.reduce_sum(_loop(ref, x, ref.constant(A0))), [x])
        types = {op.type for op in g.get_operations()}
        assert "While" in types and "WhileGrad" not in types


def _p_varying_shape(tf, x, a):
    """A loop variable without a fixed shape: no history, the gradient recomputes."""
    _, y, z = tf.while_loop(lambda i, y, z: i < 3,
                            lambda i, y, z: (i + 1, tf.sin(y) * a + x * y, tf.concat([z, y[:1]], 0)),
                            [tf.constant(0), x, x[:1]],
                            shape_invariants=[tf.TensorShape([]), tf.TensorShape([3]), tf.TensorShape([None])])
    (g,) = tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(z * z), [x])
    return tf.gradients(tf.reduce_sum(g * g), [x, a])


PROGRAMS["varying_shape"] = _p_varying_shape


def _body_runs(monkeypatch):
    """Counts the interpreter's runs of each function graph, by graph name."""
    from collections import Counter

    from ref.session.interpreter import executor

    runs = Counter()
    original = executor.run_function

    def counting(func, inputs, state):
        runs[func.name] += 1
        return original(func, inputs, state)

    monkeypatch.setattr(executor, "run_function", counting)
    return runs


def test_while_history_holds_each_iterations_values(v2_loops):
    """Row k of a history output is the loop variable at the start of iteration k."""
    with ref.Graph().as_default():
        y0 = ref.constant([1.0, 2.0], ref.float64)
        i, y = ref.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0 + 1.0), [ref.constant(0), y0])
        hist_i, hist_y = y.op.outputs[2:4]
        assert y.op.get_attr("accumulate") and hist_y.shape.as_list() == [None, 2]
        with ref.Session() as s:
            hi, hy, final = s.run([hist_i, hist_y, y])
    np.testing.assert_array_equal(hi, [0, 1, 2])
    np.testing.assert_array_equal(hy, [[1, 2], [3, 5], [7, 11]])
    np.testing.assert_array_equal(final, [15, 23])


@pytest.mark.parametrize("n", [1, 7, 25])
def test_while_gradient_reads_the_history_instead_of_recomputing(monkeypatch, n, v2_loops):
    """Forward once and backward once: n body runs each way, not O(n^2)."""
    with ref.Graph().as_default() as g:
        x = ref.placeholder(ref.float64, [3])
        _, y = ref.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, ref.sin(y) * 0.5 + x), [ref.constant(0), x],
                              name="loop")
        (gx,) = ref.gradients(ref.reduce_sum(y), [x])
        assert [op.type for op in g.get_operations()].count("While") == 2
        runs = _body_runs(monkeypatch)
        with ref.Session() as s:
            got = s.run(gx, {x: X0})
    assert runs["loop/body"] == n                    # the forward loop, once
    assert runs["loop_grad_body"] == n               # the backward loop
    assert sum(runs.values()) == 4 * n + 2            # and nothing else (the conds run n + 1 times)
    # NumPy oracle: y_{k+1} = 0.5 sin(y_k) + x, dy_{k+1}/dx = 0.5 cos(y_k) dy_k/dx + 1
    y, d = X0.copy(), np.ones(3)
    for _ in range(n):
        y, d = 0.5 * np.sin(y) + X0, 0.5 * np.cos(y) * d + 1.0
    np.testing.assert_allclose(got, d, rtol=1e-13)


def test_unread_history_is_not_kept(monkeypatch, v2_loops):
    """Running a loop nobody differentiates stacks nothing."""
    import ref.ops.control as control

    stacked = []
    original = control.np.stack
    monkeypatch.setattr(control.np, "stack", lambda xs, *a, **k: stacked.append(len(xs)) or original(xs, *a, **k))
    with ref.Graph().as_default():
        _, y = ref.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * 2.0), [ref.constant(0), ref.constant(1.0)])
        with ref.Session() as s:
            assert s.run(y) == 16.0
            assert stacked == []
            s.run(y.op.outputs[3])
            assert stacked == [4, 4]


def _noisy_loop(tf, second_order):
    """y_{i+1} = tanh(y_i * w) * noise_i with a fresh uniform draw per iteration
    (as dropout inside dynamic_rnn): the gradient must reuse each iteration's
    draw (TF's accumulators), not draw again."""
    tf.set_random_seed(4)
    x = tf.constant(X0)
    w = tf.constant(A0)
    _, y = tf.while_loop(lambda i, y: i < 4,
                         lambda i, y: (i + 1, tf.tanh(y * w) * tf.random_uniform([3], seed=9, dtype=tf.float64)),
                         [tf.constant(0), x], parallel_iterations=1)
    (g,) = tf.gradients(tf.reduce_sum(y), [w])
    if second_order:
        (g,) = tf.gradients(tf.reduce_sum(g * g), [x])
    return [y, g]


def test_random_draws_in_a_tf1_loop_body_are_pushed_for_its_gradient():
    """A TF 1.x loop (the default) pushes each iteration's draw on a stack for
    its gradient loop, as TF's does (TF with v2 behaviour disabled is the oracle)."""
    pytest.importorskip("tensorflow")
    from tests.graph_ops._graphdef import tf1_behaviour, tf_v1

    v1 = tf_v1()
    results = []
    for tf in (ref, v1):
        with tf1_behaviour() if tf is v1 else contextlib.nullcontext():
            with tf.Graph().as_default() as g, tf.Session() as sess:
                results.append(sess.run(_noisy_loop(tf, False)))
                assert "StackPushV2" in {op.type for op in g.get_operations()}
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("second_order", [False, True])
def test_random_draws_in_the_body_are_reused_by_the_gradient(second_order, v2_loops):
    v1 = pytest.importorskip("tensorflow").compat.v1
    results = []
    for tf in (ref, v1):
        with tf.Graph().as_default(), tf.Session() as sess:
            results.append(sess.run(_noisy_loop(tf, second_order)))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
