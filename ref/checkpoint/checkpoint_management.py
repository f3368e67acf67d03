"""``tf.train.CheckpointManager`` and the checkpoint-file helpers, as TF's
``checkpoint_management`` module groups them.

A CheckpointManager numbers the checkpoints of one ``tf.train.Checkpoint`` in
a directory (``<directory>/<checkpoint_name>-<N>``), keeps the newest
``max_to_keep`` of them (the "active set"), and records its state in the
directory's ``checkpoint`` file: the active paths, their timestamps
(``all_model_checkpoint_timestamps``) and ``last_preserved_timestamp``. A
checkpoint leaving the active set is kept for good (and drops out of the state
file) when it is at least ``keep_checkpoint_every_n_hours`` newer than the last
one so kept; otherwise its ``.index`` and ``.data-*`` files are deleted. A new
manager in the same directory takes the state over; a clock that went back
behind ``last_preserved_timestamp`` forgets the active set (nothing is deleted
that may have been preserved).

Graph mode: ``save`` and ``restore_or_initialize`` use the default Session.
"""
from __future__ import annotations

import collections
import os
import time

import numpy as np

from ref.platform import tf_logging
from ref.formats import checkpoint_state as _state
from ref.formats.checkpoint_state import (checkpoint_exists, generate_checkpoint_state_proto,  # noqa: F401
                                          get_checkpoint_mtimes, get_checkpoint_state, latest_checkpoint,
                                          meta_graph_filename, remove_checkpoint, update_checkpoint_state,
                                          update_checkpoint_state_internal)
from ref.session import get_default_session

__all__ = ["CheckpointManager", "wait_for_new_checkpoint", "checkpoints_iterator", "checkpoint_exists", "generate_checkpoint_state_proto", "get_checkpoint_mtimes",
           "get_checkpoint_state", "latest_checkpoint", "remove_checkpoint", "update_checkpoint_state"]

_log = tf_logging


def _evaluate(value):
    """A Python number from an int, a NumPy value, a Variable or a Tensor (run in the default Session)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    session = get_default_session()
    if session is None:
        raise ValueError("No default session: CheckpointManager needs `with sess.as_default():` in graph mode")
    return int(session.run(value))


class CheckpointManager:
    """Manages multiple checkpoints by keeping some and deleting unneeded ones.

    ``CheckpointManager`` preserves its own state across instantiations (in the
    ``checkpoint`` file of ``directory``). Only one should be active in a
    particular directory at a time.

    Raises:
      ValueError: if ``max_to_keep`` is not a positive integer or None, or
        ``checkpoint_interval`` is given without ``step_counter``.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None,
                 last_checkpoint_step=None):
        self._checkpoint = checkpoint
        self._save_counter_assign = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got %d." % (max_to_keep,))
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        directory = os.fspath(directory)
        self._directory = directory
        self._checkpoint_prefix = os.path.join(directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
            self._last_checkpoint_step = last_checkpoint_step or None
            self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        recovered = get_checkpoint_state(directory)
        now = time.time()
        self._maybe_delete = collections.OrderedDict()
        if recovered is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.
            return
        self._latest_checkpoint = recovered.model_checkpoint_path
        self._last_preserved_timestamp = recovered.last_preserved_timestamp
        if now < self._last_preserved_timestamp:
            _log.warning("time.time() returned a value %f seconds behind the last preserved checkpoint timestamp.",
                         self._last_preserved_timestamp - now)
            self._last_preserved_timestamp = now
        paths = list(recovered.all_model_checkpoint_paths)
        stamps = list(recovered.all_model_checkpoint_timestamps) or [self._last_preserved_timestamp] * len(paths)
        for path, stamp in zip(paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def checkpoint(self):
        """Returns the ``tf.train.Checkpoint`` object."""
        return self._checkpoint

    @property
    def latest_checkpoint(self):
        """The prefix of the most recent checkpoint in ``directory`` (None if there is none)."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The managed checkpoints, oldest to newest (those preserved by
        ``keep_checkpoint_every_n_hours`` are not listed)."""
        return list(self._maybe_delete.keys())

    @property
    def _prefix(self):
        return self._checkpoint_prefix

    def _sweep(self):
        """Deletes or preserves the checkpoints beyond ``max_to_keep``, oldest first."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if (self._keep_checkpoint_every_n_hours
                    and stamp - self._keep_checkpoint_every_n_hours * 3600. >= self._last_preserved_timestamp):
                self._last_preserved_timestamp = stamp
                continue
            # confined to the directory, glob characters in the prefix escaped (issue 15)
            _state.remove_checkpoint_in(self._directory, path, meta_graph_suffix=None)

    def _record_state(self):
        """Writes the manager's state to ``directory/checkpoint``."""
        paths, stamps = zip(*self._maybe_delete.items()) if self._maybe_delete else ((), ())
        update_checkpoint_state_internal(
            self._directory, self._latest_checkpoint, all_model_checkpoint_paths=list(paths),
            all_model_checkpoint_timestamps=list(stamps),
            last_preserved_timestamp=self._last_preserved_timestamp, save_relative_paths=True)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Creates a new checkpoint and manages it; returns its path, or None
        when ``checkpoint_interval`` says it is not yet time to save.

        ``checkpoint_number`` (an int, or an integer Variable or Tensor) numbers
        the checkpoint instead of ``save_counter`` (which is still incremented).
        """
        if self._checkpoint_interval is not None:
            step = _evaluate(self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        session = get_default_session()
        if session is None:
            raise ValueError("No default session: CheckpointManager.save needs `with sess.as_default():`")
        fresh = self._checkpoint._save_counter is None
        counter = self._checkpoint.save_counter
        if fresh:
            session.run(counter.initializer)
        if self._save_counter_assign is None or self._save_counter_assign.graph is not session.graph:
            with session.graph.as_default():
                self._save_counter_assign = counter.assign_add(np.int64(1), read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = counter
        prefix = "%s-%d" % (self._prefix, _evaluate(checkpoint_number))
        save_path = self._checkpoint.write(prefix, session=session)
        self._maybe_delete.pop(save_path, None)
        self._maybe_delete[save_path] = time.time()
        self._latest_checkpoint = save_path
        self._record_state()
        self._sweep()
        self._record_state()
        return save_path

    def restore_or_initialize(self):
        """Restores ``checkpoint`` from the latest checkpoint in ``directory``
        (running the restore ops in the default Session) and returns its path;
        without one, calls ``init_fn`` (if given) and returns None."""
        if self._latest_checkpoint is not None:
            status = self._checkpoint.restore(self._latest_checkpoint)
            session = get_default_session()
            if session is not None:
                status.run_restore_ops(session)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _evaluate(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Waits for outstanding saves (ref saves synchronously: nothing to wait for)."""


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """Waits until ``latest_checkpoint(checkpoint_dir)`` names a checkpoint other
    than ``last_checkpoint``; returns it, or None once ``timeout`` seconds would
    pass before the next poll."""
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of ``checkpoint_dir`` as it appears, at most one
    per ``min_interval_secs``. After ``timeout`` seconds without one it stops,
    unless ``timeout_fn`` is given and returns False (then it keeps waiting)."""
    path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, path, timeout=timeout)
        if new_path is None:
            if not timeout_fn or timeout_fn():
                return
            continue
        start = time.time()
        path = new_path
        yield path
        remaining = start + min_interval_secs - time.time()
        if remaining > 0:
            time.sleep(remaining)
