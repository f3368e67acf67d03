"""Session run hooks (``tf.train.SessionRunHook`` and the basic hooks).

TF's API reference, ``tf.compat.v1.train.MonitoredSession``: "When
run() is called, the monitored session does following things: calls
hook.before_run(); calls TensorFlow session.run() with merged fetches and
feed_dict; calls hook.after_run(); returns result of session.run() asked by
user". A hook sees the session's life as::

    begin()                                   before the graph is finalized
    after_create_session(session, coord)      once per (re)created session
    before_run(run_context) -> SessionRunArgs or None
    after_run(run_context, run_values)        run_values.results: its fetches' values
    end(session)                              at close, unless an exception is propagating

``SecondOrStepTimer`` triggers every ``every_secs`` seconds or every
``every_steps`` steps (exactly one of them); the first call always triggers.
"""
from __future__ import annotations

import collections
import os
import time

import numpy as np

from ref.types import errors
from ref.framework.graph import GraphKeys, get_default_graph
from ref.events.writer import FileWriterCache
from ref.graph_ops.training_util import get_or_create_global_step_read, get_global_step
from ref.protos import event_pb2, summary_pb2
from ref.checkpoint.meta_graph import create_meta_graph_def, write_graph
from ref.protos.config_pb2 import RunOptions
from ref.session.timeline import Timeline
from ref.platform import tf_logging as _log

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues", "SecondOrStepTimer",
           "LoggingTensorHook", "StopAtStepHook", "CheckpointSaverListener", "CheckpointSaverHook",
           "StepCounterHook", "NanLossDuringTrainingError", "NanTensorHook", "SummarySaverHook",
           "GlobalStepWaiterHook", "FinalOpsHook", "FeedFnHook", "SummaryWriterCache"]



def _summary_writer_cache():
    return FileWriterCache


class _LazyCache:
    """``tf.train.SummaryWriterCache``: the FileWriterCache (imported on use)."""

    def get(self, logdir):
        return _summary_writer_cache().get(logdir)

    def clear(self):
        return _summary_writer_cache().clear()


SummaryWriterCache = _LazyCache()


class SessionRunHook:
    """Hook to extend calls to MonitoredSession.run(); every method is a no-op here."""

    def begin(self):
        """Called once before using the session; the graph may still be changed."""

    def after_create_session(self, session, coord):
        """Called when a new session has been created (the graph is finalized)."""

    def before_run(self, run_context):
        """Called before each run(); may return SessionRunArgs to add fetches/feeds."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each run(); ``run_values.results`` holds what before_run asked for."""

    def end(self, session):
        """Called at the end of the session (not when an exception is propagating)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run() call: ``fetches``, ``feed_dict``, ``options``."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """The values of a hook's fetches (``results``), with the run's options and metadata."""


class SessionRunContext:
    """Information about the run() call in progress: ``original_args``, ``session``;
    ``request_stop()`` makes the monitored session's should_stop() return True."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    original_args = property(lambda self: self._original_args)
    session = property(lambda self: self._session)
    stop_requested = property(lambda self: self._stop_requested)

    def request_stop(self):
        """Asks the monitored session to stop after this run."""
        self._stop_requested = True


# -- timers ---------------------------------------------------------------------

class _HookTimer:
    def reset(self):
        pass

    def should_trigger_for_step(self, step):
        raise NotImplementedError

    def update_last_triggered_step(self, step):
        raise NotImplementedError

    def last_triggered_step(self):
        raise NotImplementedError


class SecondOrStepTimer(_HookTimer):
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps."""

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        """True the first time, then once ``every_secs`` or ``every_steps`` have passed."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_triggered_time + self._every_secs:
            return True
        if self._every_steps is not None and step >= self._last_triggered_step + self._every_steps:
            return True
        return False

    def update_last_triggered_step(self, step):
        """Records a trigger at ``step``; returns (elapsed_secs, elapsed_steps) since
        the previous one, (None, None) the first time."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = now - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(_HookTimer):
    """A timer that never triggers."""

    def should_trigger_for_step(self, step):
        return False

    def update_last_triggered_step(self, step):
        return None, None

    def last_triggered_step(self):
        return None


# -- helpers ----------------------------------------------------------------------

def _as_graph_element(obj):
    graph = get_default_graph()
    if not isinstance(obj, str):
        if not hasattr(obj, "graph") or obj.graph is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs (at least 2).")


def _global_step_or_raise(hook_name):
    """The global step's read tensor (TF's hooks fetch it, not the variable:
    its value in a run is the one before that run's increment)."""
    step = get_or_create_global_step_read()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return step


def _session_log(status, checkpoint_path=None):
    log = event_pb2.SessionLog(status=status)
    if checkpoint_path is not None:
        log.checkpoint_path = checkpoint_path
    return log


# -- the hooks --------------------------------------------------------------------

