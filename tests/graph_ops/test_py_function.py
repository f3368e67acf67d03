"""tf.py_function (EagerPyFunc) against TF 2.21 (tf.compat.v1, TF1 behaviour):
the GraphDef, the values, the inputs' ``.numpy()``, list and single outputs,
the decorator form and TF's error for a wrong returned dtype."""
import numpy as np
import pytest

from ref.graph_ops import script_ops  # noqa: F401  (the builder under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1


def snippet(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    s = tf.placeholder(tf.string, [], name="s")
    y = tf.py_function(lambda a: a.numpy() * 2, [x], tf.float32)
    z = tf.py_function(lambda a, b: [np.float32(a.numpy().sum()), np.int32(len(b.numpy()))], [x, s],
                       [tf.float32, tf.int32], name="two")
    w = tf.py_function(lambda a: (a.numpy() + 1).astype(np.float64), inp=[x], Tout=[tf.float64])
    return [y, z, w], {x: np.float32([1.5, -2.0]), s: b"abcd"}


def test_graph_def_is_tensorflows():
    assert_same_graph(graph_only(snippet))


def test_values_are_tensorflows():
    import ref

    def flat(vals):
        out = []
        for v in vals:
            out += flat(v) if isinstance(v, list) else [np.asarray(v)]
        return out

    got, want = flat(fed_values(ref, snippet)), flat(fed_values(tf_v1(), snippet))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_returned_values_convert_to_tout_as_in_tf():
    """float64 -> float32 and int -> float convert (TF's convert_to_tensor); a string for a float is an error."""
    import ref
    for lib in (ref, tf_v1()):
        (a, b) = fed_values(lib, lambda t: ([t.py_function(lambda v: v.numpy().astype(np.float64), [t.constant([1.5])],
                                                           t.float32),
                                             t.py_function(lambda v: np.int64(3), [t.constant([1.5])], t.float32)], {}))
        assert a.dtype == np.float32 and a.tolist() == [1.5] and b.dtype == np.float32 and b == 3.0
        with pytest.raises((lib.errors.InvalidArgumentError, lib.errors.UnimplementedError)):
            fed_values(lib, lambda t: ([t.py_function(lambda v: b"x", [t.constant([1.0])], t.float32)], {}))


def _no_outputs(t, func):
    """What ``py_function(func, [], [])`` returns, what running it gives, and its error."""
    with t.Graph().as_default():
        out = t.py_function(func, inp=[], Tout=[])
        kind = type(out).__name__
        with t.Session() as s:
            try:
                return kind, s.run(out), None
            except t.errors.OpError as e:
                return kind, None, (type(e).__name__, "blah" in e.message)


def _quiet():
    return None


def _raises(error):
    def func():
        raise error("blah")
    return func


NO_OUTPUTS = {"returns_none": _quiet, "value_error": _raises(ValueError), "type_error": _raises(TypeError),
              "stop_iteration": _raises(StopIteration), "memory_error": _raises(MemoryError),
              "not_implemented": _raises(NotImplementedError), "other": _raises(KeyError)}


@pytest.mark.parametrize("name", sorted(NO_OUTPUTS))
def test_no_outputs_is_the_op_and_runs_func_as_tf(name):
    import ref
    assert _no_outputs(ref, NO_OUTPUTS[name]) == _no_outputs(tf_v1(), NO_OUTPUTS[name])


GRADIENT_FUNCTIONS = {
    "py_func": lambda t, a: t.py_func(lambda a: 0, [a], [t.int64])[0],
    "py_func_stateless": lambda t, a: t.py_func(lambda a: 0, [a], [t.int64], stateful=False)[0],
    "square": lambda t, a: t.square(a),
    "overridden": lambda t, a: _overridden(t, a),
}


def _overridden(t, a):
    with t.get_default_graph().gradient_override_map({"Square": "Identity"}):
        return t.square(a)


@pytest.mark.parametrize("name", sorted(GRADIENT_FUNCTIONS))
def test_get_gradient_function_as_tf(name):
    """None for a not-differentiable op, else a rule (TF's by the override's type)."""
    import ref
    from ref.grad.registry import get_gradient_function
    from tensorflow.python.framework import ops as tf_ops
    tf1 = tf_v1()
    got = []
    for t, lookup in ((ref, get_gradient_function), (tf1, tf_ops.get_gradient_function)):
        with t.Graph().as_default():
            out = GRADIENT_FUNCTIONS[name](t, t.constant(3.0 if name in ("square", "overridden") else 0))
            rule = lookup(out.op)
            got.append(None if rule is None else rule.__name__.lstrip("_").lower())
    assert (got[0] is None) == (got[1] is None)


# The function runs eagerly (TF): the TF ops it calls compute values, built in a graph of their own.
def _matmul_two(t):
    return t.py_function(lambda a, x: [t.matmul(a, x), t.matmul(a, x) * 2.0],
                         [t.ones((3, 3)), t.ones((3, 1))], [t.float32, t.float32])


def _int_matmul(t):
    return t.py_function(lambda a, x: t.matmul(a, x), [t.ones((3, 3), t.int32), t.ones((3, 1), t.int32)], t.int32)


def _variable_read(t):
    return t.py_function(lambda: t.Variable(3.0) * 2.0 + 1.0, [], t.float32)


def _numpy_and_ops(t):
    return t.py_function(lambda a: t.reduce_sum(a.numpy() * 2.0), [t.constant([1.5, 2.5])], t.float32)


def _python_branch(t):
    return t.py_function(lambda a: a * 2.0 if t.reduce_sum(a) > 0 else np.asarray(t.abs(a)) - 1.0,
                         [t.constant([-1.5, 0.5])], t.float32)


EAGER_ROWS = {"python_branch_and_asarray": _python_branch, "matmul_two_outputs": _matmul_two, "int_matmul": _int_matmul, "variable_read": _variable_read,
              "numpy_then_ops": _numpy_and_ops}


@pytest.mark.parametrize("name", sorted(EAGER_ROWS))
def test_function_runs_its_tf_ops_eagerly_as_tf(name):
    import ref
    got = []
    for lib in (ref, tf_v1()):
        with lib.Graph().as_default() as g:
            out = EAGER_ROWS[name](lib)
            n_ops = len(g.get_operations())
            with lib.Session() as s:
                got.append((s.run(out), n_ops, len(g.get_operations())))
    (r, rn, rn_after), (w, wn, wn_after) = got
    np.testing.assert_array_equal(np.asarray(r), np.asarray(w))
    assert rn == wn and rn_after == rn  # the function's ops never join the caller's graph


def test_returning_a_variable_is_tfs_unknown_error():
    import ref
    for lib in (ref, tf_v1()):
        with lib.Graph().as_default():
            out = lib.py_function(lambda: lib.Variable(0.0), [], lib.float32)
            with lib.Session() as s, pytest.raises(lib.errors.UnknownError, match="Attempting to return a variable"):
                s.run(out)


# tf.gradients through py_function (TF's _EagerPyFuncGrad): (inputs, function, Tout, what to differentiate)
def _grad_square(t):
    x = t.constant(3.0)
    return t.gradients(t.py_function(lambda v: v ** 2, [x], t.float32), x)


def _grad_two_outputs(t):
    x, y = t.constant(3.0), t.constant(2.0)
    fa, fb = t.py_function(lambda a, b: (a * b, a / b), [x, y], [t.float32, t.float32])
    return t.gradients(fa + fb, [x, y])


def _grad_one_output_unused(t):
    x, y = t.constant([1.0, -2.0]), t.constant(2.0)
    fa, _ = t.py_function(lambda a, b: (t.tanh(a) * b, a - b), [x, y], [t.float32, t.float32])
    return t.gradients(t.reduce_sum(fa), [x, y])


def _grad_complex(t):
    c = t.constant(3.0 + 3.0j, t.complex128)
    return t.gradients(t.py_function(lambda v: v ** 2, [c], t.complex128), c,
                       grad_ys=t.constant(1.0 + 0j, t.complex128))


def _grad_twice_run(t):  # each run of the gradient differentiates at that run's inputs
    x = t.placeholder(t.float32, [], name="x")
    return t.gradients(t.py_function(lambda v: t.sin(v) * v, [x], t.float32), x)


def _log_huber(t, x, m):  # Python's `if` on a value the function computed with TF ops
    if t.abs(x) <= m:
        return x ** 2
    return m ** 2 * (1 - 2 * t.log(m) + t.log(x ** 2))


def _grad_python_branch(t):
    x = t.placeholder(t.float32, [], name="x")
    return t.gradients(t.py_function(lambda a, b: _log_huber(t, a, b), [x, t.constant(2.0)], t.float32), x)


GRAD_ROWS = {"python_branch": _grad_python_branch, "square": _grad_square, "two_outputs": _grad_two_outputs, "one_output_unused": _grad_one_output_unused,
             "complex": _grad_complex, "placeholder": _grad_twice_run}


@pytest.mark.parametrize("name", sorted(GRAD_ROWS))
def test_gradient_as_tf(name):
    import ref
    got = []
    for lib in (ref, tf_v1()):
        with lib.Graph().as_default() as g:
            grads = GRAD_ROWS[name](lib)
            # the gradient is one more EagerPyFunc, run after the forward one (a control input on it)
            ops = [op for op in g.get_operations() if op.type == "EagerPyFunc"]
            assert len(ops) == 2 and ops[0] in ops[1].control_inputs
            with lib.Session() as s:
                feeds = [{"x:0": v} for v in (0.5, -1.25, 3.0)] if name in ("placeholder", "python_branch") else [{}]
                got.append([s.run(grads, f) for f in feeds])
    for r, w in zip(*got):
        for a, b in zip(r, w):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
