"""Checkpoint names and state files that try to mislead the Saver
(ref/formats/checkpoint_state.py, ref/checkpoint/saver.py): glob characters in
names are literal; a state file naming files outside its directory never makes
training delete them; a damaged state file is reported, not silently ignored;
a save under a regular file is TF's ValueError."""
import logging
import os

import numpy as np
import pytest

import ref as tf
from ref.checkpoint import get_checkpoint_state, latest_checkpoint
from ref.checkpoint.saver import Saver
from ref.formats import checkpoint_state as state

# (name, a neighbour the name matches when taken as a glob pattern)
GLOB_NAMES = [("star*", "starfish"), ("question?", "questionA"), ("bracket[1]", "bracket1"),
              ("both[ab]*?", "bothaXY")]


def _session_with_variable(value):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.float32(value), name="v")
    sess = tf.Session(graph=g)
    sess.run(v.initializer)
    return g, v, sess


def _files(directory):
    return sorted(os.listdir(directory))


@pytest.mark.parametrize("name,neighbour", GLOB_NAMES, ids=[n for n, _ in GLOB_NAMES])
def test_glob_characters_in_names_are_literal(tmp_path, name, neighbour):
    d = str(tmp_path)
    g, v, sess = _session_with_variable(7.0)
    with g.as_default():
        other = Saver(max_to_keep=0)
        for step in (1, 2):  # the neighbour's checkpoints, in its own state file
            other.save(sess, os.path.join(d, neighbour), global_step=step, latest_filename="other_state")
        neighbour_files = [f for f in _files(d) if f.startswith(neighbour)]
        assert len(neighbour_files) == 6
        saver = Saver(max_to_keep=1)
        for step in (1, 2, 3):
            saver.save(sess, os.path.join(d, name), global_step=step)
        for _ in range(2):  # a fixed prefix, saved over
            saver.save(sess, os.path.join(d, name))
    assert [f for f in _files(d) if f.startswith(neighbour)] == neighbour_files
    assert latest_checkpoint(d) == os.path.join(d, name)
    assert state.checkpoint_exists(os.path.join(d, name))
    assert not state.checkpoint_exists(os.path.join(d, name) + "-1")  # rotated away
    assert state.checkpoint_exists(os.path.join(d, neighbour) + "-1")
    assert len(state.get_checkpoint_mtimes([os.path.join(d, name)])) == 1
    mine = [f for f in _files(d) if f.startswith(name)]
    assert sorted(mine) == sorted(name + s for s in (".data-00000-of-00001", ".index", ".meta"))
    with g.as_default():
        sess.run(v.assign(0.0))
        Saver().restore(sess, latest_checkpoint(d))
        assert sess.run(v) == 7.0


def test_remove_checkpoint_with_glob_characters_leaves_neighbours(tmp_path):
    for f in ("a[1].index", "a1.index", "a[1].data-00000-of-00001", "a1.data-00000-of-00001", "a1.meta",
              "a[1].meta"):
        (tmp_path / f).write_bytes(b"x")
    state.remove_checkpoint(str(tmp_path / "a[1]"))
    assert _files(tmp_path) == ["a1.data-00000-of-00001", "a1.index", "a1.meta"]


