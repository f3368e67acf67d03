"""``tf.metrics``: every metric fed two batches through placeholders, its
update results and final value against ``tensorflow.compat.v1.metrics``; the
simple ones also against NumPy over the concatenated batches; variables and
collections as TF keeps them."""
from __future__ import annotations

import numpy as np
import pytest

import ref as tf
from ref.graph_ops import metrics_impl as _under_test  # noqa: F401  (the module these tests cover)

RNG = np.random.RandomState(3)
N = 12
BATCHES = []
for _ in range(2):
    labels = (RNG.rand(N) > 0.5).astype(np.float32)
    probs = RNG.rand(N).astype(np.float32)
    BATCHES.append(dict(labels=labels, probs=probs, weights=RNG.rand(N).astype(np.float32) * (RNG.rand(N) > 0.2),
                        classes=RNG.randint(0, 3, N).astype(np.int64), guesses=RNG.randint(0, 3, N).astype(np.int64),
                        values=RNG.randn(N).astype(np.float32)))
THRESHOLDS = [0.1, 0.5, 0.75]

# (name, build(tf, inputs) -> (value, update_op)); inputs: placeholders named as BATCHES' keys.
METRICS = [
    ("accuracy", lambda T, x: T.metrics.accuracy(x["labels"], T.round(x["probs"]))),
    ("accuracy weighted", lambda T, x: T.metrics.accuracy(x["labels"], T.round(x["probs"]), weights=x["weights"])),
    ("mean", lambda T, x: T.metrics.mean(x["values"])),
    ("mean weighted", lambda T, x: T.metrics.mean(x["values"], weights=x["weights"])),
    ("mean_tensor", lambda T, x: T.metrics.mean_tensor(T.reshape(x["values"], [3, 4]))),
    ("mean_squared_error", lambda T, x: T.metrics.mean_squared_error(x["labels"], x["probs"])),
    ("mean_absolute_error", lambda T, x: T.metrics.mean_absolute_error(x["labels"], x["probs"], weights=x["weights"])),
    ("root_mean_squared_error", lambda T, x: T.metrics.root_mean_squared_error(x["labels"], x["probs"])),
    ("mean_relative_error", lambda T, x: T.metrics.mean_relative_error(x["labels"], x["probs"], x["labels"] + 1)),
    ("percentage_below", lambda T, x: T.metrics.percentage_below(x["values"], 0.2)),
    ("mean_cosine_distance", lambda T, x: T.metrics.mean_cosine_distance(
        T.reshape(x["labels"], [6, 2]), T.reshape(x["probs"], [6, 2]), dim=1)),
    ("true_positives", lambda T, x: T.metrics.true_positives(x["labels"], x["probs"] > 0.5)),
    ("false_positives", lambda T, x: T.metrics.false_positives(x["labels"], x["probs"] > 0.5, weights=x["weights"])),
    ("true_negatives", lambda T, x: T.metrics.true_negatives(x["labels"], x["probs"] > 0.5)),
    ("false_negatives", lambda T, x: T.metrics.false_negatives(x["labels"], x["probs"] > 0.5)),
    ("precision", lambda T, x: T.metrics.precision(x["labels"], x["probs"] > 0.5)),
    ("precision weighted", lambda T, x: T.metrics.precision(x["labels"], x["probs"] > 0.5, weights=x["weights"])),
    ("recall", lambda T, x: T.metrics.recall(x["labels"], x["probs"] > 0.5, weights=x["weights"])),
    ("auc ROC", lambda T, x: T.metrics.auc(x["labels"], x["probs"])),
    ("auc ROC weighted", lambda T, x: T.metrics.auc(x["labels"], x["probs"], weights=x["weights"], num_thresholds=37)),
    ("auc PR trapezoidal", lambda T, x: T.metrics.auc(x["labels"], x["probs"], curve="PR")),
    ("auc PR careful", lambda T, x: T.metrics.auc(x["labels"], x["probs"], curve="PR",
                                                  summation_method="careful_interpolation")),
    ("auc minoring", lambda T, x: T.metrics.auc(x["labels"], x["probs"], summation_method="minoring")),
    ("auc majoring", lambda T, x: T.metrics.auc(x["labels"], x["probs"], summation_method="majoring")),
    ("auc thresholds", lambda T, x: T.metrics.auc(x["labels"], x["probs"], thresholds=[0.7, 0.2, 0.5])),
    ("true_positives_at_thresholds", lambda T, x: T.metrics.true_positives_at_thresholds(
        x["labels"], x["probs"], THRESHOLDS)),
    ("false_positives_at_thresholds", lambda T, x: T.metrics.false_positives_at_thresholds(
        x["labels"], x["probs"], THRESHOLDS, weights=x["weights"])),
    ("true_negatives_at_thresholds", lambda T, x: T.metrics.true_negatives_at_thresholds(
        x["labels"], x["probs"], THRESHOLDS)),
    ("false_negatives_at_thresholds", lambda T, x: T.metrics.false_negatives_at_thresholds(
        x["labels"], x["probs"], THRESHOLDS)),
    ("precision_at_thresholds", lambda T, x: T.metrics.precision_at_thresholds(x["labels"], x["probs"], THRESHOLDS)),
    ("recall_at_thresholds", lambda T, x: T.metrics.recall_at_thresholds(
        x["labels"], x["probs"], THRESHOLDS, weights=x["weights"])),
    ("sensitivity_at_specificity", lambda T, x: T.metrics.sensitivity_at_specificity(x["labels"], x["probs"], 0.6)),
    ("specificity_at_sensitivity", lambda T, x: T.metrics.specificity_at_sensitivity(
        x["labels"], x["probs"], 0.4, num_thresholds=50)),
    ("mean_iou", lambda T, x: T.metrics.mean_iou(x["classes"], x["guesses"], 3)),
    ("mean_iou weighted", lambda T, x: T.metrics.mean_iou(x["classes"], x["guesses"], 3, weights=x["weights"])),
    ("mean_per_class_accuracy", lambda T, x: T.metrics.mean_per_class_accuracy(x["classes"], x["guesses"], 3)),
    ("mean_per_class_accuracy weighted", lambda T, x: T.metrics.mean_per_class_accuracy(
        x["classes"], x["guesses"], 3, weights=x["weights"])),
]


