"""``tf.train.MonitoredSession`` and friends: sessions that initialize, restore,
run hooks and recover.

TF's API reference, ``tf.compat.v1.train.MonitoredSession``,
"Initialization: At creation time the monitored session does following things
in given order: calls hook.begin() for each given hook; finalizes the graph via
scaffold.finalize(); create session; initializes the model via initialization
ops provided by Scaffold; restores variables if a checkpoint exists; launches
queue runners; calls hook.after_create_session()". "if AbortedError or
UnavailableError occurs, it recovers or reinitializes the session before
executing the run() call again". "Exit: ... calls hook.end(); closes the queue
runners and the session; suppresses OutOfRange error which indicates that all
inputs have been processed if the monitored_session is used as a context".

Layers, innermost first, each a ``_WrappedSession`` (``should_stop`` asks
every layer's ``_check_stop``): the raw Session; ``_HookedSession``
(before_run / after_run, merged fetches and feeds); ``_CoordinatedSession`` (a
Coordinator and the queue-runner threads; a thread's error is raised by
``should_stop``, ``run`` or ``close``); ``_RecoverableSession`` (re-creates the
session on AbortedError / UnavailableError, also inside ``run_step_fn``;
MonitoredSession only).
"""
from __future__ import annotations

import abc
import functools
import inspect
import os
import sys
import time

from ref.types import errors
from ref.framework.graph import GraphKeys, get_default_graph
from ref.training import hooks as _hooks
from ref.training.session_manager import SessionManager
from ref.checkpoint.saver import get_saver_or_default as _get_saver_or_default
from ref.graph_ops import distribute_lib, resources, variables
from ref.graph_ops.array_ops import concat
from ref.graph_ops.lookup_ops import tables_initializer
from ref.graph_ops.control_flow_ops import group
from ref.graph_ops.summary_ops import merge_all
from ref.protos.config_pb2 import RunMetadata, RunOptions
from ref.training.coordinator import Coordinator
from ref.training.queue_runner import start_queue_runners
from ref.platform import tf_logging as _log

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator", "MonitoredSession",
           "SingularMonitoredSession", "MonitoredTrainingSession", "USE_DEFAULT"]


_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
# What a distributed master's UnavailableError says when a task did not answer device
# discovery within its bounded deadline (ref.distributed.master). Session creation is not
# retried after it: TF's loop would wait forever for a task that never started (ref only).
_DISCOVERY_FAILED = "Device discovery waited"
# How long MonitoredSession keeps recovering from preemption errors before it raises the
# last one (ref; TF retries forever). Module attribute or environment variable.
RECOVERY_TIMEOUT_SECS = float(os.environ.get("REF_RECOVERY_TIMEOUT_SECS", 60.0))
_RETRY_PAUSE_SECS = 0.5


class _UseDefault:
    def __repr__(self):
        return "USE_DEFAULT"


USE_DEFAULT = _UseDefault()


# -- Scaffold -----------------------------------------------------------------------

