"""``CheckpointManager`` across a clock reset, and the state file's
``all_model_checkpoint_paths`` (issue 26; TF's checkpoint_management_test
``testClockReset`` and ``testKeepAll``). The clock is the module's
``time.time``, patched; each step records what the manager and the
``checkpoint`` state file say. The expected trace is TF's, checked against TF
itself where it is installed.
"""
from __future__ import annotations

import os
from unittest import mock

import pytest

import ref


def _clock_reset(cm, checkpoint, exists, state, d, clock):
    """TF's testClockReset: keep_checkpoint_every_n_hours preserves ckpt-2, then the clock goes back."""
    trace = []
    names = lambda paths: [os.path.basename(p) for p in paths]  # noqa: E731

    def record(tag, manager):
        st = state(d)
        trace.append((tag, names(manager.checkpoints), os.path.basename(manager.latest_checkpoint or ""),
                      names(st.all_model_checkpoint_paths), list(st.all_model_checkpoint_timestamps),
                      st.last_preserved_timestamp, [exists(os.path.join(d, f"ckpt-{i}")) for i in range(1, 6)]))

    clock.time.return_value = 10000.
    first = cm.CheckpointManager(checkpoint, d, max_to_keep=1, keep_checkpoint_every_n_hours=1.)
    for _ in range(3):
        first.save()
        record("first", first)
        clock.time.return_value += 3600.
    clock.time.return_value = 5000.  # back in time
    second = cm.CheckpointManager(checkpoint, d, max_to_keep=1)
    record("reset", second)
    for _ in range(2):
        clock.time.return_value += 10.
        second.save()
        record("second", second)
    third = cm.CheckpointManager(checkpoint, d, max_to_keep=None)
    record("keep_all", third)
    clock.time.return_value += 10.
    third.save()
    record("keep_all_saved", third)
    return trace


F, T = False, True
EXPECTED = [
    ("first", ["ckpt-1"], "ckpt-1", ["ckpt-1"], [10000.0], 9999.0, [T, F, F, F, F]),
    ("first", ["ckpt-2"], "ckpt-2", ["ckpt-2"], [13600.0], 9999.0, [F, T, F, F, F]),
    ("first", ["ckpt-3"], "ckpt-3", ["ckpt-3"], [17200.0], 13600.0, [F, T, T, F, F]),
    ("reset", [], "ckpt-3", ["ckpt-3"], [17200.0], 13600.0, [F, T, T, F, F]),
    ("second", ["ckpt-4"], "ckpt-4", ["ckpt-4"], [5010.0], 5000.0, [F, T, T, T, F]),
    ("second", ["ckpt-5"], "ckpt-5", ["ckpt-5"], [5020.0], 5000.0, [F, T, T, F, T]),
    ("keep_all", ["ckpt-5"], "ckpt-5", ["ckpt-5"], [5020.0], 5000.0, [F, T, T, F, T]),
    ("keep_all_saved", ["ckpt-5", "ckpt-6"], "ckpt-6", ["ckpt-5", "ckpt-6"], [5020.0, 5030.0], 5000.0,
     [F, T, T, F, T]),
]


def test_clock_reset_and_all_model_checkpoint_paths(tmp_path):
    from ref.checkpoint import checkpoint_management as cm
    from ref.formats.checkpoint_state import checkpoint_exists, get_checkpoint_state
    with ref.Graph().as_default(), ref.Session() as sess, sess.as_default():
        checkpoint = ref.train.Checkpoint(v=ref.Variable(1.0))
        sess.run(ref.global_variables_initializer())
        with mock.patch.object(cm, "time") as clock:
            trace = _clock_reset(cm, checkpoint, checkpoint_exists, get_checkpoint_state, str(tmp_path), clock)
    assert trace == EXPECTED


def test_expected_trace_is_tfs(tmp_path):
    pytest.importorskip("tensorflow")
    from tensorflow.python.checkpoint import checkpoint as util
    from tensorflow.python.checkpoint import checkpoint_management as cm
    from tensorflow.python.training import checkpoint_management as tcm
    with mock.patch.object(cm, "time") as clock:
        trace = _clock_reset(cm, util.Checkpoint(), tcm.checkpoint_exists, tcm.get_checkpoint_state,
                             str(tmp_path), clock)
    assert trace == EXPECTED
