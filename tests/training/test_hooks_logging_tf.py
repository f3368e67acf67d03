"""Hook log calls a test (or a user) can intercept, against TF: StepCounterHook's
stale-global-step warning goes through ``tf_logging.log_first_n(WARN, ..., 5, ...)``,
FinalOpsHook's OutOfRange warning through ``tf_logging.warning``."""
from unittest import mock

import pytest

from ref.training import hooks as _under_test  # noqa: F401  (the module these tests cover)
from ref.platform import tf_logging as ref_logging
import ref


def _stale_step(lib):
    with lib.Graph().as_default(), lib.Session() as sess:
        step = lib.train.get_or_create_global_step()
        train_op = lib.assign_add(step, 0)  # the step never moves
        sess.run(lib.global_variables_initializer())
        hook = lib.train.StepCounterHook(every_n_steps=1, every_n_secs=None)
        hook.begin()
        with lib.train.MonitoredSession(hooks=[hook]) as mon:
            for _ in range(3):
                mon.run(train_op)
        return hook


def _final_ops_out_of_range(lib):
    with lib.Graph().as_default():
        it = lib.data.make_one_shot_iterator(lib.data.Dataset.range(1))
        read = it.get_next()
        hook = lib.train.FinalOpsHook(read)
        hook.begin()
        with lib.Session() as sess:
            sess.run(read)
            with pytest.raises(lib.errors.OutOfRangeError):
                hook.end(sess)


# (id, scenario, logging function patched, what the call carries)
ROWS = [
    ("step-counter-stale", _stale_step, "log_first_n",
     lambda call: (call.args[0], "has not been increased" in call.args[1], call.args[2])),
    ("final-ops-out-of-range", _final_ops_out_of_range, "warning",
     lambda call: "dependency back to some input source" in call.args[0]),
]


@pytest.mark.parametrize("rid,scenario,fn,summary", ROWS, ids=[r[0] for r in ROWS])
def test_log_calls_match_tf(rid, scenario, fn, summary):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.platform import tf_logging as tf_logging
    seen = []
    for lib, logging in ((tf.compat.v1, tf_logging), (ref, ref_logging)):
        with mock.patch.object(logging, fn) as patched:
            scenario(lib)
        assert patched.call_args is not None, f"{lib.__name__}: no {fn} call"
        seen.append(summary(patched.call_args))
    assert seen[0] == seen[1]
