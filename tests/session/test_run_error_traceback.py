"""A step's error leaves ``Session.run`` with a traceback whose innermost frame is in
``session.py``, as TF's (monitored_session_test's test_propagates_exception_trace):
error kind and the innermost file's name against TensorFlow, one row per kind of error."""
import os
import sys
import traceback

import numpy as np
import pytest

from ref.session import session as _under_test  # noqa: F401
import ref


def failed_assert(lib):
    return lib.Assert(False, ["This should fail."]), {}


def unfed_placeholder(lib):
    return lib.placeholder(lib.float32, [2]) * 2.0, {}


def closed_queue(lib):
    q = lib.FIFOQueue(2, lib.float32)
    return [q.close(), q.dequeue()], {}


def bad_reshape(lib):
    x = lib.placeholder(lib.float32, name="x")
    return lib.reshape(x, [3]), {"x": np.zeros(4, np.float32)}


ROWS = [failed_assert, unfed_placeholder, closed_queue, bad_reshape]


def _outcome(lib, f):
    with lib.Graph().as_default():
        fetch, feed = f(lib)
        feed = {lib.get_default_graph().get_tensor_by_name(k + ":0"): v for k, v in feed.items()}
        with lib.Session() as s:
            try:
                if isinstance(fetch, list):
                    s.run(fetch[0])
                    fetch = fetch[1]
                s.run(fetch, feed_dict=feed)
            except lib.errors.OpError as e:
                frames = traceback.extract_tb(sys.exc_info()[2])
                return type(e).__name__, os.path.basename(frames[-1].filename)
    return None


@pytest.mark.parametrize("f", ROWS, ids=[f.__name__ for f in ROWS])
def test_matches_tf(f):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _outcome(tf, f)
    assert want[1] == "session.py"
    assert _outcome(ref, f) == want
