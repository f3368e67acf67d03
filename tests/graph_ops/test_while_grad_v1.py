"""Gradients of TF 1.x dataflow while loops (the default, as compat.v1 with v2 behaviour disabled):
the gradient loop, its counters and the f_acc stacks node for node as TF's
GraphDef, and the gradient values as TF's, on a table of loops."""
import numpy as np
import pytest

import ref
from ref.graph_ops import while_v1 as _under_test  # noqa: F401  (the loop builder; ref.grad.control_flow_state)
from tests.graph_ops._graphdef import assert_same_graph, tf1_behaviour, tf_v1


@pytest.fixture(autouse=True)
def _tf1_loops():
    """TF 1.x loops (the default) even after a test elsewhere enabled control flow v2."""
    was = ref.control_flow_v2_enabled()
    ref.disable_control_flow_v2()
    yield
    if was:
        ref.enable_control_flow_v2()


def _counter(tf):
    x = tf.constant(2.0, name="x")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])
    return tf.gradients(y, x)


def _variable(tf):
    v = tf.Variable(1.5, name="v")
    _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * v), [tf.constant(0), tf.constant(0.5)])
    return tf.gradients(y, v)


def _nested(tf):
    x = tf.constant([0.5, -1.0], name="x")

    def outer_body(j, y):
        _, z = tf.while_loop(lambda k, z: k < 3, lambda k, z: (k + 1, z * x + 1.0), [0, y])
        return j + 1, z

    _, y = tf.while_loop(lambda j, y: j < 2, outer_body, [0, x])
    return tf.gradients(tf.reduce_sum(y), x)


def _outer_tensor(tf):
    x = tf.constant([0.3, 1.2, -0.4], name="x")
    w = tf.multiply(x, 2.0, name="w")
    _, y = tf.while_loop(lambda i, y: i < 5, lambda i, y: (i + 1, y * w + tf.sin(y)), [0, x])
    return tf.gradients(tf.reduce_sum(y), [x, w])


def _unused_exit(tf):
    x = tf.constant(1.5, name="x")
    _, a, b = tf.while_loop(lambda i, a, b: i < 2, lambda i, a, b: (i + 1, a * x, b + a), [0, x, x])
    return tf.gradients(a, x)


LOOPS = [_counter, _variable, _nested, _outer_tensor, _unused_exit]


@pytest.mark.parametrize("build", LOOPS, ids=[b.__name__.strip("_") for b in LOOPS])
def test_graph_def_matches_tensorflow(build):
    assert_same_graph(build)


def _values(lib, build):
    g = lib.Graph()
    with g.as_default():
        grads = build(lib)
        with lib.Session() as s:
            s.run(lib.global_variables_initializer())
            return s.run(grads)


@pytest.mark.parametrize("build", LOOPS, ids=[b.__name__.strip("_") for b in LOOPS])
def test_gradient_values_match_tensorflow(build):
    tf = tf_v1()
    with tf1_behaviour():
        want = _values(tf, build)
    got = _values(ref, build)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_stack_ops_carry_the_forward_values():
    """The forward loop pushes one value per iteration on the f_acc stack; the gradient loop pops them."""
    with ref.Graph().as_default() as g:
        _counter(ref)
        types = [op.type for op in g.get_operations()]
        assert types.count("StackPushV2") == 1 and types.count("StackPopV2") == 1
        assert "While" not in types


def test_endless_loop_gradient_stops_at_the_deadline():
    """The frames executor checks the run's deadline every iteration."""
    with ref.Graph().as_default():
        x = ref.constant(1.0)
        _, y = ref.while_loop(lambda i, y: i >= 0, lambda i, y: (i + 1, y * 1.0), [0, x])
        (gx,) = ref.gradients(y, x)
        with ref.Session() as s:
            with pytest.raises(ref.errors.DeadlineExceededError):
                s.run(gx, options=ref.RunOptions(timeout_in_ms=300))


def _grad_wrt_initial_value(tf):  # TF's testGradInWhileWrtInitialLoopVal
    x = tf.placeholder(tf.float32, shape=(), name="x")
    y = x + 1
    tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.gradients(v * 2, x)[0]), [0, y])


def _grad_through_loop_switch_of_a_constant(tf):
    x = tf.constant(3.0, name="c")
    tf.while_loop(lambda v: v < 30.0, lambda v: tf.gradients(v * v, x)[0] + v, [x * 2.0])


# (builder, TF's error kind, a phrase of its message)
GRAD_ERROR_ROWS = [
    (_grad_wrt_initial_value, ValueError, "Cannot compute gradient inside while loop with respect to op 'x'"),
    (_grad_through_loop_switch_of_a_constant, ValueError,
     "Cannot compute gradient inside while loop with respect to op 'c'"),
]


@pytest.mark.parametrize("build,kind,phrase", GRAD_ERROR_ROWS, ids=lambda r: getattr(r, "__name__", None))
def test_gradient_errors_match_tensorflow(build, kind, phrase):
    tf = tf_v1()
    with tf1_behaviour(), tf.Graph().as_default(), pytest.raises(kind, match=phrase):
        build(tf)
    with ref.Graph().as_default(), pytest.raises(kind, match=phrase):
        build(ref)
