"""NumPy's floating-point error state switched off and back cheaply
(ref/ops/fpenv.py ``ignore_errors`` / ``restore_errors``): inside, NumPy warns
and raises nothing, whatever the caller's state; after, the caller's state is
back exactly (error modes and buffer size) -- checked against
``np.geterr``/``np.getbufsize``, nested, from other states and other threads.
(test_fpenv.py is x86-64 only; this is not.)"""
import threading
import warnings

import numpy as np
import pytest

import ref
from ref.ops import fpenv

QUIET = {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}

# the caller's state: np.errstate keywords
STATES = [{}, {"all": "raise"}, {"all": "warn", "under": "ignore"}, {"divide": "ignore", "invalid": "raise"},
          {"all": "ignore"}]


def _noisy():
    """Divide by zero, overflow, invalid: inf, inf, nan."""
    one, zero, big = np.ones(1, np.float32), np.zeros(1, np.float32), np.full(1, 3e38, np.float32)
    return (one / zero)[0], (big * big)[0], (zero / zero)[0]


@pytest.mark.parametrize("state", STATES, ids=[str(s) for s in STATES])
def test_quiet_inside_and_the_callers_state_after(state):
    with np.errstate(**state):
        outer = np.geterr()
        token = fpenv.ignore_errors()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a RuntimeWarning would fail the test
                inf, over, nan = _noisy()
            assert np.geterr() == QUIET
        finally:
            fpenv.restore_errors(token)
        assert np.geterr() == outer
    assert np.isinf(inf) and np.isinf(over) and np.isnan(nan)


@pytest.mark.parametrize("state", STATES, ids=[str(s) for s in STATES])
def test_buffer_size_is_the_callers(state):
    old = np.getbufsize()
    try:
        for size in (8192, 16384, 8192 * 3):
            np.setbufsize(size)
            with np.errstate(**state):
                token = fpenv.ignore_errors()
                try:
                    assert np.getbufsize() == size  # the quiet state is made from the caller's
                finally:
                    fpenv.restore_errors(token)
    finally:
        np.setbufsize(old)


def test_nested_calls_and_a_session_run():
    with np.errstate(all="raise"):
        outer = fpenv.ignore_errors()
        inner = fpenv.ignore_errors()
        assert inner is None  # already quiet: nothing to undo
        fpenv.restore_errors(inner)
        assert np.geterr() == QUIET
        fpenv.restore_errors(outer)
        assert np.geterr()["divide"] == "raise"
        g = ref.Graph()
        with g.as_default():
            x = ref.placeholder(ref.float32, [2])
            y = ref.math.reciprocal(x)
            with ref.Session() as s:
                for _ in range(3):  # the general path, then the fast path (compiled from the second run)
                    np.testing.assert_array_equal(s.run(y, {x: np.array([0.0, -0.0], np.float32)}),
                                                  [np.inf, -np.inf])
        assert np.geterr()["divide"] == "raise"


def _thread_state():
    seen = []
    t = threading.Thread(target=lambda: seen.append(np.geterr()))
    t.start()
    t.join(10)
    return seen[0]


def test_other_threads_keep_their_own_state():
    before = _thread_state()
    token = fpenv.ignore_errors()
    try:
        assert np.geterr() == QUIET
        assert _thread_state() == before != QUIET  # a thread's state is its own
    finally:
        fpenv.restore_errors(token)
