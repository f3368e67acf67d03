"""tf.debugging.assert_shapes against TF: static ValueErrors (same message),
run-time InvalidArgumentError on placeholders, and passing cases."""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the package these tests cover)
import ref

_F = np.float32
# (shapes of tensors, specified shapes, feeds (None: constants))
CASES = [
    ("ok_named", [(2, 3), (2, 4)], [("N", "Q"), ("N", "D")]),
    ("ok_scalar", [(), (1,)], [(), ()]),
    ("ok_dots", [(2, 3)], [(".", None)]),
    ("ok_ellipsis", [(5, 2, 3)], [(..., 2, 3)]),
    ("ok_star", [(5, 2, 3)], [("*", "N")]),
    ("bad_named", [(2, 3), (3, 4)], [("N", "Q"), ("N", "D")]),
    ("bad_explicit", [(2, 3)], [(2, 4)]),
    ("bad_rank", [(2, 3)], [("N",)] * 1),
    ("bad_rank_big", [(2, 3)], [("N", "M", "K")]),
    ("bad_ellipsis_pos", [(2, 3)], [(2, ...)]),
    ("not_iterable", [(2, 3)], [5]),
    ("bad_ellipsis_size", [(4, 2, 3)], [(..., 3)]),
]


def _run(tf, shapes, specs, feed):
    errs = (ValueError, tf.errors.InvalidArgumentError)
    with tf.Graph().as_default():
        if feed:
            xs = [tf.placeholder(tf.float32, [None] * len(s)) for s in shapes]
        else:
            xs = [tf.zeros(s) for s in shapes]
        fd = {x: np.zeros(s, _F) for x, s in zip(xs, shapes)} if feed else {}
        try:
            op = tf.debugging.assert_shapes(list(zip(xs, specs)), message="msg")
        except errs as e:
            return "build", type(e).__name__, str(e).split("\n")[0]
        with tf.Session() as s:
            try:
                s.run(op, fd)
            except errs as e:
                return "run", type(e).__name__, None
    return "ok", None, None


@pytest.mark.parametrize("feed", [False, True])
@pytest.mark.parametrize("case,shapes,specs", CASES, ids=[c[0] for c in CASES])
def test_assert_shapes_matches_tf(case, shapes, specs, feed):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _run(tf, shapes, specs, feed)
    got = _run(ref, shapes, specs, feed)
    assert got[:2] == want[:2]
    if want[2] is not None:
        assert got[2].replace("?", "None") == want[2]  # TF1 prints unknown dims as ?


# SparseTensors: TF checks their dense shapes (assert_shapes, assert_rank*, assert_type).
SPARSE_CASES = [  # (dense shape, check) -> outcome against TF
    ((2, 3), lambda tf, s: tf.debugging.assert_shapes([(s, ("N", "M"))])),
    ((2, 3), lambda tf, s: tf.debugging.assert_shapes([(s, (2, 4))])),
    ((2, 3), lambda tf, s: tf.debugging.assert_shapes([(s, ("N",))])),
    ((4,), lambda tf, s: tf.debugging.assert_shapes([(s, ("N",)), (tf.zeros([4, 2]), ("N", 2))])),
    ((2, 3), lambda tf, s: tf.debugging.assert_rank(s, 2)),
    ((2, 3), lambda tf, s: tf.debugging.assert_rank(s, 3)),
    ((2, 3), lambda tf, s: tf.debugging.assert_rank_at_least(s, 1)),
    ((2, 3), lambda tf, s: tf.debugging.assert_rank_in(s, [1, 3])),
    ((2, 3), lambda tf, s: tf.debugging.assert_type(s, tf.float32)),
    ((2, 3), lambda tf, s: tf.debugging.assert_type(s, tf.int32)),
    ((2, 3), lambda tf, s: tf.debugging.assert_proper_iterable(s)),
]


def _sparse_outcome(tf, dense_shape, check):
    with tf.Graph().as_default():
        s = tf.SparseTensor(indices=[[0] * len(dense_shape)], values=[1.0], dense_shape=list(dense_shape))
        try:
            op = check(tf, s)
        except (TypeError, ValueError) as e:
            return type(e).__name__
        with tf.control_dependencies([op] if op is not None else []):
            out = tf.identity(s)
        with tf.Session() as sess:
            try:
                v = sess.run(out)
            except tf.errors.InvalidArgumentError:
                return "InvalidArgumentError"
        return ("ok", [int(d) for d in v.dense_shape])


@pytest.mark.parametrize("dense_shape,check", SPARSE_CASES)
def test_sparse_tensor_checks_match_tf(dense_shape, check):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _sparse_outcome(ref, dense_shape, check) == _sparse_outcome(tf, dense_shape, check)
