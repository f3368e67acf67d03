"""``tf.losses``: every loss x weights x reduction against
``tensorflow.compat.v1.losses`` on the same inputs, the reductions against a
NumPy transcription of their definitions, and the LOSSES collection."""
from __future__ import annotations

import numpy as np
import pytest

import ref as tf
from ref.graph_ops import losses_impl as _under_test  # noqa: F401  (the module these tests cover)

RNG = np.random.RandomState(7)
LABELS01 = (RNG.rand(4, 3) > 0.5).astype(np.float32)
PROBS = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
LOGITS = RNG.randn(4, 3).astype(np.float32)
PRED = RNG.randn(4, 3).astype(np.float32)
TARGET = RNG.randn(4, 3).astype(np.float32)
UNIT = (lambda v: v / np.linalg.norm(v, axis=1, keepdims=True))(RNG.randn(4, 3)).astype(np.float32)
UNIT2 = (lambda v: v / np.linalg.norm(v, axis=1, keepdims=True))(RNG.randn(4, 3)).astype(np.float32)
ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
SPARSE = np.array([0, 2, 1, 2], np.int32)

WEIGHTS = {
    "scalar": 2.5,
    "per-example": np.array([[1.0], [0.0], [2.0], [0.5]], np.float32),
    "per-element": np.array([[1, 0, 2], [0, 0, 0], [3, 1, 1], [0.5, 0.5, 0]], np.float32),
    "zeros": np.zeros((4, 1), np.float32),
}

# (name, call(losses, weights, reduction))
LOSSES = [
    ("absolute_difference", lambda L, w, r: L.absolute_difference(TARGET, PRED, weights=w, reduction=r)),
    ("mean_squared_error", lambda L, w, r: L.mean_squared_error(TARGET, PRED, weights=w, reduction=r)),
    ("huber_loss", lambda L, w, r: L.huber_loss(TARGET, PRED, weights=w, reduction=r)),
    ("huber_loss delta", lambda L, w, r: L.huber_loss(TARGET, PRED, weights=w, delta=0.3, reduction=r)),
    ("log_loss", lambda L, w, r: L.log_loss(LABELS01, PROBS, weights=w, reduction=r)),
    ("hinge_loss", lambda L, w, r: L.hinge_loss(LABELS01, LOGITS, weights=w, reduction=r)),
    ("cosine_distance", lambda L, w, r: L.cosine_distance(UNIT, UNIT2, axis=1,
                                                          weights=w if np.ndim(w) == 0 or np.shape(w)[1] == 1
                                                          else w[:, :1], reduction=r)),
    ("sigmoid_cross_entropy", lambda L, w, r: L.sigmoid_cross_entropy(LABELS01, LOGITS, weights=w, reduction=r)),
    ("sigmoid_cross_entropy smoothing", lambda L, w, r: L.sigmoid_cross_entropy(
        LABELS01, LOGITS, weights=w, label_smoothing=0.2, reduction=r)),
    ("softmax_cross_entropy", lambda L, w, r: L.softmax_cross_entropy(
        ONEHOT, LOGITS, weights=w if np.ndim(w) == 0 else w[:, 0], reduction=r)),
    ("softmax_cross_entropy smoothing", lambda L, w, r: L.softmax_cross_entropy(
        ONEHOT, LOGITS, weights=w if np.ndim(w) == 0 else w[:, 0], label_smoothing=0.1, reduction=r)),
    ("sparse_softmax_cross_entropy", lambda L, w, r: L.sparse_softmax_cross_entropy(
        SPARSE, LOGITS, weights=w if np.ndim(w) == 0 else w[:, :1], reduction=r)),
    ("sparse_softmax_cross_entropy [batch,1] labels", lambda L, w, r: L.sparse_softmax_cross_entropy(
        SPARSE[:, None], LOGITS, weights=w if np.ndim(w) == 0 else w[:, 0], reduction=r)),
]
REDUCTIONS = ["NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE", "SUM_BY_NONZERO_WEIGHTS"]


def _value(T, name, weights, reduction):
    call = dict(LOSSES)[name]
    with T.Graph().as_default():
        loss = call(T.losses, WEIGHTS[weights], getattr(T.losses.Reduction, reduction))
        collected = T.losses.get_losses()
        with T.Session() as s:
            return s.run(loss), loss.dtype.name, len(collected)


# Per-example losses (cosine, softmax, sparse softmax) take per-example weights only.
CASES = [(n, w, r) for n, _ in LOSSES for w in WEIGHTS for r in REDUCTIONS
         if not (w == "per-element" and n.startswith(("cosine", "softmax", "sparse")))]


@pytest.mark.parametrize("name,weights,reduction", CASES)
def test_loss_matches_tensorflow(name, weights, reduction):
    ours, dtype, collected = _value(tf, name, weights, reduction)
    assert (dtype, collected) == ("float32", 1) and ours.dtype == np.float32
    t = pytest.importorskip("tensorflow").compat.v1
    theirs, _, _ = _value(t, name, weights, reduction)
    # rtol: a few float32 ulps, for ref's and TF's different summation orders
    np.testing.assert_allclose(ours, theirs, rtol=3e-6, atol=1e-7)


