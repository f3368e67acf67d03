"""``tf.train.LoggingTensorHook``'s log lines, one row per configuration, run
under ref and under tensorflow.compat.v1 (v2 behaviour off) in a
MonitoredSession of five steps: the same messages in the same order (the
elapsed-time suffix ``(x.xxx sec)`` normalised)."""
import logging
import re

import pytest

import ref
from ref.training import hooks as _under_test  # noqa: F401

# (name, hook kwargs(tf, a, b, global_step))
CASES = [
    ("dict_every_2", lambda tf, a, b, gs: dict(tensors={"a": a, "b": b}, every_n_iter=2)),
    ("list_every_3", lambda tf, a, b, gs: dict(tensors=[a, gs], every_n_iter=3)),
    ("names", lambda tf, a, b, gs: dict(tensors=["a", "b:0"], every_n_iter=4)),
    ("at_end", lambda tf, a, b, gs: dict(tensors={"gs": gs}, at_end=True, every_n_iter=10)),
    ("formatter", lambda tf, a, b, gs: dict(tensors={"a": a}, every_n_iter=2,
                                            formatter=lambda d: "F:%s|" % (d["a"],))),
    ("every_n_secs", lambda tf, a, b, gs: dict(tensors={"a": a}, every_n_secs=1000)),
]


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(re.sub(r" \(\d+\.\d+ sec\)", " (T sec)", record.getMessage()))


def _log(tf, kwargs):
    handler, logger = _Capture(), logging.getLogger("tensorflow")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with tf.Graph().as_default():
            gs = tf.train.get_or_create_global_step()
            inc = tf.assign_add(gs, 1)
            a, b = tf.constant([1.5, 2.25], name="a"), tf.constant("s", name="b")
            hook = tf.train.LoggingTensorHook(**kwargs(tf, a, b, gs))
            with tf.train.MonitoredSession(hooks=[hook]) as sess:
                for _ in range(5):
                    sess.run(inc)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    return [m for m in handler.messages if "local_init_op" not in m and "finalized" not in m]


def _tf():
    return pytest.importorskip("tensorflow").compat.v1


@pytest.fixture(autouse=True)
def _reference_variables():
    """TF builds reference variables (TF1's) for these tests only."""
    pytest.importorskip("tensorflow")
    from tensorflow.python.ops import resource_variables_toggle as rv
    saved = rv.resource_variables_enabled()
    rv.disable_resource_variables()
    yield
    (rv.enable_resource_variables if saved else rv.disable_resource_variables)()


@pytest.mark.parametrize("name,kwargs", CASES, ids=[c[0] for c in CASES])
def test_log_lines_match_tf(name, kwargs):
    got = _log(ref, kwargs)
    assert got and got == _log(_tf(), kwargs)


def test_every_2_by_formula():
    """Steps 1, 3, 5 log (every second run from the first); the later ones carry the time."""
    got = _log(ref, CASES[0][1])
    assert got == ["a = [1.5  2.25], b = b's'"] + ["a = [1.5  2.25], b = b's' (T sec)"] * 2


def test_argument_errors_match_tf():
    for tf in (ref, _tf()):
        with tf.Graph().as_default():
            a = tf.constant(1.0, name="a")
            for kwargs in (dict(tensors={"a": a}), dict(tensors={"a": a}, every_n_iter=1, every_n_secs=1),
                           dict(tensors={"a": a}, every_n_iter=0)):
                with pytest.raises(ValueError):
                    tf.train.LoggingTensorHook(**kwargs)
