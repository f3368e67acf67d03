"""``graph_util.graph_defs_equal`` against TF's: node order, values, NaN handling."""
import numpy as np
import pytest

from ref.framework import graph_util_impl as _under_test
import ref


def _graph(tf, values, names=("a", "b")):
    with tf.Graph().as_default() as g:
        for name, v in zip(names, values):
            tf.constant(np.float32(v), name=name)
    return g.as_graph_def()


# (values and names of graph 1, of graph 2, treat_nan_as_equal)
ROWS = [
    (([1.0, 2.0], ("a", "b")), ([1.0, 2.0], ("a", "b")), False),
    (([1.0, 2.0], ("a", "b")), ([2.0, 1.0], ("b", "a")), False),   # same nodes, other order
    (([1.0, 2.0], ("a", "b")), ([1.0, 3.0], ("a", "b")), False),
    (([1.0], ("a",)), ([1.0, 2.0], ("a", "b")), False),
    (([np.nan], ("a",)), ([np.nan], ("a",)), False),
    (([np.nan], ("a",)), ([np.nan], ("a",)), True),
    (([np.nan], ("a",)), ([1.0], ("a",)), True),
]


@pytest.mark.parametrize("one, two, nan_equal", ROWS)
def test_graph_defs_equal_as_tf(one, two, nan_equal):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import graph_util_impl as tf_graph_util
    want = tf_graph_util.graph_defs_equal(_graph(tf.compat.v1, *one), _graph(tf.compat.v1, *two),
                                          treat_nan_as_equal=nan_equal)
    got = _under_test.graph_defs_equal(_graph(ref, *one), _graph(ref, *two), treat_nan_as_equal=nan_equal)
    assert got == want


def test_graph_defs_equal_type_error():
    with pytest.raises(TypeError, match="graph_def_1 must be a graph_pb2.GraphDef proto"):
        _under_test.graph_defs_equal(1, ref.GraphDef())
