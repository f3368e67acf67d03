"""``tf.gather_nd(..., bad_indices_policy=)``: each row gathers from a 2x2
params with one index row outside it, under ref and under
tensorflow.compat.v1: the same values ("IGNORE": zeros for the bad row) or the
same error class ("", "DEFAULT", "ERROR": TF's CPU kernel raises; an unknown
policy: InvalidArgumentError at run time), and the same GraphDef."""
import numpy as np
import pytest

import ref
from ref.graph_ops import array_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf_v1

PARAMS = [[1.0, 2.0], [3.0, 4.0]]
# (policy, indices, expected: values, or the error class name)
CASES = [
    ("", [[0, 1], [1, 0]], [2.0, 3.0]),
    ("", [[0, 1], [5, 0]], "InvalidArgumentError"),
    ("DEFAULT", [[0, 1], [5, 0]], "InvalidArgumentError"),
    ("ERROR", [[0, 1], [-1, 0]], "InvalidArgumentError"),
    ("IGNORE", [[0, 1], [5, 0], [1, 2], [1, 1]], [2.0, 0.0, 0.0, 4.0]),
    ("IGNORE", [[1], [2]], [[3.0, 4.0], [0.0, 0.0]]),
    ("BOGUS", [[0, 0]], "InvalidArgumentError"),
]


def _gather(tf, policy, indices):
    with tf.Graph().as_default(), tf.Session() as s:
        i = tf.placeholder(tf.int32, [None, len(indices[0])])
        out = tf.gather_nd(tf.constant(PARAMS), i, bad_indices_policy=policy)
        try:
            return np.asarray(s.run(out, {i: indices})).tolist()
        except tf.errors.OpError as e:
            return type(e).__name__


@pytest.mark.parametrize("policy,indices,want", CASES, ids=[f"{c[0] or 'empty'}-{i}" for i, c in enumerate(CASES)])
def test_gather_nd_policy(policy, indices, want):
    assert _gather(ref, policy, indices) == want
    assert _gather(tf_v1(), policy, indices) == want


@pytest.mark.parametrize("policy", ["", "IGNORE"])
def test_gather_nd_graph(policy):
    assert_same_graph(lambda tf: tf.gather_nd(tf.placeholder(tf.float32, [2, 2]), tf.constant([[0, 1]]),
                                              bad_indices_policy=policy))
