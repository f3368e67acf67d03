"""``tf.sets`` (SetSize and the three set-operation kernels) and the
``tf.metrics`` at-k family, each case built in ref and in
``tensorflow.compat.v1`` (graph mode) and compared."""
from __future__ import annotations

import math

import numpy as np
import pytest

import ref
from ref.graph_ops import sets_impl as _under_test  # noqa: F401  (the module these tests cover)

A = np.array([[1, 2, 3], [4, 5, 5], [7, 7, 7]], np.int64)
B = np.array([[2, 9, 1], [0, 0, 0], [7, 8, 9]], np.int64)
A3 = np.array([[[1, 2], [3, 3]], [[-1, 4], [5, 6]]], np.int32)
B3 = np.array([[[2, 0], [3, 1]], [[4, 4], [6, 5]]], np.int32)
STR_A = np.array([[b"a", b"b", b"c"], [b"x", b"", b"y"]], object)
STR_B = np.array([[b"b", b"c", b"d"], [b"", b"z", b"z"]], object)


def _sp(t):
    return t.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 3]], np.array([2, 5, 7, 10], np.int64), [3, 4])


def _sp2(t):
    return t.SparseTensor([[0, 2], [1, 0], [1, 1], [2, 3]], np.array([2, 4, 6, 10], np.int64), [3, 4])


# (name, build(tf) -> SparseTensor or Tensor)
SET_CASES = [
    ("dense intersection", lambda t: t.sets.set_intersection(A, B)),
    ("dense union", lambda t: t.sets.set_union(A, B)),
    ("dense a-b", lambda t: t.sets.set_difference(A, B)),
    ("dense b-a", lambda t: t.sets.set_difference(A, B, aminusb=False)),
    ("dense rank 3", lambda t: t.sets.set_union(A3, B3)),
    ("dense rank 3 intersection", lambda t: t.sets.intersection(A3, B3)),
    ("dense/sparse intersection", lambda t: t.sets.set_intersection(A, _sp(t))),
    ("dense/sparse union", lambda t: t.sets.union(A, _sp(t))),
    ("sparse/dense flipped difference", lambda t: t.sets.set_difference(_sp(t), A)),
    ("sparse/dense flipped b-a", lambda t: t.sets.difference(_sp(t), A, aminusb=False)),
    ("sparse/sparse union", lambda t: t.sets.set_union(_sp(t), _sp2(t))),
    ("sparse/sparse a-b", lambda t: t.sets.set_difference(_sp(t), _sp2(t))),
    ("sparse/sparse empty result", lambda t: t.sets.set_intersection(_sp(t), _sp2(t))),
    ("strings", lambda t: t.sets.set_intersection(STR_A, STR_B)),
    ("strings union", lambda t: t.sets.set_union(STR_A, STR_B)),
    ("size of sparse", lambda t: t.sets.set_size(_sp(t))),
    ("size of a result", lambda t: t.sets.size(t.sets.set_union(A3, B3))),
    ("size int32 duplicates", lambda t: t.sets.set_size(t.SparseTensor(
        [[0, 0], [0, 1], [1, 2]], np.array([3, 3, 1], np.int32), [2, 3]))),
]


def _run(lib, build):
    with lib.Graph().as_default(), lib.Session() as s:
        return s.run(build(lib))


@pytest.mark.parametrize("name,build", SET_CASES, ids=[c[0] for c in SET_CASES])
def test_sets_match_tf(name, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _run(tf, build), _run(ref, build)
    if hasattr(want, "indices"):
        np.testing.assert_array_equal(got.indices, want.indices)
        assert list(got.values) == list(want.values)
        assert np.asarray(got.values).dtype == np.asarray(want.values).dtype
        np.testing.assert_array_equal(got.dense_shape, want.dense_shape)
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,call,error", [
    ("rank 1", lambda t: t.sets.set_union(np.array([1, 2]), np.array([1, 2])), ValueError),
    ("dtype float", lambda t: t.sets.set_union(np.array([[1.0]]), np.array([[1.0]])), TypeError),
    ("dtype mismatch", lambda t: t.sets.set_union(np.array([[1]], np.int32), np.array([[1]], np.int64)), TypeError),
    ("dense set_size", lambda t: t.sets.set_size(np.array([[1, 2]])), TypeError),
], ids=lambda c: c if isinstance(c, str) else "")
def test_sets_construction_errors(name, call, error):
    with ref.Graph().as_default(), pytest.raises(error):
        call(ref)


def test_sets_group_shape_mismatch_is_a_runtime_error():
    with ref.Graph().as_default(), ref.Session() as s:
        r = ref.sets.set_union(ref.placeholder(ref.int64), ref.placeholder(ref.int64))
        with pytest.raises(ref.errors.InvalidArgumentError, match=r"Mismatched shapes \[2\] vs \[3\]"):
            s.run(r.values, {r.values.op.inputs[0]: np.zeros((2, 2), np.int64),
                             r.values.op.inputs[1]: np.zeros((3, 2), np.int64)})


# -- metrics at k -----------------------------------------------------------------------

PRED = np.array([[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4], [0.5, 0.1, 0.05, 0.35]], np.float32)
PRED3 = np.array([[[0.1, 0.3, 0.2, 0.4, 0.0], [0.4, 0.3, 0.2, 0.1, 0.0]],
                  [[0.0, 0.1, 0.9, 0.8, 0.7], [0.2, 0.2, 0.3, 0.1, 0.2]]], np.float32)
