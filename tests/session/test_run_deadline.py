"""Session.run's deadline for blocking kernels: RunOptions.timeout_in_ms and
ConfigProto.operation_timeout_in_ms, against TF's local session."""
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import ref as rtf  # noqa: E402
from ref.session import session as _under_test  # noqa: F401  (the module these tests cover)


def _build(tf, kind):
    if kind == "dequeue":
        q = tf.FIFOQueue(2, tf.float32)
        return [q.dequeue()], []
    acc = tf.ConditionalAccumulator(tf.float32, shape=())
    return [acc.take_grad(2)], [acc.apply_grad(np.float32(2.0))]


def _outcome(tf, kind, config=None, options=None):
    with tf.Graph().as_default(), tf.Session(config=config) as sess:
        blocked, feed = _build(tf, kind)
        for op in feed:
            sess.run(op)
        try:
            sess.run(blocked, options=options)
        except tf.errors.OpError as e:
            return type(e).__name__, e
        return "ran", None


@pytest.mark.parametrize("kind", ["dequeue", "take_grad"])
@pytest.mark.parametrize("where", ["options", "config"])
def test_blocking_kernels_time_out_like_tf(kind, where):
    tf = pytest.importorskip("tensorflow").compat.v1
    results = []
    for lib in (tf, rtf):
        config = lib.ConfigProto(operation_timeout_in_ms=300) if where == "config" else None
        options = lib.RunOptions(timeout_in_ms=300) if where == "options" else None
        results.append(_outcome(lib, kind, config, options))
    (theirs, _), (ours, error) = results
    assert ours == theirs == "DeadlineExceededError"
    assert "waited" in str(error) and ("1 of 2 gradients" in str(error) if kind == "take_grad"
                                       else "holds 0 element(s)" in str(error))


def test_a_run_that_does_not_block_is_untouched():
    with rtf.Graph().as_default(), rtf.Session(config=rtf.ConfigProto(operation_timeout_in_ms=10000)) as sess:
        q = rtf.FIFOQueue(50, rtf.int32, shapes=[()])
        enqueue = q.enqueue_many(rtf.constant([1, 2]))
        for _ in range(5):
            sess.run(enqueue)
        assert sess.run(q.size()) == 10
