"""Deadlines and cancellation for the kernels that block (queue enqueue and
dequeue, accumulator take).

TensorFlow bounds a blocking kernel by the step's deadline
(``RunOptions.timeout_in_ms``, ``ConfigProto.operation_timeout_in_ms``, the
deadline of a worker's ``RunGraph`` call) and cancels it when its session goes
away. A runner states both for the calling thread with :func:`bounded`; a
kernel waits on its ``threading.Condition`` with :func:`wait`:

    with blocking.bounded(timeout=5.0, where="/job:ps/replica:0/task:0") as run:
        ...                       # kernels run here
    run.cancel("session closed")  # from another thread: the waits raise CancelledError

Outside any :func:`bounded` block :func:`wait` waits as long as it takes, as a
local ``Session.run`` without a timeout does. When the deadline passes the
waiting kernel raises ``DeadlineExceededError``; its message says what waited,
where, for how long, and the state it waited on (the kernel's ``describe()``),
e.g. "take_grad on /job:ps/replica:0/task:0 waited 5 s: 1 of 2 gradients for
global step 5 (accumulator 'w/grad_accum')". The Session adds the node name.
"""
from __future__ import annotations

import contextlib
import threading
import time

from ref.types import errors

__all__ = ["Run", "adopt", "bounded", "check", "current", "wait"]

_LOCAL = threading.local()


class Run:
    """The deadline and cancellation state of the run on one thread."""

    def __init__(self, timeout=None, where=""):
        self.start = time.monotonic()
        self.timeout = timeout
        self.deadline = None if timeout is None else self.start + timeout
        self.where = where
        self.cancelled = None  # the reason, once cancelled
        self._waiting = set()  # conditions a kernel of this run waits on
        self._lock = threading.Lock()

    def cancel(self, reason):
        """Makes every wait of this run (now or later) raise CancelledError(reason)."""
        self.cancelled = reason
        with self._lock:
            waiting = list(self._waiting)
        for cv in waiting:
            with cv:
                cv.notify_all()


@contextlib.contextmanager
def bounded(timeout=None, where=""):
    """Runs the body with a deadline ``timeout`` seconds from now (None: none);
    ``where`` (a task name) goes into the errors. Yields the :class:`Run`."""
    run = Run(timeout, where)
    previous = getattr(_LOCAL, "run", None)
    _LOCAL.run = run
    try:
        yield run
    finally:
        _LOCAL.run = previous


@contextlib.contextmanager
def adopt(run, blocked=None):
    """Runs the body on this (helper) thread under another thread's ``run`` (its
    deadline and cancellation); ``blocked`` (a ``threading.Event``) is set when a
    kernel here first waits: the executor that started this thread then goes on
    with other ops of the step, as TF's executor runs the ready ones."""
    previous, previous_blocked = getattr(_LOCAL, "run", None), getattr(_LOCAL, "blocked", None)
    _LOCAL.run, _LOCAL.blocked = run, blocked
    try:
        yield run
    finally:
        _LOCAL.run, _LOCAL.blocked = previous, previous_blocked


def current():
    """The :class:`Run` of the calling thread, or None."""
    return getattr(_LOCAL, "run", None)


def check(what):
    """Raises CancelledError / DeadlineExceededError when the calling thread's run
    was cancelled or is past its deadline: a long-running kernel (a loop) calls it
    between iterations, so every run honours ``timeout_in_ms``."""
    run = getattr(_LOCAL, "run", None)
    if run is None:
        return
    if run.cancelled is not None:
        raise errors.CancelledError(None, None, f"{what} was cancelled: {run.cancelled}")
    if run.deadline is not None and time.monotonic() > run.deadline:
        where = f" on {run.where}" if run.where else ""
        raise errors.DeadlineExceededError(
            None, None, f"{what}{where} ran past the run's deadline ({run.timeout:.3g} s)")


def wait(cv, what, describe):
    """``cv.wait()`` (the caller holds ``cv``) bounded by the thread's run.

    ``what`` names the waiting kernel ("QueueDequeueV2"), ``describe()`` the
    state it waits on, called only for the error. Raises CancelledError when
    the run was cancelled, DeadlineExceededError when its deadline passed.
    """
    blocked = getattr(_LOCAL, "blocked", None)
    if blocked is not None:
        blocked.set()
    run = getattr(_LOCAL, "run", None)
    if run is None:
        cv.wait()
        return
    with run._lock:
        run._waiting.add(cv)  # before checking the flag: cancel() sets it, then notifies
    try:
        if run.cancelled is not None:
            raise errors.CancelledError(None, None, f"{what} was cancelled: {run.cancelled}")
        if run.deadline is None:
            cv.wait()
            return
        left = run.deadline - time.monotonic()
        if left <= 0:
            where = f" on {run.where}" if run.where else ""
            raise errors.DeadlineExceededError(
                None, None, f"Timed out waiting for notification: {what}{where} waited "
                            f"{time.monotonic() - run.start:.3g} s (the run's deadline): {describe()}")
        cv.wait(left)
    finally:
        with run._lock:
            run._waiting.discard(cv)
