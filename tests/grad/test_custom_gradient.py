"""``tf.custom_gradient``, ``tf.recompute_grad``, ``tf.grad_pass_through`` in graph
mode, run under tensorflow.compat.v1 and ref (values, errors with TF's
messages); and the variables a custom gradient sees (the cases of TF's
gradients_test.py GetDependentVariablesTest)."""
import importlib

import numpy as np
import pytest

import ref

from _both import assert_same, resource_variable_class, run, tf_v1
from ref.grad import custom_gradient as _under_test  # noqa: F401  (the module these tests cover)

cg = importlib.import_module("ref.grad.custom_gradient")  # the module (ref.grad.custom_gradient is the decorator)


def _p_log1pexp(tf, s):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.log(1 + e), grad

    x = tf.constant([0.0, 10.0])
    y = log1pexp(x)
    return s.run([y, tf.gradients(y, x)]), y.op.type


def _p_trivial_twice(tf, s):  # testCustomGradientTrivial
    @tf.custom_gradient
    def my_identity(x):
        return x, lambda dy: [3 * dy]

    x = tf.constant(3.0)
    return s.run(tf.gradients(my_identity(my_identity(x)), x))


def _p_two_inputs(tf, s):
    @tf.custom_gradient
    def f(x, y):
        return x * y, lambda dz: (dz * 2.0, dz * 3.0)

    x, y = tf.constant(2.0), tf.constant(5.0)
    z = f(x, y)
    return s.run(tf.gradients(z * z, [x, y]))


def _p_method(tf, s):  # testCustomGradientClass
    class Model:
        @tf.custom_gradient
        def multiply(self, x1, x2):
            return x1 * x2, lambda dy: (dy * x1, dy * x2)

    x1, x2 = tf.constant(3.0), tf.constant(5.0)
    return s.run(tf.gradients(Model().multiply(x1, x2), [x1, x2]))


def _p_two_outputs(tf, s):
    @tf.custom_gradient
    def f(x):
        return (x + 1.0, x * 2.0), lambda da, db: da * 2.0 + db * 3.0

    x = tf.constant([1.0, 2.0])
    a, b = f(x)
    return s.run(tf.gradients([a, b], x)), s.run(tf.gradients(b, x))


def _p_grad_fn_raises(tf, s):  # testCustomGradientErrors
    @tf.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("x")
        return x, grad

    try:
        tf.gradients(f(tf.constant(1.0)), tf.constant(1.0))
        tf.gradients(f(tf.constant(1.0)), tf.constant(1.0))
        x = tf.constant(1.0)
        tf.gradients(f(x), x)
    except RuntimeError:
        return "RuntimeError"
    return "no error"


def _with_variable(with_signature):
    def program(tf, s):
        v = resource_variable_class(tf)(3.0, name="v")

        @tf.custom_gradient
        def f(x):
            def grad(dy, variables=None):
                return dy * 10.0, [dy * 100.0 for _ in variables]

            def grad_without_variables(dy):
                return dy * 10.0
            return x * v, (grad if with_signature else grad_without_variables)

        x = tf.constant(2.0)
        y = f(x)
        g = tf.gradients(y, [x, v])
        s.run(tf.global_variables_initializer())
        return s.run([y, g])
    return program


def _p_variable_inside(tf, s):
    @tf.custom_gradient
    def f(x):
        with tf.variable_scope("inner", use_resource=True):
            w = tf.get_variable("w", [], initializer=tf.constant_initializer(4.0))

        def grad(dy, variables=None):
            return dy * 7.0, [dy * 11.0 for _ in variables]
        return x * w, grad

    x = tf.constant(2.0)
    y = f(x)
    vs = tf.global_variables()
    g = tf.gradients(y, [x] + vs)
    s.run(tf.global_variables_initializer())
    return [v.name for v in vs], s.run([y, g])


def _p_ref_variable_inside(tf, s):
    @tf.custom_gradient
    def f(x):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(4.0), use_resource=False)
        return x * w, lambda dy, variables=None: (dy, [dy for _ in variables])

    return f(tf.constant(1.0))


def _p_keyword_arguments(tf, s):
    @tf.custom_gradient
    def f(x, k=1.0):
        return x * k, lambda dy: dy

    return f(tf.constant(1.0), k=2.0)


def _p_recompute(tf, s):
    def f(x, y):
        return tf.sin(x) * y

    x, y = tf.constant([0.5, 1.0]), tf.constant([2.0, 3.0])
    z = tf.recompute_grad(f)(x, y)
    return s.run([z, tf.gradients(tf.reduce_sum(z * z), [x, y])])