LABELS_1D = np.array([3, 2, 7], np.int64)
LABELS_2D = np.array([[3, 1], [2, -1], [0, 9]], np.int64)
LABELS_3D = np.array([[[3, 0], [1, 2]], [[4, -1], [2, 2]]], np.int64)
W = np.array([1.0, 0.5, 2.0], np.float32)


def _sparse_labels(t):
    return t.SparseTensorValue(np.array([[0, 0], [0, 1], [1, 0], [2, 0]], np.int64), np.array([3, 1, 2, 0], np.int64),
                               np.array([3, 2], np.int64))


# (name, build(tf) -> (value, update)); each fed the same batch twice.
AT_K = [
    ("recall_at_k 1d labels", lambda t: t.metrics.recall_at_k(LABELS_1D, PRED, 2)),
    ("recall_at_k 2d labels k=1", lambda t: t.metrics.recall_at_k(LABELS_2D, PRED, 1)),
    ("recall_at_k 3d", lambda t: t.metrics.recall_at_k(LABELS_3D, PRED3, 2)),
    ("recall_at_k class_id", lambda t: t.metrics.recall_at_k(LABELS_2D, PRED, 2, class_id=3)),
    ("recall_at_k absent class", lambda t: t.metrics.recall_at_k(LABELS_2D, PRED, 2, class_id=7)),
    ("recall_at_k weighted", lambda t: t.metrics.recall_at_k(LABELS_2D, PRED, 3, weights=W)),
    ("recall_at_k sparse labels", lambda t: t.metrics.recall_at_k(_sparse_labels(t), PRED, 2)),
    ("recall_at_top_k", lambda t: t.metrics.recall_at_top_k(LABELS_2D, t.constant([[3, 0], [2, 1], [0, 3]]))),
    ("precision_at_k 1d labels", lambda t: t.metrics.precision_at_k(LABELS_1D, PRED, 2)),
    ("precision_at_k 3d weighted", lambda t: t.metrics.precision_at_k(
        LABELS_3D, PRED3, 3, weights=np.array([[1.0, 0.0], [2.0, 1.0]], np.float32))),
    ("precision_at_k class_id", lambda t: t.metrics.precision_at_k(LABELS_2D, PRED, 2, class_id=0)),
    ("precision_at_k sparse labels", lambda t: t.metrics.precision_at_k(_sparse_labels(t), PRED, 3, class_id=2)),
    ("sparse_precision_at_k", lambda t: t.metrics.sparse_precision_at_k(LABELS_2D, PRED, 1)),
    ("precision_at_top_k", lambda t: t.metrics.precision_at_top_k(
        LABELS_2D, t.constant([[3, 0], [2, 1], [0, 3]]), k=2, weights=W)),
    ("average_precision_at_k", lambda t: t.metrics.average_precision_at_k(LABELS_2D, PRED, 3)),
    ("average_precision_at_k 3d", lambda t: t.metrics.average_precision_at_k(LABELS_3D, PRED3, 4)),
    ("average_precision_at_k weighted", lambda t: t.metrics.average_precision_at_k(LABELS_1D, PRED, 2, weights=W)),
    ("average_precision_at_k sparse", lambda t: t.metrics.average_precision_at_k(_sparse_labels(t), PRED, 2)),
    ("sparse_average_precision_at_k", lambda t: t.metrics.sparse_average_precision_at_k(LABELS_2D, PRED, 1)),
]


def _run_metric(lib, build):
    with lib.Graph().as_default(), lib.Session() as s:
        value, update = build(lib)
        s.run(lib.local_variables_initializer())
        ups = [s.run(update) for _ in range(2)]
        names = sorted(v.op.name for v in lib.get_collection(lib.GraphKeys.METRIC_VARIABLES))
        return ups + [s.run(value)], names, (value.dtype.name, update.dtype.name)


@pytest.mark.parametrize("name,build", AT_K, ids=[c[0] for c in AT_K])
def test_at_k_metrics_match_tf(name, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _run_metric(tf, build), _run_metric(ref, build)
    for w, g in zip(want[0], got[0]):
        assert (math.isnan(w) and math.isnan(g)) or abs(w - g) <= 1e-12 * max(1.0, abs(w)), (want[0], got[0])
    assert got[1] == want[1]  # the local variables, as TF names them
    assert got[2] == want[2] == ("float64", "float64")


def test_at_k_metric_needs_initialized_variables():
    with ref.Graph().as_default(), ref.Session() as s:
        value, update = ref.metrics.recall_at_k(LABELS_1D, PRED, 1)
        with pytest.raises(ref.errors.FailedPreconditionError):
            s.run(update)


def test_at_k_collections():
    with ref.Graph().as_default():
        value, update = ref.metrics.precision_at_k(LABELS_1D, PRED, 1, metrics_collections=["m"],
                                                   updates_collections=["u"])
        assert ref.get_collection("m") == [value] and ref.get_collection("u") == [update]


@pytest.mark.parametrize("call", [
    lambda: ref.metrics.average_precision_at_k(LABELS_1D, PRED, 0),
    lambda: ref.metrics.recall_at_top_k(np.zeros((2, 2, 2), np.int64), ref.constant(np.zeros((2,), np.int64))),
])
def test_at_k_bad_arguments_raise_value_error(call):
    with ref.Graph().as_default(), pytest.raises(ValueError):
        call()
