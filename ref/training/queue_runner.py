"""``tf.train.QueueRunner``, ``add_queue_runner``, ``start_queue_runners``.

TF docs, "Training" (Korean edition), "Coordinator and QueueRunner", ``class
tf.train.QueueRunner``: "Holds a list of enqueue operations for a queue, each to
be run in a thread." -- "On construction the `QueueRunner` adds an op to close
the queue. That op will be run if the enqueue ops raise exceptions." --
``create_threads``: "If a coordinator is given, this method starts an
additional thread to close the queue when the coordinator requests a stop."

Each thread runs its enqueue op until it fails. A failure of one of
``queue_closed_exception_types`` (default OutOfRangeError: the upstream queue is
exhausted) ends the thread quietly, and the last thread of a session to end
runs ``close_op`` (pending enqueues are kept), so consumers drain the queue and
then see OutOfRangeError. Any other exception goes to the coordinator
(``request_stop(e)``), or, without one, to ``exceptions_raised``. With a
coordinator, one more thread waits for the stop and runs ``cancel_op``
(closing the queue and cancelling pending enqueues) to unblock everyone.
"""
from __future__ import annotations

import threading
import weakref

from ref.types import errors
from ref.framework.graph import (
    GraphKeys,
    get_default_graph,
    prepend_name_scope,
    register_proto_function,
    strip_name_scope,
)
from ref.framework.stack import get_default_session
from ref.protos import queue_runner_pb2
from ref.session.session import BaseSession
from ref.platform import tf_logging as _log

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]



class QueueRunner:
    """Holds a list of enqueue ops for a queue, each to be run in a thread.

    ``close_op`` defaults to ``queue.close()``, ``cancel_op`` to
    ``queue.close(cancel_pending_enqueues=True)``; ``queue_closed_exception_types``
    (a tuple of ``tf.errors`` classes) to ``(tf.errors.OutOfRangeError,)``.
    ``queue_runner_def`` rebuilds a runner from its ``QueueRunnerDef`` instead.
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
        else:
            self._init_from_args(queue, enqueue_ops, close_op, cancel_op, queue_closed_exception_types)
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()  # session -> enqueue threads still running
        self._exceptions_raised = []

    def _init_from_args(self, queue, enqueue_ops, close_op, cancel_op, queue_closed_exception_types):
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        if queue_closed_exception_types is not None and (
                not isinstance(queue_closed_exception_types, tuple) or not queue_closed_exception_types
                or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                           for t in queue_closed_exception_types)):
            raise TypeError("queue_closed_exception_types, when provided, must be a tuple of tf.error types, but "
                            f"saw: {queue_closed_exception_types}")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = queue.close() if close_op is None else close_op
        self._cancel_op = queue.close(cancel_pending_enqueues=True) if cancel_op is None else cancel_op
        self._queue_closed_exception_types = queue_closed_exception_types or (errors.OutOfRangeError,)

    def _init_from_proto(self, queue_runner_def, import_scope):
        if not isinstance(queue_runner_def, queue_runner_pb2.QueueRunnerDef):
            raise TypeError(f"queue_runner_def must be a QueueRunnerDef, got {type(queue_runner_def)}")
        g = get_default_graph()

        def element(name):
            return g.as_graph_element(prepend_name_scope(name, import_scope))

        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(code) for code in queue_runner_def.queue_closed_exception_types
        ) or (errors.OutOfRangeError,)  # QueueRunnerDefs older than the field

    # -- properties ---------------------------------------------------------------------
    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: self._enqueue_ops)
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)

    @property
    def name(self) -> str:
        """The string name of the underlying Queue."""
        return self._queue.name

    @property
    def exceptions_raised(self) -> list:
        """Exceptions raised but not handled by the threads (only when no
        Coordinator was given to ``create_threads``)."""
        return self._exceptions_raised

    # -- threads ------------------------------------------------------------------------
    def _run(self, sess, enqueue_op, coord=None):
        """One thread: run ``enqueue_op`` until the queue closes, an error, or a stop."""
        finished = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while not (coord and coord.should_stop()):
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        finished = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # closing is best effort, as in TF
                                _log.debug("Ignored exception: %s", e)
                    return
        except Exception as e:
            if coord and coord.should_stop() and isinstance(e, errors.CancelledError):
                # Told to stop, then cancelled by the session's close (a SyncReplicas chief's
                # take_grad waiting for gradients that will not come): the expected end.
                _log.debug("QueueRunner %s cancelled after the stop: %s", self.name, e)
                return
            if coord:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not finished:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        """Waits for the coordinator to stop, then closes the queue, cancelling pending enqueues."""
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # the session may be gone already
            _log.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (plus a close-on-stop thread with ``coord``),
        registered with ``coord``; none if threads of an earlier call for
        ``sess`` are still running."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    # -- protos ---------------------------------------------------------------------------
    def to_proto(self, export_scope=None):
        """This runner as a ``QueueRunnerDef`` (None if the queue is outside ``export_scope``)."""
        if export_scope is not None and not self.queue.name.startswith(export_scope):
            return None
        return queue_runner_pb2.QueueRunnerDef(
            queue_name=strip_name_scope(self.queue.name, export_scope),
            enqueue_op_name=[strip_name_scope(op.name, export_scope) for op in self.enqueue_ops],
            close_op_name=strip_name_scope(self.close_op.name, export_scope),
            cancel_op_name=strip_name_scope(self.cancel_op.name, export_scope),
            queue_closed_exception_types=[errors.error_code_from_exception_type(c)
                                          for c in self._queue_closed_exception_types])

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        """A QueueRunner rebuilt from ``queue_runner_def`` in the default graph."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds ``qr`` to ``collection`` of the default graph, for ``start_queue_runners``."""
    get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS):
    """Creates (and by default starts) the threads of every QueueRunner in
    ``collection`` of ``sess.graph``; returns them all."""
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, BaseSession):
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []  # they start their own queue runners
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    runners = sess.graph.get_collection(collection)
    if not runners:
        _log.warning("`tf.train.start_queue_runners()` was called when no queue runners were defined. You can "
                     "safely remove the call to this deprecated function.")
    threads = []
    with sess.graph.as_default():
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


register_proto_function(GraphKeys.QUEUE_RUNNERS, proto_type=queue_runner_pb2.QueueRunnerDef,
                        to_proto=QueueRunner.to_proto, from_proto=QueueRunner.from_proto)
