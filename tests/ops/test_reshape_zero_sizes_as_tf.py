"""Reshape's run-time -1 inference against TensorFlow (TF's ReshapeOp): a zero size in
the requested shape leaves the zero sizes out of both products, so the -1 still
takes the other dimensions' ratio; the errors (InvalidArgumentError, TF's words)
where the element counts cannot match."""
import numpy as np
import pytest

import ref
from ref.ops import array as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

CASES = {
    "zero_rows_infer_middle": ([0, 6], [0, -1, 3]),
    "zero_rows_infer_last": ([0, 6], [0, 3, -1]),
    "zero_in_middle": ([4, 0, 6], [2, 0, -1]),
    "zero_requested_only": ([0, 5], [-1, 0]),
    "empty_to_minus_one": ([0], [-1]),
    "empty_to_minus_one_and_5": ([0, 5], [-1, 5]),
    "nonempty_to_zero": ([2, 3], [0, -1]),
    "nonempty_not_divisible": ([2, 3], [4, -1]),
    "zero_input_not_divisible_other_dims": ([0, 7], [0, -1, 3]),
    "plain": ([2, 3, 4], [4, -1]),
    "no_minus_one_mismatch": ([2, 3], [5]),
}


def _run(t, shape, requested):
    with t.Graph().as_default():
        x = t.placeholder(t.float32)
        s = t.placeholder(t.int32, [len(requested)])
        y = t.reshape(x, s)
        with t.Session() as sess:
            try:
                return sess.run(y, {x: np.zeros(shape, np.float32), s: requested}).shape
            except t.errors.InvalidArgumentError as e:
                line = next((l for l in e.message.split("\n") if "Input to reshape" in l), e.message)
                return "InvalidArgumentError", line.split(" [[")[0].strip()


@pytest.mark.parametrize("name", sorted(CASES))
def test_reshape_minus_one_matches_tf(name):
    assert _run(ref, *CASES[name]) == _run(tf1, *CASES[name])


STATIC_ERRORS = {
    "minus_one_not_divisible": ([23, 29, 31], [17, -1], "Dimension size must be evenly divisible by 17 but is 20677"),
    "minus_one_small": ([2, 3], [4, -1], "Dimension size must be evenly divisible by 4 but is 6"),
    "count_mismatch": ([32, 128], [4095], "Cannot reshape a tensor with 4096 elements to shape \\[4095\\]"),
    "zero_with_minus_one": ([6], [0, -1], "Cannot reshape a tensor with 6 elements to shape \\[0,\\?\\]"),
}


@pytest.mark.parametrize("name", sorted(STATIC_ERRORS))
def test_graph_construction_errors_match_tf(name):
    shape, new, words = STATIC_ERRORS[name]
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match=words):
                t.reshape(t.constant(0.0, shape=shape), new)
