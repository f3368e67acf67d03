"""tf.py_func / tf.numpy_function (TF1 graph mode): the Python function runs
in this interpreter on NumPy values; results, errors, statefulness and graph
export compared with TF's behaviour (py_func_test.py cases)."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ref as tf
from tests.graph_ops._interop import compare
from ref.graph_ops import script_ops as _under_test  # noqa: F401  (the module these tests cover)


def _run(fetch, feed=None):
    return tf.get_default_session().run(fetch, feed)


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.uint8, tf.int8, tf.uint16, tf.int16,
                                   tf.int32, tf.int64, tf.complex64, tf.complex128])
def test_data_types(sess, dtype):
    x = tf.constant(1, dtype=dtype)
    y = tf.constant(2, dtype=dtype)
    z = sess.run(tf.py_func(lambda a, b: a + b, [x, y], dtype))
    assert z == 3 and z.dtype == dtype.as_numpy_dtype


CASES = {
    "bool": lambda t: t.py_func(lambda x, y: x and y, [t.constant(True), t.constant(False)], t.bool),
    "literal": lambda t: t.py_func(lambda x: 1.0 if float(x) == 0.0 else 0.0, [t.constant(0.0, t.float64)],
                                   t.float64),
    "list": lambda t: t.py_func(lambda x: [x, x + 1], [t.constant(0.0, t.float64)], [t.float64] * 2),
    "tuple_inputs": lambda t: t.py_func(lambda x: (x, x + 1), (t.constant(0.0, t.float64),), (t.float64, t.float64)),
    "strings": lambda t: t.py_func(lambda x, y: x + y, [t.constant([b"hello", b"hi"]),
                                                        t.py_func(lambda: np.array([" there"]), [], t.string)],
                                   t.string),
    "object_strings": lambda t: t.py_func(lambda: np.array([b" there", u" ya"], dtype=object), [], [t.string]),
    "padding": lambda t: t.py_func(lambda: [["this", "is", "a", "test"]], [], [t.string]),
    "unicode": lambda t: t.py_func(lambda: u"\u4f60\u597d \u4e16\u754c", [], [t.string]),
    "no_input": lambda t: t.py_func(lambda: 42.0, [], t.float64),
    "c_order": lambda t: t.py_func(lambda: np.array([[1, 2], [3, 4]], order="F"), [], [t.int64]),
    "numpy_function": lambda t: t.numpy_function(lambda a: (a * 2, a.astype(np.int32)), [t.constant([1.5, 2.0])],
                                                 [t.float32, t.int32]),
    "stateless_no_output": lambda t: t.py_func(lambda x: None, [t.constant(3, t.int64)], [], stateful=False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow(case):
    compare(CASES[case])


def test_op_types_and_unknown_shapes(sess):
    x = tf.constant([1.0, 2.0])
    assert tf.py_func(np.square, [x], tf.float32).op.type == "PyFunc"
    y = tf.py_func(np.square, [x], tf.float32, stateful=False)
    assert y.op.type == "PyFuncStateless" and y.shape.ndims is None
    assert tf.numpy_function(np.square, [x], tf.float32).op.type == "PyFunc"


def test_stateful_runs_every_time_stateless_folds(sess):
    producer = iter(range(3))
    x, = tf.py_func(lambda: next(producer), [], [tf.int64])
    assert [sess.run(x) for _ in range(3)] == [0, 1, 2]
    producer2 = iter(range(3))
    y, = tf.py_func(lambda: next(producer2), [], [tf.int64], stateful=False)
    if os.environ.get("REF_REFERENCE_EVALUATOR"):  # the reference evaluator folds no constants
        return
    assert [sess.run(y) for _ in range(3)] == [0, 0, 0]


def test_no_return_value_stateful(sess):
    value = np.array([1], np.int64)

    def increment(diff):
        value[0] += diff

    op = tf.py_func(increment, [tf.constant(2, tf.int64)], [], stateful=True)
    assert sess.run(op) is None
    assert value[0] == 3


def test_result_does_not_alias(sess):
    np_array = np.array([1.0, 2.0], dtype=np.float32)
    out = tf.py_func(lambda: np_array, [], [tf.float32])[0] + tf.constant([2.0, 3.0])
    sess.run(out)
    np.testing.assert_array_equal(np_array, [1.0, 2.0])


def _blah(exc):
    def inner():
        raise exc("blah")

    def raise_exception():
        inner()
    return raise_exception


@pytest.mark.parametrize("exc,err", [(ValueError, tf.errors.InvalidArgumentError),
                                     (TypeError, tf.errors.InvalidArgumentError),
                                     (StopIteration, tf.errors.OutOfRangeError),
                                     (MemoryError, tf.errors.ResourceExhaustedError),
                                     (NotImplementedError, tf.errors.UnimplementedError),
                                     (type("WeirdError", (Exception,), {}), tf.errors.UnknownError)])
def test_exceptions_become_tf_errors(sess, exc, err):
    f = tf.py_func(_blah(exc), [], [])
    with pytest.raises(err) as info:
        sess.run(f)
    assert re.search(r": blah.*in raise_exception.*in inner.*: blah", str(info.value), re.DOTALL)


@pytest.mark.parametrize("func,message", [(lambda: np.array([], dtype=[("foo", np.float32)]),
                                           "Unsupported numpy data type"),
                                          (lambda: {"foo": 1}, "Unsupported object type")])
def test_bad_return_types(sess, func, message):
    y, = tf.py_func(func, [], [tf.float32])
    with pytest.raises(tf.errors.InternalError, match=message):
        sess.run(y)


def test_wrong_return_dtype(sess):
    bad = tf.py_func(lambda a: a.astype(np.float64), [tf.constant([1.0])], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"0-th value returned by pyfunc_\d+ is double, but "
                                                             r"expects float"):
        sess.run(bad)


def test_not_callable():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="callable"):
            tf.py_func(1, [], tf.float32)


def test_exported_graph_cannot_run_in_a_fresh_process(tmp_path):
    """A GraphDef keeps only the token: importing it elsewhere and running the
    op raises TF's "Could not find callback" InvalidArgumentError."""
    with tf.Graph().as_default() as g:
        y = tf.py_func(lambda a: a * 2, [tf.constant([1.0, 2.0])], tf.float32, name="double")
        assert y.op.node_def.attr["token"].s.decode().startswith("pyfunc_")
        tf.train.write_graph(g, str(tmp_path), "g.pb", as_text=False)
    code = textwrap.dedent(f"""
        import ref as tf
        from ref.protos import graph_pb2
        gd = graph_pb2.GraphDef()
        gd.ParseFromString(open({str(tmp_path / "g.pb")!r}, "rb").read())
        with tf.Graph().as_default(), tf.Session() as s:
            tf.import_graph_def(gd, name="")
            try:
                s.run("double:0")
            except tf.errors.InvalidArgumentError as e:
                print("ERROR", e.message.splitlines()[0])
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    assert "ERROR ValueError: Could not find callback with key=pyfunc_" in res.stdout, res.stderr
    assert "in the registry." in res.stdout