def _run(T, build):
    """(update results per batch, final value, metric variable names, local variable names)."""
    with T.Graph().as_default(), T.Session() as s:
        x = {k: T.placeholder(T.as_dtype(v.dtype), [N], name=k) for k, v in BATCHES[0].items()}
        value, update = build(T, x)
        s.run(T.local_variables_initializer())
        updates = [s.run(update, {x[k]: b[k] for k in x}) for b in BATCHES]
        names = sorted(v.op.name for v in T.get_collection(T.GraphKeys.METRIC_VARIABLES))
        local = sorted(v.op.name for v in T.local_variables())
        assert not T.trainable_variables()
        return updates, s.run(value), names, local


@pytest.mark.parametrize("name", [n for n, _ in METRICS])
def test_metric_matches_tensorflow(name):
    build = dict(METRICS)[name]
    ours = _run(tf, build)
    assert ours[2] and ours[2] == ours[3]  # every metric variable is local
    t = pytest.importorskip("tensorflow").compat.v1
    theirs = _run(t, build)
    assert ours[2] == theirs[2]
    for a, b in zip(ours[0] + [ours[1]], theirs[0] + [theirs[1]]):
        # rtol: a few float32 ulps (ref's and TF's reductions sum in different orders)
        np.testing.assert_allclose(a, b, rtol=5e-6, atol=1e-7)


def _all(key):
    return np.concatenate([b[key] for b in BATCHES]).astype(np.float64)


ORACLES = [  # name -> the metric over both batches, from its definition
    ("accuracy", lambda: np.mean(_all("labels") == np.round(_all("probs")))),
    ("mean weighted", lambda: np.sum(_all("values") * _all("weights")) / np.sum(_all("weights"))),
    ("precision", lambda: np.sum((_all("labels") == 1) & (_all("probs") > 0.5)) / np.sum(_all("probs") > 0.5)),
    ("recall", lambda: np.sum(_all("weights") * ((_all("labels") == 1) & (_all("probs") > 0.5)))
     / np.sum(_all("weights") * (_all("labels") == 1))),
    ("true_positives_at_thresholds", lambda: [np.sum((_all("labels") == 1) & (_all("probs") > t))
                                              for t in THRESHOLDS]),
    ("mean_per_class_accuracy", lambda: np.mean([np.mean(_all("guesses")[_all("classes") == c] == c)
                                                 for c in range(3)])),
    ("mean_iou", lambda: np.mean([np.sum((_all("classes") == c) & (_all("guesses") == c))
                                  / np.sum((_all("classes") == c) | (_all("guesses") == c)) for c in range(3)])),
]


@pytest.mark.parametrize("name,oracle", ORACLES, ids=[n for n, _ in ORACLES])
def test_metric_matches_its_definition(name, oracle):
    _, value, _, _ = _run(tf, dict(METRICS)[name])
    np.testing.assert_allclose(value, oracle(), rtol=1e-6)


def test_auc_roc_of_a_perfect_ranking_is_one():
    with tf.Graph().as_default(), tf.Session() as s:
        value, update = tf.metrics.auc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
        s.run(tf.local_variables_initializer())
        s.run(update)
        assert s.run(value) == pytest.approx(1.0, abs=1e-5)


def test_collections_and_reset_by_local_initializer():
    with tf.Graph().as_default(), tf.Session() as s:
        value, update = tf.metrics.mean([1.0, 3.0], metrics_collections=["m"], updates_collections=["u"])
        assert tf.get_collection("m") == [value] and tf.get_collection("u") == [update]
        assert [v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == ["mean/total", "mean/count"]
        s.run(tf.local_variables_initializer())
        assert s.run(value) == 0.0
        s.run(update)
        s.run(update)
        assert s.run(value) == 2.0
        s.run(tf.local_variables_initializer())
        assert s.run(value) == 0.0


@pytest.mark.parametrize("call,exc,match", [
    (lambda: tf.metrics.auc([1.0], [0.5], curve="XY"), ValueError, "Curve must be either ROC or PR"),
    (lambda: tf.metrics.auc([1.0], [0.5], summation_method="x"), ValueError, "Invalid summation_method"),
    (lambda: tf.metrics.sensitivity_at_specificity([1.0], [0.5], 1.5), ValueError, "must be in the range"),
    (lambda: tf.metrics.accuracy(np.zeros((2, 3)), np.zeros((3, 2))), ValueError, "are incompatible"),
])
def test_graph_construction_errors(call, exc, match):
    with tf.Graph().as_default():
        with pytest.raises(exc, match=match):
            call()


def test_predictions_outside_unit_interval_fail_at_run_time():
    with tf.Graph().as_default(), tf.Session() as s:
        p = tf.placeholder(tf.float32, [2])
        _, update = tf.metrics.auc([0.0, 1.0], p)
        s.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
            s.run(update, {p: [0.5, 1.5]})
