"""TF1 graph functions (``Defun``) against TensorFlow 2.21 under TF1 behaviour:
each row builds one snippet in both and compares the GraphDefs node for node
(``_graphdef``) and the function libraries FunctionDef for FunctionDef --
names (TF's ``<func_name>_<hash>``), signatures, node_defs, ``ret``, attrs,
``arg_attr`` and the gradient pairs -- then runs the snippet's fetches in
both and compares the values.
"""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the builders the snippets call)
from ref.framework import function as _under_test  # noqa: F401  (the module these tests cover)
from _graphdef import describe, differences, graph_def, ref_and_tf_values


def _function_module(tf):
    if tf.__name__.startswith("ref"):
        return _under_test
    from tensorflow.python.framework import function
    return function


# -- snippets: snippet(tf) -> fetches -------------------------------------------

def two_args_two_outputs(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32, tf.float32)
    def Foo(x, y):
        return x * 2.0 + y, tf.constant([1, 2])

    a, b = tf.constant(1.0), tf.constant([1.0, 2.0, 3.0], name="b")
    return list(Foo(a, b))


def named_capturing_noinline(tf):
    fn = _function_module(tf)
    a = tf.constant(0.5)

    @fn.Defun(tf.float32, func_name="Bar", out_names=["o1"], noinline=True)
    def Bar(x):
        return tf.tanh(x) + a

    b = tf.constant([1.0, -2.0, 3.0], name="b")
    return [Bar(b, name="call"), Bar(b)]


def symbolic_gradient(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32, tf.float32)
    def Poly(x, y):
        return tf.reduce_sum(x * x * y), x - y

    x = tf.constant([1.0, 2.0, 3.0], name="x")
    y = tf.constant([0.5, -1.0, 2.0], name="y")
    s, d = Poly(x, y)
    return [s] + tf.gradients(s, [x, y]) + tf.gradients(s + tf.reduce_sum(d), [x])


def python_grad_func(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32, python_grad_func=lambda op, dy: dy * 3.0)
    def Triple(x):
        return x * 2.0

    x = tf.constant([1.0, 4.0], name="x")
    y = Triple(x)
    return [y] + tf.gradients(y, [x])


def grad_func(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32, tf.float32)
    def SquareGrad(x, dy):
        return x * dy * 10.0

    @fn.Defun(tf.float32, grad_func=SquareGrad)
    def Square(x):
        return x * x

    x = tf.constant([1.0, 2.0], name="x")
    y = Square(x)
    return [y] + tf.gradients(y, [x])


def nested_functions(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32)
    def Outer(x):
        @fn.Defun(tf.float32)
        def Inner(y):
            return y + 1.0

        return Inner(Inner(x)) * 2.0

    x = tf.constant([1.0, 2.0], name="x")
    y = Outer(x)
    return [y] + tf.gradients(y, [x])


def overloaded_and_no_args(tf):
    fn = _function_module(tf)

    @fn.Defun()
    def Plus(a, b):
        return a + b

    @fn.Defun()
    def Seven():
        return tf.constant(7, name="seven")

    return [Plus(tf.constant(1.5), tf.constant(2.0)), Plus(tf.constant(3), tf.constant(4)), Seven()]


def duplicate_outputs_and_matmul(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32, tf.float32)
    def Dup(a, b):
        m = tf.matmul(a, b)
        return m, m, tf.reduce_sum(m, 1)

    a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
    return list(Dup(a, tf.transpose(a)))


SNIPPETS = [two_args_two_outputs, named_capturing_noinline, symbolic_gradient, python_grad_func, grad_func,
            nested_functions, overloaded_and_no_args, duplicate_outputs_and_matmul]


def _function_view(fdef):
    """A FunctionDef as comparable values (node_defs by name, attrs read back)."""
    from tensorflow.core.framework import attr_value_pb2

    def attrs(m):
        out = {}
        for k, v in m.items():
            a = attr_value_pb2.AttrValue()
            a.CopyFrom(v)
            out[k] = a.SerializeToString(deterministic=True)
        return out

    return (fdef.signature.SerializeToString(deterministic=True),
            sorted(describe(n) for n in fdef.node_def), dict(fdef.ret), attrs(fdef.attr),
            {i: attrs(a.attr) for i, a in fdef.arg_attr.items()})


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.__name__)
def test_graph_and_library_match_tensorflow(snippet):
    import ref
    from _graphdef import tf_v1

    want = graph_def(tf_v1(), snippet)
    got = graph_def(ref, snippet)
    diff = differences(got, want)
    assert not diff, "\n".join(diff)
    got_fns = {f.signature.name: f for f in got.library.function}
    want_fns = {f.signature.name: f for f in want.library.function}
    assert sorted(got_fns) == sorted(want_fns)
    for name, fdef in want_fns.items():
        assert _function_view(got_fns[name]) == _function_view(fdef), name
    assert sorted((g.function_name, g.gradient_func) for g in got.library.gradient) == sorted(
        (g.function_name, g.gradient_func) for g in want.library.gradient)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.__name__)
def test_values_match_tensorflow(snippet):
    got, want = ref_and_tf_values(snippet)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        assert np.asarray(g).dtype == np.asarray(w).dtype
