"""Coordinator and LooperThread: the behaviour seed 004_96791d6311aaba71.txt
("Coordinator and QueueRunner") and seed 002 (``LooperThread``) document.

Threads are daemons and every join has a timeout: nothing here can hang."""
import threading
import time

import pytest

from ref.types import errors
from ref.training.coordinator import Coordinator, LooperThread

WAIT = 5.0


def _worker(coord, ticks, fail_after=None, exc=None):
    """The seed's thread: "while not coord.should_stop(): ...do some work..."."""
    try:
        while not coord.should_stop():
            ticks.append(1)
            if fail_after is not None and len(ticks) >= fail_after:
                raise exc
            time.sleep(0.001)
    except Exception as e:
        coord.request_stop(e)


def _start(coord, n, **kw):
    ticks = [[] for _ in range(n)]
    threads = [threading.Thread(target=_worker, args=(coord, t), kwargs=kw if i == 0 else {}, daemon=True)
               for i, t in enumerate(ticks)]
    for t in threads:
        t.start()
    return threads, ticks


@pytest.mark.parametrize("exc, raised", [
    (None, None),
    (ValueError("bad input"), ValueError),
    (errors.InvalidArgumentError(None, None, "bad value"), errors.InvalidArgumentError),
    (errors.OutOfRangeError(None, None, "end of input"), None),  # a clean stop
], ids=["request-stop", "python-error", "op-error", "out-of-range-is-clean"])
def test_threads_stop_together_and_join_reraises(exc, raised):
    coord = Coordinator()
    if exc is None:
        threads, ticks = _start(coord, 3)
        time.sleep(0.02)
        coord.request_stop()
    else:
        threads, ticks = _start(coord, 3, fail_after=3, exc=exc)
    if raised is None:
        coord.join(threads, stop_grace_period_secs=WAIT)
    else:
        with pytest.raises(raised) as info:
            coord.join(threads, stop_grace_period_secs=WAIT)
        assert info.value is exc
    assert coord.should_stop() and coord.joined
    assert not any(t.is_alive() for t in threads)
    assert ticks[0]


def test_first_exception_wins():
    coord = Coordinator()
    first, second = ValueError("first"), KeyError("second")
    for e in (first, second):
        try:
            raise e
        except Exception as ex:
            coord.request_stop(ex)
    with pytest.raises(ValueError, match="first"):
        coord.join([], stop_grace_period_secs=0)


@pytest.mark.parametrize("ignore", [False, True])
def test_grace_period_reports_stragglers(ignore):
    """"If any of them is still alive after that period expires, a RuntimeError is raised"."""
    coord = Coordinator()
    release = threading.Event()
    laggard = threading.Thread(target=release.wait, args=(WAIT,), name="laggard", daemon=True)
    laggard.start()
    coord.request_stop()
    t0 = time.monotonic()
    try:
        if ignore:
            coord.join([laggard], stop_grace_period_secs=0.05, ignore_live_threads=True)
        else:
            with pytest.raises(RuntimeError, match="Coordinator stopped with threads still running: laggard"):
                coord.join([laggard], stop_grace_period_secs=0.05)
        assert 0.05 <= time.monotonic() - t0 < 2.0
    finally:
        release.set()
        laggard.join(WAIT)


def test_exception_reported_instead_of_grace_runtime_error():
    """"Note that if an 'exc_info' was passed to request_stop() then it is raised
    instead of that RuntimeError"."""
    coord = Coordinator()
    release = threading.Event()
    laggard = threading.Thread(target=release.wait, args=(WAIT,), daemon=True)
    laggard.start()
    try:
        try:
            raise OSError("disk")
        except OSError as e:
            coord.request_stop(e)
        with pytest.raises(OSError, match="disk"):
            coord.join([laggard], stop_grace_period_secs=0.01)
    finally:
        release.set()
        laggard.join(WAIT)


def test_join_returns_when_threads_end_without_stop():
    coord = Coordinator()
    threads = [threading.Thread(target=time.sleep, args=(0.01,), daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    coord.join(threads)
    assert time.monotonic() - t0 < 1.0 and not coord.should_stop()


def test_stop_on_exception():
    coord = Coordinator()
    with coord.stop_on_exception():
        raise RuntimeError("inside")
    assert coord.should_stop()
    with pytest.raises(RuntimeError, match="inside"):
        coord.raise_requested_exception()


@pytest.mark.parametrize("when, timeout, expected", [
    ("never", 0.01, False),   # "False if the timeout expired"
    ("later", WAIT, True),    # woken by another thread's request_stop
    ("before", 0.0, True),
])
def test_wait_for_stop(when, timeout, expected):
    coord = Coordinator()
    if when == "before":
        coord.request_stop()
    elif when == "later":
        threading.Timer(0.01, coord.request_stop).start()
    assert coord.wait_for_stop(timeout) is expected


def test_clear_stop_and_exc_info_tuple():
    coord = Coordinator()
    try:
        raise ValueError("x")
    except ValueError:
        import sys
        coord.request_stop(sys.exc_info())
    coord.clear_stop()
    assert not coord.should_stop()
    coord.raise_requested_exception()  # cleared: nothing to raise
    coord.join([])


def test_request_stop_after_join_raises():
    coord = Coordinator()
    coord.request_stop()
    coord.join([])
    with pytest.raises(ValueError, match="late"):
        try:
            raise ValueError("late")
        except ValueError as e:
            coord.request_stop(e)


def test_registered_threads_are_joined():
    coord = Coordinator()
    done = []
    t = threading.Thread(target=lambda: (time.sleep(0.02), done.append(1)), daemon=True)
    coord.register_thread(t)
    t.start()
    coord.join()
    assert done == [1]


@pytest.mark.parametrize("interval, min_calls", [(None, 5), (0.01, 2)])
def test_looper_thread_loop(interval, min_calls):
    coord = Coordinator()
    calls = []
    looper = LooperThread.loop(coord, interval, calls.append, args=("tick",))
    assert looper.daemon
    while len(calls) < min_calls:
        time.sleep(0.005)
    coord.request_stop()
    coord.join(stop_grace_period_secs=WAIT)  # the looper registered itself
    assert not looper.is_alive() and set(calls) == {"tick"}


def test_looper_thread_subclass_and_exceptions():
    events = []

    class Looper(LooperThread):
        def start_loop(self):
            events.append("start")

        def run_loop(self):
            events.append("run")
            if events.count("run") == 3:
                raise ArithmeticError("third run")

        def stop_loop(self):
            events.append("stop")  # not reached: the exception ends the loop

    coord = Coordinator()
    Looper(coord, None).start()
    with pytest.raises(ArithmeticError, match="third run"):
        coord.join(stop_grace_period_secs=WAIT)
    assert events == ["start", "run", "run", "run"]


@pytest.mark.parametrize("kwargs", [dict(coord="not a coordinator", timer_interval_secs=None),
                                    dict(coord=None, timer_interval_secs=None, args=(1,))])
def test_looper_thread_argument_errors(kwargs):
    if kwargs["coord"] is None:
        kwargs["coord"] = Coordinator()
    with pytest.raises(ValueError):
        LooperThread(**kwargs)
