"""tf.train.Saver (ref/checkpoint/saver.py): var_list forms, checkpoint keys,
global_step naming, the keep rules (specs/saver.py), reshape, sharding, the
SaverDef round trip, and the documented errors. Oracles: the names and values
put in, NumPy, and the rules quoted from seed 003."""
import os

import numpy as np
import pytest

import ref as tf
from ref.types import errors
from ref.checkpoint import NewCheckpointReader, get_checkpoint_state, latest_checkpoint
from ref.checkpoint.saver import BaseSaverBuilder, Saver
from ref.formats.checkpoint_state import V1


def _keys(prefix):
    return sorted(NewCheckpointReader(prefix).get_variable_to_shape_map())


def _model(use_resource=False):
    """w (2x3), b (3), and a partitioned e (4x2 in 2 parts) under scope s."""
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w", use_resource=use_resource)
    b = tf.Variable(np.array([1, 2, 3], np.int64), name="b", use_resource=use_resource)
    with tf.variable_scope("s"):
        e = tf.get_variable("e", [4, 2], initializer=tf.random_normal_initializer(seed=1),
                            partitioner=tf.fixed_size_partitioner(2), use_resource=use_resource)
    return w, b, e


# -- var_list forms and checkpoint keys -----------------------------------------------

VAR_LISTS = [
    # (id, var_list(w, b, e), expected keys)
    ("none", lambda w, b, e: None, ["b", "s/e", "w"]),
    ("list", lambda w, b, e: [w, b], ["b", "w"]),
    ("dict", lambda w, b, e: {"weights": w, "bias": b}, ["bias", "weights"]),
    ("partitioned", lambda w, b, e: e, ["s/e"]),
    ("list_with_partitioned", lambda w, b, e: [w, e], ["s/e", "w"]),
    ("slices_in_dict", lambda w, b, e: {"emb": list(e)}, ["emb"]),
]


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("case,make,keys", VAR_LISTS, ids=[r[0] for r in VAR_LISTS])
def test_var_list_forms_save_under_tf_names_and_restore(tmp_path, case, make, keys, use_resource):
    with tf.Graph().as_default():
        w, b, e = _model(use_resource)
        saver = Saver(make(w, b, e))
        full_e = e.as_tensor()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run([w, b, full_e])
            path = saver.save(sess, str(tmp_path / "model"))
            sess.run([w.assign(tf.zeros_like(w)), b.assign(tf.zeros_like(b))] +
                     [p.assign(tf.zeros_like(p)) for p in e])
            saver.restore(sess, path)
            got = sess.run([w, b, full_e])
    assert path == str(tmp_path / "model")
    assert _keys(path) == keys
    reader = NewCheckpointReader(path)
    for key, value in zip(["w", "b", "s/e"], want):
        if key in keys:
            np.testing.assert_array_equal(reader.get_tensor(key), value)
    saved = {"w": "w" in keys or "weights" in keys, "b": "b" in keys or "bias" in keys,
             "e": "s/e" in keys or "emb" in keys}
    for name, g, v in zip(["w", "b", "e"], got, want):
        np.testing.assert_array_equal(g, v if saved[name] else np.zeros_like(v))


def test_partitioned_variable_is_saved_as_slices_of_its_full_name(tmp_path):
    with tf.Graph().as_default():
        _, _, e = _model()
        saver = Saver([e])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(e.as_tensor())
            path = saver.save(sess, str(tmp_path / "m"))
    from ref.checkpoint import BundleReader
    with BundleReader(path) as r:
        # SaveSliceInfo.spec, as TF writes it
        assert [str(s) for s in r.lookup_tensor_slices("s/e")] == ["0,2:0,2", "2,2:0,2"]
        np.testing.assert_array_equal(r.lookup("s/e"), want)


def test_optimizer_slots_are_saved_under_tf_names(tmp_path):
    from ref.optimizers.adam import AdamOptimizer
    with tf.Graph().as_default():
        w = tf.Variable(np.ones((2, 2), np.float32), name="w")
        train = AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = saver.save(sess, str(tmp_path / "m"))
    assert _keys(path) == ["beta1_power", "beta2_power", "w", "w/Adam", "w/Adam_1"]


# -- global_step and file names ------------------------------------------------------------

