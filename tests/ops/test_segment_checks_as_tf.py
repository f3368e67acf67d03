"""Segment reductions against TensorFlow: half/bfloat16 ``UnsortedSegment*`` values,
``UnsortedSegmentSum``'s int16 ids, the graph-construction checks of TF's
Segment/SparseSegment shape functions (ranks, lengths, a negative constant
``num_segments``) and a sparse segment's output overflow reported before its ids
are read."""
import numpy as np
import pytest

import ref
from ref.ops import segment_reduction as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1


def _run(t, build):
    with t.Graph().as_default():
        out = build(t)
        with t.Session() as s:
            return s.run(out)


def _data(t, dtype):
    return t.constant(np.array([[1.5, -2.0], [3.25, 0.5], [-7.0, 9.0], [2.0, 2.0]], np.float32).astype(
        t.as_dtype(dtype).as_numpy_dtype))


VALUES = {f"{op}_{dt}": (lambda op, dt: lambda t: getattr(t.math, op)(_data(t, dt), [2, 0, 2, -1], 4))(op, dt)
          for op in ("unsorted_segment_sum", "unsorted_segment_prod", "unsorted_segment_max",
                     "unsorted_segment_min")
          for dt in ("float16", "bfloat16")}
VALUES["sum_int16_ids"] = lambda t: t.math.unsorted_segment_sum(_data(t, "float32"),
                                                                 t.constant([1, 0, 1, 3], t.int16), 5)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_tf(name):
    got, want = _run(ref, VALUES[name]), _run(tf1, VALUES[name])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))


def _x(t):
    return t.constant(np.ones((10, 4), np.float32))


GRAPH_ERRORS = {
    "segment_sum_2d_ids": (lambda t: t.math.segment_sum(_x(t), t.constant([0, 1, 2, 2], shape=[2, 2])),
                           "must be rank 1"),
    "segment_mean_scalar_data": (lambda t: t.math.segment_mean(np.uint16(10), np.array([]).astype("int64")),
                                 "must be at least rank 1"),
    "sparse_segment_sum_scalar_data": (lambda t: t.sparse.segment_sum(1.0, [0], [3]), "must be at least rank 1"),
    "sparse_segment_mean_2d_indices": (lambda t: t.sparse.segment_mean(_x(t), [[0]], [0]), "must be rank 1"),
    "sparse_segment_lengths": (lambda t: t.sparse.segment_sum(_x(t), [0, 1, 2], [0, 1]), "must be equal"),
    "negative_num_segments": (lambda t: t.sparse.segment_sum(_x(t), [8, 3, 0, 9], [0, 1, 3, 3], num_segments=-2),
                              "Cannot specify a negative value for num_segments"),
    "int16_ids_for_max": (lambda t: t.math.unsorted_segment_max(_x(t), t.constant([0] * 10, t.int16), 2),
                          "not in list of allowed values"),
}


@pytest.mark.parametrize("name", sorted(GRAPH_ERRORS))
def test_graph_construction_errors_match_tf(name):
    build, words = GRAPH_ERRORS[name]
    kinds = []
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises((ValueError, TypeError), match=words) as info:
                build(t)
            kinds.append(info.type.__name__)
    assert kinds[0] == kinds[1]


@pytest.mark.parametrize("op", ["segment_sum", "segment_mean", "segment_sqrt_n"])
def test_sparse_segment_overflow_comes_before_the_index_check_as_tf(op):
    for t in (ref, tf1):
        with pytest.raises(t.errors.InvalidArgumentError, match="Encountered overflow when multiplying"):
            _run(t, lambda t: getattr(t.sparse, op)(_x(t), [2 ** 62 - 1], [2 ** 62 - 1]))
