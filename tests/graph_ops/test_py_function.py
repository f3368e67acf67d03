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
