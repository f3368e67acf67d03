"""``tf.train.SessionManager``: create a session, restore or initialize the model.

TF's API reference, ``tf.compat.v1.train.SessionManager``,
``prepare_session``: "If a saver object is passed in, and checkpoint_dir points
to a directory containing valid checkpoint files, then it will try to recover
the model from checkpoint. ... If the model cannot be recovered successfully
then it is initialized by running the init_op and calling init_fn if they are
provided. The local_init_op is also run after init_op and init_fn, regardless
of whether the model was recovered successfully, but only if
ready_for_local_init_op passes." "It is an error if the model cannot be
recovered and no init_op or init_fn or local_init_op are passed."

A ready op returns an empty 1-D string tensor when the model is ready, else the
names of the uninitialized variables.
"""
from __future__ import annotations

import time

import numpy as np

from ref.types import errors
from ref.types.device_spec import DeviceSpec
from ref.framework.graph import get_default_graph
from ref.session.session import Session
from ref.formats.checkpoint_state import get_checkpoint_state
from ref.platform import tf_logging as _log

__all__ = ["SessionManager"]

# wait_for_session's first pause between readiness checks (seconds); it doubles
# up to recovery_wait_secs.
_FIRST_POLL_SECS = 0.1


def _make_session(master, graph, config):
    return Session(master, graph=graph, config=config)


class SessionManager:
    """Training helper that restores from a checkpoint and creates sessions."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError(f"If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                             f"ready_for_local_init_op [{ready_for_local_init_op}]")

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                            wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(session, restored): restores from ``checkpoint_filename_with_path`` or the
        latest checkpoint of ``checkpoint_dir`` (waiting for one if asked)."""
        self._target = master
        sess = _make_session(master, self._graph, config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                _log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
        return sess, True

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False, max_wait_secs=7200,
                        config=None, init_feed_dict=None, init_fn=None):
        """A session with the model restored, or initialized by ``init_op`` /
        ``init_fn``; ``local_init_op`` run; RuntimeError unless the model is ready."""
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir=checkpoint_dir,
                                                  checkpoint_filename_with_path=checkpoint_filename_with_path,
                                                  wait_for_checkpoint=wait_for_checkpoint,
                                                  max_wait_secs=max_wait_secs, config=config)
        if not restored:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ok, msg = self._try_run_local_init_op(sess)
        if not ok:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  Init op: "
                               f"{_maybe_name(init_op)}, init fn: {init_fn}, error: {msg}")
        ready, msg = self._model_ready(sess)
        if not ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: {_maybe_name(init_op)}, "
                               f"init fn: {init_fn}, local_init_op: {_maybe_name(self._local_init_op)}, "
                               f"error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(session, initialized): True when restored from a checkpoint and ready."""
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir=checkpoint_dir,
                                                  checkpoint_filename_with_path=checkpoint_filename_with_path,
                                                  wait_for_checkpoint=wait_for_checkpoint,
                                                  max_wait_secs=max_wait_secs, config=config)
        ok, msg = self._try_run_local_init_op(sess)
        if not restored:
            return sess, False
        if not ok:
            _log.info("Restoring model from %s did not make model ready for local init: %s",
                      checkpoint_dir or checkpoint_filename_with_path, msg)
            return sess, False
        ready, msg = self._model_ready(sess)
        if not ready:
            _log.info("Restoring model from %s did not make model ready: %s",
                      checkpoint_dir or checkpoint_filename_with_path, msg)
            return sess, False
        return sess, True

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A new session on ``master`` once the model is ready (made so by another
        thread or process); DeadlineExceededError after ``max_wait_secs``.

        Readiness is polled with backoff: 0.1 s after the first try, doubling up
        to ``recovery_wait_secs`` (TF sleeps ``recovery_wait_secs``, 30 s by
        default, between every two tries, so a worker that starts just before the
        chief initializes waits 30 s). "Waiting for model to be ready" is logged on
        the first miss, then when the reason changes or ``recovery_wait_secs``
        passed; the reason names the variables not yet initialized and where they
        are placed.
        """
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        start = time.time()
        delay = min(_FIRST_POLL_SECS, self._recovery_wait_secs)
        logged = None, -float("Inf")
        while True:
            sess = _make_session(master, self._graph, config)
            not_ready_msg = None
            ok, not_ready_local_msg = self._try_run_local_init_op(sess)
            if ok:
                ready, not_ready_msg = self._model_ready(sess)
                if ready:
                    return sess
            _safe_close(sess)
            remaining = max_wait_secs - (time.time() - start)
            if remaining - delay < 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {max_wait_secs} secs. "
                                f"Ready_for_local_init_op: {not_ready_local_msg}, ready: {not_ready_msg}")
            now = time.time()
            if (not_ready_local_msg, not_ready_msg) != logged[0] or now - logged[1] >= self._recovery_wait_secs:
                _log.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                          not_ready_local_msg, not_ready_msg)
                logged = (not_ready_local_msg, not_ready_msg), now
            time.sleep(delay)
            delay = min(delay * 2, self._recovery_wait_secs)

    def _model_ready(self, sess):
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess):
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is not None:
            ok, msg = self._model_ready_for_local_init(sess)
            if not ok:
                return False, msg
            _log.info("Running local_init_op.")
            sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                     options=self._local_init_run_options)
            _log.info("Done running local_init_op.")
        return True, None


def _safe_close(sess):
    """Closes ``sess``, ignoring errors (the master may have gone away)."""
    try:
        sess.close()
    except Exception:  # noqa: BLE001  (as TF: a failed close must not end the wait)
        pass


def _placement(graph, names):
    """" (w, b on /job:ps/task:0; v on /job:worker/task:1)" for the named
    variables that have a device, else "". Variables on a worker task other than
    task 0 (the usual chief) get a hint: between-graph, the chief initializes
    only the variables of its own graph, so a worker's own variables belong in
    LOCAL_VARIABLES (its local_init_op)."""
    by_device = {}
    for name in names:
        try:
            device = graph.get_operation_by_name(name).device
        except (KeyError, ValueError):
            continue
        if device:
            by_device.setdefault(device, []).append(name)
    if not by_device:
        return ""
    hint = ""
    own = [d for d in by_device if _is_non_chief_worker(d)]
    if own:
        hint = (f". Variables on {', '.join(own)} are not initialized by the chief if they are not in its "
                "graph: put a worker's own variables in LOCAL_VARIABLES")
    return " (" + "; ".join(f"{', '.join(n)} on {d}" for d, n in by_device.items()) + ")" + hint


def _is_non_chief_worker(device):
    spec = DeviceSpec.from_string(device)
    return spec.job == "worker" and spec.task not in (None, 0)


def _maybe_name(obj):
    if obj is None:
        return "None"
    return getattr(obj, "name", None) or f"<no name for {type(obj)}>"


def _ready(op, sess, msg):
    """(True, None) when ``op`` is None or returns an empty list, else (False, reason)."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            raise
        return False, f"{msg} : {e}"
    value = np.asarray(value) if value is not None else None
    if value is None or value.dtype == np.int32 or value.size == 0:
        return True, None
    names = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in value.ravel()]
    return False, "Variables not initialized: " + ", ".join(names) + _placement(sess.graph, names)