def _victim(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    files = {}
    for suffix in (".index", ".data-00000-of-00001", ".meta"):
        p = outside / ("victim" + suffix)
        p.write_bytes(b"precious")
        files[p] = b"precious"
    return files


def test_state_file_pointing_outside_never_deletes_there(tmp_path, caplog):
    files = _victim(tmp_path)
    ckpt_dir = tmp_path / "ckpt"
    ckpt_dir.mkdir()
    g, v, sess = _session_with_variable(1.0)
    with g.as_default():
        Saver().save(sess, str(ckpt_dir / "model"), global_step=0)
    (ckpt_dir / "checkpoint").write_text(
        'model_checkpoint_path: "model-0"\n'
        'all_model_checkpoint_paths: "../outside/victim"\n'
        'all_model_checkpoint_paths: "model-0"\n')
    with caplog.at_level(logging.WARNING, logger="ref.checkpoint"):
        ckpt = get_checkpoint_state(str(ckpt_dir))
        assert any("outside" in r.getMessage() and "victim" in r.getMessage() for r in caplog.records)
        with g.as_default():
            saver = Saver(max_to_keep=1)
            saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
            for step in (1, 2, 3):
                saver.save(sess, str(ckpt_dir / "model"), global_step=step)
    for p, content in files.items():
        assert p.read_bytes() == content
    assert latest_checkpoint(str(ckpt_dir)) == str(ckpt_dir / "model-3")
    assert not state.checkpoint_exists(str(ckpt_dir / "model-1"))  # inside: rotated as usual


def test_monitored_training_session_never_deletes_outside(tmp_path):
    files = _victim(tmp_path)
    ckpt_dir = tmp_path / "ckpt"
    ckpt_dir.mkdir()
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        train = tf.assign_add(gs, 1)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(ckpt_dir), save_checkpoint_steps=1,
                                               save_summaries_steps=None, save_summaries_secs=None,
                                               log_step_count_steps=None) as sess:
            sess.run(train)
    good = latest_checkpoint(str(ckpt_dir))
    assert good is not None
    rel = os.path.basename(good)
    (ckpt_dir / "checkpoint").write_text(
        f'model_checkpoint_path: "{rel}"\n'
        'all_model_checkpoint_paths: "../outside/victim"\n'
        f'all_model_checkpoint_paths: "{rel}"\n')
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        train = tf.assign_add(gs, 1)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(ckpt_dir), save_checkpoint_steps=1,
                                               save_summaries_steps=None, save_summaries_secs=None,
                                               log_step_count_steps=None) as sess:
            for _ in range(8):  # well past the default max_to_keep=5
                sess.run(train)
    for p, content in files.items():
        assert p.read_bytes() == content


DAMAGE = [
    ("garbage_bytes", b"\x00\xff\xfe garbage \x01"),
    ("not_a_field", b'model_checkpoint_pathX: "model-1"\n'),
    ("torn_quote", b'model_checkpoint_path: "mod'),
    ("bad_utf8", b'model_checkpoint_path: "\xc3\x28"\n'),
    ("binary_proto", b"\n\x07model-1"),
]


