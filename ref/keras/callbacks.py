"""``tf.keras.callbacks`` for the graph-mode ``fit`` loop (tf_keras'
``training_arrays_v1``).

``fit`` calls, in order: ``on_train_begin``; per epoch ``on_epoch_begin``,
per batch ``on_train_batch_begin`` / ``on_train_batch_end`` (also served as
``on_batch_*``; the logs hold ``batch``, ``size``, the batch's ``loss`` and
the metrics' running values over the epoch so far), after validation
``on_epoch_end`` with the epoch's logs (``loss``, metrics, ``val_*``); then
``on_train_end``. ``params`` holds ``batch_size``, ``epochs``, ``steps``
(None), ``samples``, ``verbose``, ``do_validation`` and ``metrics`` (the
names, ``val_*`` included when validating). A callback that sets
``model.stop_training`` ends training after the current epoch.
"""
from __future__ import annotations

import numpy as np

from ref import protos
from ref.platform import tf_logging
from ref.events.writer import FileWriter
from ref.keras import backend

__all__ = ["Callback", "CallbackList", "BaseLogger", "History", "EarlyStopping", "ModelCheckpoint", "LearningRateScheduler",
           "LambdaCallback", "TensorBoard"]


class Callback:
    """Base class: every hook does nothing; ``model`` and ``params`` are set by ``fit``."""

    def __init__(self):
        self.model, self.params, self.validation_data = None, {}, None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass


class LambdaCallback(Callback):
    """A callback from functions: ``on_epoch_end=lambda epoch, logs: ...`` and so on."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None, on_batch_end=None,
                 on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        given = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end, on_batch_begin=on_batch_begin,
                     on_batch_end=on_batch_end, on_train_begin=on_train_begin, on_train_end=on_train_end, **kwargs)
        for hook, fn in given.items():
            if fn is not None:
                setattr(self, hook, fn)


class BaseLogger(Callback):
    """Averages the batches' logs over an epoch, as Keras' ``BaseLogger`` (``fit`` puts one first):
    each value not in ``stateful_metrics`` is summed weighted by the batch's ``size`` in Python floats
    (float64) and divided by the samples seen; a stateful metric keeps its last batch's value. ``fit``
    marks every metric but the loss stateful, so the epoch's ``loss`` is this float64 mean of the
    float32 batch losses (``evaluate`` sums in float32)."""

    def __init__(self, stateful_metrics=None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])
        self.seen, self.totals = 0, {}

    def on_epoch_begin(self, epoch, logs=None):
        self.seen, self.totals = 0, {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        size = logs.get("size", 0)
        self.seen += size * logs.get("num_steps", 1)
        for k, v in logs.items():
            if k in self.stateful_metrics:
                self.totals[k] = v
            else:
                self.totals[k] = self.totals.get(k, 0) + v * size

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        for k in self.params.get("metrics", ()):
            if k in self.totals:
                logs[k] = self.totals[k] if k in self.stateful_metrics else self.totals[k] / self.seen


def _python_values(logs):
    """Keras hands callbacks their logs with NumPy scalars as Python numbers (``.item()``)."""
    return {k: v.item() if isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0 else v
            for k, v in logs.items()}


class History(Callback):
    """Records each epoch's logs: ``history`` ({name: [value per epoch]}), ``epoch`` (the epoch numbers)."""

    def __init__(self):
        super().__init__()
        self.history, self.epoch = {}, []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class CallbackList:
    """Calls every callback's hook in order."""

    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks)
        for cb in self.callbacks:
            cb.set_model(model)
            cb.set_params(params)

    def call(self, hook, *args):
        """Every callback's ``hook``; a trailing logs dict goes to all of them as one dict of Python
        numbers (what one callback writes into it, as BaseLogger's epoch means, the next ones see)."""
        if args and isinstance(args[-1], dict):
            args = args[:-1] + (_python_values(args[-1]),)
        for cb in self.callbacks:
            getattr(cb, hook)(*args)


