"""``compile`` / ``fit`` / ``evaluate`` / ``predict`` / ``train_on_batch``
against TF (tf_keras, graph mode, v1 array loop): a small model on fixed
data, one graph seed and one NumPy seed (``fit`` shuffles with NumPy, as
Keras), the same ``history.history`` values per epoch, evaluation, weights
and predictions. One row per optimizer / loss / model."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.keras import training as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import tf1_behaviour, tf_v1  # noqa: E402

RNG = np.random.RandomState(0)
X = RNG.randn(40, 4).astype(np.float32)
LABELS = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64)
ONEHOT = np.eye(2, dtype=np.float32)[LABELS]
REG = (X @ np.float32([[1.0], [-2.0], [0.5], [0.0]]) + 0.3).astype(np.float32)


def mlp(tf, out=2, activation="softmax"):
    return tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                tf.keras.layers.Dense(out, activation=activation)])


def bn_dropout(tf, out=2, activation="softmax"):
    inp = tf.keras.Input(shape=(4,))
    h = tf.keras.layers.Dense(6, use_bias=False)(inp)  # (a bias before batch norm gets only rounding noise)
    h = tf.keras.layers.BatchNormalization()(h)
    h = tf.keras.layers.Dropout(0.3)(tf.keras.layers.Activation("relu")(h))
    return tf.keras.Model(inp, tf.keras.layers.Dense(out, activation=activation)(h))


def regularized(tf, out=1, activation=None):
    return tf.keras.Sequential([tf.keras.layers.Dense(5, activation="tanh", input_shape=(4,),
                                                      kernel_regularizer=tf.keras.regularizers.l2(0.01)),
                                tf.keras.layers.Dense(out, activation=activation)])


def recurrent(tf, out=2, activation="softmax"):
    return tf.keras.Sequential([tf.keras.layers.Reshape((2, 2), input_shape=(4,)), tf.keras.layers.LSTM(3),
                                tf.keras.layers.Dense(out, activation=activation)])


def recurrent_dropout(tf, out=2, activation="softmax"):
    return tf.keras.Sequential([tf.keras.layers.Reshape((2, 2), input_shape=(4,)),
                                tf.keras.layers.GRU(3, dropout=0.3, recurrent_dropout=0.2, return_sequences=True),
                                tf.keras.layers.SimpleRNN(3, recurrent_dropout=0.5),
                                tf.keras.layers.Dense(out, activation=activation)])


# (id, model, optimizer(tf), loss, y, metrics)
ROWS = [
    ("sgd_sparse", mlp, lambda tf: "sgd", "sparse_categorical_crossentropy", LABELS, ["accuracy"]),
    ("adam_sparse", mlp, lambda tf: "adam", "sparse_categorical_crossentropy", LABELS, ["accuracy"]),
    ("rmsprop_sparse", mlp, lambda tf: "rmsprop", "sparse_categorical_crossentropy", LABELS, ["acc"]),
    ("keras_sgd_momentum_categorical", mlp, lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.9),
     "categorical_crossentropy", ONEHOT, ["accuracy"]),
    ("keras_adam_object", mlp, lambda tf: tf.keras.optimizers.Adam(0.01), "loss_object",
     ONEHOT, ["accuracy"]),
    ("keras_rmsprop_momentum", mlp, lambda tf: tf.keras.optimizers.RMSprop(0.01, momentum=0.5),
     "categorical_crossentropy", ONEHOT, None),
    ("tf_train_gradient_descent", mlp, lambda tf: tf.train.GradientDescentOptimizer(0.2),
     "sparse_categorical_crossentropy", LABELS, ["accuracy"]),
    ("tf_train_adam", mlp, lambda tf: tf.train.AdamOptimizer(0.01), "sparse_categorical_crossentropy", LABELS,
     ["accuracy"]),
    ("bn_dropout_adam", bn_dropout, lambda tf: "adam", "sparse_categorical_crossentropy", LABELS, ["accuracy"]),
    ("binary_sigmoid", lambda tf: mlp(tf, 1, "sigmoid"), lambda tf: "sgd", "binary_crossentropy",
     LABELS.astype(np.float32), ["accuracy"]),
    ("mse_regularized", regularized, lambda tf: tf.keras.optimizers.SGD(0.05), "mse", REG, None),
    ("sgd_sparse_weighted", mlp, lambda tf: "sgd", "sparse_categorical_crossentropy", LABELS, ["accuracy"]),
    ("recurrent_dropout_rmsprop", recurrent_dropout, lambda tf: "rmsprop", "sparse_categorical_crossentropy",
     LABELS, ["accuracy"]),
    ("lstm_adam", recurrent, lambda tf: "adam", "sparse_categorical_crossentropy", LABELS, ["accuracy"]),
    ("mse_weighted", regularized, lambda tf: "adam", "mse", REG, ["mae"]),
    ("mae_loss_metrics", regularized, lambda tf: tf.keras.optimizers.Adam(0.02, decay=0.1), "mean_absolute_error",
     REG, ["mse", "mae"]),
]


def _program(tf, model_fn, opt_fn, loss, y):
    tf.set_random_seed(11)
    model = model_fn(tf)
    if loss == "loss_object":
        loss = tf.keras.losses.CategoricalCrossentropy()
    return model, opt_fn(tf), loss


SAMPLE_WEIGHTS = np.linspace(0.0, 2.0, len(X)).astype(np.float32)


def _run(tf, row):
    name, model_fn, opt_fn, loss, y, metrics = row
    model, opt, loss = _program(tf, model_fn, opt_fn, loss, y)
    model.compile(optimizer=opt, loss=loss, metrics=metrics)
    np.random.seed(5)
    weights = SAMPLE_WEIGHTS if name.endswith("weighted") else None
    hist = model.fit(X, y, batch_size=16, epochs=3, verbose=0, validation_data=(X[:12], y[:12]),
                     sample_weight=weights)
    evaluated = model.evaluate(X, y, batch_size=16, verbose=0, sample_weight=weights)
    single = model.train_on_batch(X[:8], y[:8], sample_weight=None if weights is None else weights[:8])
    return (hist.history, np.atleast_1d(evaluated), np.atleast_1d(single), model.predict(X[:5]),
            model.get_weights())


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_fit_matches_tf(row):
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _run(ref, row)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _run(tf, row)
    assert sorted(got[0]) == sorted(want[0])
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-5, atol=1e-6, err_msg=key)
    for g, w in zip(got[1:4], want[1:4]):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)
    assert len(got[4]) == len(want[4])
    for g, w in zip(got[4], want[4]):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)


def _deferred(tf):
    tf.set_random_seed(11)
    model = tf.keras.Sequential([tf.keras.layers.Dense(6, activation="relu"), tf.keras.layers.Dense(2)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    np.random.seed(5)
    hist = model.fit(X, LABELS, batch_size=8, epochs=2, verbose=0)
    return hist.history, model.predict(X[:4]), [t.name for t in model.inputs], [la.name for la in model.layers]


def test_fit_builds_a_sequential_without_input_shape_as_tf():
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _deferred(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _deferred(tf)
    assert got[2:] == want[2:]
    assert sorted(got[0]) == sorted(want[0])
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-5, atol=1e-6, err_msg=key)
    np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=1e-6)


IDS = RNG.randint(0, 6, size=(40, 5)).astype(np.int32)
IDS[:, 3:] *= (RNG.rand(40, 2) < 0.5)  # trailing padding (id 0) on some samples
SEQ = RNG.randn(40, 3, 2).astype(np.float32)
SEQ[::3, 2] = -1.0  # Masking(-1.0): the last step of every third sample


def embedding_masked(tf):
    return tf.keras.Sequential([tf.keras.layers.Embedding(6, 3, mask_zero=True, input_length=5),
                                tf.keras.layers.LSTM(4, return_sequences=True),
                                tf.keras.layers.GRU(3, dropout=0.2),
                                tf.keras.layers.Dense(2, activation="softmax")])


def masking_layer(tf):
    inp = tf.keras.Input(shape=(3, 2))
    h = tf.keras.layers.Masking(-1.0)(inp)
    h = tf.keras.layers.SimpleRNN(3, go_backwards=True, recurrent_dropout=0.3)(h)
    return tf.keras.Model(inp, tf.keras.layers.Dense(2, activation="softmax")(h))


# (id, model, inputs, optimizer): the embeddings' gradients are IndexedSlices (Keras' sparse updates)
MASK_ROWS = [("embedding_mask_zero_adam", embedding_masked, IDS, "adam"),
             ("embedding_mask_zero_rmsprop", embedding_masked, IDS, "rmsprop"),
             ("embedding_mask_zero_sgd", embedding_masked, IDS, "sgd"),
             ("embedding_mask_zero_momentum", embedding_masked, IDS, "momentum"),
             ("masking_layer", masking_layer, SEQ, "adam")]


def _run_masked(tf, model_fn, x, optimizer):
    tf.set_random_seed(11)
    model = model_fn(tf)
    if optimizer == "momentum":
        optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    model.compile(optimizer, "sparse_categorical_crossentropy", metrics=["accuracy"])
    np.random.seed(5)
    hist = model.fit(x, LABELS, batch_size=16, epochs=2, verbose=0, validation_data=(x[:12], LABELS[:12]))
    return hist.history, model.evaluate(x, LABELS, verbose=0), model.predict(x[:6]), model.get_weights()


@pytest.mark.parametrize("row", MASK_ROWS, ids=[r[0] for r in MASK_ROWS])
def test_masked_sequences_fit_as_tf(row):
    """Masks from Embedding(mask_zero=True) / Masking propagated into recurrent layers: same history,
    evaluation, predictions and weights as TF."""
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _run_masked(ref, *row[1:])
    with tf1_behaviour(), tf.Graph().as_default():
        want = _run_masked(tf, *row[1:])
    assert sorted(got[0]) == sorted(want[0])
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-5, atol=1e-6, err_msg=key)
    np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=2e-5, atol=1e-6)
    for g, w in zip(got[3], want[3]):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)
