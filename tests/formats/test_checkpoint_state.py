"""The `checkpoint` state file and checkpoint helpers (ref/formats/checkpoint_state.py)
against tf.compat.v1.train's functions of the same names."""
import os

import numpy as np
import pytest

from ref.checkpoint import BundleWriter

from ref.formats import checkpoint_state as state

tf = pytest.importorskip("tensorflow")
train = tf.compat.v1.train


def _fields(ckpt):
    return (ckpt.model_checkpoint_path, list(ckpt.all_model_checkpoint_paths),
            list(ckpt.all_model_checkpoint_timestamps),
            ckpt.last_preserved_timestamp)


@pytest.mark.parametrize("save_dir,path,all_paths,timestamps,last", [
    ("/abs/dir", "/abs/dir/model-2", ["/abs/dir/model-1", "/abs/dir/model-2"], None, None),
    ("/abs/dir", "model-2", ["model-1"], None, None),
    ("rel/dir", "rel/dir/model-2", ["rel/dir/model-1"], None, None),
    ("rel/dir", "/abs/model-2", ["rel/dir/model-1", "/abs/model-2"], [1.5, 2.5], 1.0),
    ("rel/dir", "model-2", None, None, 3.0),
    ("/abs", "/abs/m", [], [7.25], None),
])
def test_generate_checkpoint_state_proto(save_dir, path, all_paths, timestamps, last):
    ours = state.generate_checkpoint_state_proto(save_dir, path, list(all_paths) if all_paths is not None else None,
                                                 timestamps, last)
    theirs = train.generate_checkpoint_state_proto(save_dir, path, list(all_paths) if all_paths is not None
                                                   else None, timestamps, last)
    assert _fields(ours) == _fields(theirs)


@pytest.mark.parametrize("all_paths", [[], ["model-2"], ["/abs/model-0"]])
def test_generate_appends_to_the_callers_list_as_tf(all_paths):
    """TF appends the new path to the caller's own list (checkpoint_management_test relies on it)."""
    ours, theirs = list(all_paths), list(all_paths)
    state.generate_checkpoint_state_proto("/abs", "/abs/model-0", ours)
    train.generate_checkpoint_state_proto("/abs", "/abs/model-0", theirs)
    assert ours == theirs


def test_generate_rejects_mismatched_timestamps():
    with pytest.raises(ValueError, match="timestamps"):
        state.generate_checkpoint_state_proto("/d", "/d/m-2", ["/d/m-1", "/d/m-2"], [1.0])


@pytest.mark.parametrize("latest_filename", [None, "my_state"])
@pytest.mark.parametrize("relative", [False, True])
def test_update_state_read_by_tf_and_back(tmp_path, latest_filename, relative):
    d = str(tmp_path)
    paths = [os.path.join(d, "model-1"), os.path.join(d, "model-2")]
    if relative:
        state.update_checkpoint_state_internal(d, paths[1], paths, latest_filename, save_relative_paths=True,
                                               all_model_checkpoint_timestamps=[10.0, 20.0],
                                               last_preserved_timestamp=5.0)
        text = open(os.path.join(d, latest_filename or "checkpoint")).read()
        assert 'model_checkpoint_path: "model-2"' in text
    else:
        state.update_checkpoint_state(d, paths[1], paths, latest_filename, [10.0, 20.0], 5.0)
    theirs = train.get_checkpoint_state(d, latest_filename)
    assert _fields(theirs) == (paths[1], paths, [10.0, 20.0], 5.0)
    assert _fields(state.get_checkpoint_state(d, latest_filename)) == _fields(theirs)
    # and TF's file read by ours
    train.update_checkpoint_state(d, paths[0], paths[:1], latest_filename)
    assert _fields(state.get_checkpoint_state(d, latest_filename)) == _fields(
        train.get_checkpoint_state(d, latest_filename))
    assert [p for p in os.listdir(d) if "tmp" in p] == []


@pytest.mark.parametrize("content,expected", [
    (None, None),                               # no file
    ("garbage {{{", None),                      # does not parse
    ('model_checkpoint_path: ""', ValueError),  # parses but empty
])
def test_get_checkpoint_state_bad_files(tmp_path, content, expected):
    if content is not None:
        (tmp_path / "checkpoint").write_text(content)
    for impl in (state.get_checkpoint_state, train.get_checkpoint_state):
        if expected is ValueError:
            with pytest.raises(ValueError):
                impl(str(tmp_path))
        else:
            assert impl(str(tmp_path)) is expected


def test_update_conflicting_path_raises(tmp_path):
    with pytest.raises(RuntimeError, match="conflicts"):
        state.update_checkpoint_state(str(tmp_path), str(tmp_path / "checkpoint"))


def _write_v2(prefix):
    with BundleWriter(prefix) as w:
        w.add("v", np.zeros(2, np.float32))


def _write_v1(prefix):
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.get_variable("v", initializer=np.float32([1, 2]))
        saver = train.Saver(write_version=tf.compat.v1.train.SaverDef.V1)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            return saver.save(sess, prefix, write_meta_graph=True, write_state=True)


@pytest.mark.parametrize("kind", ["v2", "v1", "missing", "state_only"])
def test_latest_checkpoint_and_exists(tmp_path, kind):
    d = str(tmp_path)
    prefix = os.path.join(d, "model.ckpt-5")
    if kind == "v2":
        _write_v2(prefix)
    elif kind == "v1":
        prefix = _write_v1(prefix)
    if kind != "missing":
        train.update_checkpoint_state(d, prefix)
    assert state.latest_checkpoint(d) == train.latest_checkpoint(d)
    assert state.checkpoint_exists(prefix) == train.checkpoint_exists(prefix) == (kind in ("v1", "v2"))
    assert state.get_checkpoint_mtimes([prefix, prefix + "x"]) == train.get_checkpoint_mtimes([prefix, prefix + "x"])


@pytest.mark.parametrize("version", [state.V2, state.V1])
def test_remove_checkpoint_like_tf(tmp_path, version):
    def make(d):
        os.makedirs(d)
        prefix = os.path.join(d, "m-3")
        if version == state.V2:
            _write_v2(prefix)
        else:
            open(prefix, "wb").write(b"x")
        open(prefix + ".meta", "wb").write(b"x")
        open(os.path.join(d, "m-30.index"), "wb").write(b"x")  # a neighbour that must survive
        return prefix
    a, b = make(str(tmp_path / "ours")), make(str(tmp_path / "tf"))
    state.remove_checkpoint(a, version)
    train.remove_checkpoint(b, version)
    assert sorted(os.listdir(tmp_path / "ours")) == sorted(os.listdir(tmp_path / "tf")) == ["m-30.index"]


@pytest.mark.parametrize("name,expected", [("a/model.ckpt-3", "a/model.ckpt-3.meta"),
                                           ("model.ckpt-3-00000-of-00002", "model.ckpt-3.meta"),
                                           ("model.ckpt-?????-of-00002", "model.ckpt.meta")])
def test_meta_graph_filename(name, expected):
    assert state.meta_graph_filename(name) == expected
