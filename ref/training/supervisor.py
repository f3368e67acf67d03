"""``tf.train.Supervisor``: a Coordinator, a Saver and a SessionManager for a
training program (deprecated in TF for MonitoredTrainingSession).

TF's API reference, ``tf.compat.v1.train.Supervisor``: "Within the
with sv.managed_session() block all variables in the graph have been
initialized. In addition, a few services have been started to checkpoint the
model and add summaries to the event log. If the program crashes and is
restarted, the managed session automatically reinitialize variables from the
most recent checkpoint." "Exceptions that indicate that the training inputs
have been exhausted, tf.errors.OutOfRangeError, also cause sv.should_stop() to
return True but are not re-raised from the with block".

Standard services (chief with a logdir): a ``SessionLog.START`` event; a
summary thread every ``save_summaries_secs`` (the summary op at the global
step); a ``<global step>/sec`` thread; a checkpoint thread every
``save_model_secs`` saving ``logdir/checkpoint_basename-STEP``.
"""
from __future__ import annotations

import contextlib
import os
import time

import numpy as np

from ref.framework.graph import GraphKeys, get_default_graph
from ref.training.coordinator import Coordinator, LooperThread
from ref.training.session_manager import SessionManager
from ref.protos import event_pb2, summary_pb2
from ref.events.writer import FileWriter
from ref.graph_ops import variables
from ref.graph_ops.control_flow_ops import group
from ref.checkpoint.saver import Saver
from ref.graph_ops.summary_ops import merge_all
from ref.checkpoint.meta_graph import write_graph, create_meta_graph_def
from ref.platform import tf_logging as _log

__all__ = ["Supervisor"]



def _session_log(status, checkpoint_path=None):
    log = event_pb2.SessionLog(status=status)
    if checkpoint_path is not None:
        log.checkpoint_path = checkpoint_path
    return log


def _is_default(value):
    return isinstance(value, int) and not isinstance(value, bool) and value == Supervisor.USE_DEFAULT


