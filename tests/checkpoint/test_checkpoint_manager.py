"""tf.train.CheckpointManager (ref/checkpoint/checkpoint_management.py): the
active set, keep_checkpoint_every_n_hours, state recovery, custom numbering,
checkpoint_interval, restore_or_initialize. Oracles: the scenarios of TF's own
checkpoint_management_test.py (expected paths and timestamps written out), and
TF's CheckpointManager reading the state file ref writes."""
import os
import unittest.mock as mock

import pytest

import ref as tf
from ref.checkpoint import checkpoint_management as cm


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s, s.as_default():
        yield s


@pytest.mark.parametrize("max_to_keep,saves,alive", [
    (3, 4, [False, True, True, True]),
    (1, 3, [False, False, True]),
    (None, 3, [True, True, True]),
])
def test_max_to_keep(sess, tmp_path, max_to_keep, saves, alive):
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), max_to_keep=max_to_keep)
    paths = [manager.save() for _ in range(saves)]
    assert paths == [os.path.join(str(tmp_path), "ckpt-%d" % (i + 1)) for i in range(saves)]
    assert [cm.checkpoint_exists(p) for p in paths] == alive
    assert manager.checkpoints == [p for p, a in zip(paths, alive) if a]
    assert manager.latest_checkpoint == paths[-1] == tf.train.latest_checkpoint(str(tmp_path))


def test_state_survives_a_new_manager(sess, tmp_path):
    d = str(tmp_path)
    ckpt = tf.train.Checkpoint()
    first = tf.train.CheckpointManager(ckpt, d, max_to_keep=None)
    p = [first.save() for _ in range(3)]
    second = tf.train.CheckpointManager(ckpt, d, max_to_keep=None)
    p.append(second.save())
    assert second.checkpoints == p
    third = tf.train.CheckpointManager(ckpt, d, max_to_keep=3)
    assert third.checkpoints == p
    p.append(third.save())
    assert third.checkpoints == p[2:]
    assert [cm.checkpoint_exists(x) for x in p] == [False, False, True, True, True]


def test_keep_checkpoint_every_n_hours(sess, tmp_path):
    """TF's testSaveRestoreState: timestamps and last_preserved_timestamp in the state file."""
    d = str(tmp_path)
    ckpt = tf.train.Checkpoint()
    names = [os.path.join(d, "ckpt-%d" % i) for i in range(1, 7)]
    with mock.patch.object(cm, "time") as clock:
        clock.time.return_value = 3.
        first = cm.CheckpointManager(ckpt, d, max_to_keep=2)
        clock.time.return_value = 10000.
        first.save()
        clock.time.return_value = 13610.
        first.save()
        state = cm.get_checkpoint_state(d)
        assert list(state.all_model_checkpoint_timestamps) == [10000., 13610.]
        second = cm.CheckpointManager(ckpt, d, max_to_keep=2, keep_checkpoint_every_n_hours=1.5)
        assert second.checkpoints == names[:2] and second.latest_checkpoint == names[1]
        clock.time.return_value = 13610. + 720.
        second.save()
        assert cm.checkpoint_exists(names[0]) and second.checkpoints == names[1:3]
        assert cm.get_checkpoint_state(d).last_preserved_timestamp == 10000.
        clock.time.return_value += 1800.
        second.save()
        assert cm.checkpoint_exists(names[0]) and not cm.checkpoint_exists(names[1])
        fourth_time = clock.time.return_value
        clock.time.return_value += 1800.
        second.save()
        third = cm.CheckpointManager(ckpt, d, max_to_keep=2, keep_checkpoint_every_n_hours=1.5)
        assert third.latest_checkpoint == names[4]
        clock.time.return_value += 10.
        third.save()
        assert cm.get_checkpoint_state(d).last_preserved_timestamp == fourth_time
        assert [cm.checkpoint_exists(n) for n in names] == [True, False, False, True, True, True]
        assert third.checkpoints == names[4:6]


def test_clock_reset_forgets_active_set(sess, tmp_path):
    d = str(tmp_path)
    ckpt = tf.train.Checkpoint()
    with mock.patch.object(cm, "time") as clock:
        clock.time.return_value = 10000.
        first = cm.CheckpointManager(ckpt, d, max_to_keep=1, keep_checkpoint_every_n_hours=1.)
        p1 = first.save()
        clock.time.return_value += 3600.
        p2 = first.save()
        clock.time.return_value += 3600.
        p3 = first.save()
        assert [cm.checkpoint_exists(p) for p in (p1, p2, p3)] == [False, True, True]
        assert cm.get_checkpoint_state(d).last_preserved_timestamp == 13600.
        clock.time.return_value = 5000.
        second = cm.CheckpointManager(ckpt, d, max_to_keep=1)
        assert second.latest_checkpoint == p3 and second.checkpoints == []
        clock.time.return_value += 10.
        p4 = second.save()
        clock.time.return_value += 10.
        p5 = second.save()
        assert cm.checkpoint_exists(p2) and cm.checkpoint_exists(p3) and not cm.checkpoint_exists(p4)
        state = cm.get_checkpoint_state(d)
        assert second.checkpoints == [p5]
        assert state.last_preserved_timestamp == 5000. and list(state.all_model_checkpoint_timestamps) == [5020.]