def _p_recompute_with_variable(tf, s):
    v = resource_variable_class(tf)(np.array([1.5, -2.0], np.float32))

    def f(x):
        return tf.tanh(x * v)

    x = tf.constant([0.5, 1.0])
    z = tf.recompute_grad(f)(x)
    g = tf.gradients(tf.reduce_sum(z), [x, v])
    s.run(tf.global_variables_initializer())
    return s.run([z, g])


def _p_recompute_get_variable_in_reusing_scope(tf, s):
    # the recomputation runs in the call's variable scope: get_variable finds the
    # first run's variable (TF's testFnRecomputeWithScopeGradient)
    def f(x):
        with tf.variable_scope("inner"):
            w = tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, -2.0, 0.5]))
            return tf.sin(x * w)

    x = tf.constant([[0.5, 1.0, 2.0], [1.5, -1.0, 0.25]])
    with tf.variable_scope("outer", reuse=tf.AUTO_REUSE, use_resource=True):
        z = tf.recompute_grad(f)(x)
        plain = f(x)
    n_vars = len(tf.trainable_variables())
    g = tf.gradients(tf.reduce_sum(z * z), [x] + tf.trainable_variables())
    g_plain = tf.gradients(tf.reduce_sum(plain * plain), [x] + tf.trainable_variables())
    s.run(tf.global_variables_initializer())
    return [n_vars, len(tf.trainable_variables()), s.run([z, g, g_plain])]


def _p_pass_through_assign(tf, s):
    x = resource_variable_class(tf)(1.0, name="x")
    z = resource_variable_class(tf)(3.0, name="z")
    y = tf.grad_pass_through(x.assign)(z ** 2)
    g = tf.gradients(y, z)
    s.run(tf.global_variables_initializer())
    return s.run(g)


def _p_pass_through_round(tf, s):
    x = tf.constant([0.3, 1.7])
    y = tf.grad_pass_through(tf.round)(x)
    return s.run([y, tf.gradients(y * 2.0, x)])


PROGRAMS = {name[3:]: fn for name, fn in globals().items() if name.startswith("_p_")}
PROGRAMS["with_variable"] = _with_variable(True)
PROGRAMS["with_variable_no_variables_argument"] = _with_variable(False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_custom_gradient_matches_tensorflow(name):
    want = run(tf_v1(), PROGRAMS[name])
    got = run(ref, PROGRAMS[name])
    assert_same(got, want, rtol=1e-5)


# TF's GetDependentVariablesTest: which variables lie between inputs and outputs
def _dep_none(tf):
    x = tf.constant(2.0)
    return [x], [tf.identity(x) + 5.0], []


def _dep_outside(tf):
    var = tf.Variable(tf.constant(100.0))
    x = tf.constant(2.0)
    return [x], [tf.identity(x) + 5.0 + var], [var]


def _dep_same_prefix(tf):
    v_z = tf.get_variable("my_variable", shape=())
    v_o = tf.get_variable("my_variable_ones", shape=())
    x = tf.constant(2.0)
    return [x], [tf.identity(x) + 5.0 + v_z + v_o], [v_z, v_o]


def _dep_separated(tf):
    var = tf.Variable(tf.constant(100.0))
    x = tf.identity(var) * 5.0
    return [x], [tf.identity(x) + 5.0], []


def _dep_non_differentiable(tf):
    var = tf.Variable(tf.constant(100.0, shape=(5,)), shape=(5,))
    x = tf.constant(2.0)
    return [x], [tf.identity(x) + 5.0 + tf.ones_like(var)], []


def _dep_non_trainable(tf):
    trainable = tf.Variable(tf.constant(100.0, shape=(5,)), shape=(5,))
    frozen = tf.Variable(tf.constant(100.0, shape=(5,)), shape=(5,), trainable=False)
    return [tf.constant(2.0)], [trainable + frozen], [trainable]


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("case", [_dep_none, _dep_outside, _dep_same_prefix, _dep_separated,
                                  _dep_non_differentiable, _dep_non_trainable])
def test_dependent_variables_as_tensorflow(case, use_resource):
    with ref.Graph().as_default(), ref.variable_scope("", use_resource=use_resource):
        inputs, outputs, want = case(ref)
        got = cg._get_dependent_variables(inputs, outputs)
        assert sorted(v.name for v in got) == sorted(v.name for v in want)


def test_get_variable_by_name():
    with ref.Graph().as_default():
        a = ref.Variable(1.0, name="a")
        ref.Variable(1.0, name="b", trainable=False)
        assert cg.get_variable_by_name("a") is a
        assert cg.get_variable_by_name("b") is None
        with pytest.raises(ValueError, match="Unsuccessful at finding variable c"):
            cg.get_variable_by_name("c")
