"""Durability of Saver.save (ref/checkpoint/saver.py, bundle.py): a process
killed (SIGKILL at each named crash point in turn) while saving leaves ``latest_checkpoint`` naming a
complete checkpoint with the values of its step; corrupt files raise
DataLossError naming the file, never wrong values; reading never unpickles."""
import os
import pickle
import shutil
import signal

import numpy as np
import pytest

import ref as tf
from ref.types import errors
from ref.checkpoint import latest_checkpoint
from ref.checkpoint.meta_graph import read_meta_graph_file
from ref.checkpoint.saver import Saver
from ref.formats.checkpoint_state import checkpoint_exists, crash_point, get_checkpoint_state

N = 1 << 12
OLD, NEW = 1.0, 2.0


def _graph(max_to_keep=3):
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.zeros(N, np.float32), name="a")
        b = tf.Variable(np.zeros(N // 2, np.float32), name="b")
        step = tf.placeholder(tf.float32, [], name="step")
        fill = tf.group(a.assign(tf.fill([N], step)), b.assign(tf.fill([N // 2], -step)))
        saver = Saver(max_to_keep=max_to_keep)
    return g, a, b, step, fill, saver


# (how the second save is made, the name it publishes): every save of step k holds
# a == k, b == -k, and the meta graph's collection "tag" == [k].
SCENARIOS = {
    "fixed_prefix": (dict(global_step=None), dict(global_step=None)),
    "same_step_again": (dict(global_step=7), dict(global_step=7)),
    "new_step_rotating": (dict(global_step=1), dict(global_step=2)),
}


def _save(directory, k, max_to_keep, global_step):
    g, a, b, step, fill, saver = _graph(max_to_keep)
    with g.as_default(), tf.Session() as sess:
        latest = latest_checkpoint(directory)
        if latest:  # a trainer restarting
            saver.restore(sess, latest)
            saver.recover_last_checkpoints([latest])
        sess.run(fill, {step: k})
        g.add_to_collection("tag", int(k))
        saver.save(sess, os.path.join(directory, "model"), global_step=global_step)


def _in_child(body):
    pid = os.fork()
    if pid == 0:  # never returns to pytest
        try:
            body()
            os._exit(0)
        finally:
            os._exit(1)
    return os.waitpid(pid, 0)[1]


def _names_staging(directory):
    path = os.path.join(directory, "checkpoint")
    return os.path.exists(path) and "tempstate" in open(path).read()


def _crash_points(directory, kwargs):
    """The crash points a save passes, in order; the state file is checked at each."""
    seen = []

    def hook(name):
        seen.append(name)
        assert not _names_staging(directory), name
        return False

    def body():
        crash_point.hook = hook
        _save(directory, NEW, 1, **kwargs)
        open(os.path.join(directory, "points"), "w").write("\n".join(seen))

    assert _in_child(body) == 0
    points = open(os.path.join(directory, "points")).read().split("\n")
    os.remove(os.path.join(directory, "points"))
    return points


def _check(directory):
    """The value latest_checkpoint restores, after checking it names no staging
    prefix and that its data, index and meta graph agree."""
    latest = latest_checkpoint(directory)
    assert latest is not None and "tempstate" not in latest, latest
    state = get_checkpoint_state(directory)
    assert not [p for p in state.all_model_checkpoint_paths if "tempstate" in p]
    assert not _names_staging(directory)
    assert checkpoint_exists(latest)
    g, a, b, step, fill, saver = _graph()
    with g.as_default(), tf.Session() as sess:
        saver.restore(sess, latest)
        av, bv = sess.run([a, b])
    k = float(av[0])
    np.testing.assert_array_equal(av, np.full(N, k, np.float32))
    np.testing.assert_array_equal(bv, np.full(N // 2, -k, np.float32))
    assert list(read_meta_graph_file(latest + ".meta").collection_def["tag"].int64_list.value) == [int(k)]
    return k


def _reset(directory, first):
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    assert _in_child(lambda: _save(directory, OLD, 1, **first)) == 0


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_kill_at_every_crash_point_leaves_old_or_new_checkpoint(tmp_path, scenario):
    """Deterministic kill -9 (SIGKILL from a named crash point, no timing): at
    each step of the second save in turn; afterwards the state file names no
    staging prefix and latest_checkpoint restores the old or the new values."""
    directory = str(tmp_path)
    first, second = SCENARIOS[scenario]
    _reset(directory, first)
    points = _crash_points(directory, second)
    assert _check(directory) == NEW
    assert len(points) >= 4, points
    if scenario != "new_step_rotating":
        assert {"commit_staging", "publish_rename", "discard_staging"} <= set(points)
    outcomes = []
    for i in range(len(points)):
        _reset(directory, first)

        def body(i=i):
            calls = iter(range(len(points)))
            crash_point.hook = lambda name: next(calls) == i
            _save(directory, NEW, 1, **second)

        status = _in_child(body)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (points[i], status)
        outcomes.append(_check(directory))
    assert outcomes[0] == OLD and OLD in outcomes
    assert outcomes == sorted(outcomes)  # old until the commit (or the state file), new after


# the fixed-prefix save's atomic renames: meta graph, commit mark, state file
@pytest.mark.parametrize("point,committed", [("commit_staging", False), ("atomic_rename#2", False),
                                             ("publish_rename#2", True), ("atomic_rename#3", True),
                                             ("discard_staging", True)])
def test_ref_crash_at_environment_variable(tmp_path, point, committed):
    """``REF_CRASH_AT=name[#n]`` kills the saving process at that crash point."""
    directory = str(tmp_path)
    _reset(directory, SCENARIOS["fixed_prefix"][0])

    def body():
        os.environ["REF_CRASH_AT"] = point
        _save(directory, NEW, 1, global_step=None)

    status = _in_child(body)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert _check(directory) == (NEW if committed else OLD)
    staging_dirs = [f for f in os.listdir(directory) if os.path.isdir(os.path.join(directory, f))]
    # the reader finished the publish; an uncommitted staging directory stays, unused
    assert len(staging_dirs) == (0 if committed else 1), staging_dirs


def _saved(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.arange(1000, dtype=np.float32), name="a")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)


def _truncate(path, keep):
    with open(path, "r+b") as f:
        f.truncate(keep(os.path.getsize(path)))


def _flip(path, where):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[where(len(data))] ^= 0x10
        f.seek(0)
        f.write(data)


CORRUPTIONS = [
    ("data_truncated", ".data-00000-of-00001", lambda p: _truncate(p, lambda n: n // 2)),
    ("data_bit_flip", ".data-00000-of-00001", lambda p: _flip(p, lambda n: n // 3)),
    ("data_last_byte_flip", ".data-00000-of-00001", lambda p: _flip(p, lambda n: n - 1)),
    ("index_truncated", ".index", lambda p: _truncate(p, lambda n: n - 10)),
    ("index_bit_flip", ".index", lambda p: _flip(p, lambda n: 5)),
    ("index_footer_flip", ".index", lambda p: _flip(p, lambda n: n - 3)),
]


@pytest.mark.parametrize("case,suffix,corrupt", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_corrupt_checkpoint_raises_data_loss_naming_the_file(tmp_path, case, suffix, corrupt):
    path = _saved(tmp_path)
    corrupt(path + suffix)
    with tf.Graph().as_default():
        tf.Variable(np.zeros(1000, np.float32), name="a")
        with tf.Session() as sess:
            with pytest.raises(errors.DataLossError) as info:
                Saver().restore(sess, path)
    assert os.path.basename(path + suffix) in str(info.value)


def test_restore_never_unpickles(tmp_path, monkeypatch):
    path = _saved(tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("checkpoint reading must not unpickle")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(np, "load", refuse)
    with tf.Graph().as_default():
        a = tf.Variable(np.zeros(1000, np.float32), name="a")
        with tf.Session() as sess:
            Saver().restore(sess, path)
            np.testing.assert_array_equal(sess.run(a), np.arange(1000, dtype=np.float32))


def test_fsync_saver_writes_the_same_checkpoint(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.arange(10, dtype=np.float32), name="a")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            p1 = Saver(fsync=True).save(sess, str(tmp_path / "x" / "m"), global_step=1)
            p2 = Saver().save(sess, str(tmp_path / "y" / "m"), global_step=1)
    for suffix in (".index", ".data-00000-of-00001"):
        assert open(p1 + suffix, "rb").read() == open(p2 + suffix, "rb").read()
    assert latest_checkpoint(str(tmp_path / "x")) == p1
    assert not [f for f in os.listdir(tmp_path / "x") if "tmp" in f or "tempstate" in f]