GLOBAL_STEPS = [
    ("int", lambda gs: 7, False, "model-7"),
    ("numpy_int", lambda gs: np.int64(7), False, "model-7"),
    ("tensor", lambda gs: gs, False, "model-7"),
    ("tensor_name", lambda gs: gs.name, False, "model-7"),
    ("padded", lambda gs: 7, True, "model-00000007"),
]


@pytest.mark.parametrize("case,step,pad,name", GLOBAL_STEPS, ids=[r[0] for r in GLOBAL_STEPS])
def test_global_step_forms(tmp_path, case, step, pad, name):
    with tf.Graph().as_default():
        gs = tf.constant(7, dtype=tf.int64, name="step")
        tf.Variable(1.0, name="v")
        saver = Saver(pad_step_number=pad)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model"), global_step=step(gs))
    assert path == str(tmp_path / name)
    assert sorted(os.listdir(tmp_path)) == sorted(["checkpoint", name + ".index", name + ".meta",
                                                   name + ".data-00000-of-00001"])
    assert latest_checkpoint(str(tmp_path)) == path


# -- the keep rules (specs/saver.py) -----------------------------------------------------------

KEEP = [
    # (max_to_keep, hours, saves, expected checkpoints on disk, expected state list)
    (5, 10000.0, 3, [1, 2, 3], [1, 2, 3]),
    (2, 10000.0, 4, [3, 4], [3, 4]),
    (1, 10000.0, 3, [3], [3]),
    (0, 10000.0, 3, [1, 2, 3], [3]),
    (None, 10000.0, 3, [1, 2, 3], [3]),
    (1, 1e-9, 3, [1, 2, 3], [3]),   # every pushed-out checkpoint is past the next N-hour mark: all kept
]


@pytest.mark.parametrize("max_to_keep,hours,saves,on_disk,listed", KEEP)
def test_keep_rules(tmp_path, max_to_keep, hours, saves, on_disk, listed):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = Saver(max_to_keep=max_to_keep, keep_checkpoint_every_n_hours=hours)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(1, saves + 1):
                saver.save(sess, str(tmp_path / "m"), global_step=step)
    exist = [s for s in range(1, saves + 1) if os.path.exists(tmp_path / f"m-{s}.index")]
    metas = [s for s in range(1, saves + 1) if os.path.exists(tmp_path / f"m-{s}.meta")]
    assert exist == on_disk and metas == on_disk
    state = get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / f"m-{s}") for s in listed]
    assert saver.last_checkpoints == ([str(tmp_path / f"m-{s}") for s in listed] if max_to_keep else [])


