"""Keras' graph-mode training loop (tf_keras ``training_v1`` with
``training_arrays_v1``) on NumPy arrays.

``compile`` makes one target placeholder per output (``<output layer>_target``,
the output's rank and dtype), the loss per output in ``<output layer>_loss``
(the loss function's values averaged over the batch, i.e. Keras'
``sum_over_batch_size``), the total loss (weighted sum plus the layers'
``losses``) and the per-sample values of each metric (``"accuracy"``: binary,
sparse or categorical accuracy chosen from the loss and the output shape).
The train step runs the optimizer's updates and the layers' updates after the
total loss, with the learning phase fed True.

``fit`` shuffles the sample indices with ``np.random.shuffle`` at every
epoch (as Keras), runs the batches of ``batch_size`` in that order, and
records per epoch the loss averaged over samples (each batch's loss weighted
by its size) and the metrics accumulated over the epoch's samples (Keras'
stateful means, in float32; ``"accuracy"`` is reported as ``acc``, as the v1
loop names it); ``validation_data`` adds ``val_*`` values (that loop
shuffles its indices too, drawing from NumPy's generator).
"""
from __future__ import annotations

import numpy as np

from ref.framework.graph import control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import constant
from ref.graph_ops import array_ops, control_flow_ops, math_ops
from ref.platform import tf_logging
from ref.keras import backend, callbacks as callbacks_mod, losses as losses_mod, metrics as metrics_mod, optimizers
from ref.keras.callbacks import History
from ref.keras.metrics import binary_accuracy, categorical_accuracy, sparse_categorical_accuracy
from ref.keras.engine import flatten

