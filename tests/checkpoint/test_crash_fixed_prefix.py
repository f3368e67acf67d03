"""Crash safety of Saver.save to a fixed prefix (ref/checkpoint/saver.py,
ref/formats/checkpoint_state.py): a child process saving over ``dir/model`` is
killed before each of its filesystem steps in turn (deterministically: the
child counts its open-for-write/replace/link/remove/fsync/mkdir calls and
``os._exit``s at step k), then at random moments (SIGKILL). After every kill,
``latest_checkpoint`` names a complete checkpoint -- the old one or the new one
-- whose values, index and meta graph agree."""
import builtins
import os
import random
import shutil
import signal
import time

import numpy as np
import pytest

import ref as tf
from ref.checkpoint import latest_checkpoint
from ref.checkpoint.saver import Saver
from ref.checkpoint.meta_graph import read_meta_graph_file

N = 1 << 14
KILLED = 17
_STEPS = ("replace", "rename", "link", "remove", "unlink", "fsync", "mkdir", "makedirs", "rmdir")


def _graph(max_to_keep):
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.zeros(N, np.float32), name="a")
        b = tf.Variable(np.zeros(N // 2, np.float32), name="b")
        step = tf.placeholder(tf.float32, [], name="step")
        fill = tf.group(a.assign(tf.fill([N], step)), b.assign(tf.fill([N // 2], -step)))
        saver = Saver(max_to_keep=max_to_keep)
    return g, a, b, step, fill, saver


def _save(g, sess, fill, step, saver, prefix, k, global_step=None):
    """Saves value ``k``; the meta graph's collection ``tag`` holds ``k`` too."""
    sess.run(fill, {step: float(k)})
    g.clear_collection("tag")
    g.add_to_collection("tag", int(k))
    return saver.save(sess, prefix, global_step=global_step)


def _install_kill_at(k):
    """Counts filesystem steps in this (child) process; exits before step ``k``."""
    count = [0]

    def tick():
        if count[0] == k:
            os._exit(KILLED)
        count[0] += 1

    def wrap(fn):
        def hooked(*args, **kwargs):
            tick()
            return fn(*args, **kwargs)
        return hooked

    for name in _STEPS:
        setattr(os, name, wrap(getattr(os, name)))
    real_open = builtins.open

    def open_(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+"):
            tick()
        return real_open(file, mode, *args, **kwargs)

    builtins.open = open_


def _check(directory, allowed):
    """latest_checkpoint restores to one of ``allowed`` with a matching meta graph;
    returns the value."""
    latest = latest_checkpoint(directory)
    assert latest is not None, os.listdir(directory)
    assert "tempstate" not in latest  # never a staging prefix, not even after a crash mid-publish
    assert "tempstate" not in open(os.path.join(directory, "checkpoint")).read()
    g, a, b, step, fill, saver = _graph(5)
    with g.as_default(), tf.Session() as sess:
        saver.restore(sess, latest)
        av, bv = sess.run([a, b])
    k = float(av[0])
    assert k in allowed, (k, allowed)
    np.testing.assert_array_equal(av, np.full(N, k, np.float32))
    np.testing.assert_array_equal(bv, np.full(N // 2, -k, np.float32))
    meta = read_meta_graph_file(latest + ".meta")
    assert list(meta.collection_def["tag"].int64_list.value) == [int(k)]
    return k


def _fork(body):
    pid = os.fork()
    if pid == 0:
        try:
            body()
            os._exit(0)
        finally:
            os._exit(1)
    return pid


@pytest.mark.parametrize("max_to_keep,numbered", [(5, False), (1, False), (1, True)],
                         ids=["fixed", "fixed-keep1", "global_step-keep1"])
def test_kill_before_every_filesystem_step_of_a_fixed_prefix_save(tmp_path, max_to_keep, numbered):
    """``numbered``: ``save(..., global_step=k)`` (new prefixes, the old one
    rotated away by max_to_keep=1) instead of saving over ``dir/model``."""
    directory = str(tmp_path)
    prefix = os.path.join(directory, "model")

    def first():
        g, a, b, step, fill, saver = _graph(max_to_keep)
        with g.as_default(), tf.Session() as sess:
            _save(g, sess, fill, step, saver, prefix, 1, global_step=1 if numbered else None)

    pid = _fork(first)
    assert os.waitpid(pid, 0)[1] == 0
    assert _check(directory, {1.0}) == 1.0
    outcomes = []
    for k in range(200):
        def second(k=k):
            g, a, b, step, fill, saver = _graph(max_to_keep)
            with g.as_default(), tf.Session() as sess:
                saver.restore(sess, latest_checkpoint(directory))  # a trainer restarting
                saver.recover_last_checkpoints([latest_checkpoint(directory)])
                _install_kill_at(k)
                _save(g, sess, fill, step, saver, prefix, 2, global_step=2 if numbered else None)

        pid = _fork(second)
        status = os.waitpid(pid, 0)[1]
        assert os.WIFEXITED(status), status
        code = os.WEXITSTATUS(status)
        assert code in (0, KILLED), code
        value = _check(directory, {1.0, 2.0})
        outcomes.append(value)
        # the name a restarted trainer parses: same base name (and step) as the saved prefix
        expected = f"model-{int(value)}" if numbered else "model"
        assert os.path.basename(latest_checkpoint(directory)) == expected
        if code == 0:
            assert value == 2.0
            break
        # put the old checkpoint back for the next kill point
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        pid = _fork(first)
        assert os.waitpid(pid, 0)[1] == 0
        assert _check(directory, {1.0}) == 1.0
    else:
        pytest.fail("the save never completed")
    assert len(outcomes) > 8  # the save has many steps, and each one was a kill point
    assert 1.0 in outcomes and 2.0 in outcomes


def test_random_kills_while_saving_to_a_fixed_prefix(tmp_path):
    directory = str(tmp_path)
    prefix = os.path.join(directory, "model")
    rng = random.Random(4321)

    def first():
        g, a, b, step, fill, saver = _graph(2)
        with g.as_default(), tf.Session() as sess:
            _save(g, sess, fill, step, saver, prefix, 1)

    pid = _fork(first)
    assert os.waitpid(pid, 0)[1] == 0
    start, values = 2, [1.0]
    for _ in range(15):
        def saving_forever(start=start):
            g, a, b, step, fill, saver = _graph(2)
            with g.as_default(), tf.Session() as sess:
                k = start
                while True:
                    _save(g, sess, fill, step, saver, prefix, k)
                    k += 1

        pid = _fork(saving_forever)
        time.sleep(rng.uniform(0.3, 1.5))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        k = _check(directory, set(float(x) for x in range(1, 100000)))
        assert k >= values[-1]
        values.append(k)
        start = int(k) + 1


def test_staging_files_are_gone_after_a_completed_save(tmp_path):
    prefix = str(tmp_path / "model")
    g, a, b, step, fill, saver = _graph(5)
    with g.as_default(), tf.Session() as sess:
        for k in (1, 2, 3):
            assert _save(g, sess, fill, step, saver, prefix, k) == prefix
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.data-00000-of-00001", "model.index", "model.meta"]
    assert _check(str(tmp_path), {3.0}) == 3.0
    state = (tmp_path / "checkpoint").read_text()
    assert "tempstate" not in state


def test_same_values_save_to_identical_bytes(tmp_path):
    """Determinism: a checkpoint's data and index are a function of the values
    (no timestamps, no random names inside the files)."""
    blobs = []
    for run in ("one", "two"):
        g, a, b, step, fill, saver = _graph(5)
        with g.as_default(), tf.Session() as sess:
            prefix = _save(g, sess, fill, step, saver, str(tmp_path / run / "model"), 5)
            _save(g, sess, fill, step, saver, prefix, 5)  # and again over the fixed prefix
        blobs.append([open(prefix + s, "rb").read() for s in (".index", ".data-00000-of-00001")])
    assert blobs[0] == blobs[1]