class LoggingTensorHook(SessionRunHook):
    """Logs ``tensors`` (a dict tag -> tensor, or a list of tensors/names) every
    ``every_n_iter`` runs or ``every_n_secs`` seconds, and/or at the end, as
    ``tag = value, ...`` (NumPy printed with ``suppress=True``)."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = NeverTriggerTimer() if only_log_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        if self._should_trigger:
            return SessionRunArgs(self._current_tensors)
        return None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                _log.info(self._formatter(tensor_values))
            else:
                # "%s" as TF: str() of a 0-d float32 array is "0.6931472"; an f-string would
                # format its Python float item, "0.6931471824645996".
                stats = ", ".join("%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order)
                if elapsed_secs is not None:
                    _log.info("%s (%.3f sec)", stats, elapsed_secs)
                else:
                    _log.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or
    ``num_steps`` past its value when the session was created)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _global_step_or_raise("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        # The fetched value may predate this run's increment: confirm with a fresh read.
        if int(run_values.results) + 1 >= self._last_step:
            if int(run_context.session.run(self._global_step_tensor)) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverListener:
    """Called by CheckpointSaverHook around each save: ``begin()``,
    ``before_save(session, global_step_value)``, ``after_save(session,
    global_step_value)`` (returning True requests a stop), ``end(session,
    global_step_value)``."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves ``checkpoint_dir/checkpoint_basename-STEP`` every ``save_secs``
    seconds or ``save_steps`` steps, once when the session is created and once
    at the end; writes ``graph.pbtxt`` and the graph/meta graph events first
    when ``save_graph_def``."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None, checkpoint_basename="model.ckpt",
                 scaffold=None, listeners=None, save_graph_def=True):
        _log.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        # As in TF: so large that every run re-reads the global step to decide
        # (``_set_steps_per_run`` narrows it when a run does a known number of steps).
        self._steps_per_run = 1000000
        self._save_graph_def = save_graph_def

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        self._summary_writer = SummaryWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_or_raise("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = int(session.run(self._global_step_tensor))
        if self._save_graph_def:
            graph = get_default_graph()
            write_graph(graph.as_graph_def(add_shapes=True), self._checkpoint_dir, "graph.pbtxt")
            saver = self._get_saver()
            meta = create_meta_graph_def(graph_def=graph.as_graph_def(add_shapes=True),
                                         saver_def=saver.saver_def if saver else None, graph=graph)
            self._summary_writer.add_graph(graph)
            self._summary_writer.add_meta_graph(meta)
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results)
        if self._timer.should_trigger_for_step(stale + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        """Saves at ``step``; True if a listener asks to stop."""
        _log.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(_session_log(event_pb2.SessionLog.CHECKPOINT, self._save_path), step)
        _log.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info("A CheckpointSaverListener requested that training be stopped.")
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver to the collection "
                               f"or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which one "
                               f"to use by passing it to the constructor.")
        self._saver = savers[0]
        return self._saver


class StepCounterHook(SessionRunHook):
    """Logs and writes ``global_step/sec`` (summary tag ``<global step op>/sec``)
    every ``every_n_steps`` steps or ``every_n_secs`` seconds."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = SummaryWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_or_raise("StepCounterHook")
        self._summary_tag = get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=self._summary_tag,
                                                                           simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        _log.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results)
        if self._timer.should_trigger_for_step(stale + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale == self._last_global_step:  # the first 5 of the process, from this line (TF's log_first_n)
            _log.log_first_n(_log.WARN, "It seems that global step (tf.train.get_global_step) has not been "
                             "increased. Current value (could be stable): %s vs previous value: %s. You could "
                             "increase the global step by passing tf.train.get_global_step() to "
                             "Optimizer.apply_gradients or Optimizer.minimize.", 5, stale, self._last_global_step)
        self._last_global_step = stale


class NanLossDuringTrainingError(RuntimeError):
    """Raised by NanTensorHook when the loss is NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (NanLossDuringTrainingError) or requests a stop when ``loss_tensor`` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(message)
                raise NanLossDuringTrainingError
            _log.warning(message)
            run_context.request_stop()


class SummarySaverHook(SessionRunHook):
    """Writes the summaries of ``summary_op`` (or ``scaffold.summary_op``) every
    ``save_steps`` steps or ``save_secs`` seconds, at the global step after the
    run; a ``SessionLog.START`` event comes first."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = SummaryWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_or_raise("SummarySaverHook")

    def _get_summary_op(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return op if isinstance(op, list) else [op]

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = int(run_values.results["global_step"]) + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(_session_log(event_pb2.SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()


class ProfilerHook(SessionRunHook):
    """Captures CPU profiling information every ``save_steps`` steps or
    ``save_secs`` seconds: the run asks for ``RunOptions(trace_level=FULL_TRACE)``
    and its ``RunMetadata.step_stats`` are written as a Chrome trace to
    ``output_dir/timeline-<global step>.json`` (:mod:`ref.session.timeline`),
    and the RunMetadata to ``output_dir``'s event file under ``step_<global step>``.
    As TF's hook, the first run only starts the timer."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = SummaryWriterCache.get(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_or_raise("ProfilerHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        stale_global_step = int(run_values.results["global_step"])
        if self._next_step is None:  # the timer starts now, not at the first run
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step), run_values.run_metadata.step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats):
        _log.info("Saving timeline for %d into '%s'.", step, save_path)
        trace = Timeline(step_stats).generate_chrome_trace_format(show_dataflow=self._show_dataflow,
                                                                  show_memory=self._show_memory)
        with open(save_path, "w") as f:
            f.write(trace)


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first run until the global step reaches ``wait_until_step``
    (polling every 0.5 s): lets workers start after the chief has trained a bit."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _global_step_or_raise("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        while True:
            current = int(run_context.session.run(self._global_step_tensor))
            if current >= self._wait_until_step:
                self._worker_is_started = True
                return None
            time.sleep(0.5)


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` (with ``final_ops_feed_dict``) at the end; their values
    are ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)
            except (errors.OutOfRangeError, StopIteration):
                _log.warning("An OutOfRangeError or StopIteration exception is raised by the code in "
                             "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have "
                             "a dependency back to some input source, which should not happen.")
                raise


class FeedFnHook(SessionRunHook):
    """Feeds ``feed_fn()`` (a dict) to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())
