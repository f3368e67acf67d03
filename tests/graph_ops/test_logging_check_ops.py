"""tf.Assert, tf.Print, tf.print, tf.debugging.assert_*, check_numerics and
add_check_numerics_ops in TF1 graph mode: messages and error classes compared
with tensorflow.compat.v1 (check_ops_test.py, logging_ops_test.py,
numerics_test.py cases)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ref
from ref.ops.logging import format_v2, summarize
from tests.graph_ops._interop import run, tf1
from ref.graph_ops import logging_ops as _under_test  # noqa: F401  (the module these tests cover)

FEED = np.array([1., -2., 3.], np.float32)


def _x(tf):
    return tf.placeholder(tf.float32, [None], name="x")


def _fed(build):
    """``build(tf, x)`` run with x fed; returns the error message or the values."""
    def go(lib):
        with lib.Graph().as_default(), lib.Session() as sess:
            x = _x(lib)
            op = build(lib, x)
            try:
                return sess.run(op, {x: FEED})
            except Exception as e:  # noqa: BLE001
                return e
    return go


RUNTIME = {
    "Assert": lambda tf, x: tf.Assert(tf.reduce_all(x > 0), ["msg", x, tf.constant([1, 2, 3, 4, 5]),
                                                             tf.constant(3.5), tf.constant([[1, 2], [3, 4]])]),
    "Assert_summarize": lambda tf, x: tf.Assert(tf.reduce_all(x > 0), [tf.reshape(tf.range(6), [2, 3]),
                                                                       tf.constant([True, False])], summarize=4),
    "Assert_control_dependency": lambda tf, x: _guarded(tf, x),
    "assert_positive": lambda tf, x: tf.assert_positive(x),
    "assert_negative_message": lambda tf, x: tf.assert_negative(x, message="neg"),
    "assert_non_negative_summarize": lambda tf, x: tf.assert_non_negative(x, summarize=1),
    "assert_non_positive": lambda tf, x: tf.assert_non_positive(x),
    "assert_equal": lambda tf, x: tf.assert_equal(x, tf.ones([3])),
    "assert_none_equal": lambda tf, x: tf.assert_none_equal(x, tf.constant([1., 0., 0.])),
    "assert_less": lambda tf, x: tf.assert_less(x, 1.5),
    "assert_less_equal": lambda tf, x: tf.assert_less_equal(x, 1.0),
    "assert_greater": lambda tf, x: tf.assert_greater(x, -1.0),
    "assert_greater_equal": lambda tf, x: tf.assert_greater_equal(x, 0.0, message="ge"),
    "assert_near": lambda tf, x: tf.assert_near(x, tf.zeros([3]), message="near"),
    "assert_rank_dynamic": lambda tf, x: tf.assert_rank(tf.reshape(x, [-1, 1, 1]), tf.placeholder_with_default(3, [])),
    "assert_rank_in_not_scalar": lambda tf, x: tf.assert_rank_in(
        x, (tf.placeholder_with_default(1, None), tf.placeholder_with_default([2, 1], None))),
    "assert_rank_in_dynamic": lambda tf, x: tf.assert_rank_in(
        x, (tf.placeholder_with_default(2, None), tf.placeholder_with_default(3, None))),
    "assert_rank_in_dynamic_passes": lambda tf, x: [tf.assert_rank_in(
        x, (tf.placeholder_with_default(2, None), tf.placeholder_with_default(1, None))), x],
    "assert_equal_passes": lambda tf, x: tf.assert_equal(x, x),
    "check_numerics": lambda tf, x: tf.check_numerics(tf.log(x), "log"),
    "verify_tensor_all_finite": lambda tf, x: tf.verify_tensor_all_finite(x / 0.0, "div"),
    "add_check_numerics_ops": lambda tf, x: [tf.reduce_sum(tf.log(x, name="lg")), tf.add_check_numerics_ops()],
}


def _guarded(tf, x):
    with tf.control_dependencies([tf.Assert(tf.reduce_all(x < 10), [x])]):
        ok = tf.identity(x)
    with tf.control_dependencies([tf.Assert(tf.reduce_all(x > 0), [x], name="positive")]):
        return [ok, tf.identity(x)]


@pytest.mark.parametrize("case", sorted(RUNTIME))
def test_runtime_messages_match_tensorflow(case):
    go = _fed(RUNTIME[case])
    want, got = go(tf1()), go(ref)
    if not isinstance(want, Exception):
        assert not isinstance(got, Exception), got
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
            if w is not None:
                np.testing.assert_array_equal(g, w)
        return
    assert type(got).__name__ == type(want).__name__, (got, want)
    # TF's message: "Graph execution error:\n\n[Detected at ...]<kernel message>\n\t [[node ...]]"
    text = want.message.split("\n\t [[")[0]
    kernel_message = text[text.rfind("\n") + 1:] if "assertion failed" not in text else \
        text[text.index("assertion failed"):]
    assert got.message.split("\n\t [[")[0] == kernel_message


STATIC = {
    "assert_equal_constants": lambda tf: tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="hey"),
    "assert_less_constants": lambda tf: tf.assert_less(tf.constant([1, 2]), tf.constant([3, 2])),
    "assert_rank": lambda tf: tf.assert_rank(tf.placeholder(tf.float32, [None]), 2),
    "assert_rank_message": lambda tf: tf.assert_rank(tf.constant([1, 2]), 2, message="r"),
    "assert_rank_at_least": lambda tf: tf.assert_rank_at_least(tf.placeholder(tf.float32, [None]), 2),
    "assert_rank_in": lambda tf: tf.assert_rank_in(tf.placeholder(tf.float32, [None]), [0, 2]),
    "assert_integer": lambda tf: tf.assert_integer(tf.constant(1.0)),
    "assert_type": lambda tf: tf.assert_type(tf.constant(1.0), tf.int32),
    "assert_scalar": lambda tf: tf.assert_scalar(tf.constant([1.0])),
    "assert_proper_iterable": lambda tf: tf.assert_proper_iterable(np.array([1])),
}


@pytest.mark.parametrize("case", sorted(STATIC))
def test_construction_errors_match_tensorflow(case):
    errs = []
    for lib in (tf1(), ref):
        with lib.Graph().as_default():
            with pytest.raises(Exception) as info:
                STATIC[case](lib)
            errs.append(info.value)
    want, got = errs
    assert type(got).__name__ == type(want).__name__
    msg = lambda e: (e.message if hasattr(e, "message") else str(e)).replace("(None,)", "(?,)")  # noqa: E731
    assert msg(got) == msg(want).replace("(None,)", "(?,)")


def test_static_checks_that_pass_return_ops():
    tf = ref
    with tf.Graph().as_default(), tf.Session() as sess:
        ok = [tf.assert_rank(tf.constant([1, 2]), 1), tf.assert_integer(tf.constant(1)),
              tf.assert_type(tf.constant(1.0), tf.float32)]
        assert [o.type for o in ok] == ["NoOp"] * 3
        assert tf.assert_scalar(tf.constant(1.0)).shape.ndims == 0
        sess.run(ok)
        assert sess.run([tf.is_non_decreasing([1, 2, 2]), tf.is_strictly_increasing([1, 2, 2]),
                         tf.is_strictly_increasing([1])]) == [True, False, True]
        assert tf.assert_same_float_dtype([tf.constant(1.0)]) == tf.float32
        with pytest.raises(ValueError):
            tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(1.0, tf.float64)])


def test_namespaces():
    for name in ("assert_equal", "assert_positive", "assert_near", "assert_rank", "Assert", "check_numerics"):
        assert callable(getattr(ref.debugging, name))
    assert ref.compat.v1.debugging.assert_less is ref.assert_less


# SummarizeValue: (value, summarize) -> TF's text (tensor.cc's PrintOneDim).
SUMMARIZE = [
    (np.array([[1, -2, 3], [4, 5, 6]]), 3, "[1 -2 3]..."),
    (np.ones([2, 3], np.float32), 4, "[1 1 1][1...]..."),
    (np.array([1, 2, 3, 4, 5]), 3, "1 2 3..."),
    (np.array([[1, 2], [3, 4]]), 10, "[1 2][3 4]"),
    (np.float32(3.5), 3, "3.5"),
    (np.float32(0.1), 3, "0.1"),
    (np.float64(1 / 3), 3, "0.33333333333333331"),
    (np.array([True, False]), 3, "1 0"),
    (np.array([b"a", b"b"], dtype=object), 3, "a b"),
    (np.zeros([0]), 3, ""),
    (np.arange(5), -1, "0 1 2 3 4"),
]


@pytest.mark.parametrize("value,limit,text", SUMMARIZE)
def test_summarize_value(value, limit, text):
    assert summarize(value, limit) == text


def test_print_passes_input_and_writes_stderr(capfd):
    tf = ref
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([1., 2.])
        p = tf.Print(x, [tf.constant([[1, 2], [3, 4]]), "msg", tf.constant(0.1)], message="M: ")
        once = tf.Print(x, ["once"], message="first_n: ", first_n=1)
        np.testing.assert_array_equal(sess.run(p), [1., 2.])
        sess.run(once)
        sess.run(once)
        g = tf.gradients(tf.reduce_sum(p * p), x)[0]
        np.testing.assert_array_equal(sess.run(g), [2., 4.])
    err = capfd.readouterr().err
    assert "M: [[1 2][3...]...][msg][0.1]\n" in err
    assert err.count("first_n: [once]") == 1


PRINTS = [
    "tf.print('hello', tf.constant([1, 2, 3]), 5, tf.constant(2.5))",
    "tf.print(tf.reshape(tf.range(24), [2, 3, 4]))",
    "tf.print(tf.range(10), summarize=2, sep='|', end='!\\n')",
    "tf.print({'a': tf.constant([1.5, 2.25])}, [tf.constant('s'), 3])",
    "tf.print(tf.reshape(tf.range(100), [10, 10]), summarize=2)",
    "tf.print(tf.constant([True, False]), tf.constant(1e-10), tf.constant(np.float64(1 / 3)))",
    "tf.print(tf.constant(['ab', 'c']), tf.constant('s'))",
]


def _stderr_of(module, statement):
    code = textwrap.dedent(f"""
        import numpy as np
        import {module} as tf
        tf = getattr(tf, 'compat').v1 if '{module}' == 'tensorflow' else tf
        with tf.Graph().as_default(), tf.Session() as s:
            s.run({statement})
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "", "PYTHONPATH": ":".join(sys.path)})
    assert res.returncode == 0, res.stderr
    return "\n".join(l for l in res.stderr.splitlines() if not l.startswith(("WARNING", "W0000", "I0000")))


@pytest.mark.parametrize("statement", PRINTS)
def test_tf_print_matches_tensorflow(statement):
    pytest.importorskip("tensorflow")
    assert _stderr_of("ref", statement) == _stderr_of("tensorflow", statement)


def test_format_v2_elides_the_middle():
    assert format_v2(np.arange(10), 2) == "[0 1 ... 8 9]"
    assert format_v2(np.array(b"x", dtype=object)) == '"x"'