def test_custom_numbering_and_name(sess, tmp_path):
    d = str(tmp_path)
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step)
    manager = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
    sess.run(step.initializer)
    inc = step.assign_add(2)
    for i in range(5):
        path = manager.save(checkpoint_number=step)
        assert path.endswith("-%d" % (2 * i))
        sess.run(inc)
    assert sess.run(ckpt.save_counter) == 5
    last = manager.save(checkpoint_number=32)
    assert last == os.path.join(d, "ckpt-32") == tf.train.latest_checkpoint(d)
    assert list(cm.get_checkpoint_state(d).all_model_checkpoint_paths) == [path, last]
    named = tf.train.CheckpointManager(ckpt, d, max_to_keep=2, checkpoint_name="ckpt_name")
    assert os.path.basename(named.save(checkpoint_number=5)) == "ckpt_name-5"


def test_continue_from_unmanaged(sess, tmp_path):
    prefix = os.path.join(str(tmp_path), "unusual_prefix")
    ckpt = tf.train.Checkpoint()
    first, second = ckpt.save(prefix), ckpt.save(prefix)
    ckpt = tf.train.Checkpoint()
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    ckpt.restore(manager.latest_checkpoint).run_restore_ops()
    assert sess.run(ckpt.save_counter) == 2
    third, fourth, fifth = manager.save(), manager.save(), manager.save()
    assert manager.checkpoints == [fourth, fifth]
    assert [cm.checkpoint_exists(p) for p in (first, second, third)] == [True, True, False]


@pytest.mark.parametrize("last_step,steps,check,expect_saved", [
    (None, [0, 1, 2, 2, 3, 3], [True] * 5 + [False], [True, False, True, False, False, True]),
    (1, [1, 2, 3], [True] * 3, [False, False, True]),
])
def test_checkpoint_interval(sess, tmp_path, last_step, steps, check, expect_saved):
    v = tf.Variable(1.0)
    counter = tf.Variable(0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), max_to_keep=None,
                                         step_counter=counter, checkpoint_interval=2,
                                         last_checkpoint_step=last_step)
    sess.run(v.initializer)
    saved = []
    for step, c in zip(steps, check):
        sess.run(counter.assign(step))
        path = manager.save(check_interval=c)
        saved.append(path is not None)
        assert path is None or cm.checkpoint_exists(path)
    assert saved == expect_saved


def test_checkpoint_interval_needs_step_counter(tmp_path):
    with pytest.raises(ValueError, match="step_counter"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), max_to_keep=1, checkpoint_interval=2)
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), max_to_keep=0)


def test_restore_or_initialize(sess, tmp_path):
    init_v = tf.Variable(2.0)
    sess.run(init_v.initializer)
    init_path = tf.train.Checkpoint(v=init_v).save(os.path.join(str(tmp_path), "init"))
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, tmp_path / "ckpt", max_to_keep=None,
                                         init_fn=lambda: ckpt.restore(init_path).run_restore_ops())
    sess.run(v.initializer)
    assert manager.restore_or_initialize() is None
    assert sess.run(v) == 2.0
    saved = manager.save()
    assert saved == str(tmp_path / "ckpt" / "ckpt-2")
    sess.run(v.assign(5.0))
    assert manager.restore_or_initialize() == saved
    assert sess.run(v) == 2.0


def test_tf_reads_the_state(sess, tmp_path):
    """TF's own CheckpointManager takes over the directory ref's manager wrote."""
    tf2 = pytest.importorskip("tensorflow")
    d = str(tmp_path)
    with mock.patch.object(cm, "time") as clock:
        clock.time.return_value = 1000.
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(), d, max_to_keep=2)
        manager.save()
        clock.time.return_value = 2000.
        manager.save()
    theirs = tf2.train.CheckpointManager(tf2.train.Checkpoint(), d, max_to_keep=2)
    assert theirs.checkpoints == manager.checkpoints
    assert theirs.latest_checkpoint == manager.latest_checkpoint
    state = tf2.train.get_checkpoint_state(d)
    assert list(state.all_model_checkpoint_timestamps) == [1000., 2000.]
