"""A worker's rendezvous: the tensors its partitions' ``_Send`` nodes hand to other tasks.

TensorFlow's ``RpcRemoteRendezvous`` (one per step, ``rendezvous_mgr``): a ``_Send``
puts a value under its rendezvous key
``"{src_device};{src_incarnation:016x};{dst_device};{tensor_name};{frame_id}:{iter_id}"``;
the receiving task asks for it with ``WorkerService/RecvTensor`` (step id + key),
which waits until the value is there. Here:

* :class:`StepRendezvous` holds one step's values (and whether each is dead);
  ``recv`` waits for a key and takes it out, bounded by the call's deadline, and ends at once
  with the step's error when the step is aborted;
* :class:`Rendezvous` maps step ids to them. A step is made on first use (a
  ``RecvTensor`` may arrive before the ``RunGraph`` that sends), and dropped by
  ``CleanupGraph`` (or when a run of it fails): its pending waits end with the
  error, and the step id is remembered (a bounded tombstone list) so that a
  ``RecvTensor`` arriving later fails at once instead of waiting for a step
  that has already ended.
"""
from __future__ import annotations

import collections
import threading
import time

from ref.types import errors

__all__ = ["StepRendezvous", "Rendezvous", "parse_key"]

_TOMBSTONES = 4096  # ended steps remembered
_POLL = 0.5  # seconds between checks of a waiter's own cancellation


def parse_key(key):
    """``(src_device, incarnation, dst_device, tensor_name, (frame_id, iter_id))`` of a rendezvous key."""
    parts = key.split(";")
    if len(parts) != 5:
        raise errors.InvalidArgumentError(None, None, f"Invalid rendezvous key: {key}")
    frame, _, it = parts[4].partition(":")
    return parts[0], int(parts[1], 16), parts[2], parts[3], (frame, it)


class StepRendezvous:
    """One step's sent values: ``{key: (value, is_dead)}``, waited on by ``recv``."""

    def __init__(self, step_id, error=None):
        self.step_id = step_id
        self.cond = threading.Condition()
        self.items = {}
        self.error = error

    def send(self, key, value, is_dead=False):
        with self.cond:
            if self.error is None:
                self.items[key] = (value, is_dead)
                self.cond.notify_all()

    def recv(self, key, timeout=None, cancelled=None, where=""):
        """See :meth:`recv_any`; ``(value, is_dead)`` of the one ``key``."""
        return self.recv_any((key,), timeout, cancelled, where)[1:]

    def recv_any(self, keys, timeout=None, cancelled=None, where=""):
        """``(key, value, is_dead)`` of the first of ``keys`` (a sequence) sent, once sent
        (several there: the one sent first), taken out of the table as TF's rendezvous does
        (each key is received once; the step no longer holds the value, so a variable sent
        to another task can then be updated in place). One waiter so serves a batch of keys
        in the order their values arrive (ref's tensor channel answers all of a step's keys
        of one task in one request). DeadlineExceededError after ``timeout`` seconds naming
        the keys; the step's error when it is aborted; ``cancelled()`` (checked every half
        second) returning an error ends it too."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wanted = frozenset(keys) if len(keys) > 1 else None
        with self.cond:
            while self.error is None:
                key = (keys[0] if keys[0] in self.items else None) if len(keys) == 1 else \
                    next((k for k in self.items if k in wanted), None)
                if key is not None:
                    break
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, f"RecvTensor{where}: step {self.step_id} waited {timeout:.3g} s for rendezvous "
                                    f"key {' or '.join(keys[:3])}{' ...' if len(keys) > 3 else ''}, "
                                    "which was never sent")
                if cancelled is not None:
                    err = cancelled()
                    if err is not None:
                        raise err
                self.cond.wait(_POLL if left is None else min(left, _POLL))
            if self.error is not None:
                raise self.error
            return (key,) + self.items.pop(key)

    def abort(self, error):
        with self.cond:
            if self.error is None:
                self.error = error
            self.items.clear()
            self.cond.notify_all()


class Rendezvous:
    """Step id -> :class:`StepRendezvous`, with cleanup and tombstones."""

    def __init__(self):
        self._steps = {}
        self._ended = collections.OrderedDict()  # step id -> the error later users get
        self._lock = threading.Lock()

    def step(self, step_id):
        with self._lock:
            r = self._steps.get(step_id)
            if r is None:
                ended = self._ended.get(step_id)
                if ended is not None:  # a late user of an ended step: fails at once
                    return StepRendezvous(step_id, ended)
                r = self._steps[step_id] = StepRendezvous(step_id)
            return r

    def cleanup(self, step_id, error=None):
        """Ends ``step_id``: its pending waits raise ``error`` (default: AbortedError
        "step ... was cleaned up"), later ones too."""
        error = error or errors.AbortedError(None, None, f"step {step_id} has ended (CleanupGraph): its "
                                                         "rendezvous is gone")
        with self._lock:
            r = self._steps.pop(step_id, None)
            self._ended[step_id] = error
            while len(self._ended) > _TOMBSTONES:
                self._ended.popitem(last=False)
        if r is not None:
            r.abort(error)

    def abort_all(self, error):
        with self._lock:
            steps, self._steps = list(self._steps.values()), {}
        for r in steps:
            r.abort(error)

    def active(self):
        """The step ids with a live rendezvous (for tests: no step leaks)."""
        with self._lock:
            return sorted(self._steps)
