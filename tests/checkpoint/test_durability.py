"""Durability of Saver.save (ref/checkpoint/saver.py, bundle.py): a process
killed at any moment while saving leaves ``latest_checkpoint`` naming a
complete checkpoint with the values of its step; corrupt files raise
DataLossError naming the file, never wrong values; reading never unpickles."""
import os
import pickle
import random
import re
import signal
import time

import numpy as np
import pytest

import ref as tf
from ref.types import errors
from ref.checkpoint import latest_checkpoint
from ref.checkpoint.saver import Saver

N = 1 << 20  # 4 MiB per variable, so a save takes long enough to be interrupted


def _graph():
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.zeros(N, np.float32), name="a")
        b = tf.Variable(np.zeros(N // 2, np.float32), name="b")
        step = tf.placeholder(tf.float32, [], name="step")
        fill = tf.group(a.assign(tf.fill([N], step)), b.assign(tf.fill([N // 2], -step)))
        saver = Saver(max_to_keep=3)
    return g, a, b, step, fill, saver


def _child(directory, start):
    """Saves forever: step k holds a == k, b == -k everywhere."""
    g, a, b, step, fill, saver = _graph()
    with g.as_default(), tf.Session() as sess:
        k = start
        while True:
            sess.run(fill, {step: float(k)})
            saver.save(sess, os.path.join(directory, "model"), global_step=k)
            k += 1


def test_kill_during_save_leaves_latest_checkpoint_restorable(tmp_path):
    directory = str(tmp_path)
    g, a, b, step, fill, saver = _graph()
    rng = random.Random(1234)
    start, kills, restored_steps = 1, 20, []
    with g.as_default(), tf.Session() as sess:
        for _ in range(kills):
            pid = os.fork()
            if pid == 0:  # child: never returns to pytest
                try:
                    _child(directory, start)
                finally:
                    os._exit(1)
            time.sleep(rng.uniform(0.02, 0.25))
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            latest = latest_checkpoint(directory)
            if latest is None:  # killed before the first save completed
                continue
            k = int(latest.rsplit("-", 1)[1])
            saver.restore(sess, latest)
            got_a, got_b = sess.run([a, b])
            assert np.all(got_a == k) and np.all(got_b == -k), latest
            restored_steps.append(k)
            start = k + 1
    assert len(restored_steps) >= kills // 2
    assert restored_steps == sorted(restored_steps)


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
