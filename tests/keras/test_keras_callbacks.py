"""``tf.keras.callbacks`` and ``fit(class_weight=...)`` against TF (tf_keras,
graph mode, v1 array loop): the hooks called with their logs and params, the
history, the weights after ``EarlyStopping`` / ``LearningRateScheduler``, and
the checkpoints ``ModelCheckpoint`` writes (read back with TF's reader)."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.keras import callbacks as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import tf1_behaviour, tf_v1  # noqa: E402

RNG = np.random.RandomState(4)
X = RNG.randn(36, 4).astype(np.float32)
LABELS = (X[:, 0] + X[:, 2] > 0.3).astype(np.int64)
ONEHOT = np.eye(2, dtype=np.float32)[LABELS]


def _recorder(tf, calls):
    class Recorder(tf.keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            calls.append(("train_begin", dict(self.params), dict(logs or {})))

        def on_epoch_begin(self, epoch, logs=None):
            calls.append(("epoch_begin", epoch, dict(logs or {})))

        def on_epoch_end(self, epoch, logs=None):
            calls.append(("epoch_end", epoch, dict(logs or {})))

        def on_batch_begin(self, batch, logs=None):
            calls.append(("batch_begin", batch, dict(logs or {})))

        def on_batch_end(self, batch, logs=None):
            calls.append(("batch_end", batch, dict(logs or {})))

        def on_test_batch_end(self, batch, logs=None):
            calls.append(("test_batch_end", batch, dict(logs or {})))

        def on_train_end(self, logs=None):
            calls.append(("train_end", None, dict(logs or {})))
    return Recorder()


def _model(tf):
    tf.set_random_seed(3)
    return tf.keras.Sequential([tf.keras.layers.Dense(5, activation="tanh", input_shape=(4,)),
                                tf.keras.layers.Dense(2, activation="softmax")])


def _schedule(epoch, lr):
    return lr * 0.5 if epoch else 0.3


# (id, callbacks(tf, calls, tmpdir), fit keyword arguments, y)
ROWS = [
    ("recorder", lambda tf, calls, d: [_recorder(tf, calls)], {"validation_data": (X[:10], LABELS[:10])}, LABELS),
    ("early_stopping_loss", lambda tf, calls, d: [tf.keras.callbacks.EarlyStopping("loss", min_delta=0.05,
                                                                                   patience=1)], {}, LABELS),
    ("early_stopping_restore", lambda tf, calls, d: [tf.keras.callbacks.EarlyStopping(
        "val_acc", patience=1, restore_best_weights=True)], {"validation_data": (X[:9], LABELS[:9])}, LABELS),
    ("early_stopping_baseline", lambda tf, calls, d: [tf.keras.callbacks.EarlyStopping(
        baseline=0.01, patience=2)], {"validation_data": (X[:9], LABELS[:9])}, LABELS),
    ("lr_scheduler", lambda tf, calls, d: [tf.keras.callbacks.LearningRateScheduler(_schedule)], {}, LABELS),
    ("lr_scheduler_epoch_only", lambda tf, calls, d: [tf.keras.callbacks.LearningRateScheduler(
        lambda epoch: 0.1 / (epoch + 1))], {}, LABELS),
    ("lambda_callback", lambda tf, calls, d: [tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: calls.append((epoch, sorted(logs))))], {}, LABELS),
    ("class_weight_sparse", lambda tf, calls, d: [], {"class_weight": {0: 0.3, 1: 2.0}}, LABELS),
    ("class_weight_onehot_and_sample_weight", lambda tf, calls, d: [],
     {"class_weight": {0: 1.5, 1: 0.5}, "sample_weight": np.linspace(0.5, 1.5, len(X)).astype(np.float32)}, ONEHOT),
    ("checkpoint_weights", lambda tf, calls, d: [tf.keras.callbacks.ModelCheckpoint(
        os.path.join(d, "w-{epoch:02d}-{loss:.2f}"), save_weights_only=True)], {}, LABELS),
    ("validation_split", lambda tf, calls, d: [_recorder(tf, calls)], {"validation_split": 0.25}, LABELS),
    ("validation_split_weighted", lambda tf, calls, d: [],
     {"validation_split": 0.3, "sample_weight": np.linspace(0.5, 1.5, len(X)).astype(np.float32)}, LABELS),
    ("validation_freq", lambda tf, calls, d: [_recorder(tf, calls)],
     {"validation_data": (X[:9], LABELS[:9]), "validation_freq": 2}, LABELS),
    ("validation_freq_epochs", lambda tf, calls, d: [], {"validation_split": 0.2, "validation_freq": [1, 4]}, LABELS),
    ("checkpoint_best", lambda tf, calls, d: [tf.keras.callbacks.ModelCheckpoint(
        os.path.join(d, "best"), monitor="val_loss", save_best_only=True, save_weights_only=True)],
     {"validation_data": (X[:9], LABELS[:9])}, LABELS),
]


def _run(tf, row, directory):
    _, make_callbacks, kwargs, y = row
    model = _model(tf)
    loss = "categorical_crossentropy" if y.ndim == 2 else "sparse_categorical_crossentropy"
    model.compile(tf.keras.optimizers.SGD(0.2), loss, metrics=["acc"])
    calls = []
    np.random.seed(9)
    hist = model.fit(X, y, batch_size=10, epochs=6, verbose=0, callbacks=make_callbacks(tf, calls, directory),
                     **kwargs)
    files = sorted(os.listdir(directory))
    saved = {}
    for name in files:
        if name.endswith(".index"):
            reader = tf.train.load_checkpoint(os.path.join(directory, name[:-len(".index")]))
            saved[name] = {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()}
    return hist.history, hist.epoch, calls, model.get_weights(), files, saved, model.stop_training


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_callbacks_match_tf(row, tmp_path):
    tf = tf_v1()
    os.makedirs(tmp_path / "ref")
    os.makedirs(tmp_path / "tf")
    with ref.Graph().as_default():
        got = _run(ref, row, str(tmp_path / "ref"))
    with tf1_behaviour(), tf.Graph().as_default():
        want = _run(tf, row, str(tmp_path / "tf"))
    assert list(got[0]) == list(want[0])
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-5, atol=1e-6, err_msg=key)
    assert got[1] == want[1] and got[6] == want[6]
    assert [c[:2] if isinstance(c[1], (int, type(None))) else c for c in got[2]] == \
        [c[:2] if isinstance(c[1], (int, type(None))) else c for c in want[2]]
    for g, w in zip(got[2], want[2]):
        if len(w) == 3:
            assert sorted(g[2]) == sorted(w[2]), w[0]
            for k in w[2]:
                if isinstance(w[2][k], float):
                    np.testing.assert_allclose(g[2][k], w[2][k], rtol=2e-5, atol=1e-6, err_msg=f"{w[0]} {k}")
                else:
                    assert g[2][k] == w[2][k], (w[0], k)
    for g, w in zip(got[3], want[3]):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)
    assert got[4] == want[4]
    for name in want[5]:
        assert sorted(got[5][name]) == sorted(want[5][name])
        for key in want[5][name]:
            if key != "_CHECKPOINTABLE_OBJECT_GRAPH":
                np.testing.assert_allclose(got[5][name][key], want[5][name][key], rtol=2e-5, atol=1e-6,
                                           err_msg=f"{name} {key}")


def test_class_weight_missing_class_is_a_value_error():
    with ref.Graph().as_default():
        model = _model(ref)
        model.compile("sgd", "sparse_categorical_crossentropy")
        with pytest.raises(ValueError, match="class_weight"):
            model.fit(X, LABELS, epochs=1, verbose=0, class_weight={0: 1.0})


def _scalars(tf_real, directory):
    """(step, tag, value) of every scalar summary in the event files of ``directory`` (read with TF), and
    whether a graph was written."""
    out, graph = [], False
    for name in sorted(n for n in os.listdir(directory) if n.startswith("events.out.tfevents")):
        for event in tf_real.train.summary_iterator(os.path.join(directory, name)):
            graph = graph or event.HasField("graph_def")
            out += [(event.step, v.tag, v.simple_value) for v in event.summary.value]
    return out, graph


@pytest.mark.parametrize("write_graph", [True, False])
def test_tensorboard_epoch_scalars_match_tf(tmp_path, write_graph):
    tf = tf_v1()
    results = []
    for module, sub, ctx in ((ref, "ref", None), (tf, "tf", tf1_behaviour)):
        directory = str(tmp_path / sub)
        if ctx is None:
            with ref.Graph().as_default():
                model = _model(ref)
                model.compile("sgd", "sparse_categorical_crossentropy", metrics=["acc"])
                np.random.seed(1)
                model.fit(X, LABELS, batch_size=12, epochs=3, verbose=0, validation_data=(X[:6], LABELS[:6]),
                          callbacks=[ref.keras.callbacks.TensorBoard(directory, write_graph=write_graph)])
        else:
            with ctx(), tf.Graph().as_default():
                model = _model(tf)
                model.compile("sgd", "sparse_categorical_crossentropy", metrics=["acc"])
                np.random.seed(1)
                model.fit(X, LABELS, batch_size=12, epochs=3, verbose=0, validation_data=(X[:6], LABELS[:6]),
                          callbacks=[tf.keras.callbacks.TensorBoard(directory, write_graph=write_graph)])
        results.append(_scalars(tf, directory))
    got, want = results
    assert [r[:2] for r in got[0]] == [r[:2] for r in want[0]]
    np.testing.assert_allclose([r[2] for r in got[0]], [r[2] for r in want[0]], rtol=2e-5, atol=1e-6)
    assert got[1] == want[1] == write_graph


def _epoch_losses_and_batches(tf):
    batches = []
    model = _model(tf)
    model.compile(tf.keras.optimizers.SGD(0.2), "sparse_categorical_crossentropy", metrics=["acc"])
    keep = tf.keras.callbacks.LambdaCallback(on_batch_end=lambda b, logs: batches.append(dict(logs)))
    hist = model.fit(X, LABELS, batch_size=10, epochs=2, verbose=0, shuffle=False, callbacks=[keep])
    return hist.history, batches


def test_fit_history_is_base_loggers_float64_mean():
    """Keras' BaseLogger: the epoch's loss is the size-weighted mean of the batch losses summed as
    Python floats; the metrics (stateful) keep the last batch's value; callbacks see Python numbers."""
    with ref.Graph().as_default():
        history, batches = _epoch_losses_and_batches(ref)
    assert all(type(v) is float for vs in history.values() for v in vs)
    assert all(type(b["loss"]) is float and type(b["acc"]) is float for b in batches)
    per_epoch = len(batches) // 2
    for epoch in range(2):
        rows = batches[epoch * per_epoch:(epoch + 1) * per_epoch]
        total = 0
        for b in rows:
            total += b["loss"] * b["size"]
        assert history["loss"][epoch] == total / sum(b["size"] for b in rows)
        assert history["acc"][epoch] == rows[-1]["acc"]


def test_fit_history_types_as_tf():
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _epoch_losses_and_batches(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _epoch_losses_and_batches(tf)
    assert {k: [type(v) for v in vs] for k, vs in got[0].items()} == {k: [type(v) for v in vs] for k, vs in want[0].items()}
    assert [{k: type(v) for k, v in b.items()} for b in got[1]] == [{k: type(v) for k, v in b.items()} for b in want[1]]
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-6, err_msg=key)


@pytest.mark.parametrize("kwargs", [{"nb_epochs": 2}, {"validation_split": 0.2, "valdiation_freq": 2}])
def test_fit_unknown_keyword_is_a_type_error_as_tf(kwargs):
    tf = tf_v1()
    errors = []
    for lib, ctx in ((ref, ref.Graph().as_default()), (tf, tf.Graph().as_default())):
        with (tf1_behaviour() if lib is tf else ref.Graph().as_default()), ctx:
            model = _model(lib)
            model.compile(lib.keras.optimizers.SGD(0.2), "sparse_categorical_crossentropy")
            with pytest.raises(TypeError) as info:
                model.fit(X, LABELS, epochs=1, verbose=0, **kwargs)
            errors.append(str(info.value))
    assert errors[0] == errors[1]
