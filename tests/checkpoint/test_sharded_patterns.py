"""Sharded ``Saver`` checkpoints named by shard patterns (issue 26; TF's
saver_test ``_testShardedSaver``): a V1 sharded save returns
``prefix-?????-of-0000n`` and restores from that, from one shard
``prefix-0000k-of-0000n`` (that shard's variables) and from
``prefix-?????-of-?????``; a V2 sharded save is its prefix. Compared with TF
where it is installed.
"""
from __future__ import annotations

import os

import pytest

import ref
from ref.checkpoint import saver as _under_test  # noqa: F401  (the module these tests cover)
from ref.protos import saver_pb2

V1, V2 = saver_pb2.SaverDef.V1, saver_pb2.SaverDef.V2

# (write version, the path restore is given (relative to the save prefix), variables restored, values)
ROWS = [
    (V1, "-?????-of-00002", ("v0", "v1"), (10, 20)),
    (V1, "-?????-of-?????", ("v0", "v1"), (10, 20)),
    (V1, "-00000-of-00002", ("v0",), (10,)),
    (V1, "-00001-of-00002", ("v1",), (20,)),
    (V2, "", ("v0", "v1"), (10, 20)),
]


def _save_and_restore(tf, tmp_path, version, suffix, names, config=None):
    prefix = os.path.join(str(tmp_path), "sharded_basics")
    with tf.Graph().as_default(), tf.Session(config=config) as sess:
        with tf.device("/cpu:0"):
            v0 = tf.Variable(10, name="v0")
        with tf.device("/cpu:1"):
            v1 = tf.Variable(20, name="v1")
        saver = tf.train.Saver({"v0": v0, "v1": v1}, write_version=version, sharded=True)
        sess.run(tf.global_variables_initializer())
        saved = saver.save(sess, prefix)
        latest = tf.train.latest_checkpoint(str(tmp_path))
    with tf.Graph().as_default(), tf.Session(config=config) as sess:
        with tf.device("/cpu:0"):
            v0 = tf.Variable(111, name="v0")
        with tf.device("/cpu:1"):
            v1 = tf.Variable(222, name="v1")
        variables = {"v0": v0, "v1": v1}
        saver = tf.train.Saver({n: variables[n] for n in names}, write_version=version, sharded=True)
        saver.restore(sess, prefix + suffix)
        values = tuple(int(sess.run(variables[n])) for n in names)
    return saved[len(prefix):], latest[len(prefix):], values


@pytest.mark.parametrize("version,suffix,names,values", ROWS, ids=[f"v{r[0]}{r[1]}" for r in ROWS])
def test_sharded_save_and_restore_by_pattern(tmp_path, version, suffix, names, values):
    saved, latest, got = _save_and_restore(ref, tmp_path, version, suffix, names)
    assert saved == latest == ("-?????-of-00002" if version == V1 else "")
    assert got == values


@pytest.mark.parametrize("version,suffix,names,values", ROWS, ids=[f"v{r[0]}{r[1]}" for r in ROWS])
def test_rows_match_tf(tmp_path, version, suffix, names, values):
    tf = pytest.importorskip("tensorflow").compat.v1
    config = tf.ConfigProto(device_count={"CPU": 2})
    saved, latest, got = _save_and_restore(tf, tmp_path, version, suffix, names, config)
    assert saved == latest == ("-?????-of-00002" if version == V1 else "")
    assert got == values