def test_resaving_a_path_moves_it_to_newest(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in (1, 2, 1, 3):
                saver.save(sess, str(tmp_path / "m"), global_step=step)
    assert saver.last_checkpoints == [str(tmp_path / "m-1"), str(tmp_path / "m-3")]
    assert not os.path.exists(tmp_path / "m-2.index")


def test_set_and_recover_last_checkpoints(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = Saver(max_to_keep=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a = saver.save(sess, str(tmp_path / "a"))
            b = saver.save(sess, str(tmp_path / "b"))
            assert not os.path.exists(a + ".index")
            saver.set_last_checkpoints([b])  # timestamp +inf: kept when pushed out
            saver.save(sess, str(tmp_path / "c"))
            assert os.path.exists(b + ".index")
        restored = Saver()
        restored.recover_last_checkpoints([a, b, str(tmp_path / "c")])
        assert restored.last_checkpoints == [b, str(tmp_path / "c")]
        with pytest.raises(AssertionError):
            restored.set_last_checkpoints((b,))
        restored.set_last_checkpoints_with_time([(b, 5.0)])
        assert restored.last_checkpoints == [b]


# -- save options ----------------------------------------------------------------------------

def test_write_state_meta_graph_and_latest_filename(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "a"), write_state=False, write_meta_graph=False)
            assert sorted(os.listdir(tmp_path)) == ["a.data-00000-of-00001", "a.index"]
            saver.save(sess, str(tmp_path / "b"), latest_filename="mine", meta_graph_suffix="mg")
            assert os.path.exists(tmp_path / "b.mg") and os.path.exists(tmp_path / "mine")
            assert latest_checkpoint(str(tmp_path), "mine") == str(tmp_path / "b")
            with pytest.raises(ValueError, match="path components"):
                saver.save(sess, str(tmp_path / "c"), latest_filename="x/y")
            with pytest.raises(ValueError, match="collides"):
                saver.save(sess, str(tmp_path / "checkpoint"))
            with pytest.raises(TypeError, match="Session"):
                saver.save(object(), str(tmp_path / "d"))


def test_save_relative_paths(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = Saver(save_relative_paths=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "m"), global_step=1)
    text = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "m-1"' in text and str(tmp_path) not in text
    assert latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-1")


def test_reshape(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 2), np.float32), name="v")
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="mismatch between the current graph"):
                Saver().restore(sess, path)
            Saver(reshape=True).restore(sess, path)
            np.testing.assert_array_equal(sess.run(v), np.arange(6, dtype=np.float32).reshape(3, 2))


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_sharded_saves_one_bundle_per_device(tmp_path, use_resource):
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.Variable(np.full(3, 1.0, np.float32), name="a", use_resource=use_resource)
        with tf.device("/cpu:1"):
            b = tf.Variable(np.full(2, 2.0, np.float32), name="b", use_resource=use_resource)
        saver = Saver(sharded=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), global_step=1)
            sess.run([a.assign(tf.zeros_like(a)), b.assign(tf.zeros_like(b))])
            saver.restore(sess, path)
            got = sess.run([a, b])
    assert path == str(tmp_path / "m-1")
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("m-1.")) == [
        "m-1.data-00000-of-00002", "m-1.data-00001-of-00002", "m-1.index", "m-1.meta"]
    assert not os.path.exists(tmp_path / "m-1_temp")
    np.testing.assert_array_equal(got[0], np.full(3, 1.0, np.float32))
    np.testing.assert_array_equal(got[1], np.full(2, 2.0, np.float32))


@pytest.mark.parametrize("builder,sequential", [(None, False), (BaseSaverBuilder(), True),
                                                (BaseSaverBuilder(), False)])
def test_builders_and_restore_sequentially(tmp_path, builder, sequential):
    with tf.Graph().as_default() as g:
        v = tf.Variable(np.full(3, 4.0, np.float32), name="v")
        u = tf.Variable(np.full(2, 5.0, np.float32), name="u")
        saver = Saver(builder=builder, restore_sequentially=sequential)
        n_restores = sum(op.type == "RestoreV2" for op in g.get_operations())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
            sess.run([v.assign(tf.zeros_like(v)), u.assign(tf.zeros_like(u))])
            saver.restore(sess, path)
            got = sess.run([v, u])
    assert n_restores == (1 if builder is None else 2)
    np.testing.assert_array_equal(got[0], np.full(3, 4.0, np.float32))
    np.testing.assert_array_equal(got[1], np.full(2, 5.0, np.float32))


# -- SaverDef ----------------------------------------------------------------------------------

def test_saver_def_names_and_from_proto(tmp_path):
    with tf.Graph().as_default() as g:
        v = tf.Variable(3.0, name="v")
        s1 = Saver(name="mine")
        s2 = Saver()
        d = s2.as_saver_def()
        assert (d.filename_tensor_name, d.save_tensor_name, d.restore_op_name) == (
            "save/Const:0", "save/control_dependency:0", "save/restore_all")
        assert s1.as_saver_def().restore_op_name == "mine/restore_all"
        assert s2.to_proto() is d
        assert s1.to_proto(export_scope="mine").restore_op_name == "restore_all"
        assert s1.to_proto(export_scope="other") is None
        assert {op.type for op in g.get_operations() if op.name.startswith("save/")} >= {
            "Const", "PlaceholderWithDefault", "SaveV2", "RestoreV2", "Identity", "Assign", "NoOp"}
        again = Saver.from_proto(d)
        assert again.as_saver_def() == d
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = again.save(sess, str(tmp_path / "m"))
            sess.run(v.assign(0.0))
            s1.restore(sess, path)
            assert sess.run(v) == 3.0


