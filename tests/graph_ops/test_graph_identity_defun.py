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


def python_grad_func_one_output_unreached(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32, python_grad_func=lambda op, da, db: da + db * 10.0)
    def TwoOut(x):
        return x * 2.0, x * 3.0

    x = tf.constant([1.0, 2.0], name="x")
    a, _ = TwoOut(x)
    return [a] + tf.gradients(a, [x])


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


def variable_in_body(tf):
    fn = _function_module(tf)

    @fn.Defun(tf.float32)
    def Affine(x):
        w = tf.get_variable("w", [2, 2], initializer=tf.constant_initializer([[1.0, 2.0], [3.0, 4.0]]))
        return tf.matmul(x, w)

    with tf.variable_scope("Foo"):
        y = Affine(tf.constant([[1.0, 1.0]], name="x"))
    return [y]


def guaranteed_const_capture(tf):
    fn = _function_module(tf)
    c = tf.guarantee_const(tf.constant([2.0, 3.0]), name="c")
    d = tf.identity(c) * 2.0

    @fn.Defun(tf.float32)
    def UsesConsts(x):
        return x + c + d

    return [UsesConsts(tf.constant([1.0, 1.0]))]


SNIPPETS = [guaranteed_const_capture, variable_in_body, two_args_two_outputs, named_capturing_noinline,
            symbolic_gradient, python_grad_func, python_grad_func_one_output_unreached, grad_func,
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


# -- TF's GraphDefs with Defun calls import into ref and run to TF's values ------

IMPORTED = [two_args_two_outputs, named_capturing_noinline, overloaded_and_no_args, duplicate_outputs_and_matmul,
            nested_functions, grad_func]


@pytest.mark.parametrize("snippet", IMPORTED, ids=lambda s: s.__name__)
def test_tf_graph_def_imports_and_runs(snippet):
    import ref
    from _graphdef import tf1_behaviour, tf_v1

    tf = tf_v1()
    with tf1_behaviour(), tf.Graph().as_default() as g:
        outs = snippet(tf)
        # nested_functions / grad_func: the forward value only (a SymbolicGradient imported
        # from a GraphDef has no gradient graph in ref), plus grad_func's gradient pair
        outs = outs[:1] if snippet is nested_functions else outs
        names = [t.name for t in outs]
        with tf.Session() as s:
            want = s.run(outs)
        gd = g.as_graph_def().SerializeToString()
    with ref.Graph().as_default():
        ours = ref.GraphDef()
        ours.ParseFromString(gd)
        if snippet is grad_func:  # TF's gradient runs the paired grad_func; import only the forward
            names = names[:1]
            want = want[:1]
        ref.import_graph_def(ours, name="")
        with ref.Session() as s:
            got = s.run(names)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# -- errors: TF's kinds -----------------------------------------------------------

def _defaults(tf, fn):
    fn.Defun(tf.float32)(lambda x, y=1: x)


def _too_many_types(tf, fn):
    fn.Defun(tf.float32, tf.float32)(lambda x: x)


def _wrong_arg_count(tf, fn):
    fn.Defun(tf.float32)(lambda x: x)(tf.constant(1.0), tf.constant(2.0))


def _returns_none(tf, fn):
    fn.Defun(tf.float32)(lambda x: None if False else [None])(tf.constant(1.0))


def _duplicate_out_names(tf, fn):
    fn.Defun(tf.float32, out_names=["a", "a"])(lambda x: (x, x))(tf.constant(1.0))


def _unknown_kwarg(tf, fn):
    fn.Defun(tf.float32, bogus=1)(lambda x: x)(tf.constant(1.0))


def _same_name_twice(tf, fn):
    fn.Defun(tf.float32, func_name="Same")(lambda x: x + 1.0)(tf.constant(1.0))
    fn.Defun(tf.float32, func_name="Same")(lambda x: x * 2.0)(tf.constant(1.0))


def _grad_defined_twice(tf, fn):
    g = fn.Defun(tf.float32, tf.float32)(lambda x, dy: dy)
    fn.Defun(tf.float32, grad_func=g, python_grad_func=lambda op, dy: dy)(lambda x: x)(tf.constant(1.0))


ERRORS = [_defaults, _too_many_types, _wrong_arg_count, _returns_none, _duplicate_out_names, _unknown_kwarg,
          _same_name_twice, _grad_defined_twice]


def _raised(lib, fn, case):
    from _graphdef import tf1_behaviour
    import contextlib

    ctx = contextlib.nullcontext() if lib.__name__.startswith("ref") else tf1_behaviour()
    with ctx, lib.Graph().as_default():
        try:
            case(lib, fn)
        except Exception as e:  # noqa: BLE001 -- the kind is what is compared
            return type(e).__name__
    return None


@pytest.mark.parametrize("case", ERRORS, ids=lambda c: c.__name__.strip("_"))
def test_errors_are_tf_kinds(case):
    import ref
    from _graphdef import tf_v1

    tf = tf_v1()
    want = _raised(tf, _function_module(tf), case)
    assert want is not None
    assert _raised(ref, _under_test, case) == want