@pytest.mark.parametrize("case,content", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_state_file_warns_naming_it(tmp_path, caplog, case, content):
    g, v, sess = _session_with_variable(1.0)
    with g.as_default():
        Saver().save(sess, str(tmp_path / "model"), global_step=1)
    path = tmp_path / "checkpoint"
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="ref.checkpoint"):
        assert latest_checkpoint(str(tmp_path)) is None
    assert any(str(path) in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_state_file_naming_a_missing_checkpoint_warns(tmp_path, caplog):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model-9"\n')
    with caplog.at_level(logging.WARNING, logger="ref.checkpoint"):
        assert latest_checkpoint(str(tmp_path)) is None
    assert any("model-9" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("sub", ["model", "sub/model"])
def test_save_under_a_regular_file_is_value_error(tmp_path, sub):
    blocker = tmp_path / "regular_file"
    blocker.write_text("x")
    g, v, sess = _session_with_variable(1.0)
    with g.as_default(), pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save."):
        Saver().save(sess, str(blocker / sub))


def test_save_under_a_regular_file_matches_tensorflow(tmp_path):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    blocker = tmp_path / "regular_file"
    blocker.write_text("x")
    with tf1.Graph().as_default():
        tf1.Variable(1.0, name="v")
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save."):
                saver.save(sess, str(blocker / "model"))


def _saved_meta(tmp_path):
    g, v, sess = _session_with_variable(1.0)
    with g.as_default():
        prefix = Saver().save(sess, str(tmp_path / "model"))
    return prefix + ".meta"


def _unknown_field(raw):
    return raw + b"\xf8\x07\x01"  # field 127 (no MetaGraphDef field), varint 1


def _renamed_input(raw):
    i = raw.index(b"save/Const")  # a node input: the bytes still parse, the graph no longer imports
    return raw[:i] + b"save/Cxnst" + raw[i + 10:]


META_DAMAGE = [("unknown_field", _unknown_field, None), ("renamed_input", _renamed_input, ValueError)]


@pytest.mark.parametrize("case,damage,error", META_DAMAGE, ids=[m[0] for m in META_DAMAGE])
def test_corrupted_meta_graph_warns_naming_the_file(tmp_path, caplog, case, damage, error):
    path = _saved_meta(tmp_path)
    with open(path, "rb") as f:
        raw = f.read()
    with caplog.at_level(logging.WARNING, logger="ref.checkpoint"):
        with tf.Graph().as_default():
            tf.train.import_meta_graph(path)  # the intact file: no warning
        assert not caplog.records
        with open(path, "wb") as f:
            f.write(damage(raw))
        with tf.Graph().as_default():
            if error is None:
                tf.train.import_meta_graph(path)
            else:
                with pytest.raises(error):
                    tf.train.import_meta_graph(path)
    assert any(path in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_tensorflow_written_meta_graph_reads_without_warning(tmp_path, caplog):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    with tf1.Graph().as_default():
        tf1.Variable([1.0, 2.0], name="v")
        tf1.get_variable("x", [3])
        tf1.add_to_collection("c1", 1.0)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model"))
    from ref.checkpoint.meta_graph import read_meta_graph_file
    with caplog.at_level(logging.WARNING, logger="ref.checkpoint"):
        read_meta_graph_file(prefix + ".meta")
    assert not caplog.records, [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize("suffix,left", [("meta", ["a1.index", "a1.meta"]),
                                         (None, ["a1.index", "a1.meta", "a[1].meta"])])
def test_remove_checkpoint_in_confines_and_keeps_meta_when_asked(tmp_path, suffix, left):
    for f in ("a[1].index", "a1.index", "a[1].data-00000-of-00001", "a1.meta", "a[1].meta"):
        (tmp_path / f).write_bytes(b"x")
    outside = tmp_path.parent / (tmp_path.name + "_outside")
    outside.mkdir()
    (outside / "v.index").write_bytes(b"x")
    assert not state.remove_checkpoint_in(str(tmp_path), str(tmp_path / ".." / outside.name / "v"))
    assert (outside / "v.index").exists()
    assert state.remove_checkpoint_in(str(tmp_path), str(tmp_path / "a[1]"), meta_graph_suffix=suffix)
    assert _files(tmp_path) == sorted(left)


def _manager_or_skip():
    manager = getattr(tf.train, "CheckpointManager", None)
    if manager is None:
        pytest.skip("this ref has no tf.train.CheckpointManager")
    return manager


@pytest.mark.parametrize("name,neighbour", GLOB_NAMES[:3], ids=[n for n, _ in GLOB_NAMES[:3]])
def test_checkpoint_manager_sweep_spares_glob_neighbours_and_outside_files(tmp_path, name, neighbour):
    manager_cls = _manager_or_skip()
    files = _victim(tmp_path)
    d = tmp_path / "ckpt"
    d.mkdir()
    g, v, sess = _session_with_variable(3.0)
    with g.as_default(), sess.as_default():
        other = Saver(max_to_keep=0)
        for step in (1, 2, 3):
            other.save(sess, str(d / neighbour), global_step=step, latest_filename="other_state")
        neighbour_files = sorted(f for f in os.listdir(d) if f.startswith(neighbour))
        ckpt = tf.train.Checkpoint(v=v)
        manager_cls(ckpt, str(d), max_to_keep=1, checkpoint_name=name).save()
        state_text = (d / "checkpoint").read_text()
        (d / "checkpoint").write_text(state_text.replace("all_model_checkpoint_paths:",
                                                         'all_model_checkpoint_paths: "../outside/victim"\n'
                                                         "all_model_checkpoint_paths:", 1))
        manager = manager_cls(ckpt, str(d), max_to_keep=1, checkpoint_name=name)
        for _ in range(3):
            manager.save()
    assert sorted(f for f in os.listdir(d) if f.startswith(neighbour)) == neighbour_files
    for p, content in files.items():
        assert p.read_bytes() == content
    assert latest_checkpoint(str(d)) == manager.latest_checkpoint