class Scaffold:
    """The pieces a training session needs (init_op, ready_op, ready_for_local_init_op,
    local_init_op, summary_op, saver), taken from the constructor or, at
    ``finalize()``, from the graph collections (created and stored there if absent)."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None, saver=None,
                 copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold
            init_op = init_op if init_op is not None else c.init_op
            init_feed_dict = init_feed_dict if init_feed_dict is not None else c.init_feed_dict
            init_fn = init_fn if init_fn is not None else c._user_init_fn
            ready_op = ready_op if ready_op is not None else c.ready_op
            ready_for_local_init_op = (ready_for_local_init_op if ready_for_local_init_op is not None
                                       else c.ready_for_local_init_op)
            local_init_op = local_init_op if local_init_op is not None else c.local_init_op
            local_init_feed_dict = (local_init_feed_dict if local_init_feed_dict is not None
                                    else c.local_init_feed_dict)
            summary_op = summary_op if summary_op is not None else c.summary_op
            saver = saver if saver is not None else c.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    init_fn = property(lambda self: self._init_fn)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)

    def finalize(self):
        """Creates the missing pieces, then finalizes the default graph."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default("init_op", GraphKeys.INIT_OP, lambda: group(
                variables.global_variables_initializer(),
                resources.initialize_resources(resources.shared_resources()),
                get_default_graph().get_collection("saved_model_initializers")))
        if self._ready_op is None:  # TF's defaults: variables and resources alike
            self._ready_op = Scaffold.get_or_default("ready_op", GraphKeys.READY_OP, lambda: concat(
                [variables.report_uninitialized_variables(), resources.report_uninitialized_resources()], 0))
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP, lambda: concat(
                    [variables.report_uninitialized_variables(variables.global_variables()),
                     resources.report_uninitialized_resources(resources.shared_resources())], 0))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default("local_init_op", GraphKeys.LOCAL_INIT_OP,
                                                          Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP, merge_all)
        if self._saver is None:
            self._saver = _get_saver_or_default()
        if hasattr(self._saver, "build") and not hasattr(self._saver, "save_counter"):
            self._saver.build()
        get_default_graph().finalize()
        _log.info("Graph was finalized.")
        return self

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The only element of ``collection_key``, or ``default_constructor()``
        (added to the collection when not None)."""
        graph = get_default_graph()
        elements = graph.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f"More than one item in the collection \"{collection_key}\". Please indicate "
                                   f"which one to use by passing it to the tf.Scaffold constructor as:  "
                                   f"tf.Scaffold({arg_name}=item to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """group(local_variables_initializer(), tables_initializer(),
        initialize_resources(local_resources())), as TF."""
        return group(variables.local_variables_initializer(), tables_initializer(),
                     resources.initialize_resources(resources.local_resources()))


# -- session creators -----------------------------------------------------------------

class SessionCreator(metaclass=abc.ABCMeta):
    """A factory for tf.Session."""

    @abc.abstractmethod
    def create_session(self):
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class _ScaffoldSessionCreator(SessionCreator):
    """What the chief's and a worker's creators share: one SessionManager built
    from the scaffold's init and ready ops, on first use."""

    _session_manager = None

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op, local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op, ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager


class ChiefSessionCreator(_ScaffoldSessionCreator):
    """Creates a session for a chief: finalizes the scaffold, restores from
    ``checkpoint_dir`` / ``checkpoint_filename_with_path`` or initializes."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path, config=self._config,
            init_op=self._scaffold.init_op, init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(_ScaffoldSessionCreator):
    """Creates a session for a worker: waits (up to ``max_wait_secs``) for the
    chief to make the model ready."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(self._master, config=self._config,
                                                            max_wait_secs=self._max_wait_secs)


# -- the session layers -------------------------------------------------------------------

