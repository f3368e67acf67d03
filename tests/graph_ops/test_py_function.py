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
