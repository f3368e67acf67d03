"""while_loop and cond: TF1 programs give the same numbers as tensorflow.compat.v1;
argument errors and laziness as documented."""
import numpy as np
import pytest

import ref
from ref.graph_ops import control_flow_ops as _under_test  # noqa: F401  (the module these tests cover)


def _prog_while_sum(tf):
    i = tf.constant(0)
    s = tf.constant(0.0)
    _, out = tf.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, s + tf.cast(i, tf.float32) * 0.5), [i, s])
    return out


def _prog_while_single(tf):
    return tf.while_loop(lambda x: x < 100.0, lambda x: x * 3.0, [tf.constant(1.0)])


def _prog_while_max_iter(tf):
    return tf.while_loop(lambda x: x < 1e9, lambda x: x * 2.0, [tf.constant(1.0)], maximum_iterations=5)


def _prog_while_nested_structure(tf):
    init = {"a": tf.constant([1.0, 2.0]), "n": tf.constant(0)}
    out = tf.while_loop(lambda d: d["n"] < 3, lambda d: [{"a": d["a"] * 2.0, "n": d["n"] + 1}], [init])
    return out[0]["a"]


def _prog_while_shape_invariant(tf):
    x = tf.constant([[1.0]])
    i = tf.constant(0)
    _, y = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)), [i, x],
                         shape_invariants=[i.shape, tf.TensorShape([None, 1])])
    return y


def _prog_while_capture(tf):
    w = tf.constant(np.array([[0.5, 0.1], [0.2, 0.3]], np.float32))
    v = tf.constant(np.array([[1.0, 1.0]], np.float32))
    _, out = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, tf.tanh(tf.matmul(v, w))), [0, v])
    return out


def _prog_cond_true(tf):
    x = tf.constant(3.0)
    return tf.cond(x > 2.0, lambda: x * 10.0, lambda: x - 1.0)


def _prog_cond_false(tf):
    x = tf.constant(1.0)
    return tf.cond(x > 2.0, lambda: x * 10.0, lambda: x - 1.0)


def _prog_cond_tuple(tf):
    x = tf.constant([1.0, 2.0])
    a, b = tf.cond(tf.reduce_sum(x) > 0.0, lambda: (x + 1.0, x * 2.0), lambda: (x, x))
    return a * b


def _prog_case(tf):
    x = tf.constant(5)
    return tf.case([(x < 3, lambda: tf.constant(1)), (x < 7, lambda: tf.constant(2))],
                   default=lambda: tf.constant(3))


PROGRAMS = {n[6:]: f for n, f in globals().items() if n.startswith("_prog_")}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        t = PROGRAMS[name](tf)
        with tf.Session() as s:
            expected = s.run(t)
    with ref.Graph().as_default():
        r = PROGRAMS[name](ref)
        with ref.Session() as s:
            actual = s.run(r)
    np.testing.assert_allclose(actual, expected, rtol=1e-6)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype


def test_cond_runs_only_taken_branch():
    with ref.Graph().as_default():
        v = ref.Variable(0.0)
        flag = ref.placeholder(ref.bool, [])
        out = ref.cond(flag, lambda: ref.identity(ref.assign_add(v, 1.0)), lambda: ref.identity(ref.assign_add(v, 100.0)))
        with ref.Session() as s:
            s.run(ref.global_variables_initializer())
            s.run(out, {flag: True})
            s.run(out, {flag: True})
            assert s.run(v) == 2.0
            s.run(out, {flag: False})
            assert s.run(v) == 102.0


def test_while_loop_updates_variable_in_body():
    with ref.Graph().as_default():
        v = ref.Variable(0.0)

        def body(i):
            with ref.control_dependencies([ref.assign_add(v, 2.0)]):
                return i + 1

        n = ref.while_loop(lambda i: i < 5, body, [ref.constant(0)])
        with ref.Session() as s:
            s.run(ref.global_variables_initializer())
            assert s.run(n) == 5
            assert s.run(v) == 10.0


@pytest.mark.parametrize("kwargs,err", [
    (dict(cond=1, body=lambda x: x, loop_vars=[1.0]), TypeError),
    (dict(cond=lambda x: x < 1, body=3, loop_vars=[1.0]), TypeError),
    (dict(cond=lambda x: ref.reduce_sum(x) < 5.0, body=lambda x: ref.concat([x, x], 0),
          loop_vars=lambda: [ref.constant([1.0])]),
     ValueError),
    (dict(cond=lambda x: x < 5, body=lambda x: ref.cast(x, ref.float32), loop_vars=lambda: [ref.constant(1)]),
     TypeError),
    (dict(cond=lambda x: x, body=lambda x: x, loop_vars=lambda: [ref.constant([True])]), ValueError),
])
def test_while_loop_errors(kwargs, err):
    with ref.Graph().as_default():
        kw = {k: (v() if k == "loop_vars" and callable(v) else v) for k, v in kwargs.items()}
        with pytest.raises(err):
            ref.while_loop(**kw)


def test_cond_errors():
    with ref.Graph().as_default():
        with pytest.raises(TypeError):
            ref.cond(ref.constant(True), 1, lambda: 2)
        with pytest.raises(TypeError):
            ref.cond(ref.constant(1.0), lambda: 1.0, lambda: 2.0)
        with pytest.raises(ValueError):
            ref.cond(ref.constant(True), lambda: ref.constant(1.0), lambda: ref.constant(1))