class Supervisor:
    """A training helper that checkpoints models and computes summaries."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        if graph is None:
            graph = get_default_graph()
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
        self._graph = graph
        self._meta_graph_def = None
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        self._logdir = None
        self._save_summaries_secs = None
        self._save_model_secs = None
        self._save_path = None
        self._summary_writer = None
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if _is_default(summary_writer):
                if self._logdir:
                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        self._init_session_manager(session_manager)
        self._verify_setup()
        self._write_graph()
        graph.finalize()

    def _verify_setup(self):
        """A non-chief Supervisor means replicas: every variable needs a device
        (ValueError otherwise, as in TF)."""
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError(f"When using replicas, all Variables must have their device set: {op}")

    # -- defaults ---------------------------------------------------------------

    @staticmethod
    def _from_collection_or(key, make):
        found = get_default_graph().get_collection(key)
        if found:
            return found[0]
        op = make()
        if op is not None:
            get_default_graph().add_to_collection(key, op)
        return op

    def _init_ready_op(self, ready_op, ready_for_local_init_op):
        if _is_default(ready_op):
            ready_op = self._from_collection_or(GraphKeys.READY_OP, variables.report_uninitialized_variables)
        self._ready_op = ready_op
        if _is_default(ready_for_local_init_op):
            ready_for_local_init_op = self._from_collection_or(
                GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: variables.report_uninitialized_variables(variables.global_variables()))
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op, init_feed_dict):
        if _is_default(init_op):
            init_op = self._from_collection_or(GraphKeys.INIT_OP, variables.global_variables_initializer)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op):
        if _is_default(local_init_op):
            def make():
                ops = [variables.local_variables_initializer()]
                ops += get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
                return group(*ops)

            local_init_op = self._from_collection_or(GraphKeys.LOCAL_INIT_OP, make)
        self._local_init_op = local_init_op

    def _init_saver(self, saver):
        if _is_default(saver):
            saver = self._from_collection_or(GraphKeys.SAVERS,
                                             lambda: Saver() if variables.global_variables() else None)
        self._saver = saver

    def _init_summary_op(self, summary_op):
        if _is_default(summary_op):
            summary_op = self._from_collection_or(GraphKeys.SUMMARY_OP, merge_all)
        self._summary_op = summary_op

    def _init_global_step(self, global_step):
        if _is_default(global_step):
            try:
                global_step = get_default_graph().get_tensor_by_name("global_step:0")
                if not global_step.dtype.base_dtype.is_integer:
                    _log.warning("Found 'global_step' is not an int type: %s", global_step.dtype)
                    global_step = None
            except KeyError:
                global_step = None
        self._global_step = global_step

    def _init_session_manager(self, session_manager=None):
        if session_manager is None:
            session_manager = SessionManager(local_init_op=self._local_init_op, ready_op=self._ready_op,
                                             ready_for_local_init_op=self._ready_for_local_init_op,
                                             graph=self._graph, recovery_wait_secs=self._recovery_wait_secs,
                                             local_init_run_options=self._local_init_run_options)
        self._session_manager = session_manager

    def _write_graph(self):
        """Chief: ``logdir/graph.pbtxt`` and the graph + meta graph events."""
        if not self._is_chief:
            return
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            saver_def = self._saver.saver_def if self._saver is not None else None
            self._summary_writer.add_meta_graph(create_meta_graph_def(
                graph_def=self._graph.as_graph_def(add_shapes=True), saver_def=saver_def, graph=self._graph))
            self._graph_added_to_summary = True

    # -- properties ----------------------------------------------------------------
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    is_chief = property(lambda self: self._is_chief)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)

    # -- sessions and services ---------------------------------------------------------

    def start_standard_services(self, sess):
        """Chief only: writes SessionLog.START and starts the summary, step-counter
        and checkpoint threads; returns them."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief "
                               "supervisors can write events.")
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            step = _step_value(sess.run(self._global_step))
            self._summary_writer.add_session_log(_session_log(event_pb2.SessionLog.START), step)
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(_SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_SVStepCounterThread(self, sess))
        if self._saver and self._save_model_secs:
            threads.append(_SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """Chief: restores from ``logdir`` or initializes; others wait for the
        model to be ready. Starts the services and the queue runners."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the queue runners (default: the graph's QUEUE_RUNNERS) under this
        supervisor's coordinator; returns their threads."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling ``target(*args, **kwargs)`` every
        ``timer_interval_secs`` until a stop is requested."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Requests a stop, joins the threads (re-raising a reported exception) and
        closes the summary writer after a SessionLog.STOP event."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(_session_log(event_pb2.SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        """Asks the coordinator to stop the threads (``ex`` is reported by stop())."""
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        """Context manager reporting an exception of its body with request_stop."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        """Blocks until a stop is requested."""
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a computed summary at ``global_step`` (default: the global step's value)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = _step_value(sess.run(self._global_step))
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A context manager yielding a prepared session; an exception in the body
        stops the services and is re-raised (OutOfRangeError ends quietly)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                    start_standard_services=start_standard_services)
            yield sess
        except Exception as e:
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception:
                        pass

    # CamelCase aliases
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class _SVSummaryThread(LooperThread):
    """Runs the summary op (and the global step) every save_summaries_secs."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            _log.info("Recording summary at step %s.", step)
            self._sv.summary_writer.add_summary(summary, step)


class _SVStepCounterThread(LooperThread):
    """Writes ``<global step>/sec`` every save_summaries_secs."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = _step_value(self._sess.run(self._step_counter))

    def run_loop(self):
        step = _step_value(self._sess.run(self._step_counter))
        added, self._last_step = step - self._last_step, step
        now = time.time()
        elapsed, self._last_time = now - self._last_time, now
        rate = added / elapsed if elapsed != 0 else float("inf")
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=self._summary_tag, simple_value=rate)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, step)
        _log.log_first_n(_log.INFO, "%s: %g", 10, self._summary_tag, rate)


class _SVTimerCheckpointThread(LooperThread):
    """Saves a checkpoint every save_model_secs."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        _log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            step = _step_value(self._sess.run(self._sv.global_step))
            self._sv.summary_writer.add_session_log(
                _session_log(event_pb2.SessionLog.CHECKPOINT, self._sv.save_path), step)


def _step_value(value):
    """A fetched global step as an int (a one-element array too, as NumPy 1 allowed)."""
    return int(np.asarray(value).item())
