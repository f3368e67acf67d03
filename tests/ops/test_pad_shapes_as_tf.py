"""Pad's graph construction against TensorFlow: TF's PadShapeFn checks (paddings of
rank 2 with 2 columns, rows matching the input's rank; TF's "Shape must be rank" /
"Dimension must be" words) and ``tf.pad``'s partial static shapes from paddings
that mix numbers and unknown tensors."""
import numpy as np
import pytest

import ref
from ref.ops import pad_tile as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

ERRORS = {
    "input_rank_6_paddings_1_row": ([1, 2, 1, 1, 1, 1], [[1, 2]], "Shape must be rank 1 but is rank 6"),
    "paddings_vector": ([1, 2], [1, 2], "Shape must be rank 2 but is rank 1"),
    "one_column": ([1, 2], [[1], [2]], "Dimension must be 2 but is 1"),
    "too_few_rows": ([1, 2], [[1, 2]], "Shape must be rank 1 but is rank 2"),
    "too_many_rows": ([1, 2], [[1, 2], [3, 4], [5, 6]], "Shape must be rank 3 but is rank 2"),
    "negative": ([1, 2], [[1, -2], [0, 0]], "Paddings must be non-negative"),
}


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT"])
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_shape_function_errors_match_tf(name, mode):
    shape, paddings, words = ERRORS[name]
    if mode == "REFLECT" and name == "negative":
        pytest.skip("MirrorPad checks its paddings at run time")
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match=words):
                t.pad(t.constant(0.0, shape=shape), paddings, mode=mode)


def _unknown(t):
    return t.placeholder(t.int32)


PARTIAL = {
    "row_unknown": lambda t: t.pad(t.constant(0.0, shape=[4, 4]), [[1, 2], _unknown(t)]),
    "begin_unknown": lambda t: t.pad(t.constant(0.0, shape=[4, 4]), [[_unknown(t), 0], [1, 2]]),
    "end_unknown": lambda t: t.pad(t.constant(0.0, shape=[4, 4]), [[1, 2], [0, _unknown(t)]]),
    "input_unknown": lambda t: t.pad(_unknown(t), [[1, 2], _unknown(t)]),
    "rank_known": lambda t: t.pad(t.placeholder(t.float32, [None, None]), [[1, 2], [3, 4]]),
    "rank_known_partial": lambda t: t.pad(t.placeholder(t.float32, [None, 5]), [[1, 2], [3, _unknown(t)]]),
    "tensor_paddings": lambda t: t.pad(t.placeholder(t.float32, [3, None]), t.constant([[1, 1], [2, 2]])),
    "v2_constant_values": lambda t: t.pad(t.constant(0.0, shape=[4, 4]), [[1, 2], _unknown(t)],
                                          constant_values=3.0),
    "symmetric": lambda t: t.pad(t.constant(0.0, shape=[4, 4]), [[1, 2], _unknown(t)], mode="SYMMETRIC"),
}


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_partial_static_shapes_match_tf(name):
    def shape(t):
        with t.Graph().as_default():
            s = PARTIAL[name](t).shape
            return None if s.ndims is None else s.as_list()
    assert shape(ref) == shape(tf1)


def test_values_unchanged():
    def run(t):
        with t.Graph().as_default(), t.Session() as s:
            return s.run(t.pad(t.constant(np.arange(6.0).reshape(2, 3)), [[1, 0], [0, 2]]))
    np.testing.assert_array_equal(run(ref), run(tf1))