class EarlyStopping(Callback):
    """Stops when ``monitor`` has not improved by more than ``min_delta`` for ``patience`` epochs.

    ``mode`` "auto" maximizes a monitor whose name contains ``acc`` (or is
    ``auc``), else minimizes. ``baseline``: the value to beat first.
    ``restore_best_weights``: the best epoch's weights are set back when it stops.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights, self.start_from_epoch = baseline, restore_best_weights, \
            start_from_epoch
        self.min_delta = abs(min_delta)
        if mode not in ("auto", "min", "max"):
            tf_logging.warning("EarlyStopping mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "max" or (mode == "auto" and (monitor.endswith("acc") or monitor.endswith("accuracy")
                                                  or monitor.endswith("auc"))):
            self.monitor_op = np.greater
        else:
            self.monitor_op = np.less
        if self.monitor_op is np.less:
            self.min_delta *= -1
        self.wait, self.stopped_epoch, self.best, self.best_weights, self.best_epoch = 0, 0, None, None, 0

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_weights, self.best_epoch = 0, 0, None, 0
        self.best = np.inf if self.monitor_op is np.less else -np.inf

    def _improved(self, current, reference):
        return self.monitor_op(current - self.min_delta, reference)

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            tf_logging.warning("Early stopping conditioned on metric `%s` which is not available. Available metrics "
                               "are: %s", self.monitor, ",".join(list((logs or {}).keys())))
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improved(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


class ModelCheckpoint(Callback):
    """Saves the model's weights (TF's checkpoint format) at each epoch's end.

    ``filepath`` is formatted with ``epoch`` (1-based) and the epoch's logs;
    ``save_best_only`` saves only when ``monitor`` improved (``mode`` as in
    :class:`EarlyStopping`); ``save_freq`` "epoch" only.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", **kwargs):
        super().__init__()
        if save_freq != "epoch":
            raise ValueError(f"ref.keras ModelCheckpoint saves per epoch only; got save_freq={save_freq!r}")
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        if mode not in ("auto", "min", "max"):
            mode = "auto"
        maximize = mode == "max" or (mode == "auto" and ("acc" in monitor or monitor.startswith("fmeasure")))
        self.monitor_op = np.greater if maximize else np.less
        self.best = -np.inf if maximize else np.inf

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        path = str(self.filepath).format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                tf_logging.warning("Can save best model only with %s available, skipping.", self.monitor)
                return
            if not self.monitor_op(current, self.best):
                return
            self.best = current
        if not self.save_weights_only:
            raise NotImplementedError("ref.keras ModelCheckpoint saves weights only (save_weights_only=True)")
        self.model.save_weights(path, overwrite=True)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to ``schedule(epoch, lr)`` (or ``schedule(epoch)``) at each
    epoch's start; the epoch's logs get ``lr``."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:
            lr = self.schedule(epoch, float(backend.get_value(optimizer.lr)))
        except TypeError:  # a schedule of the epoch alone
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64)):
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
        backend.set_value(optimizer.lr, backend.get_value(lr) if not isinstance(lr, (float, np.floating)) else lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(backend.get_value(self.model.optimizer.lr))


class TensorBoard(Callback):
    """Writes each epoch's logs as scalar summaries ``epoch_<name>`` (step: the epoch) to an event file in
    ``log_dir`` (with Keras' graph when ``write_graph``), as tf_keras' v1 callback does in graph mode.
    Histograms, embeddings, images and per-batch updates are not written."""

    def __init__(self, log_dir="./logs", histogram_freq=0, write_graph=True, write_images=False,
                 update_freq="epoch", **kwargs):
        super().__init__()
        if histogram_freq or write_images or update_freq != "epoch":
            raise NotImplementedError("ref.keras TensorBoard writes the epoch logs only (histogram_freq=0, "
                                      "write_images=False, update_freq='epoch')")
        self.log_dir, self.write_graph, self.update_freq = str(log_dir), write_graph, update_freq
        self.writer = None

    def set_model(self, model):
        self.model = model
        self.writer = FileWriter(self.log_dir, backend.get_graph()) if self.write_graph else FileWriter(self.log_dir)

    def on_epoch_end(self, epoch, logs=None):
        summary_pb2 = protos.summary_pb2
        for name, value in (logs or {}).items():
            if name in ("batch", "size", "num_steps"):
                continue
            value = value.item() if isinstance(value, np.ndarray) else value
            summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="epoch_" + name, simple_value=value)])
            self.writer.add_summary(summary, epoch)
        self.writer.flush()

    def on_train_end(self, logs=None):
        self.writer.close()
