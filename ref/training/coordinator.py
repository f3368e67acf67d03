"""``tf.train.Coordinator`` and ``tf.train.LooperThread``: stopping a set of
threads together and reporting their exceptions.

TF docs, "Training" (Korean edition), "Coordinator and QueueRunner", ``class
tf.train.Coordinator``: "Any of the threads can call `coord.request_stop()` to
ask for all the threads to stop. To cooperate with the requests, each thread
must check for `coord.should_stop()` on a regular basis." -- "After a thread
has called `coord.request_stop()` the other threads have a fixed time to stop,
this is called the 'stop grace period' and defaults to 2 minutes. If any of the
threads is still alive after the grace period expires `coord.join()` raises a
RuntimeException reporting the laggards."

TF's API reference, ``tf.compat.v1.train.LooperThread``: "It
repeatedly runs code specified either as target and args or by the run_loop()
method. Before each run the thread checks if the coordinator has requested
stop."
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

from ref.types import errors
from ref.platform import tf_logging as _log

__all__ = ["Coordinator", "LooperThread"]


# How often join() looks at its threads while no stop has been requested.
_POLL_SECS = 0.01


class Coordinator:
    """A coordinator for threads: one stop flag, the first reported exception,
    and ``join`` with a grace period.

    ``clean_stop_exception_types``: exceptions that stop the threads without
    being re-raised by ``join`` (default ``(tf.errors.OutOfRangeError,)``, the
    normal end of an input pipeline).
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        """``ex`` unless it is a clean stop (then None)."""
        value = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(value, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Asks the threads to stop; ``ex`` (an exception being handled, or a
        ``sys.exc_info()`` tuple) is recorded if it is the first one, and
        re-raised by ``join()``."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                # join() has already reported: nobody would see it, so raise it here.
                if isinstance(ex, tuple):
                    raise ex[1]
                if ex is not None:
                    raise ex
            if self._stop_event.is_set():
                return
            if ex is not None and self._exc_info_to_raise is None:
                _log.info("Error reported to Coordinator: %s", ex[1] if isinstance(ex, tuple) else ex)
                info = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
                if len(info) != 3 or not info[0] or not isinstance(info[1], BaseException):
                    try:  # recorded, so that join() reports the misuse where it is expected
                        raise ValueError(f"ex must be a tuple or sys.exc_info must return the current exception: "
                                         f"{info}")
                    except ValueError:
                        info = sys.exc_info()
                self._exc_info_to_raise = info
            self._stop_event.set()

    def clear_stop(self):
        """Clears the stop flag (and the recorded exception): ``should_stop()``
        returns False again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """True once a stop has been requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Context manager: an exception raised in the body is reported with
        ``request_stop`` (and not propagated)."""
        try:
            yield
        except:  # noqa: E722 - TF reports every exception, SystemExit included
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits up to ``timeout`` seconds for a stop; True if one was requested."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds ``thread`` to the threads ``join()`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits until the threads (``threads`` plus the registered ones) end or a
        stop is requested; then gives them ``stop_grace_period_secs`` to end.

        Raises the exception passed to ``request_stop()`` if any; otherwise
        RuntimeError "Coordinator stopped with threads still running: <names>"
        if some thread outlives the grace period (unless ``ignore_live_threads``).
        """
        with self._lock:
            threads = list(self._registered_threads.union(threads or ()))

        def alive():
            return [t for t in threads if t.is_alive()]

        while alive() and not self.wait_for_stop(_POLL_SECS):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for t in alive():
            t.join(max(0.0, deadline - time.monotonic()))
        stragglers = [t.name for t in alive()]

        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    _log.info("Coordinator stopped with threads still running: %s", " ".join(stragglers))
                else:
                    raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self) -> bool:
        """True once ``join()`` has returned or raised."""
        return self._joined

    def raise_requested_exception(self):
        """Raises the exception passed to ``request_stop()``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]


class LooperThread(threading.Thread):
    """A daemon thread that calls ``run_loop()`` (or ``target(*args, **kwargs)``)
    until its coordinator stops: back to back if ``timer_interval_secs`` is
    None, else at every ``timer_interval_secs`` boundary. An exception is
    reported to the coordinator and ends the thread."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._loop_target = target
        if target is not None:
            self._loop_args = args or ()
            self._loop_kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Starts and returns a LooperThread calling ``target`` (see the class)."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once when the thread stops."""

    def run_loop(self):
        """Called at each ``timer_interval_secs`` boundary: runs the target."""
        if self._loop_target is not None:
            self._loop_target(*self._loop_args, **self._loop_kwargs)