__all__ = ["Trainer", "History", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy"]


def _metric_fn(metric, loss_fn, output):
    if metric in ("accuracy", "acc"):
        last = output.shape.as_list()[-1] if output.shape.ndims else None
        if last == 1 or loss_fn is losses_mod.binary_crossentropy:
            return binary_accuracy
        if loss_fn is losses_mod.sparse_categorical_crossentropy:
            return sparse_categorical_accuracy
        return categorical_accuracy
    if isinstance(metric, metrics_mod.MeanMetricWrapper):
        return metric.per_sample
    if isinstance(metric, metrics_mod.Metric):
        raise NotImplementedError(f"ref.keras compile: the metric object {type(metric).__name__} is not a mean of "
                                  "per-sample values (use it on its own, or a MeanMetricWrapper)")
    return metrics_mod.get(metric)


def _loss_function(loss):
    if isinstance(loss, losses_mod.LossFunctionWrapper):
        return loss.fn, loss
    fn = losses_mod.get(loss)
    return fn, losses_mod.LossFunctionWrapper(fn)


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _validates(validation_freq, epoch):
    """Keras' ``should_run_validation``: ``epoch`` (1-based) is validated after."""
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError("`validation_freq` can not be less than 1.")
        return epoch % validation_freq == 0
    if not hasattr(validation_freq, "__contains__"):
        raise ValueError(f"`validation_freq` must be an Integer or `collections.abc.Container` (e.g. list, tuple, "
                         f"etc.) Found: {validation_freq}")
    return epoch in validation_freq


def _class_weighted(sample_weights, targets, class_weight):
    """Each sample's weight times its class's weight (the class: the label, or the argmax of a one-hot row)."""
    classes = targets.reshape(len(targets), -1)
    classes = np.argmax(classes, axis=1) if classes.shape[1] > 1 else classes[:, 0].astype(np.int64)
    if isinstance(class_weight, dict) and class_weight and all(isinstance(v, dict) for v in class_weight.values()):
        raise ValueError("ref.keras: a class_weight per output is not supported")
    missing = {int(c) for c in classes} - {int(k) for k in class_weight}
    if missing:
        raise ValueError(f"`class_weight` must contain all classes in the data. The classes {missing} exist in the "
                         "data but not in `class_weight`.")
    factors = np.asarray([class_weight[int(c)] for c in classes], np.float32)
    return (sample_weights * factors).astype(np.float32)


class Trainer:
    """``compile`` / ``fit`` / ``evaluate`` / ``predict`` / ``train_on_batch`` for a built model."""

    def __init__(self):
        self.optimizer, self._compiled = None, False
        self._train_op = None
        self.history = None

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, **kwargs):
        """Keras' v1 graph, in its order: the targets (``<output>_target``), the metric objects (their
        ``total`` / ``count`` variables), the metrics' updates and results (``metrics/<label>/``), then the
        loss (``loss/<output>_loss/``: the loss function, ``weighted_loss``, the sum over the batch size
        ``value``; times the output's weight, plus the layers' losses)."""
        if not self.outputs:  # a Sequential without an input shape: built (then compiled) from the first data
            if not hasattr(self, "_stack"):
                raise RuntimeError("You must build the model (give it inputs) before compiling it.")
            self._pending_compile = (optimizer, loss, metrics, loss_weights)
            self._compiled = True
            return
        self.optimizer = optimizers.get(optimizer)
        outputs = self.outputs
        if any(backend.keras_mask(out) is not None for out in outputs):
            raise NotImplementedError("ref.keras compile: an output with a Keras mask (the mask as the loss's "
                                      "sample weights) is not implemented")
        loss_list = loss if isinstance(loss, (list, tuple)) else [loss] * len(outputs)
        if isinstance(loss, dict):
            loss_list = [loss.get(name) for name in self.output_names]
        self._loss_fns = [_loss_function(item) for item in loss_list]
        self._loss_weights = [float(w) for w in _as_list(loss_weights)] or [1.0] * len(outputs)
        self._targets, self.metrics_names = [], ["loss"]
        for out, name in zip(outputs, self.output_names):
            target = backend.placeholder(ndim=out.shape.ndims, dtype=out.dtype.base_dtype, name=name + "_target")
            self._targets.append(target)
        per_output = []
        for i, (out, name) in enumerate(zip(outputs, self.output_names)):
            entries = []
            for metric in _as_list(metrics.get(name) if isinstance(metrics, dict) else metrics):
                metric_fn = _metric_fn(metric, self._loss_fns[i][0], out)
                # the v1 loop's names: "acc" for accuracy, else the function's name ("mse" -> mean_squared_error)
                label = "acc" if metric in ("accuracy", "acc") else getattr(metric, "name", None) or \
                    getattr(metric_fn, "__name__", "metric")
                if len(outputs) > 1:
                    label = f"{name}_{label}"
                obj = metric if isinstance(metric, metrics_mod.Metric) else \
                    metrics_mod.MeanMetricWrapper(metric_fn, name=label)
                obj.variables  # made with the object, as Keras' Reduce.__init__
                entries.append((label, obj))
                self.metrics_names.append(label)
            per_output.append(entries)
        self._metric_objects = [obj for entries in per_output for _, obj in entries]
        self._metric_tensors = []
        with name_scope("metrics"):
            for i, entries in enumerate(per_output):
                for label, obj in entries:
                    with name_scope(label):
                        self._metric_tensors.append(obj(self._targets[i], outputs[i]))
        self._weighted = False
        self._build_loss()
        self._compiled = True

    def _build_loss(self):
        """The loss sub-graph, with ``<output>_sample_weights`` placeholders once sample weights were given
        (Keras rebuilds it then, as ``_recompile_weights_loss_and_weighted_metrics``)."""
        with name_scope("metrics"):
            pass  # Keras' scope for the weighted metrics (none compiled) takes the name
        if self._weighted:
            self._sample_weights = [
                control_flow_ops.placeholder_with_default(constant(np.ones(1, np.float32)), shape=(None,),
                                                          name=name + "_sample_weights")
                for name in self.output_names]
        else:
            self._sample_weights = [None] * len(self.outputs)
        terms = []
        with name_scope("loss"):
            for i, (out, name) in enumerate(zip(self.outputs, self.output_names)):
                _, wrapper = self._loss_fns[i]
                with name_scope(name + "_loss"):
                    per_sample = wrapper.call(self._targets[i], out)
                    weighted = losses_mod.compute_weighted_loss(per_sample, sample_weight=self._sample_weights[i],
                                                                reduction=losses_mod.Reduction.NONE)
                    output_loss = losses_mod.reduce_weighted_loss(weighted, losses_mod.Reduction.SUM_OVER_BATCH_SIZE)
                terms.append(self._loss_weights[i] * output_loss)
            extra = self.losses
            if extra:
                terms.append(math_ops.add_n(extra))
            self.total_loss = math_ops.add_n(terms) if len(terms) > 1 else terms[0]
        self._train_op = self._test_op = None

    def _make_train_op(self):
        """Keras' train function: the learning phase, the optimizer's updates and the layers' inside
        ``training``, then (as ``backend.function``) their group after the total loss, in ``training_1``."""
        if self._train_op is None:
            backend.learning_phase()
            with name_scope("training"):
                updates = self.optimizer.get_updates(self.total_loss, self.trainable_weights)
                updates += self._model_updates()
            with name_scope("training"), control_dependencies([self.total_loss]):
                self._train_op = control_flow_ops.group(*updates)
        return self._train_op

    def _make_test_op(self):
        """Keras' test function: an empty update group after the total loss, in ``evaluation``."""
        if self._test_op is None:
            backend.learning_phase()
            with name_scope("evaluation"), control_dependencies([self.total_loss]):
                self._test_op = control_flow_ops.group()
        return self._test_op

    def _model_updates(self):
        """The layers' updates that depend on the model's inputs (or on nothing)."""
        inputs = {x.op for x in self.inputs}
        out = []
        for u in self.updates:
            stack, seen, reach = [u], set(), False
            while stack and not reach:
                op = stack.pop()
                if id(op) in seen:
                    continue
                seen.add(id(op))
                if op in inputs:
                    reach = True
                stack.extend(t.op for t in op.inputs)
                stack.extend(op.control_inputs)
            if reach:
                out.append(u)
        return out

    # -- running ------------------------------------------------------------------
    def _feed(self, xs, ys, index, training):
        feed = {p: a[index] for p, a in zip(self.inputs, xs)}
        n = len(self._targets)
        feed.update({p: a[index] for p, a in zip(self._targets, ys[:n])})
        if self._weighted:
            feed.update({p: a[index] for p, a in zip(self._sample_weights, ys[n:])})
        graph = get_default_graph()
        if graph in backend._PHASES and not isinstance(backend._PHASES[graph], int):
            feed[backend._PHASES[graph]] = bool(training)
        return feed

    def _weights_mode(self, sample_weight, training=False):
        """Keras' sample-weight mode follows the call: the loss is rebuilt when weights start or stop (a
        training call makes the learning phase first)."""
        if training:
            backend.learning_phase()
        weighted = sample_weight is not None
        if weighted != self._weighted:
            self._weighted = weighted
            self._build_loss()

    def _standardize(self, x, y=None, sample_weight=None):
        """(inputs, targets + sample weights) as arrays; a 1-D target becomes a column."""
        xs = [np.asarray(a) for a in _as_list(x)]
        pending = getattr(self, "_pending_compile", None)
        if pending is not None and not self.outputs:
            self.build_from((None,) + xs[0].shape[1:])
            self._pending_compile = None
            self.compile(*pending)
        ys = [np.asarray(a) for a in _as_list(y)]
        ys = [a.reshape(-1, 1) if a.ndim == 1 else a for a in ys]
        if ys:
            given = _as_list(sample_weight)
            ys += [np.asarray(given[i] if i < len(given) else np.ones(len(xs[0])), np.float32)
                   for i in range(len(self._targets))]
        return xs, ys

    def _run_batches(self, xs, ys, batch_size, training, index_array, hooks=None):
        """[mean loss, metrics...] over the batches of ``index_array`` (the metrics: Keras' stateful means,
        as they stand after the last batch); ``hooks``: a CallbackList whose ``on_train_batch_*`` (training)
        or ``on_test_batch_*`` hooks run around each batch."""
        session = backend.get_session()
        n = len(index_array)
        loss_sum = 0.0
        fetches = [self.total_loss] + self._metric_tensors + [self._make_train_op() if training else
                                                              self._make_test_op()]
        session = backend.get_session()
        kind = "train" if training else "test"
        metrics = [0.0] * len(self._metric_tensors)
        for batch, start in enumerate(range(0, n, batch_size)):
            index = index_array[start:start + batch_size]
            logs = {"batch": batch, "size": len(index)}
            if hooks is not None:
                hooks.call(f"on_{kind}_batch_begin", batch, logs)
            values = session.run(fetches, self._feed(xs, ys, index, training))
            # Keras' MetricsAggregator: the loss weighted by the batch's size and summed in the
            # loss's own dtype (float32), the metrics as they stand
            loss_sum += values[0] * len(index)
            metrics = list(values[1:1 + len(self._metric_tensors)])
            if hooks is not None:
                logs.update(zip(self.metrics_names, [values[0]] + metrics))
                hooks.call(f"on_{kind}_batch_end", batch, logs)
        return [loss_sum / n] + metrics

    def reset_metrics(self):
        """Zero the metrics' variables (``fit`` does at each epoch, ``evaluate`` at its start)."""
        for obj in getattr(self, "_metric_objects", []):
            obj.reset_states()

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_freq=1, max_queue_size=10, workers=1,
            use_multiprocessing=False, **kwargs):
        """Keras' v1 ``fit`` on arrays: ``validation_split`` holds out the last fraction of the samples
        (after sample and class weights are set, before any shuffling); ``validation_freq`` an int (every
        n-th epoch) or the epochs (1-based) to validate after; ``nb_epoch`` is the old ``epochs``."""
        if "nb_epoch" in kwargs:
            tf_logging.warning("The `nb_epoch` argument in `fit` has been renamed `epochs`.")
            epochs = kwargs.pop("nb_epoch")
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        if not self._compiled:
            raise RuntimeError("You must compile your model before training/testing. Use `model.compile(optimizer, "
                               "loss)`.")
        batch_size = batch_size or 32
        xs, ys = self._standardize(x, y, sample_weight)
        self._weights_mode(sample_weight if class_weight is None else True, training=True)
        if class_weight is not None:
            ys = ys[:len(self._targets)] + [_class_weighted(w, t, class_weight) for w, t in
                                             zip(ys[len(self._targets):], ys)]
        val = None
        if validation_data:
            val = self._standardize(*validation_data[:3])
        elif validation_split and 0.0 < validation_split < 1.0:
            split_at = int(len(xs[0]) * (1.0 - validation_split))
            val = [a[split_at:] for a in xs], [a[split_at:] for a in ys]
            xs, ys = [a[:split_at] for a in xs], [a[:split_at] for a in ys]
        elif validation_steps:
            raise ValueError("`validation_steps` should not be specified if `validation_data` is None.")
        n = len(xs[0])
        history = History()
        names = list(self.metrics_names) + (["val_" + k for k in self.metrics_names] if val is not None else [])
        params = {"batch_size": batch_size, "epochs": epochs, "steps": None, "samples": n, "verbose": verbose,
                  "do_validation": val is not None, "metrics": names}
        logger = callbacks_mod.BaseLogger(stateful_metrics=self.metrics_names[1:])  # all but the loss, as Keras
        hooks = callbacks_mod.CallbackList([logger] + _as_list(callbacks) + [history], self, params)  # History last
        self.history, self.stop_training = history, False
        self._make_train_op()
        hooks.call("on_train_begin", {})
        for epoch in range(initial_epoch, epochs):
            logs = {}
            hooks.call("on_epoch_begin", epoch, logs)
            index_array = np.arange(n)
            if shuffle:
                np.random.shuffle(index_array)
            self.reset_metrics()
            results = self._run_batches(xs, ys, batch_size, True, index_array, hooks)
            logs.update(zip(self.metrics_names, results))
            if val is not None and _validates(validation_freq, epoch + 1):
                val_index = np.arange(len(val[0][0]))
                np.random.shuffle(val_index)  # Keras' validation loop shuffles too (its default), drawing from NumPy
                self.reset_metrics()
                val_results = self._run_batches(val[0], val[1], batch_size, False, val_index, hooks)
                logs.update({"val_" + k: v for k, v in zip(self.metrics_names, val_results)})
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs} - " + " - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
            hooks.call("on_epoch_end", epoch, logs)
            if self.stop_training:
                break
        hooks.call("on_train_end", {})
        return history

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None, **kwargs):
        xs, ys = self._standardize(x, y, sample_weight)
        self._weights_mode(sample_weight)
        self.reset_metrics()
        results = self._run_batches(xs, ys, batch_size or 32, False, np.arange(len(xs[0])))
        return results[0] if len(results) == 1 else results

    def predict(self, x, batch_size=None, verbose=0, **kwargs):
        xs, _ = self._standardize(x)
        session = backend.get_session()
        n, batch_size = len(xs[0]), batch_size or 32
        chunks = []
        for start in range(0, n, batch_size):
            index = np.arange(start, min(start + batch_size, n))
            feed = {p: a[index] for p, a in zip(self.inputs, xs)}
            chunks.append(session.run(self.outputs, feed))
        outs = [np.concatenate([c[i] for c in chunks]) for i in range(len(self.outputs))]
        return outs[0] if len(outs) == 1 else outs

    def _one_batch(self, x, y, training, sample_weight=None):
        xs, ys = self._standardize(x, y, sample_weight)
        self._weights_mode(sample_weight, training)
        if training:
            self._make_train_op()
        results = self._run_batches(xs, ys, len(xs[0]), training, np.arange(len(xs[0])))
        self.reset_metrics()  # after the batch: its metrics count whatever the last epoch left (as Keras)
        return results[0] if len(results) == 1 else results

    def train_on_batch(self, x, y=None, sample_weight=None, **kwargs):
        return self._one_batch(x, y, True, sample_weight)

    def test_on_batch(self, x, y=None, sample_weight=None, **kwargs):
        return self._one_batch(x, y, False, sample_weight)

    def predict_on_batch(self, x):
        return self.predict(x, batch_size=len(flatten(_as_list(x))[0]))