def test_mean_pairwise_squared_error_matches_tensorflow_and_formula():
    labels = RNG.randn(3, 4).astype(np.float32)
    preds = RNG.randn(3, 4).astype(np.float32)
    w = np.array([[1.0], [0.0], [2.0]], np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        ours = s.run(tf.losses.mean_pairwise_squared_error(labels, preds, weights=w))
    d = (preds - labels).astype(np.float64)
    pairs = [np.mean([(d[b, i] - d[b, j]) ** 2 for i in range(4) for j in range(4) if i != j]) for b in range(3)]
    np.testing.assert_allclose(ours, np.sum(np.array(pairs) * w[:, 0]), rtol=1e-5)
    t = pytest.importorskip("tensorflow").compat.v1
    with t.Graph().as_default(), t.Session() as s:
        theirs = s.run(t.losses.mean_pairwise_squared_error(labels, preds, weights=w))
    np.testing.assert_allclose(ours, theirs, rtol=3e-6)


RAW = np.arange(24, dtype=np.float64).reshape(3, 2, 4)
WEIGHT_SHAPES = [(), (1, 1, 1), (1, 1, 4), (1, 2, 1), (3, 1, 1), (3, 2, 1), (3, 2, 4)]


def _oracle(losses, weights, reduction):
    """The reductions as the module docstring defines them, in float64."""
    w = np.broadcast_to(weights, losses.shape)
    total = np.sum(losses * w)
    return {"NONE": losses * w, "SUM": total, "MEAN": total / np.sum(w) if np.sum(w) else 0.0,
            "SUM_OVER_BATCH_SIZE": total / losses.size,
            "SUM_BY_NONZERO_WEIGHTS": total / np.sum(w != 0) if np.sum(w != 0) else 0.0}[reduction]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", WEIGHT_SHAPES, ids=str)
def test_compute_weighted_loss_reductions(shape, reduction):
    weights = np.asarray(RNG.rand(*shape) * (RNG.rand(*shape) > 0.3), np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        ph = tf.placeholder(tf.float32)
        static = tf.losses.compute_weighted_loss(RAW.astype(np.float32), weights, reduction=getattr(
            tf.losses.Reduction, reduction))
        dynamic = tf.losses.compute_weighted_loss(ph, weights, reduction=getattr(tf.losses.Reduction, reduction))
        a, b = s.run([static, dynamic], {ph: RAW.astype(np.float32)})
    expected = _oracle(RAW, weights.astype(np.float64), reduction)
    np.testing.assert_allclose(a, expected, rtol=1e-6)
    np.testing.assert_allclose(b, expected, rtol=1e-6)


@pytest.mark.parametrize("weights", [np.zeros((2, 2, 2, 2)), (17.0, 5.0, 2.0), ((17.0,), (5.0,), (2.0,)),
                                     np.ones((3, 2, 3))], ids=["too-many-dims", "3", "3x1", "mismatched-dim"])
def test_weights_that_do_not_broadcast_fail_statically_and_at_run_time(weights):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="weights can not be broadcast to values"):
            tf.losses.compute_weighted_loss(RAW, weights=weights)
        ph = tf.placeholder(tf.float32)
        loss = tf.losses.compute_weighted_loss(RAW, weights=ph)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast to values"):
                s.run(loss, {ph: np.asarray(weights, np.float32)})


def test_collection_helpers():
    with tf.Graph().as_default(), tf.Session() as s:
        assert s.run(tf.losses.get_regularization_loss()) == 0.0
        a = tf.losses.mean_squared_error([1.0, 2.0], [1.0, 4.0])
        tf.losses.absolute_difference([1.0], [3.0], loss_collection=None)
        with tf.name_scope("scope1"):
            b = tf.losses.absolute_difference([1.0], [4.0])
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(0.5))
        extra = tf.constant(10.0)
        tf.losses.add_loss(extra)
        tf.losses.add_loss(tf.constant(99.0), loss_collection=None)
        assert tf.losses.get_losses() == [a, b, extra]
        assert tf.losses.get_losses(scope="scope1") == [b]
        assert tf.get_collection(tf.GraphKeys.LOSSES) == [a, b, extra]
        assert s.run(tf.losses.get_total_loss()) == pytest.approx(2.0 + 3.0 + 10.0 + 0.5)
        assert s.run(tf.losses.get_total_loss(add_regularization_losses=False)) == pytest.approx(15.0)
        assert s.run(tf.losses.get_regularization_loss()) == pytest.approx(0.5)
        assert tf.losses.get_regularization_losses()[0].op.type == "Const"


def test_reduction_keys_and_validation():
    R = tf.losses.Reduction
    assert (R.NONE, R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE, R.SUM_BY_NONZERO_WEIGHTS) == (
        "none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size", "weighted_sum_by_nonzero_weights")
    assert R.SUM_OVER_NONZERO_WEIGHTS == R.SUM_BY_NONZERO_WEIGHTS and len(R.all()) == 6
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        R.validate("mean")


@pytest.mark.parametrize("call,match", [
    (lambda L: L.mean_squared_error(None, [1.0]), "Argument `labels` must not be None"),
    (lambda L: L.log_loss([1.0], None), "Argument `predictions` must not be None"),
    (lambda L: L.cosine_distance([[1.0]], [[1.0]]), "You must specify argument `axis`"),
    (lambda L: L.mean_squared_error(np.zeros((2, 3)), np.zeros((3, 2))), "are incompatible"),
    (lambda L: L.sparse_softmax_cross_entropy([[0, 1], [2, 3]], np.zeros((4, 4), np.float32)),
     "`labels.shape.rank` must equal `logits.shape.rank - 1`"),
])
def test_graph_construction_errors(call, match):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=match):
            call(tf.losses)


def test_softmax_loss_gradient_does_not_reach_labels():
    with tf.Graph().as_default():
        labels = tf.constant(ONEHOT)
        logits = tf.constant(LOGITS)
        loss = tf.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.1)
        g_labels, g_logits = tf.gradients(loss, [labels, logits])
        assert g_labels is None and g_logits is not None
