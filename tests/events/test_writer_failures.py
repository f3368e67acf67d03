"""A ``FileWriter`` whose event file fails to write: as TF's writer thread,
the error is logged, kept, and raised by the next ``add_summary`` / ``flush`` /
``close`` (once: the writer is closed then, later calls do nothing). Each row
is a call sequence run under ref and under tensorflow.compat.v1 with the
writing step replaced by one raising OSError."""
import tempfile
import time

import pytest

import ref
from ref.events import writer as _under_test  # noqa: F401


class _Failing:
    """Wraps a file/writer object: its writing method raises OSError."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        if name in ("WriteEvent", "write_raw"):
            def fail(*args, **kwargs):
                raise OSError("disk full")
            return fail
        return getattr(self._inner, name)


SEQUENCES = [("add_flush", ["add", "flush", "add", "flush", "close"]),
             ("add_then_add", ["add", "wait", "add", "flush", "close"]),
             ("add_close", ["add", "close", "close"]),
             ("flush_only", ["flush", "add", "wait", "flush", "close"])]


def _run(tf, steps):
    with tf.Graph().as_default():
        return _calls(tf, tf.summary.FileWriter(tempfile.mkdtemp()), steps)


def _calls(tf, w, steps):
    ew = w.event_writer
    if tf is ref:
        ew._file = _Failing(ew._file)
    else:
        ew._worker._ev_writer = _Failing(ew._worker._ev_writer)
    out = []
    for step in steps:
        if step == "wait":  # TF's thread meets the error on its own time
            time.sleep(0.3)
            continue
        try:
            if step == "add":
                w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]), 1)
            else:
                getattr(w, step)()
            out.append(step)
        except OSError as e:
            out.append(f"{step} raised {e}")
    return out


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("name,steps", SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_failures_surface_as_tf(name, steps):
    tf = pytest.importorskip("tensorflow").compat.v1
    got = _run(ref, steps)
    assert got == _run(tf, steps)
    assert sum("raised disk full" in s for s in got) == 1
