"""GraphDef identity of Keras' compile + train graph: each row builds a model,
``compile``s it and runs the first ``train_on_batch`` / ``fit`` (so the train
function, Keras' variable initialization and the metrics' reset are in the
graph) under ref and under TF 2.21 with tf_keras (graph mode, TF1 behaviour),
then compares the GraphDefs node for node (``tests/graph_ops/_graphdef.py``).

One canonicalization: Keras' session initializes its variables by running one
``VarIsInitializedOp`` per variable it tracks, in the iteration order of an
``ObjectIdentityWeakSet`` -- an order of object addresses, which differs from
one TF run to the next. Each run of consecutive such nodes is compared as a
set (sorted by the variable read, renamed in turn); everything else, in order.
"""
import os
import re
import sys

import numpy as np
import pytest

from ref.keras import training as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import differences, graph_def, tf_v1  # noqa: E402

_INIT_CHECK = re.compile(r"^VarIsInitializedOp(_\d+)?$")

X = np.linspace(-1.0, 1.0, 18, dtype=np.float32).reshape(6, 3)
LABELS = np.array([0, 1, 1, 0, 1, 0], np.int64)
ONEHOT = np.eye(2, dtype=np.float32)[LABELS]


def _canonical(gd):
    """The GraphDef with each run of Keras' ``VarIsInitializedOp`` checks sorted by the variable they read."""
    nodes = list(gd.node)
    i = 0
    while i < len(nodes):
        if nodes[i].op != "VarIsInitializedOp" or not _INIT_CHECK.match(nodes[i].name):
            i += 1
            continue
        j = i
        while j < len(nodes) and nodes[j].op == "VarIsInitializedOp" and _INIT_CHECK.match(nodes[j].name):
            j += 1
        names = [n.name for n in nodes[i:j]]
        run = []
        for name, node in zip(names, sorted(nodes[i:j], key=lambda n: list(n.input))):
            copy = type(node)()
            copy.CopyFrom(node)
            copy.name = name
            run.append(copy)
        nodes[i:j] = run
        i = j
    tokens = [int(n.attr["_gradient_op_type"].s.split(b"-")[1]) for n in nodes if "_gradient_op_type" in n.attr]
    for n in nodes:  # a custom gradient's name counts from the process's first ("CustomGradient-<uid>")
        if "_gradient_op_type" in n.attr:
            uid = int(n.attr["_gradient_op_type"].s.split(b"-")[1]) - min(tokens)
            n.attr["_gradient_op_type"].s = b"CustomGradient-%d" % uid
    del gd.node[:]
    gd.node.extend(nodes)
    return gd


def _model(tf, out=2, activation="softmax", hidden=None):
    inp = tf.keras.Input(shape=(3,))
    h = tf.keras.layers.Dense(4, activation="relu")(inp)
    if hidden == "embedding_mask":  # the features as ids 0..2 (0: padding), masked into an LSTM
        ids = tf.keras.layers.Lambda(lambda t: tf.cast(tf.abs(t) * 2.0, tf.int32))(inp)
        h = tf.keras.layers.LSTM(3, dropout=0.2)(tf.keras.layers.Embedding(3, 2, mask_zero=True)(ids))
    if hidden in ("lstm", "gru"):  # the three features as a sequence of three steps
        h = tf.keras.layers.Reshape((3, 1))(inp)
        h = (tf.keras.layers.LSTM(3) if hidden == "lstm" else tf.keras.layers.GRU(3, return_sequences=True))(h)
        if hidden == "gru":
            h = tf.keras.layers.SimpleRNN(2)(h)
    if hidden == "bn_dropout":
        h = tf.keras.layers.BatchNormalization()(h)
        h = tf.keras.layers.Dropout(0.3)(h)
    return tf.keras.Model(inp, tf.keras.layers.Dense(out, activation=activation)(h))