class _WrappedSession:
    """A session wrapper: ``should_stop()`` is True once closed or when this layer's
    ``_check_stop()`` (or a wrapped layer's) says so; ``close()`` logs and swallows
    preemption errors. The base of the hooked, coordinated and recoverable layers."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(sess, _WrappedSession)

    graph = property(lambda self: self._sess.graph)
    sess_str = property(lambda self: self._sess.sess_str)

    def should_stop(self):
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self):
        """This layer's own stop condition (subclasses override it)."""
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _log.error("An error occurred when attempting to close the session. This may be due to a "
                           "preemption in a connected worker or parameter server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks or self.run))


class _RecoverableSession(_WrappedSession):
    """Recovers from AbortedError and UnavailableError raised by a run, a step function
    or a stop check; the failed call then runs again.

    AbortedError (a task restarted: its state is gone) re-creates the session through
    ``sess_creator``, which restores the last checkpoint, as TF. On a ``grpc://`` target,
    UnavailableError (a task did not answer: a partition or a dead process) keeps the session while its
    coordinator runs and calls again until the task answers, so a task that comes back
    with its state loses no steps (ref; TF re-creates the session and restores). Either
    way recovery is bounded (ref): after ``RECOVERY_TIMEOUT_SECS`` seconds of failures the
    last error is raised, naming the task, its address and the RPC, so training ends
    instead of retrying forever. Creating a session is retried within the same bound."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        self._give_up = None  # when recovery ends (monotonic seconds), while recovering
        super().__init__(self._create_session())

    def _recovering(self, e):
        """Starts or continues a bounded recovery; raises ``e`` when its time is up."""
        now = time.monotonic()
        if self._give_up is None:
            self._give_up = now + RECOVERY_TIMEOUT_SECS
        elif now >= self._give_up:
            self._give_up = None
            _log.error("Recovery gave up after %g s (RECOVERY_TIMEOUT_SECS). Error: %s", RECOVERY_TIMEOUT_SECS, e)
            raise e

    def _create_session(self):
        while True:
            try:
                sess = self._sess_creator.create_session()
                return sess
            except _PREEMPTION_ERRORS as e:
                if isinstance(e, errors.UnavailableError) and _DISCOVERY_FAILED in (e.message or ""):
                    raise
                self._recovering(e)
                _log.info("An error was raised while a session was being created. This may be due to a "
                          "preemption of a connected worker or parameter server. A new session will be "
                          "created. Error: %s", e)
                time.sleep(_RETRY_PAUSE_SECS)

    def _coordinator_running(self):
        coord = getattr(self._sess, "_coord", None)
        return coord is not None and not coord.should_stop()

    def _check_stop(self):
        try:
            return self._sess._check_stop() if self._sess else True
        except _PREEMPTION_ERRORS as e:
            _log.info("An error was raised while considering whether the session is complete; the session "
                      "will be re-created. Error: %s", e)
            self._recovering(e)
            self.close()
            self._sess = None
            self._sess = self._create_session()
            return False
        except Exception:  # a fatal error the coordinator holds: stop (close() raises it)
            return True

    def _remote_target(self) -> bool:
        """Whether the session runs on a master elsewhere (a ``grpc://`` target): only
        there is an UnavailableError a partition that may heal with the tasks' state
        intact; in-process, TF's rule holds (close and re-create)."""
        try:
            target = self._sess.sess_str
        except AttributeError:
            return False
        if isinstance(target, bytes):
            target = target.decode("utf-8", "replace")
        return isinstance(target, str) and target.startswith(("grpc://", "grpcs://"))

    def _retrying(self, call):
        while True:
            if not self._sess:
                self._sess = self._create_session()  # outside the except: its own bound holds
            try:
                result = call()
                self._give_up = None
                return result
            except _PREEMPTION_ERRORS as e:
                self._recovering(e)
                if (isinstance(e, errors.UnavailableError) and self._remote_target()
                        and self._coordinator_running()):
                    _log.info("An error was raised. This may be due to a network partition or a preemption in "
                              "a connected worker or parameter server. The call will be run again on the same "
                              "session. Error: %s", e)
                    time.sleep(_RETRY_PAUSE_SECS)
                    continue
                _log.info("An error was raised. This may be due to a preemption in a connected worker or "
                          "parameter server. The current session will be closed and a new session will be "
                          "created. Error: %s", e)
                self.close()
                self._sess = None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        return self._retrying(lambda: self._sess.run(fetches, feed_dict=feed_dict, options=options,
                                                     run_metadata=run_metadata))

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        # The whole step function runs again on the new session, hooks included.
        return self._retrying(lambda: self._sess.run_step_fn(step_fn, raw_session, self._sess.run))


class _CoordinatedSession(_WrappedSession):
    """A session with a Coordinator: stops when the coordinator does (re-raising
    the exception it was stopped with), and ``close()`` stops and joins its
    threads, raising a non-clean exception they reported."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self):
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:
                pass

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as original:
            # A preemption the coordinator holds wins (it makes the session recover);
            # otherwise the run's own error, with its traceback.
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:
                raise original from None
            raise


class _HookedSession(_WrappedSession):
    """Calls the hooks' ``before_run`` before each run (adding their fetches,
    feeds and options) and ``after_run`` after it; a hook's
    ``run_context.request_stop()`` makes ``should_stop()`` True."""

    def __init__(self, sess, hooks):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = _hooks.SessionRunContext(original_args=_hooks.SessionRunArgs(fetches, feed_dict),
                                               session=self._sess)
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, _hooks.SessionRunValues(results=outputs.get(hook), options=options,
                                                                run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is not None:
                if request.fetches is not None:
                    fetch_dict[hook] = request.fetches
                if request.feed_dict:
                    _raise_if_feeds_intersect(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                    hook_feeds.update(request.feed_dict)
                if request.options:
                    _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _merge_run_options(options, incoming):
    """A hook's RunOptions joined to the run's, as TF merges them: the larger of
    each level, the OR of each flag, debug watches appended."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool, incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs, incoming.output_partition_graphs)
    if hasattr(options, "debug_options"):
        options.debug_options.debug_tensor_watch_opts.extend(incoming.debug_options.debug_tensor_watch_opts)
        options.debug_options.reset_disk_byte_usage = (options.debug_options.reset_disk_byte_usage
                                                       or incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (options.report_tensor_allocations_upon_oom
                                                  or incoming.report_tensor_allocations_upon_oom)


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    common = set(feeds1) & set(feeds2)
    if common:
        raise RuntimeError(f"{message} Conflict(s): {list(common)}")


class _CoordinatedSessionCreator(SessionCreator):
    """Creates the raw session, a Coordinator (every exception a thread reports
    counts, OutOfRangeError included), starts the queue runners, calls the hooks'
    ``after_create_session``; returns the coordinated, hooked session."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs):
        self._session_creator = session_creator
        self._hooks = hooks
        self._stop_grace_period_secs = stop_grace_period_secs
        self.tf_sess = None
        self.coord = None

    def create_session(self):
        self.tf_sess = self._session_creator.create_session()
        self.coord = Coordinator(clean_stop_exception_types=[])
        if get_default_graph().get_collection(GraphKeys.QUEUE_RUNNERS):
            start_queue_runners(sess=self.tf_sess, coord=self.coord)
        for hook in self._hooks:
            hook.after_create_session(self.tf_sess, self.coord)
        return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                   self._stop_grace_period_secs)


def _fn_args(fn):
    """``fn``'s argument names (a bound method's include ``self``; a partial's
    bound arguments are left out)."""
    if isinstance(fn, functools.partial):
        bound = set(fn.keywords)
        names = tuple(_fn_args(fn.func)[len(fn.args):])
        return tuple(n for n in names if n not in bound)
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)) and callable(fn):
        fn = fn.__call__
    names = tuple(inspect.signature(fn).parameters)
    if inspect.ismethod(fn):
        names = ("self",) + names
    return names


class _MonitoredSession:
    """The shared implementation of MonitoredSession and SingularMonitoredSession."""

    class StepContext:
        """Given to ``run_step_fn``'s step_fn: ``session`` (the raw session, no
        hooks), ``run_with_hooks(...)`` (like ``MonitoredSession.run``) and
        ``request_stop()`` (raises StopIteration)."""

        def __init__(self, session, run_with_hooks_fn):
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        session = property(lambda self: self._session)

        def run_with_hooks(self, *args, **kwargs):
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self):
            raise StopIteration("step_fn has requested the iterations to stop.")

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = hooks or []
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = _CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self):
        """The graph that was launched in this session."""
        if self._tf_sess() is None:
            return None
        return self._tf_sess().graph

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess

    def _is_closed(self):
        return self._coordinated_creator.tf_sess is None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs ``fetches`` with the hooks (same arguments and result as Session.run)."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Calls ``step_fn(step_context)`` and returns its value; a MonitoredSession
        runs it again, on a new session, after an AbortedError or UnavailableError.

        Raises StopIteration when the step function calls
        ``step_context.request_stop()``: ``with MonitoredSession()`` ends on it.
        Without a ``with`` block, ``should_stop()`` stays False afterwards (TF
        2.21's ``compat.v1`` behaviour, which its own test checks, though its
        docstring says the next ``should_stop`` returns True).
        """
        args = _fn_args(step_fn)
        if args != ("step_context",) and args != ("self", "step_context"):
            raise ValueError(f"`step_fn` may either have one `step_context` argument, or `self` and "
                             f"`step_context` arguments if it's an instance method. Got {args} instead.")
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    def should_stop(self):
        return self._sess is None or self._sess.should_stop()

    def close(self):
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()


