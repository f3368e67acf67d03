"""``tf.keras.metrics`` against TF (tf_keras, graph mode): metric names and
objects given to ``compile`` give TF's history keys and values (one row per
metric list), and a metric object used on its own gives TF's ``result()``
after its updates."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.keras import metrics as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import tf1_behaviour, tf_v1  # noqa: E402

RNG = np.random.RandomState(3)
X = RNG.randn(40, 4).astype(np.float32)
LABELS = (X[:, 0] - X[:, 3] > 0).astype(np.int64)
ONEHOT = np.eye(2, dtype=np.float32)[LABELS]
REG = (X @ np.float32([[0.5], [-1.0], [0.0], [2.0]])).astype(np.float32)


def _softmax(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(6, activation="relu", input_shape=(4,)),
                                tf.keras.layers.Dense(2, activation="softmax")])


def _sigmoid(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(4,))])


def _linear(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])


# (id, model, loss, y, metrics(tf))
ROWS = [
    ("names_sparse", _softmax, "sparse_categorical_crossentropy", LABELS,
     lambda tf: ["accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy", "mae", "mse"]),
    ("names_categorical", _softmax, "categorical_crossentropy", ONEHOT,
     lambda tf: ["acc", "categorical_accuracy", "mean_squared_error"]),
    ("names_binary", _sigmoid, "binary_crossentropy", LABELS.astype(np.float32),
     lambda tf: ["accuracy", "binary_accuracy", "mean_absolute_error"]),
    ("objects_sparse", _softmax, "sparse_categorical_crossentropy", LABELS,
     lambda tf: [tf.keras.metrics.SparseCategoricalAccuracy(), tf.keras.metrics.Accuracy(),
                 tf.keras.metrics.MeanSquaredError(name="my_mse")]),
    ("objects_categorical", _softmax, "categorical_crossentropy", ONEHOT,
     lambda tf: [tf.keras.metrics.CategoricalAccuracy(), tf.keras.metrics.BinaryAccuracy(threshold=0.4)]),
    ("objects_regression", _linear, "mse", REG,
     lambda tf: [tf.keras.metrics.MeanAbsoluteError(), tf.keras.metrics.MeanSquaredError()]),
]


def _run(tf, row):
    _, model_fn, loss, y, metrics_fn = row
    tf.set_random_seed(7)
    model = model_fn(tf)
    model.compile("sgd", loss, metrics=metrics_fn(tf))
    np.random.seed(2)
    hist = model.fit(X, y, batch_size=16, epochs=2, verbose=0, validation_data=(X[:12], y[:12]))
    return hist.history, model.metrics_names, np.atleast_1d(model.evaluate(X, y, verbose=0))


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_compile_metrics_match_tf(row):
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _run(ref, row)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _run(tf, row)
    assert list(got[0]) == list(want[0])
    assert got[1] == want[1]
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-5, atol=1e-6, err_msg=key)
    np.testing.assert_allclose(got[2], want[2], rtol=2e-5, atol=1e-6)


Y_TRUE = np.float32([[0, 1], [1, 0], [1, 0], [0, 1]])
Y_PRED = np.float32([[0.2, 0.8], [0.3, 0.7], [0.9, 0.1], [0.6, 0.4]])
WEIGHTS = np.float32([1.0, 0.5, 2.0, 0.0])

# (id, metric(tf), [(positional arguments, sample_weight) per update_state call])
STANDALONE = [
    ("mean", lambda tf: tf.keras.metrics.Mean(), [((np.float32([1, 2, 3]),), None), ((np.float32([10]),), None)]),
    ("mean_weighted", lambda tf: tf.keras.metrics.Mean(name="m"),
     [((np.float32([1, 2, 3]),), np.float32([1, 0, 2]))]),
    ("accuracy", lambda tf: tf.keras.metrics.Accuracy(),
     [((np.float32([1, 2, 3, 4]), np.float32([1, 2, 0, 4])), None), ((np.float32([0]), np.float32([1])), None)]),
    ("categorical_accuracy", lambda tf: tf.keras.metrics.CategoricalAccuracy(), [((Y_TRUE, Y_PRED), None)]),
    ("categorical_accuracy_weighted", lambda tf: tf.keras.metrics.CategoricalAccuracy(),
     [((Y_TRUE, Y_PRED), WEIGHTS)]),
    ("sparse_categorical_accuracy", lambda tf: tf.keras.metrics.SparseCategoricalAccuracy(),
     [((np.float32([[1], [0], [0], [1]]), Y_PRED), None), ((np.float32([1, 1]), Y_PRED[:2]), None)]),
    ("binary_accuracy", lambda tf: tf.keras.metrics.BinaryAccuracy(), [((Y_TRUE, Y_PRED), None)]),
    ("mse", lambda tf: tf.keras.metrics.MeanSquaredError(), [((Y_TRUE, Y_PRED), None), ((Y_TRUE, Y_PRED), WEIGHTS)]),
    ("auc", lambda tf: tf.keras.metrics.AUC(), [((Y_TRUE, Y_PRED), None)]),
    ("auc_weighted_few_thresholds", lambda tf: tf.keras.metrics.AUC(num_thresholds=7, name="a"),
     [((Y_TRUE[:, 0], Y_PRED[:, 0]), WEIGHTS), ((np.float32([1, 0, 1]), np.float32([0.3, 0.4, 0.9])), None)]),
]


def _standalone(tf, row):
    _, make, calls = row
    metric = make(tf)
    ops = [metric.update_state(*args, sample_weight=weights) for args, weights in calls]
    result = metric.result()
    with tf.Session() as sess:
        sess.run(tf.variables_initializer(metric.variables))
        for op in ops:
            sess.run(op)
        return sess.run(result), metric.name, [v.name for v in metric.variables]


@pytest.mark.parametrize("row", STANDALONE, ids=[r[0] for r in STANDALONE])
def test_metric_object_result_matches_tf(row):
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _standalone(ref, row)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _standalone(tf, row)
    assert got[1:] == want[1:]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


def test_compile_rejects_a_metric_object_that_is_not_a_mean():
    with ref.Graph().as_default():
        model = _softmax(ref)
        with pytest.raises(NotImplementedError, match="AUC"):
            model.compile("sgd", "sparse_categorical_crossentropy", metrics=[ref.keras.metrics.AUC()])