def test_defer_build_and_allow_empty(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        with pytest.raises(ValueError, match="defer"):
            Saver([v], defer_build=True)
        saver = Saver(defer_build=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(RuntimeError, match="build"):
                saver.save(sess, str(tmp_path / "m"))
            saver.build()
            assert saver.save(sess, str(tmp_path / "m")) == str(tmp_path / "m")
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            Saver()
        empty = Saver(allow_empty=True)
        with tf.Session() as sess:
            assert empty.save(sess, str(tmp_path / "e"), write_meta_graph=False) is None
            assert empty.restore(sess, str(tmp_path / "nothing")) is None


def test_invalid_var_lists():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        with pytest.raises(ValueError, match="same name"):
            Saver([v, v])
        with pytest.raises(ValueError, match="two names"):
            Saver({"a": v, "b": v})
        with pytest.raises(TypeError):
            Saver(v)
        with pytest.raises(TypeError):
            Saver([tf.constant(1.0)])
        with pytest.warns(DeprecationWarning, match="V1 checkpoint format has been deprecated"):
            Saver([v], write_version=V1)  # writes V1, as TF does (test_v1_write.py)


# -- restore errors --------------------------------------------------------------------------------

def test_restore_errors_name_what_is_wrong(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.zeros(3, np.float32), name="a")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        tf.Variable(np.zeros(3, np.float32), name="a")
        tf.Variable(np.zeros(3, np.float32), name="missing_var")
        with tf.Session() as sess:
            with pytest.raises(errors.NotFoundError, match="missing_var"):
                Saver().restore(sess, path)
            with pytest.raises(ValueError, match="not a valid checkpoint"):
                Saver().restore(sess, str(tmp_path / "nope"))
            with pytest.raises(ValueError, match="None"):
                Saver().restore(sess, None)
    with tf.Graph().as_default():
        tf.Variable(np.zeros(3, np.float64), name="a")
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="expected dtype double"):
                Saver().restore(sess, path)
    with tf.Graph().as_default():
        tf.Variable(np.zeros(4, np.float32), name="a", use_resource=True)
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError):
                Saver().restore(sess, path)


# -- objects that gather their own saveables (TF's Trackable protocol) ----------

def _owner(lib, base, mirrored):
    """A TF-style trackable owning a resource variable; ``mirrored``: its factory
    returns a ResourceVariableSaveable that restores into two variables."""
    v = lib.get_variable("non_dep_variable", initializer=6.0, use_resource=True)
    m = lib.get_variable("mirrored", initializer=15.0, use_resource=True) if mirrored else None

    class Mirroring(_builder(lib).ResourceVariableSaveable):
        def restore(self, restored_tensors, restored_shapes):
            return lib.group(v.assign(restored_tensors[0]), m.assign(restored_tensors[0]))

    class Owner(base):
        name = property(lambda self: v.name)

        def _gather_saveables_for_checkpoint(self):
            if mirrored:
                return {"VARIABLE_VALUE": lambda name=v.name: Mirroring(v, "", name)}
            return {"VARIABLE_VALUE": v}
    return Owner(), v, m


def _builder(lib):
    if lib is tf:
        return BaseSaverBuilder
    from tensorflow.python.training import saver as tf_saver
    return tf_saver.BaseSaverBuilder


@pytest.mark.parametrize("mirrored", [False, True], ids=["variable", "mirroring_saveable"])
@pytest.mark.parametrize("as_dict", [False, True], ids=["list", "dict"])
def test_saver_of_a_trackable_object_as_tensorflow(tmp_path, mirrored, as_dict):
    """Save, change, restore through the object; the checkpoint keys are TF's."""
    tfv1 = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.trackable import base as tf_trackable
    keys = []
    for lib, base in ((tf, object), (tfv1, tf_trackable.Trackable)):
        prefix = str(tmp_path / f"{lib.__name__}-ckpt")
        with lib.Graph().as_default():
            owner, v, m = _owner(lib, base, mirrored)
            saver = lib.train.Saver({"v": owner} if as_dict else [owner])
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                sess.run(v.assign(42.0))
                path = saver.save(sess, prefix)
                sess.run(v.assign(43.0))
                saver.restore(sess, path)
                assert sess.run(v) == 42.0
                if m is not None:
                    assert sess.run(m) == 42.0
        keys.append(sorted(lib.train.list_variables(path)))
    assert keys[0] == keys[1]