class MonitoredSession(_MonitoredSession):
    """Session-like object that handles initialization, recovery and hooks
    (TF's API reference, ``tf.compat.v1.train.MonitoredSession``)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        worker_context = distribute_lib.get_current_worker_context()
        if not session_creator and worker_context:  # inside a distribute coordinator's worker: its creator
            session_creator = worker_context.session_creator()
        super().__init__(session_creator, hooks, should_recover=True, stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession that is always chief, does not recover, and exposes
    ``raw_session()``."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        """The underlying Session."""
        return self._tf_sess()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=USE_DEFAULT, summary_dir=None, save_graph_def=True):
    """A MonitoredSession for training (TF's API reference,
    ``tf.compat.v1.train.MonitoredTrainingSession``): a chief restores from or
    initializes into ``checkpoint_dir`` and gets StepCounterHook,
    SummarySaverHook (every 100 steps by default) and CheckpointSaverHook
    (every 600 s by default); a worker waits for the chief."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None

    scaffold = scaffold or Scaffold()
    worker_context = distribute_lib.get_current_worker_context()
    if worker_context:
        return _session_with_worker_context(
            worker_context, scaffold, checkpoint_dir=checkpoint_dir, hooks=hooks, chief_only_hooks=chief_only_hooks,
            save_checkpoint_secs=save_checkpoint_secs, save_summaries_steps=save_summaries_steps,
            save_summaries_secs=save_summaries_secs, config=config, stop_grace_period_secs=stop_grace_period_secs,
            log_step_count_steps=log_step_count_steps, max_wait_secs=max_wait_secs,
            save_checkpoint_steps=save_checkpoint_steps, summary_dir=summary_dir, save_graph_def=save_graph_def)
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)

    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(_hooks.StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(_hooks.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                     save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (save_checkpoint_steps and
                                                                   save_checkpoint_steps > 0):
            all_hooks.append(_hooks.CheckpointSaverHook(checkpoint_dir, save_steps=save_checkpoint_steps,
                                                        save_secs=save_checkpoint_secs, scaffold=scaffold,
                                                        save_graph_def=save_graph_def))
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)


_COLLECTIVE_STRATEGIES = ("CollectiveAllReduceStrategy", "CollectiveAllReduceStrategyV1",
                          "MultiWorkerMirroredStrategy")


def _session_with_worker_context(worker_context, scaffold, checkpoint_dir=None, hooks=None, chief_only_hooks=None,
                                 save_checkpoint_secs=None, save_summaries_steps=None, save_summaries_secs=None,
                                 config=None, stop_grace_period_secs=120, log_step_count_steps=100,
                                 max_wait_secs=7200, save_checkpoint_steps=None, summary_dir=None,
                                 save_graph_def=True):
    """TF's MonitoredTrainingSession inside a distribute coordinator's worker: the strategy
    says whether this task writes summaries and checkpoints. Under a collective strategy every
    task runs the save ops (they may hold collectives), the others into ``tmp_<type>_<id>``.
    As in TF, the checkpoint hook is added only where summaries are also configured."""
    all_hooks = list(hooks or [])
    if chief_only_hooks and worker_context.is_chief:
        all_hooks.extend(chief_only_hooks)
    tmpdir = None
    if type(worker_context._strategy).__name__ in _COLLECTIVE_STRATEGIES:
        tmpdir = ("tmp_%s_%d" % (worker_context.task_type, worker_context.task_id) if worker_context.task_type
                  else "tmp")
        if save_checkpoint_secs:
            _log.warning("Collective ops may deadlock with `save_checkpoints_secs` please use "
                         "`save_checkpoint_steps` instead. Clearing `save_checkpoint_secs` and setting "
                         "`save_checkpoint_steps` to 1000 now.")
            save_checkpoint_secs, save_checkpoint_steps = None, 1000
        if save_summaries_secs:
            _log.warning("Collective ops may run out of sync with`save_summaries_secs`, please use "
                         "`save_summaries_steps` instead.")

    def where(directory, enabled):
        return directory if enabled else (os.path.join(directory, tmpdir) if tmpdir else None)

    summary_dir = summary_dir or checkpoint_dir
    if summary_dir and log_step_count_steps and log_step_count_steps > 0:
        out = where(summary_dir, worker_context.should_save_summary)
        if out:
            all_hooks.append(_hooks.StepCounterHook(output_dir=out, every_n_steps=log_step_count_steps))
    if ((save_summaries_steps and save_summaries_steps > 0) or
            (save_summaries_secs and save_summaries_secs > 0)) and summary_dir:
        out = where(summary_dir, worker_context.should_save_summary)
        if out:
            all_hooks.append(_hooks.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                     save_secs=save_summaries_secs, output_dir=out))
        if ((save_checkpoint_secs and save_checkpoint_secs > 0) or
                (save_checkpoint_steps and save_checkpoint_steps > 0)) and checkpoint_dir:
            out = where(checkpoint_dir, worker_context.should_checkpoint)
            if out:
                all_hooks.append(_hooks.CheckpointSaverHook(out, save_steps=save_checkpoint_steps,
                                                            save_secs=save_checkpoint_secs, scaffold=scaffold,
                                                            save_graph_def=save_graph_def))
    creator = worker_context.session_creator(scaffold, config=config, checkpoint_dir=checkpoint_dir,
                                             max_wait_secs=max_wait_secs)
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
