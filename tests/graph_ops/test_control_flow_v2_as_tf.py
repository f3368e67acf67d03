"""Control flow v2 (``tf.compat.v1.enable_control_flow_v2()``: ``while_loop``
builds the functional ``While``) against TensorFlow in the same mode: values
of programs that take gradients inside loop bodies with respect to outer
tensors (TF's ``_Inputs``/``_Consumers`` crossing function captures), bodies
under ``control_dependencies`` on outer ops (TF's FuncGraph control
captures), and the errors of bodies that return the wrong structure."""
import contextlib

import numpy as np
import pytest

import ref
from ref.graph_ops import control_flow_ops as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour, tf_v1


@contextlib.contextmanager
def _v2(lib):
    """``lib`` (ref or tf.compat.v1) building control flow v2, restored after."""
    if lib is ref:
        was = ref.control_flow_v2_enabled()
        ref.enable_control_flow_v2()
        try:
            yield
        finally:
            if not was:
                ref.disable_control_flow_v2()
        return
    from tensorflow.python.ops import control_flow_util
    with tf1_behaviour():
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = True
        yield


def _values(lib, program):
    with _v2(lib), lib.Graph().as_default():
        outs, feed = program(lib)
        with lib.Session() as s:
            return s.run(outs, {k: v for k, v in feed.items()})


def _grad_of_outer_in_body(tf):  # TF's testCallGradInLoop
    params = tf.constant(5.0)
    params_1 = tf.square(params)

    def body(i, x):
        data = tf.constant([1.0, 2.0, 3.0]) * params_1
        return i + 1, x + tf.gradients(data, params)[0]

    return tf.while_loop(lambda i, _: i < 10, body, [tf.constant(0), tf.constant(0.0)]), {}


def _grad_of_inner_loop(tf):  # TF's testWhileGradInWhile: an inner loop's gradient wrt an outer placeholder
    x = tf.placeholder(tf.float32, shape=None, name="x")
    n = tf.convert_to_tensor(1.0, name="n")

    def outer_body(n):
        r = tf.while_loop(lambda n: n < 10.0, lambda n: n + x, [n], [tf.TensorShape(None)])
        return tf.gradients(r, x)

    return tf.while_loop(lambda n: n < 6.0, outer_body, [n], [tf.TensorShape(None)]), {x: 1.0}


def _grad_through_two_captures(tf):  # the outer tensor captured by the outer body, then the inner one
    w = tf.placeholder(tf.float32, [], name="w")

    def outer_body(i, acc):
        _, y = tf.while_loop(lambda j, y: j < 3, lambda j, y: (j + 1, y * w), [0, tf.constant(1.0)])
        return i + 1, acc + tf.gradients(y * y, w)[0]

    return tf.while_loop(lambda i, _: i < 2, outer_body, [0, tf.constant(0.0)]), {w: 1.5}


def _body_under_outer_control_dependency(tf):  # TF's testWhileWithControl_5
    b = tf.placeholder(tf.bool, name="b")
    c = tf.constant(1)

    def body(x):
        with tf.control_dependencies([b]):
            return x + c

    return tf.while_loop(lambda x: x < 10, body, [tf.constant(0)]), {b: True}


def _body_reads_updated_variable(tf):  # the outer op (an assign) runs before the loop
    v = tf.get_variable("v", initializer=1.0, use_resource=True)
    init = tf.variables_initializer([v])
    with tf.control_dependencies([init]):
        up = tf.assign_add(v, 2.0)

    def body(i, s):
        with tf.control_dependencies([up]):
            return i + 1, s + v.read_value()

    return tf.while_loop(lambda i, _: i < 2, body, [0, tf.constant(0.0)]), {}


VALUE_ROWS = [_grad_of_outer_in_body, _grad_of_inner_loop, _grad_through_two_captures,
              _body_under_outer_control_dependency, _body_reads_updated_variable]


@pytest.mark.parametrize("program", VALUE_ROWS, ids=lambda f: f.__name__)
def test_values_as_tf(program):
    tf = tf_v1()
    want = _values(tf, program)
    got = _values(ref, program)
    got, want = (x if isinstance(x, (list, tuple)) else [x] for x in (got, want))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _extra_value(tf):  # TF's testWhileBadBodyReturn: N loop variables, N + 1 results
    x = tf.constant([2.0, 4.0], name="values")
    tf.while_loop(lambda i, *x: i < 10, lambda i, *x: (i, i) + x, [tf.constant(0), x])


def _nested_bad_arity(tf):  # TF's testWhile_NestedBadArityFails
    import collections
    named = collections.namedtuple("named", ("a", "b"))
    loop_vars = [named(a=tf.constant(0.0), b=tf.constant(1.0)), (tf.constant(2.0), tf.constant(3.0)),
                 tf.constant(4.0)]
    tf.while_loop(lambda lv0, _1, _2: lv0.a < 100.0, lambda lv0, lv1, _: [lv0, lv1], loop_vars)


# (builder, error kind, a phrase of the message TF's v2 gives)
ERROR_ROWS = [
    (_extra_value, ValueError, "The two structures don't have the same nested structure"),
    (_nested_bad_arity, ValueError, "the same number of elements"),
]


@pytest.mark.parametrize("build,kind,phrase", ERROR_ROWS, ids=lambda r: getattr(r, "__name__", None))
def test_errors_as_tf(build, kind, phrase):
    tf = tf_v1()
    for lib in (tf, ref):
        with _v2(lib), lib.Graph().as_default():
            with pytest.raises(kind, match=phrase):
                build(lib)