def _row(optimizer, loss, metrics, y, out=2, activation="softmax", hidden=None, run="train_on_batch"):
    def snippet(tf):
        tf.set_random_seed(1)
        model = _model(tf, out, activation, hidden)
        opt = optimizer(tf) if callable(optimizer) else optimizer
        model.compile(opt, loss, metrics=metrics)
        np.random.seed(0)
        if run == "train_on_batch":
            model.train_on_batch(X, y)
        elif run == "fit_weighted":
            model.fit(X, y, batch_size=4, epochs=1, verbose=0, sample_weight=np.linspace(0.5, 1.5, 6))
        else:  # fit with validation, then evaluate
            model.fit(X, y, batch_size=4, epochs=2, verbose=0, validation_data=(X[:4], y[:4]))
            model.evaluate(X, y, verbose=0)
    return snippet


ROWS = {
    "sgd_mse": _row("sgd", "mse", None, ONEHOT, activation=None),
    "sgd_momentum_categorical_acc": _row(lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                         "categorical_crossentropy", ["accuracy"], ONEHOT),
    "sgd_nesterov_sparse": _row(lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.5, nesterov=True),
                                "sparse_categorical_crossentropy", ["accuracy"], LABELS),
    "adam_sparse_acc": _row("adam", "sparse_categorical_crossentropy", ["accuracy"], LABELS),
    "adam_decay_categorical": _row(lambda tf: tf.keras.optimizers.Adam(0.01, decay=0.1),
                                   "categorical_crossentropy", ["acc", "mse"], ONEHOT),
    "rmsprop_categorical_acc": _row("rmsprop", "categorical_crossentropy", ["accuracy"], ONEHOT),
    "rmsprop_momentum_mse": _row(lambda tf: tf.keras.optimizers.RMSprop(0.01, momentum=0.5), "mse", ["mae"],
                                 ONEHOT, activation=None),
    "sgd_binary_acc": _row("sgd", "binary_crossentropy", ["accuracy"], LABELS.astype(np.float32)[:, None],
                           out=1, activation="sigmoid"),
    "adam_binary_acc_mse": _row("adam", "binary_crossentropy", ["accuracy", "mse"],
                                LABELS.astype(np.float32)[:, None], out=1, activation="sigmoid"),
    "fit_sample_weights": _row("adam", "sparse_categorical_crossentropy", ["accuracy"], LABELS,
                               run="fit_weighted"),
    "fit_validation_evaluate": _row(lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                    "sparse_categorical_crossentropy", ["accuracy"], LABELS, run="fit_val"),
    "lstm_adam": _row("adam", "sparse_categorical_crossentropy", ["accuracy"], LABELS, hidden="lstm"),
    "gru_simple_rnn_sgd": _row("sgd", "categorical_crossentropy", ["accuracy"], ONEHOT, hidden="gru"),
    "embedding_mask_lstm_dropout": _row("rmsprop", "sparse_categorical_crossentropy", ["accuracy"], LABELS,
                                        hidden="embedding_mask"),
    "embedding_mask_sgd_sparse": _row("sgd", "sparse_categorical_crossentropy", ["accuracy"], LABELS,
                                      hidden="embedding_mask"),
    "embedding_mask_adam_sparse": _row("adam", "sparse_categorical_crossentropy", ["accuracy"], LABELS,
                                       hidden="embedding_mask"),
    "embedding_mask_momentum_sparse": _row(lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                           "sparse_categorical_crossentropy", ["accuracy"], LABELS,
                                           hidden="embedding_mask"),
    "bn_dropout_updates": _row("rmsprop", "sparse_categorical_crossentropy", ["accuracy"], LABELS,
                               hidden="bn_dropout"),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_train_graph_same_as_tf(name):
    import ref

    tf = tf_v1()
    want = _canonical(graph_def(tf, ROWS[name]))
    got = _canonical(graph_def(ref, ROWS[name]))
    diff = differences(got, want)
    assert not diff, f"{len(got.node)} ref nodes, {len(want.node)} tf nodes\n" + "\n".join(diff)
