"""``tf.ragged.row_splits_to_segment_ids`` / ``segment_ids_to_row_splits``
against TF 2.21's ``tf.compat.v1``: values (dtypes, empty rows, explicit
``num_segments``, ``out_type``), static shapes and GraphDefs; TF's errors for
bad splits."""
import numpy as np
import pytest

import ref
from ref.graph_ops import ragged_segment_ids as _under_test  # noqa: F401
from _graphdef import assert_same_graph

ROWS = [
    ("splits-to-ids", lambda tf: tf.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9])),
    ("splits-to-ids-int32-out64", lambda tf: tf.ragged.row_splits_to_segment_ids(
        tf.constant([0, 2, 2, 4], tf.int32), out_type=tf.int64)),
    ("splits-to-ids-one-row", lambda tf: tf.ragged.row_splits_to_segment_ids(tf.constant([0], tf.int64))),
    ("ids-to-splits", lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4])),
    ("ids-to-splits-num-segments", lambda tf: tf.ragged.segment_ids_to_row_splits(
        tf.constant([0, 1, 1]), num_segments=5)),
    ("ids-to-splits-empty", lambda tf: tf.ragged.segment_ids_to_row_splits(
        tf.constant([], tf.int64), num_segments=tf.constant(2, tf.int64), out_type=tf.int32, name="s")),
]


def _run(tf, build):
    with tf.Graph().as_default():
        out = build(tf)
        with tf.Session() as sess:
            return out.shape.as_list(), sess.run(out)


@pytest.mark.parametrize("rid,build", ROWS, ids=[r[0] for r in ROWS])
def test_values_and_shapes_are_tensorflows(rid, build):
    real = pytest.importorskip("tensorflow")
    (gs, got), (ws, want) = _run(ref, build), _run(real.compat.v1, build)
    assert gs == ws and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rid,build", ROWS, ids=[r[0] for r in ROWS])
def test_graph_def_is_tensorflows(rid, build):
    assert_same_graph(build)


ERRORS = [
    ("empty-splits", lambda tf: tf.ragged.row_splits_to_segment_ids(tf.constant([], tf.int64)), ValueError,
     "Invalid row_splits"),
    ("float-splits", lambda tf: tf.ragged.row_splits_to_segment_ids(tf.constant([0.0, 1.0])), ValueError,
     "int32 or int64"),
    ("float-ids", lambda tf: tf.ragged.segment_ids_to_row_splits(tf.constant([0.0])), TypeError,
     "must be of type integer"),
]


@pytest.mark.parametrize("rid,build,err,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_tensorflow(rid, build, err, match):
    real = pytest.importorskip("tensorflow")
    for tf in (real.compat.v1, ref):
        with tf.Graph().as_default(), pytest.raises(err, match=match):
            build(tf)
