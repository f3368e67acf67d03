"""Split / SplitV checks against TensorFlow: TF's shape-function words (a num_split
that does not divide the dimension, negative sizes reported by index with the -1
resolved first), the static shapes of valid splits, and SplitV's run-time check of
its axis tensor."""
import numpy as np
import pytest

import ref
from ref.ops import concat_split as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

GRAPH = {
    "uneven": (lambda t: t.split([0, 1, 2, 3], 3, axis=0), "should evenly divide"),
    "negative_size": (lambda t: t.split(t.constant([1.0, 2.0, 3.0]), [-1, -2], axis=0),
                      "Split size at index 1 must be >= 0. Got: -2"),
    "minus_one_overflows": (lambda t: t.split(t.constant([1.0, 2.0, 3.0]), [2, -1, 3], axis=0),
                            "Split size at index 1 must be >= 0. Got: -2"),
    "minus_one_is_minus_one": (lambda t: t.split(t.constant([1.0, 2.0, 3.0]), [4, -1], axis=0),
                               "Split size at index 1 must be >= 0. Got: -1"),
}


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_graph_construction_errors_match_tf(name):
    build, words = GRAPH[name]
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match=words):
                build(t)


STATIC = {
    "sizes_with_minus_one": lambda t: t.split(t.zeros([5, 7]), [2, -1, 1], axis=1),
    "even": lambda t: t.split(t.zeros([6, 2]), 3, axis=0),
    "unknown_axis": lambda t: t.split(t.zeros([1, 4]), 4, axis=t.placeholder(t.int32)),
}


@pytest.mark.parametrize("name", sorted(STATIC))
def test_static_shapes_match_tf(name):
    def shapes(t):
        with t.Graph().as_default():
            return [None if s.shape.ndims is None else s.shape.as_list() for s in STATIC[name](t)]
    assert shapes(ref) == shapes(tf1)


def test_split_v_axis_must_have_one_element_as_tf():
    for t in (ref, tf1):
        with t.Graph().as_default(), t.Session() as s:
            x = t.placeholder(t.int32)
            sizes = t.placeholder(t.int32, [3])
            y = t.split(np.zeros([5, 30]), sizes, axis=x)
            with pytest.raises(t.errors.InvalidArgumentError, match="must have exactly one element"):
                s.run(y, {x: np.array([], np.int32), sizes: [4, 11, 15]})
