"""``tf.keras.losses`` functions and classes against TF (tf_keras, graph
mode): one row per loss, the per-sample values (functions) and the reduced
value with and without sample weights (classes)."""
import os
import sys

import numpy as np
import pytest

from ref.keras import losses as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import ref_and_tf_values  # noqa: E402

RNG = np.random.RandomState(3)
LOGITS = RNG.randn(5, 4).astype(np.float32)
PROBS = (np.exp(LOGITS) / np.exp(LOGITS).sum(1, keepdims=True)).astype(np.float32)
ONEHOT = np.eye(4, dtype=np.float32)[[0, 3, 1, 1, 2]]
SPARSE = np.array([0, 3, 1, 1, 2], np.int32)
BINARY = (RNG.rand(5, 4) > 0.5).astype(np.float32)
SIG = (1 / (1 + np.exp(-LOGITS))).astype(np.float32)
REG_T, REG_P = RNG.randn(5, 3).astype(np.float32), RNG.randn(5, 3).astype(np.float32)
WEIGHTS = np.array([1.0, 0.5, 0.0, 2.0, 1.0], np.float32)

# (name, y_true, y_pred, class kwargs)
ROWS = [
    ("mean_squared_error", "MeanSquaredError", REG_T, REG_P, {}),
    ("mean_absolute_error", "MeanAbsoluteError", REG_T, REG_P, {}),
    ("mean_absolute_percentage_error", "MeanAbsolutePercentageError", REG_T, REG_P, {}),
    ("mean_squared_logarithmic_error", "MeanSquaredLogarithmicError", np.abs(REG_T), np.abs(REG_P), {}),
    ("binary_crossentropy", "BinaryCrossentropy", BINARY, SIG, {}),
    ("categorical_crossentropy", "CategoricalCrossentropy", ONEHOT, PROBS, {}),
    ("sparse_categorical_crossentropy", "SparseCategoricalCrossentropy", SPARSE, PROBS, {}),
    ("hinge", "Hinge", BINARY, LOGITS, {}),
    ("squared_hinge", "SquaredHinge", BINARY, LOGITS, {}),
    ("kl_divergence", "KLDivergence", PROBS[::-1].copy(), PROBS, {}),
    ("poisson", "Poisson", np.abs(REG_T), np.abs(REG_P), {}),
    ("log_cosh", "LogCosh", REG_T, REG_P, {}),
]


@pytest.mark.parametrize("fn,cls,y_true,y_pred,kwargs", ROWS, ids=[r[0] for r in ROWS])
def test_loss_matches_tf(fn, cls, y_true, y_pred, kwargs):
    def snippet(tf):
        t, p = tf.constant(y_true), tf.constant(y_pred)
        return [getattr(tf.keras.losses, fn)(t, p), getattr(tf.keras.losses, cls)(**kwargs)(t, p),
                getattr(tf.keras.losses, cls)(reduction="sum")(t, p, sample_weight=tf.constant(WEIGHTS))]

    got, want = ref_and_tf_values(snippet)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=3e-6, atol=1e-6)


def _through_logits(tf):
    """Probabilities made by a Softmax / Sigmoid op: the cross-entropies come from the logits."""
    logits = tf.constant(LOGITS)
    sm, sg = tf.nn.softmax(logits), tf.sigmoid(logits)
    big = tf.constant(np.float32([[30.0, -30.0, 0.0, 1.0]]))
    return [tf.keras.losses.categorical_crossentropy(ONEHOT, sm),
            tf.keras.losses.sparse_categorical_crossentropy(SPARSE, sm),
            tf.keras.losses.binary_crossentropy(BINARY, sg),
            tf.keras.losses.categorical_crossentropy(ONEHOT[:1], tf.nn.softmax(big)),
            tf.keras.losses.categorical_crossentropy(ONEHOT, logits, from_logits=True, label_smoothing=0.1),
            tf.keras.losses.binary_crossentropy(BINARY, logits, from_logits=True, label_smoothing=0.2),
            tf.keras.losses.CategoricalCrossentropy(from_logits=True)(ONEHOT, logits, sample_weight=WEIGHTS),
            tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(SPARSE, logits)]


def test_cross_entropies_from_logits_match_tf():
    got, want = ref_and_tf_values(_through_logits)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=3e-6, atol=1e-6)
